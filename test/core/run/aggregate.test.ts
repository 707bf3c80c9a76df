/** The results-table aggregator: hand-computed means, standard errors and paired differences. */
import { describe, expect, it } from 'vitest';
import {
  buildComparisons,
  buildCurves,
  buildTable,
  lastEvals,
  meanSe,
  pairedDiff,
  pct,
  pctDiff,
  pickEval,
  ratesAt,
  type RunEvals,
} from '../../../src/core/run/aggregate';
import { TYPED_RUNS, TYPED_SPLITS } from '../../helpers/table-runs';
import { LAST3_RUNS, LAST3_SPLITS } from '../../helpers/last3-runs';

describe('meanSe', () => {
  it('mean and s.e. = sd/√n with n − 1 in the variance', () => {
    // [0.5, 0.7, 0.9]: mean 0.7, variance (0.04 + 0 + 0.04)/2 = 0.04, sd 0.2, s.e. 0.2/√3 = 0.11547
    const r = meanSe([0.5, 0.7, 0.9]);
    expect(r.mean).toBeCloseTo(0.7, 12);
    expect(r.se).toBeCloseTo(0.2 / Math.sqrt(3), 12);
    expect(r.n).toBe(3);
    expect(meanSe([0.4])).toEqual({ mean: 0.4, se: 0, n: 1 });
    expect(() => meanSe([])).toThrow(/no values/);
    expect(() => meanSe([NaN])).toThrow(/non-finite/);
  });
});

describe('pairedDiff', () => {
  it('differences per shared seed: seeds 1, 2 shared (0.2, 0.0) → +0.1 ± 0.1; seed 3 of one side ignored', () => {
    const a = new Map([
        [1, 0.8],
        [2, 0.6],
        [3, 0.9],
      ]),
      b = new Map([
        [1, 0.6],
        [2, 0.6],
      ]);
    const d = pairedDiff(a, b)!;
    expect(d.mean).toBeCloseTo(0.1, 12);
    expect(d.se).toBeCloseTo(0.1, 12); // sd of [0.2, 0] = 0.1414; /√2 = 0.1
    expect(pairedDiff(new Map([[4, 1]]), b)).toBeNull();
  });
});

const split = (rate: number, types: Record<string, number>) => ({
  successRate: rate,
  episodes: 10,
  byTaskType: Object.fromEntries(Object.entries(types).map(([t, r]) => [t, { successRate: r, episodes: 5 }])),
});
const run = (method: string, seed: number, evals: [number, number, number][]): RunEvals => ({
  method,
  seed,
  evals: evals.map(([step, seen, unseen]) => ({
    step,
    splits: {
      'test-seen': split(seen, { pick: seen }),
      'test-unseen': split(unseen, { pick: unseen, heat: unseen / 2 }),
    },
  })),
});

