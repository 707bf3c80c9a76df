import { describe, expect, it } from 'vitest';
import { skillMetrics, skillMetricsByType } from '../../../src/core/math/skill';

describe('OPID metrics per task type', () => {
  // Trajectories: 0 pick (tokens 0, 1), 1 look (token 2), 2 pick (token 3), 3 look (token 4, no skill routed).
  const aEp = Float32Array.from([1, 1, -1, 0.5, 0.7]);
  const aSkill = Float32Array.from([0.2, 0.4, 0.3, -0.1, 0]);
  const active = Uint8Array.from([1, 1, 1, 1, 0]);
  const tokenTraj = Int32Array.from([0, 0, 1, 2, 3]);
  const lambda = 0.5;
  const adv = Float32Array.from(aEp.map((e, i) => e + lambda * aSkill[i]));

  it("splits the tokens by their trajectory's task type and measures each part (hand-computed)", () => {
    const m = skillMetricsByType(aEp, aSkill, adv, active, tokenTraj, ['pick', 'look', 'pick', 'look'], lambda);
    expect(Object.keys(m)).toEqual(['pick', 'look']);
    // pick: Σ|λ·A_skill| = 0.5·(0.2 + 0.4 + 0.1) = 0.35, Σ|A| = 1.1 + 1.2 + 0.45 = 2.75; trajectory 0 agrees (mean
    // 0.3 > 0, A_ep 1), trajectory 2 does not (−0.1 vs 0.5).
    expect(m.pick.teacherShare).toBeCloseTo(0.35 / 2.75, 6);
    expect(m.pick).toMatchObject({
      skillActiveTokenRatio: 1,
      skillSignAgreement: 0.5,
      trajectories: 2,
      tokens: 3,
      agreementCounted: 2,
    });
    // look: Σ|λ·A_skill| = 0.15, Σ|A| = 0.85 + 0.7; trajectory 1 disagrees (0.3 vs −1); trajectory 3 has no skill
    // tokens.
    expect(m.look.teacherShare).toBeCloseTo(0.15 / 1.55, 6);
    expect(m.look).toMatchObject({
      skillActiveTokenRatio: 0.5,
      skillSignAgreement: 0,
      trajectories: 2,
      tokens: 2,
      agreementCounted: 1,
    });
  });

  it("one task type gives the whole step's metrics", () => {
    const m = skillMetricsByType(aEp, aSkill, adv, active, tokenTraj, ['pick', 'pick', 'pick', 'pick'], lambda);
    expect(m.pick).toEqual({
      ...skillMetrics(aEp, aSkill, adv, active, tokenTraj, lambda),
      trajectories: 4,
      tokens: 5,
      agreementCounted: 3,
    });
  });

  it('a token of a trajectory without a task type is refused', () => {
    expect(() => skillMetricsByType(aEp, aSkill, adv, active, tokenTraj, ['pick', 'look'], lambda)).toThrow(
      /token 3 belongs to trajectory 2, but trajType has 2 entries/,
    );
  });
});
