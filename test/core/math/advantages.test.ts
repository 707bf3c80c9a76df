import { describe, expect, it } from 'vitest';
import { grpoAdvantage, getOutcomeEstimator } from '../../../src/core/math/advantages';

const ms = { norm: 'mean-std', groupBy: 'trajectory', eps: 1e-6 } as const;

describe('GRPO outcome advantage (hand-computed)', () => {
  it('all-equal group → all zero', () => {
    expect(grpoAdvantage({ scores: [1, 1, 1], groups: [0, 0, 0], lengths: [2, 3, 4] }, ms)).toEqual([0, 0, 0]);
    expect(grpoAdvantage({ scores: [0, 0], groups: [0, 0], lengths: [1, 1] }, ms)).toEqual([0, 0]);
  });
  it('singleton group → zero', () => {
    expect(grpoAdvantage({ scores: [1], groups: [7], lengths: [3] }, ms)).toEqual([0]);
  });
  it('mixed group: (S−μ)/(σ+ε) with unbiased σ', () => {
    // μ = 0.5, σ² = 4·0.25/3 = 1/3, σ = 0.577350…
    const a = grpoAdvantage({ scores: [1, 0, 0, 1], groups: [0, 0, 0, 0], lengths: [1, 1, 1, 1] }, ms);
    const v = 0.5 / (Math.sqrt(1 / 3) + 1e-6);
    expect(a[0]).toBeCloseTo(v, 10);
    expect(a[1]).toBeCloseTo(-v, 10);
    expect(v).toBeCloseTo(0.866024, 5);
  });
  it('mean-only (Dr. GRPO): S − μ', () => {
    const a = grpoAdvantage(
      { scores: [1, 0, 0, 0], groups: [0, 0, 0, 0], lengths: [1, 1, 1, 1] },
      { ...ms, norm: 'mean-only' },
    );
    expect(a).toEqual([0.75, -0.25, -0.25, -0.25]);
  });
  it('groups are normalised separately', () => {
    const a = grpoAdvantage(
      { scores: [1, 0, 5, 5], groups: [0, 0, 1, 1], lengths: [1, 1, 1, 1] },
      { ...ms, norm: 'mean-only' },
    );
    expect(a).toEqual([0.5, -0.5, 0, 0]);
  });
  it('step grouping weighs each trajectory by its number of steps', () => {
    // weights 1 and 3: μ = 0.25, σ² = (1·0.5625 + 3·0.0625)/3 = 0.25, σ = 0.5
    const a = grpoAdvantage({ scores: [1, 0], groups: [0, 0], lengths: [1, 3] }, { ...ms, groupBy: 'step', eps: 0 });
    expect(a[0]).toBeCloseTo(1.5, 12);
    expect(a[1]).toBeCloseTo(-0.5, 12);
  });
  it('unknown estimator names the known ones', () => {
    expect(() => getOutcomeEstimator('ppo')).toThrow(/unknown advantage estimator "ppo"; known: grpo/);
  });
});

describe('equal scores give advantages of exactly 0', () => {
  it('GRPO over trajectories and over steps, GiGPO step groups', async () => {
    const { grpoAdvantage, stepGroupAdvantages } = await import('../../../src/core/math/advantages');
    for (const norm of ['mean-std', 'mean-only'] as const) {
      expect(
        grpoAdvantage(
          { scores: [0.1, 0.1, 0.1], groups: [0, 0, 0], lengths: [1, 2, 3] },
          { norm, groupBy: 'trajectory', eps: 1e-6 },
        ),
      ).toEqual([0, 0, 0]);
      expect(
        grpoAdvantage(
          { scores: [0.7, 0.7, 0.7, 0.7], groups: [0, 0, 0, 0], lengths: [3, 1, 4, 1] },
          { norm, groupBy: 'step', eps: 1e-6 },
        ),
      ).toEqual([0, 0, 0, 0]);
      const st = stepGroupAdvantages(
        { groups: [0, 0, 0], anchors: [['a'], ['a'], ['a']], rewards: [[0.1], [0.1], [0.1]] },
        { gamma: 0.95, norm, eps: 1e-6 },
      );
      expect(st).toEqual([[0], [0], [0]]);
    }
  });
});