describe('buildTable', () => {
  const runs = [
    run('grpo', 1, [
      [0, 0.5, 0.4],
      [10, 0.6, 0.5],
    ]),
    run('grpo', 2, [
      [0, 0.5, 0.4],
      [10, 0.7, 0.6],
    ]),
    run('opid', 1, [
      [0, 0.5, 0.4],
      [10, 0.8, 0.6],
    ]),
    run('opid', 2, [
      [0, 0.5, 0.4],
      [5, 0.9, 0.9],
      [10, 0.8, 0.7],
    ]),
  ];
  it('final evaluation: means over seeds and paired differences to GRPO, per split and per task type', () => {
    const [g, o] = buildTable(runs, ['grpo', 'opid', 'skill-grpo'], ['test-seen', 'test-unseen'], 'final', 'grpo');
    expect(g.method).toBe('grpo');
    expect(g.cells['test-seen'].mean).toBeCloseTo(0.65, 12);
    expect(g.cells['test-seen'].se).toBeCloseTo(0.05, 12); // sd of [0.6, 0.7] = 0.0707; /√2
    expect(g.diff['test-seen']).toBeNull();
    expect(o.cells['test-unseen'].mean).toBeCloseTo(0.65, 12);
    expect(o.diff['test-seen']!.mean).toBeCloseTo(0.15, 12); // (0.2 + 0.1)/2
    expect(o.diff['test-seen']!.se).toBeCloseTo(0.05, 12);
    expect(o.cells['test-unseen/heat'].mean).toBeCloseTo(0.325, 12); // (0.3 + 0.35)/2
    expect(o.seeds).toEqual([1, 2]);
  });
  it('best evaluation: the highest mean over the splits, earlier on ties', () => {
    expect(pickEval(runs[3], 'best', ['test-seen', 'test-unseen']).step).toBe(5);
    expect(
      pickEval(
        run('x', 1, [
          [0, 0.5, 0.5],
          [5, 0.6, 0.4],
        ]),
        'best',
        ['test-seen', 'test-unseen'],
      ).step,
    ).toBe(0);
    const [, o] = buildTable(runs, ['grpo', 'opid'], ['test-seen', 'test-unseen'], 'best', 'grpo');
    expect(o.cells['test-unseen'].mean).toBeCloseTo(0.75, 12); // seed 1 step 10 (0.6), seed 2 step 5 (0.9)
  });
  it('prints percent points with one decimal', () => {
    expect(pct({ mean: 0.6525, se: 0.0123, n: 2 })).toBe('65.3 ± 1.2');
    expect(pct({ mean: 0.015, se: 0.01, n: 2 }, true)).toBe('+1.5 ± 1.0');
    expect(pct(null)).toBe('—');
  });
});

