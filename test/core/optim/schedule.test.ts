import { describe, expect, it } from 'vitest';
import { learningRateAt } from '../../../src/core/optim/schedule';

describe('learningRateAt', () => {
  it('constant ignores the ratio', () => {
    expect([1, 3, 5].map((s) => learningRateAt(2e-3, 'constant', 0.1, s, 5))).toEqual([2e-3, 2e-3, 2e-3]);
  });
  it('linear: base at step 1, base·r at the last step, straight in between', () => {
    // p = 0, 0.25, 0.5, 0.75, 1 → factor r + (1−r)(1−p) with r = 0.2: 1, 0.8, 0.6, 0.4, 0.2
    const v = [1, 2, 3, 4, 5].map((s) => learningRateAt(1, 'linear', 0.2, s, 5));
    [1, 0.8, 0.6, 0.4, 0.2].forEach((x, i) => expect(v[i]).toBeCloseTo(x, 12));
  });
  it('cosine: half-way is the mean of base and base·r; a quarter of the way is r + (1−r)(1+cos π/4)/2', () => {
    const v = [1, 2, 3, 4, 5].map((s) => learningRateAt(1e-3, 'cosine', 0, s, 5));
    expect(v[0]).toBeCloseTo(1e-3, 15);
    expect(v[1]).toBeCloseTo((1e-3 * (1 + Math.SQRT1_2)) / 2, 15); // 0.853553…e-3
    expect(v[2]).toBeCloseTo(0.5e-3, 15);
    expect(v[4]).toBeCloseTo(0, 15);
    expect(learningRateAt(1e-3, 'cosine', 0.1, 3, 5)).toBeCloseTo(0.55e-3, 15);
  });
  it('a one-step run uses the base rate', () => {
    expect(learningRateAt(1e-3, 'cosine', 0, 1, 1)).toBe(1e-3);
  });
  it('rejects bad arguments naming them', () => {
    expect(() => learningRateAt(0, 'linear', 0, 1, 2)).toThrow(/base must be > 0/);
    expect(() => learningRateAt(1e-3, 'linear', 1.5, 1, 2)).toThrow(/minLrRatio must be in \[0, 1\]/);
    expect(() => learningRateAt(1e-3, 'linear', 0, 3, 2)).toThrow(/step must be an integer in \[1, 2\]/);
    expect(() => learningRateAt(1e-3, 'linear', 0, 1, 0)).toThrow(/totalSteps must be an integer ≥ 1/);
    expect(() => learningRateAt(1e-3, 'step' as never, 0, 1, 2)).toThrow(
      /unknown schedule "step"; accepted: constant, linear, cosine/,
    );
  });
});
