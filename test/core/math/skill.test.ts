import { describe, expect, it } from 'vitest';
import { combineAdvantages, routeSkills, skillMetrics } from '../../../src/core/math/skill';

const skills = {
  episodeSkill: 'plan: go to desk 1, then take box 1 from desk 1.',
  stepSkills: { 1: 'next, take box 1 from desk 1.' },
};

describe('OPID routing', () => {
  it('critical-first: a critical step gets only its step skill, the others only the episode skill', () => {
    const { routes, critical } = routeSkills(skills, 3, 'none');
    expect(critical).toEqual([false, true, false]);
    expect(routes).toEqual([
      [{ episodeSkill: skills.episodeSkill, critical: false }],
      [{ stepSkill: skills.stepSkills[1], critical: true }],
      [{ episodeSkill: skills.episodeSkill, critical: false }],
    ]);
  });

  it('additive: every step scored with the episode skill, critical steps also with only their step skill', () => {
    const { routes } = routeSkills(skills, 2, 'additive');
    expect(routes).toEqual([
      [{ episodeSkill: skills.episodeSkill, critical: false }],
      [
        { episodeSkill: skills.episodeSkill, critical: true },
        { stepSkill: skills.stepSkills[1], critical: true },
      ],
    ]);
  });

  it('ablations zero the right terms: no-episode leaves non-critical steps unscored, no-step empties C_τ', () => {
    expect(routeSkills(skills, 3, 'no-episode').routes).toEqual([
      [],
      [{ stepSkill: skills.stepSkills[1], critical: true }],
      [],
    ]);
    const ns = routeSkills(skills, 2, 'no-step');
    expect(ns.critical).toEqual([false, false]);
    expect(ns.routes).toEqual([
      [{ episodeSkill: skills.episodeSkill, critical: false }],
      [{ episodeSkill: skills.episodeSkill, critical: false }],
    ]);
    expect(routeSkills(null, 2, 'none').routes).toEqual([[], []]);
    // Step keys outside the trajectory are ignored.
    expect(routeSkills({ episodeSkill: '', stepSkills: { 5: 'x' } }, 2, 'none').critical).toEqual([false, false]);
  });
});

describe('skill advantage: a two-step toy with known log-probs', () => {
  // Step 0 has 2 action tokens, step 1 has 1. ℓ_old = [−1.0, −0.5, −2.0]; with skills ℓ_skill = [−0.4,
  // −0.5, −2.5].
  const lOld = Float32Array.from([-1.0, -0.5, -2.0]);
  const lSkill = Float32Array.from([-0.4, -0.5, -2.5]);
  const aSkill = Float32Array.from(lSkill.map((v, i) => v - lOld[i])); // [0.6, 0, −0.5]
  const aEp = Float32Array.from([1, 1, 1]);
  const active = Uint8Array.from([1, 1, 1]);

  it('A = A_ep + λ·(ℓ_skill − ℓ_old)', () => {
    const { adv, aSkillUsed } = combineAdvantages(aEp, aSkill, active, { lambda: 0.5, zscore: false, clip: 0 });
    expect(Array.from(aSkillUsed)).toEqual([Math.fround(0.6), 0, Math.fround(-0.5)].map((x) => Math.fround(x)));
    expect(adv[0]).toBeCloseTo(1.3, 6);
    expect(adv[1]).toBeCloseTo(1.0, 6);
    expect(adv[2]).toBeCloseTo(0.75, 6);
  });

  it('z-score over active tokens, then clip', () => {
    // mean 0.0333…, population sd 0.4497…
    const { aSkillUsed } = combineAdvantages(aEp, aSkill, active, { lambda: 1, zscore: true, clip: 1 });
    const mu = (0.6 + 0 - 0.5) / 3,
      sd = Math.sqrt(((0.6 - mu) ** 2 + mu ** 2 + (-0.5 - mu) ** 2) / 3);
    expect(aSkillUsed[0]).toBeCloseTo(Math.min(1, (0.6 - mu) / sd), 4);
    expect(aSkillUsed[2]).toBeCloseTo(Math.max(-1, (-0.5 - mu) / sd), 4);
    expect(aSkillUsed[0]).toBe(1); // (0.6−0.033)/0.45 = 1.26 → clipped
  });

  it('silent groups (A_ep exactly 0) get silentScale·λ; the default 1 is the same vector bit for bit', () => {
    const ep = Float32Array.from([0, 1, 0]);
    const { adv } = combineAdvantages(ep, aSkill, active, { lambda: 0.1, zscore: false, clip: 0, silentScale: 10 });
    // token 0: 0 + 1.0·0.6; token 1: 1 + 0.1·0 (A_ep ≠ 0 keeps λ); token 2: 0 + 1.0·(−0.5)
    expect(adv[0]).toBeCloseTo(0.6, 6);
    expect(adv[1]).toBe(1);
    expect(adv[2]).toBeCloseTo(-0.5, 6);
    const plain = combineAdvantages(ep, aSkill, active, { lambda: 0.1, zscore: false, clip: 0 }).adv;
    expect(
      Array.from(combineAdvantages(ep, aSkill, active, { lambda: 0.1, zscore: false, clip: 0, silentScale: 1 }).adv),
    ).toEqual(Array.from(plain));
    expect(plain[0]).toBeCloseTo(0.06, 6);
    // teacher share with the per-token λ: (0.6 + 0 + 0.5) / (0.6 + 1 + 0.5)
    const m = skillMetrics(ep, aSkill, adv, active, Int32Array.from([0, 1, 2]), 0.1, aSkill, 10);
    expect(m.teacherShare).toBeCloseTo(1.1 / 2.1, 6);
  });

  it('metrics: teacher share, active ratio, sign agreement', () => {
    const { adv, aSkillUsed } = combineAdvantages(aEp, aSkill, active, { lambda: 0.5, zscore: false, clip: 0 });
    // tokens 0,1 belong to trajectory 0 (A_ep = 1, mean A_skill 0.3 > 0: agrees); token 2 to trajectory 1 (A_ep = 1,
    // A_skill −0.5: disagrees)
    const m = skillMetrics(aEp, aSkillUsed, adv, Uint8Array.from([1, 1, 1]), Int32Array.from([0, 0, 1]), 0.5);
    expect(m.teacherShare).toBeCloseTo((0.3 + 0 + 0.25) / (1.3 + 1.0 + 0.75), 6);
    expect(m.skillActiveTokenRatio).toBe(1);
    expect(m.skillSignAgreement).toBe(0.5);
    const m2 = skillMetrics(aEp, aSkillUsed, adv, Uint8Array.from([1, 1, 0]), Int32Array.from([0, 0, 1]), 0.5);
    expect(m2.skillActiveTokenRatio).toBeCloseTo(2 / 3, 6);
    expect(m2.skillSignAgreement).toBe(1);
    // Sign agreement reads the raw gains: a z-score that flips trajectory 1's sign does not change it.
    const raw = Float32Array.from([0.6, 0, -0.5]),
      used = Float32Array.from([0.6, 0, 0.4]);
    expect(
      skillMetrics(aEp, used, adv, Uint8Array.from([1, 1, 1]), Int32Array.from([0, 0, 1]), 0.5, raw).skillSignAgreement,
    ).toBe(0.5);
    expect(
      skillMetrics(aEp, used, adv, Uint8Array.from([1, 1, 1]), Int32Array.from([0, 0, 1]), 0.5).skillSignAgreement,
    ).toBe(1);
  });
});