describe('buildTable per task type (three seeds, test/helpers/table-runs.ts)', () => {
  const close = (
    x: { mean: number; se: number; n: number } | null | undefined,
    mean: number,
    se: number,
    n: number,
  ) => {
    expect(x).toBeTruthy();
    expect(x!.mean).toBeCloseTo(mean, 12);
    expect(x!.se).toBeCloseTo(se, 12);
    expect(x!.n).toBe(n);
  };
  it('final: mean ± s.e. of each task type, and its difference to GRPO paired by seed', () => {
    const [g, o] = buildTable(TYPED_RUNS, ['grpo', 'opid'], TYPED_SPLITS, 'final', 'grpo');
    // test-seen/pick: GRPO 0.6, 0.7, 0.7 → 0.6667, deviations −0.0667, +0.0333, +0.0333, variance 0.00667/2, s.e.
    // √(0.00333/3) = 0.0333
    close(g.cells['test-seen/pick'], 2 / 3, 1 / 30, 3);
    close(o.cells['test-seen/pick'], 2.3 / 3, 1 / 30, 3); // 0.7, 0.8, 0.8
    // paired: 0.1 on every seed → +0.1 ± 0 (unpaired, the two s.e. would add to 0.047)
    close(o.diff['test-seen/pick'], 0.1, 0, 3);
    // test-seen/cool: GRPO seed 3 has none → GRPO 0.4, 0.5 → 0.45 ± 0.05 (n 2); OPID 0.5, 0.8, 0.6 → 0.6333 ±
    // √(0.02333/3) = 0.0882
    close(g.cells['test-seen/cool'], 0.45, 0.05, 2);
    close(o.cells['test-seen/cool'], 1.9 / 3, Math.sqrt(0.07 / 3 / 3), 3);
    // paired over seeds 1, 2 only: 0.1, 0.3 → 0.2 ± (sd 0.1414)/√2 = 0.1
    close(o.diff['test-seen/cool'], 0.2, 0.1, 2);
    // test-unseen/pick: 0.3 − 0.4, 0.4 − 0.4, 0.4 − 0.4 = −0.1, 0, 0 → −0.0333 ± 0.0333
    close(o.diff['test-unseen/pick'], -0.1 / 3, 1 / 30, 3);
    // test-unseen/heat: GRPO 0.2, 0.4, 0.3 → 0.3 ± √(0.01/3); OPID 0.5, 0.4, 0.6 → 0.5 ± √(0.01/3); Δ 0.3,
    // 0, 0.3 → 0.2 ± √(0.03/3) = 0.1
    close(g.cells['test-unseen/heat'], 0.3, Math.sqrt(0.01 / 3), 3);
    close(o.cells['test-unseen/heat'], 0.5, Math.sqrt(0.01 / 3), 3);
    close(o.diff['test-unseen/heat'], 0.2, 0.1, 3);
    // the whole splits: seen Δ 0.1, 0.2, 0 → 0.1 ± √(0.01/3); unseen Δ 0.1, 0, 0.15 → 0.0833 ±
    // √(0.011667/2/3) = 0.0441
    close(o.diff['test-seen'], 0.1, Math.sqrt(0.01 / 3), 3);
    close(o.diff['test-unseen'], 0.25 / 3, Math.sqrt(0.035 / 18), 3);
    // the baseline's own differences are null, for every task type
    expect(Object.entries(g.diff).filter(([, d]) => d !== null)).toEqual([]);
    expect(Object.keys(o.diff).sort()).toEqual([
      'test-seen',
      'test-seen/cool',
      'test-seen/pick',
      'test-unseen',
      'test-unseen/heat',
      'test-unseen/pick',
    ]);
  });
  it('best: OPID seed 3 reads step 5, and the per-type differences follow it', () => {
    const [, o] = buildTable(TYPED_RUNS, ['grpo', 'opid'], TYPED_SPLITS, 'best', 'grpo');
    // seen/pick Δ 0.1, 0.1, 0.9 − 0.7 = 0.2 → 0.1333 ± 0.0333; unseen/heat Δ 0.3, 0, 0.4 → 0.2333 ±
    // √(0.043333/3) = 0.1202
    close(o.diff['test-seen/pick'], 0.4 / 3, 1 / 30, 3);
    // squares 0.26/3, variance /2, s.e. √(var/3)
    close(o.diff['test-unseen/heat'], 0.7 / 3, Math.sqrt(0.26 / 3 / 2 / 3), 3);
    close(o.diff['test-seen/cool'], 0.2, 0.1, 2); // seed 3 has no GRPO cool at its best (= final) either
  });
  it('prints a difference with the seeds it pairs when they are fewer than the row has', () => {
    const [, o] = buildTable(TYPED_RUNS, ['grpo', 'opid'], TYPED_SPLITS, 'final', 'grpo');
    expect(pctDiff(o.diff['test-seen/cool'], 3)).toBe('+20.0 ± 10.0 (2 seeds)');
    expect(pctDiff(o.diff['test-seen/pick'], 3)).toBe('+10.0 ± 0.0');
    expect(pctDiff(o.diff['test-unseen/pick'], 3)).toBe('-3.3 ± 3.3');
    // one seed has no standard error: said in words, never `± 0.0`
    expect(pctDiff({ mean: 0.05, se: 0, n: 1 }, 2)).toBe('+5.0 (1 seed)');
    expect(pctDiff({ mean: 0, se: 0, n: 1 }, 1)).toBe('+0.0 (1 seed)');
    expect(pct({ mean: 0.333, se: 0, n: 1 })).toBe('33.3 (1 seed)');
    expect(pctDiff(null, 3)).toBe('—');
    // a difference that rounds to zero has no minus sign: 0.7 − 0.8 + 0.1 in floating point is −2.8e-17
    expect(pct({ mean: 0.7 - 0.8 + 0.1, se: 0, n: 2 }, true)).toBe('+0.0 ± 0.0');
    expect(pct({ mean: -0.0004, se: 0.001, n: 2 })).toBe('0.0 ± 0.1');
  });
});

