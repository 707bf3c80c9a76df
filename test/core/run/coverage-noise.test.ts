/** The coverage report's noise baseline (src/core/run/coverage-noise.ts): exact binomial and Poisson-binomial sums. */
import { describe, expect, it } from 'vitest';
import {
  binomialTail,
  gapNoiseNote,
  noiseBaseline,
  poissonBinomial,
  pooledPassRates,
} from '../../../src/core/run/coverage-noise';
import { coverage } from '../../../src/core/run/coverage';
import { type ValRecord } from '../../../src/core/run/record';

describe('binomial tail and Poisson-binomial distribution', () => {
  it('P(Bin(4, 0.5) ≥ 2) = (6 + 4 + 1) / 16; P(Bin(3, 0.4) ≥ 2) = 3·0.4²·0.6 + 0.4³', () => {
    expect(binomialTail(4, 0.5, 2)).toBeCloseTo(11 / 16, 15);
    expect(binomialTail(3, 0.4, 2)).toBeCloseTo(0.352, 15);
    expect(binomialTail(4, 0.3, 0)).toBeCloseTo(1, 15);
    expect(binomialTail(4, 0, 1)).toBe(0);
    expect(binomialTail(4, 1, 4)).toBeCloseTo(1, 15);
  });
  it('Bernoulli(0.5) + Bernoulli(0.25) takes 0, 1, 2 with 0.375, 0.5, 0.125', () => {
    const d = poissonBinomial([0.5, 0.25]);
    expect(d).toHaveLength(3);
    [0.375, 0.5, 0.125].forEach((x, k) => expect(d[k]).toBeCloseTo(x, 15));
    expect(poissonBinomial([])).toEqual([1]);
  });
  it('refuses bad arguments with the argument named', () => {
    expect(() => binomialTail(2.5, 0.5, 1)).toThrow(/n must be an integer ≥ 0, got 2.5/);
    expect(() => binomialTail(4, 1.5, 1)).toThrow(/p must be in \[0, 1\], got 1.5/);
    expect(() => poissonBinomial([0.2, -0.1])).toThrow(/probability 1 must be in \[0, 1\]/);
    expect(() => noiseBaseline([0.5], 0, 2, 0.5)).toThrow(/samples must be an integer ≥ 1, got 0/);
    expect(() => noiseBaseline([0.5], 4, 0, 0.5)).toThrow(/checkpoints must be an integer ≥ 1, got 0/);
    expect(() => noiseBaseline([0.5], 4, 2, 0)).toThrow(/solvedAt must be in \(0, 1\]/);
    expect(() => noiseBaseline([0.5, 2], 4, 2, 0.5)).toThrow(/val task 1 must be in \[0, 1\], got 2/);
    expect(() => pooledPassRates([[0.5, 0], [1]])).toThrow(/row 1 has 1 pass rates, row 0 has 2/);
  });
});

describe('noise baseline: every checkpoint the same policy', () => {
  it('two tasks, r 4, K 2 — hand-computed union, best and gap', () => {
    // s_0 = P(Bin(4, 0.5) ≥ 2) = 0.6875; s_1 = P(Bin(4, 0.25) ≥ 2) = 1 − 0.75⁴ − 4·0.25·0.75³ =
    // 0.26171875. E[union] = (1 − 0.3125²) + (1 − 0.73828125²) = 0.90234375 + 0.4549407958984375. X ~ {0:
    // 0.3125·0.73828125, 1: 0.6875·0.73828125 + 0.3125·0.26171875, 2: 0.6875·0.26171875}
    //   = {0.230712890625, 0.58935546875, 0.179931640625}; E[max of 2] = (1 − 0.230712890625²) + (1 −
    //   0.820068359375²).
    const b = noiseBaseline([0.5, 0.25], 4, 2, 0.5);
    const best = 1 - 0.230712890625 ** 2 + 1 - 0.820068359375 ** 2;
    expect(b.expectedUnion).toBeCloseTo(1.3572845458984375, 14);
    expect(b.expectedBest).toBeCloseTo(best, 14);
    expect(b.expectedBest).toBeCloseTo(1.2742594480514526, 12);
    expect(b.expectedGap).toBeCloseTo(1.3572845458984375 - best, 14);
    expect(b).toMatchObject({ samples: 4, checkpoints: 2 });
  });
  it('one checkpoint has no gap; certain tasks are solved by all and unsolvable ones by none', () => {
    const one = noiseBaseline([0.4, 0.7], 3, 1, 0.5); // k_min = 2 of 3
    expect(one.expectedUnion).toBeCloseTo(binomialTail(3, 0.4, 2) + binomialTail(3, 0.7, 2), 14);
    expect(one.expectedBest).toBeCloseTo(one.expectedUnion, 14);
    expect(one.expectedGap).toBeCloseTo(0, 14);
    const sure = noiseBaseline([1, 1, 0], 4, 5, 0.5);
    expect(sure.expectedUnion).toBeCloseTo(2, 14);
    expect(sure.expectedBest).toBeCloseTo(2, 14);
  });
  it('more samples per task shrink the gap for the same pooled rates', () => {
    const rates = [0.4, 0.45, 0.3, 0.55, 0.2, 0.6];
    expect(noiseBaseline(rates, 16, 15, 0.5).expectedGap).toBeLessThan(noiseBaseline(rates, 4, 15, 0.5).expectedGap);
  });
});

describe('coverage report carries the noise baseline', () => {
  it('pools each task over the checkpoints and uses the record r and K, plus r = 16', () => {
    const v: ValRecord = {
      format: 'opd-playground-val',
      version: 1,
      preset: 'default',
      tasks: 2,
      samples: 4,
      taskTypes: ['pick', 'heat'],
      checkpoints: [
        { step: 10, passRates: [0.75, 0.5] },
        { step: 20, passRates: [0.25, 0] },
      ],
    };
    expect(pooledPassRates(v.checkpoints.map((c) => c.passRates))).toEqual([0.5, 0.25]);
    const r = coverage(v);
    expect(r.noise.atRecorded).toEqual(noiseBaseline([0.5, 0.25], 4, 2, 0.5));
    expect(r.noise.atMoreSamples).toEqual(noiseBaseline([0.5, 0.25], 16, 2, 0.5));
  });
});

describe("the distillation stage's gap line", () => {
  const noise = { samples: 4, checkpoints: 15, expectedBest: 17.2, expectedUnion: 29.1, expectedGap: 11.9 };
  it('warns when the observed gap is at most 1.5× the noise gap', () => {
    expect(gapNoiseNote(11, noise)).toBe(
      'union − best: 11 val tasks; validation noise alone gives 11.9 (one policy, 4 episodes per task, ' +
        '15 checkpoints) — most of the gap may be luck, so expect little to distil; validating the source ' +
        'with more episodes per task (train it with --val-samples 16, or npx tsx scripts/revalidate.ts ' +
        '--run DIR --samples 16 --out FILE) tells luck from real differences',
    );
    expect(gapNoiseNote(17, noise)).toMatch(/most of the gap may be luck/); // 17 ≤ 17.85
  });
  it('states both numbers only when the gap is well above the noise', () => {
    expect(gapNoiseNote(18, noise)).toBe(
      'union − best: 18 val tasks; validation noise alone gives 11.9 (one policy, 4 episodes per task, ' +
        '15 checkpoints)',
    );
    expect(gapNoiseNote(1, { ...noise, expectedGap: 0 })).toBe(
      'union − best: 1 val task; validation noise alone gives 0.0 (one policy, 4 episodes per task, 15 checkpoints)',
    );
  });
});
