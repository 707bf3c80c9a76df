import { describe, expect, it } from 'vitest';
import {
  applySkillVariant,
  centredSkillAdvantage,
  combineAdvantages,
  perActionSkillAdvantage,
  routeSkills,
  skillAdvantage,
  skillMetrics,
  skillWhereEpZero,
  studentSkillKl,
} from '../../../src/core/math/skill';

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

/**
 * The A_skill variants (beyond the paper: OPID, Yang et al. 2026, Eq. for A_skill) on a hand-made step: two actions of
 * 3 and 2 tokens, ℓ_skill and ℓ_old given, so Δℓ = ℓ_skill − ℓ_old = [0.5, 0, −1 | 0.5, −1] nats;
 * action 1's trajectory has A_ep = 0 (a silent group), action 2's A_ep = 0.8.
 */
describe('A_skill variants on two actions of 3 and 2 tokens', () => {
  const lSkill = [-1, -0.5, -2, -0.2, -1.5],
    lOld = [-1.5, -0.5, -1, -0.7, -0.5];
  const aSkill = Float32Array.from(lSkill.map((l, i) => skillAdvantage(l, lOld[i])));
  const active = Uint8Array.from([1, 1, 1, 1, 1]);
  const aEp = Float32Array.from([0, 0, 0, 0.8, 0.8]);
  const lengths = [3, 2];
  const x = { aSkill, active, aEp, lengths };

  it('paper: Δℓ per token, the very arrays given (so A is bit for bit the paper’s)', () => {
    expect(Array.from(aSkill)).toEqual([0.5, 0, -1, 0.5, -1]);
    const v = applySkillVariant('paper', x);
    expect(v.aSkill).toBe(aSkill);
    expect(v.active).toBe(active);
  });

  it('per-action: each token gets its action’s mean Δℓ: −1/6 ×3, then −0.25 ×2', () => {
    const v = applySkillVariant('per-action', x);
    expect(Array.from(v.aSkill)).toEqual(Array.from(Float32Array.from([-1 / 6, -1 / 6, -1 / 6, -0.25, -0.25])));
    expect(v.active).toBe(active);
    expect(() => perActionSkillAdvantage(aSkill, [3, 3])).toThrow(
      'perActionSkillAdvantage: the action lengths sum to 6, A_skill has 5 tokens',
    );
  });

  it('where-ep-zero: Δℓ on the A_ep = 0 action only, and only those tokens stay active', () => {
    const v = applySkillVariant('where-ep-zero', x);
    expect(Array.from(v.aSkill)).toEqual([0.5, 0, -1, 0, 0]);
    expect(Array.from(v.active)).toEqual([1, 1, 1, 0, 0]);
    expect(() => skillWhereEpZero(aSkill, active, new Float32Array(4))).toThrow(
      'skillWhereEpZero: A_skill, active and A_ep hold 5, 5 and 4 tokens',
    );
  });

  it('centred: Δℓ + KL per token; refused without the KL', () => {
    const kl = Float32Array.from([0.1, 0.2, 0.3, 0.4, 0.5]);
    const v = applySkillVariant('centred', { ...x, kl });
    expect(Array.from(v.aSkill)).toEqual(Array.from(Float32Array.from([0.6, 0.2, -0.7, 0.9, -0.5])));
    expect(() => applySkillVariant('centred', x)).toThrow(
      'applySkillVariant: centred needs KL(π ‖ π_skill) per action token (5), got none',
    );
  });

  it('A = A_ep + λ·A_skill of each variant (λ 0.5, no z-score, no clip)', () => {
    const o = { lambda: 0.5, zscore: false, clip: 0 };
    const kl = Float32Array.from([0.1, 0.2, 0.3, 0.4, 0.5]);
    const adv = (v: 'paper' | 'centred' | 'per-action' | 'where-ep-zero') => {
      const a = applySkillVariant(v, { ...x, kl });
      return Array.from(combineAdvantages(aEp, a.aSkill, a.active, o).adv);
    };
    const f = (xs: number[]) => Array.from(Float32Array.from(xs));
    expect(adv('paper')).toEqual(f([0.25, 0, -0.5, 0.8 + 0.25, 0.8 - 0.5]));
    expect(adv('centred')).toEqual(f([0.3, 0.1, -0.35, 0.8 + Math.fround(0.9) * 0.5, 0.8 - 0.25]));
    expect(adv('per-action')).toEqual(f([-1 / 12, -1 / 12, -1 / 12, 0.8 - 0.125, 0.8 - 0.125]));
    expect(adv('where-ep-zero')).toEqual(f([0.25, 0, -0.5, 0.8, 0.8]));
  });

  it('where-ep-zero with the z-score: mean and s.d. over the kept tokens only', () => {
    const a = applySkillVariant('where-ep-zero', x);
    const used = combineAdvantages(aEp, a.aSkill, a.active, { lambda: 1, zscore: true, clip: 0 }).aSkillUsed;
    // kept Δℓ 0.5, 0, −1: mean −1/6, s.d. √(E[Δℓ²] − mean²) = √(5/12 − 1/36) = √(7/18)
    const sd = Math.sqrt(7 / 18);
    [0.5, 0, -1].forEach((d, i) => expect(used[i]).toBeCloseTo((d + 1 / 6) / (sd + 1e-6), 6));
    expect([used[3], used[4]]).toEqual([0, 0]);
  });
});

describe('KL(π ‖ π_skill) and the centred A_skill on two small distributions', () => {
  // π = (0.5, 0.25, 0.25), π_skill = (0.25, 0.5, 0.25); a fourth, masked id (log-prob −1e9) on both sides.
  const ln = Math.log;
  const student = [ln(0.5), ln(0.25), ln(0.25), -1e9],
    skill = [ln(0.25), ln(0.5), ln(0.25), -1e9];

  it('KL = 0.5·ln 2 − 0.25·ln 2 = 0.25·ln 2; the masked id adds nothing; KL(π ‖ π) = 0', () => {
    expect(studentSkillKl(student, skill)).toBeCloseTo(0.25 * Math.LN2, 12);
    expect(studentSkillKl(student.slice(0, 3), skill.slice(0, 3))).toBeCloseTo(0.25 * Math.LN2, 12);
    expect(studentSkillKl(student, student)).toBe(0);
  });

  it('centred A per sampled token: −0.75·ln 2, 1.25·ln 2, 0.25·ln 2; its mean under π is 0', () => {
    const kl = studentSkillKl(student, skill);
    const a = [0, 1, 2].map((y) => centredSkillAdvantage(skillAdvantage(skill[y], student[y]), kl));
    expect(a[0]).toBeCloseTo(-0.75 * Math.LN2, 12);
    expect(a[1]).toBeCloseTo(1.25 * Math.LN2, 12);
    expect(a[2]).toBeCloseTo(0.25 * Math.LN2, 12);
    expect(0.5 * a[0] + 0.25 * a[1] + 0.25 * a[2]).toBeCloseTo(0, 12);
  });

  it('refuses arrays of other lengths and an all −Infinity student', () => {
    expect(() => studentSkillKl([0], [0, 0])).toThrow(
      'studentSkillKl: need two non-empty arrays of the same length (got 1 and 2)',
    );
    expect(() => studentSkillKl([-Infinity], [0])).toThrow('studentSkillKl: every student log-prob is -Infinity');
  });
});