describe('buildComparisons (three seeds, test/helpers/table-runs.ts)', () => {
  it("a named comparison's differences are the rows' paired differences; the reverse is their negation", () => {
    const comparisons = [
      { label: 'gain', method: 'opid', baseline: 'grpo' },
      { label: 'loss', method: 'grpo', baseline: 'opid' },
      { label: 'not run', method: 'opid', baseline: 'skill-grpo' },
    ];
    for (const pick of ['final', 'best'] as const) {
      const [, o] = buildTable(TYPED_RUNS, ['grpo', 'opid'], TYPED_SPLITS, pick, 'grpo');
      const [gain, loss, ...rest] = buildComparisons(TYPED_RUNS, comparisons, TYPED_SPLITS, pick);
      expect(rest).toEqual([]); // skill-grpo has no run: that comparison is left out
      expect(gain).toEqual({ label: 'gain', method: 'opid', baseline: 'grpo', seeds: [1, 2, 3], diff: o.diff });
      expect([loss.label, loss.method, loss.baseline, loss.seeds]).toEqual(['loss', 'grpo', 'opid', [1, 2, 3]]);
      // GRPO's own keys (seed 3 has no test-seen/cool): −(+0.2 ± 0.1) over seeds 1, 2
      expect(Object.keys(loss.diff).sort()).toEqual(Object.keys(o.diff).sort());
      for (const [k, d] of Object.entries(loss.diff)) {
        expect(d!.mean).toBeCloseTo(-o.diff[k]!.mean, 12);
        expect(d!.se).toBeCloseTo(o.diff[k]!.se, 12);
        expect(d!.n).toBe(o.diff[k]!.n);
      }
    }
  });
});

describe('buildCurves', () => {
  it('mean ± s.e. over the seeds evaluated at each step, per method and split; null where none was', () => {
    const runs = [
      run('grpo', 1, [
        [0, 0.5, 0.4],
        [10, 0.6, 0.5],
      ]),
      run('grpo', 2, [
        [0, 0.5, 0.4],
        [10, 0.7, 0.6],
      ]),
      run('opid', 1, [
        [0, 0.5, 0.4],
        [5, 0.9, 0.9],
      ]),
      { method: 'opid', seed: 2, evals: [{ step: 10, splits: { 'test-seen': split(0.3, {}) } }] },
    ];
    const c = buildCurves(runs, ['grpo', 'skill-grpo', 'opid'], ['test-seen', 'test-unseen']);
    expect(c.map((r) => [r.method, r.steps])).toEqual([
      ['grpo', [0, 10]],
      ['opid', [0, 5, 10]],
    ]);
    expect(c[0].splits['test-seen'][0]).toEqual({ mean: 0.5, se: 0, n: 2 });
    // 0.6, 0.7 → 0.65 ± sd 0.0707/√2 = 0.05
    expect(c[0].splits['test-seen'][1]!.mean).toBeCloseTo(0.65, 12);
    expect(c[0].splits['test-seen'][1]!.se).toBeCloseTo(0.05, 12);
    expect(c[1].splits['test-seen']).toEqual([
      { mean: 0.5, se: 0, n: 1 },
      { mean: 0.9, se: 0, n: 1 },
      { mean: 0.3, se: 0, n: 1 },
    ]);
    expect(c[1].splits['test-unseen'][2]).toBeNull(); // seed 2 evaluated no test-unseen at step 10
  });
});

describe('the last3 endpoint (two seeds, test/helpers/last3-runs.ts)', () => {
  const close = (x: { mean: number; se: number; n: number } | null | undefined, mean: number, se: number, n = 2) => {
    expect(x).toBeTruthy();
    expect(x!.mean).toBeCloseTo(mean, 12);
    expect(x!.se).toBeCloseTo(se, 12);
    expect(x!.n).toBe(n);
  };
  it('averages the last three evaluations after step 0, or the ones a run has; step 0 never counts', () => {
    const [g1, g2] = LAST3_RUNS;
    expect(lastEvals(g1).map((e) => e.step)).toEqual([20, 30, 40]); // step 10 is the fourth from the end
    expect(lastEvals(g2).map((e) => e.step)).toEqual([20, 40]); // two after step 0: those two
    const one: RunEvals = { ...g2, evals: [g2.evals[0], { ...g2.evals[2], step: 5 }] };
    expect(lastEvals(one).map((e) => e.step)).toEqual([5]);
    expect(() => lastEvals({ ...g2, evals: [g2.evals[0]] })).toThrow(/run grpo seed 2 has no evaluation after step 0/);
    // grpo 1: seen (0.4 + 0.5 + 0.6)/3 = 0.5, unseen (0.2 + 0.3 + 0.4)/3 = 0.3; heat only at steps 20, 30
    // (none drawn at 40): (0.1 + 0.3)/2 = 0.2; grpo 2: seen (0.3 + 0.6)/2 = 0.45, heat (0.2 + 0.4)/2 = 0.3
    const r1 = ratesAt(g1, 'last3', LAST3_SPLITS);
    expect([...r1.keys()]).toEqual([
      'test-seen',
      'test-seen/pick',
      'test-unseen',
      'test-unseen/pick',
      'test-unseen/heat',
    ]);
    expect(r1.get('test-seen')).toBeCloseTo(0.5, 12);
    expect(r1.get('test-unseen')).toBeCloseTo(0.3, 12);
    expect(r1.get('test-unseen/heat')).toBeCloseTo(0.2, 12);
    const r2 = ratesAt(g2, 'last3', LAST3_SPLITS);
    expect(r2.get('test-seen')).toBeCloseTo(0.45, 12);
    expect(r2.get('test-unseen/heat')).toBeCloseTo(0.3, 12);
    // final and best read one evaluation, unchanged: grpo 1 final = step 40 (no heat), best = step 10
    expect(Object.fromEntries(ratesAt(g1, 'final', LAST3_SPLITS))).toEqual({
      'test-seen': 0.6,
      'test-seen/pick': 0.6,
      'test-unseen': 0.4,
      'test-unseen/pick': 0.4,
    });
    expect(ratesAt(g1, 'best', LAST3_SPLITS).get('test-unseen/heat')).toBe(0.9);
  });

  it('mean ± s.e. over seeds and paired differences, per split and task type (rows and comparisons)', () => {
    const [g, o] = buildTable(LAST3_RUNS, ['grpo', 'opid'], LAST3_SPLITS, 'last3', 'grpo');
    // GRPO seen 0.5, 0.45 → 0.475 ± (sd 0.0354)/√2 = 0.025; unseen 0.3, 0.3 → 0.3 ± 0;
    // heat 0.2, 0.3 → 0.25 ± 0.05
    close(g.cells['test-seen'], 0.475, 0.025);
    close(g.cells['test-unseen'], 0.3, 0);
    close(g.cells['test-unseen/heat'], 0.25, 0.05);
    // OPID seen 0.7, 0.6 → 0.65 ± 0.05; unseen 0.5, 0.5 → 0.5 ± 0; heat 0.4, 0.55 → 0.475 ± 0.075
    close(o.cells['test-seen'], 0.65, 0.05);
    close(o.cells['test-unseen'], 0.5, 0);
    close(o.cells['test-unseen/heat'], 0.475, 0.075);
    // paired per seed: seen 0.2, 0.15 → 0.175 ± 0.025; unseen 0.2, 0.2 → 0.2 ± 0;
    // heat 0.2, 0.25 → 0.225 ± 0.025
    close(o.diff['test-seen'], 0.175, 0.025);
    close(o.diff['test-unseen'], 0.2, 0);
    close(o.diff['test-unseen/heat'], 0.225, 0.025);
    expect(Object.values(g.diff).every((d) => d === null)).toBe(true);
    // the final evaluation of the same runs differs: seen Δ 0.8 − 0.6, 0.5 − 0.6 → 0.05 ± 0.15
    const [, of] = buildTable(LAST3_RUNS, ['grpo', 'opid'], LAST3_SPLITS, 'final', 'grpo');
    close(of.diff['test-seen'], 0.05, 0.15);
    const [c] = buildComparisons(
      LAST3_RUNS,
      [{ label: 'gain', method: 'opid', baseline: 'grpo' }],
      LAST3_SPLITS,
      'last3',
    );
    expect(c).toEqual({ label: 'gain', method: 'opid', baseline: 'grpo', seeds: [1, 2], diff: o.diff });
  });
});
