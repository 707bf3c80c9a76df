/** The results-table aggregator: hand-computed means, standard errors and paired differences. */
import { describe, expect, it } from 'vitest';
import { buildCurves, buildTable, meanSe, pairedDiff, pct, pickEval, type RunEvals } from '../../../src/core/run/aggregate';

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
    const a = new Map([[1, 0.8], [2, 0.6], [3, 0.9]]), b = new Map([[1, 0.6], [2, 0.6]]);
    const d = pairedDiff(a, b)!;
    expect(d.mean).toBeCloseTo(0.1, 12);
    expect(d.se).toBeCloseTo(0.1, 12); // sd of [0.2, 0] = 0.1414; /√2 = 0.1
    expect(pairedDiff(new Map([[4, 1]]), b)).toBeNull();
  });
});

const split = (rate: number, types: Record<string, number>) => ({
  successRate: rate, episodes: 10, byTaskType: Object.fromEntries(Object.entries(types).map(([t, r]) => [t, { successRate: r, episodes: 5 }])),
});
const run = (method: string, seed: number, evals: [number, number, number][]): RunEvals => ({
  method, seed, evals: evals.map(([step, seen, unseen]) => ({ step, splits: { 'test-seen': split(seen, { pick: seen }), 'test-unseen': split(unseen, { pick: unseen, heat: unseen / 2 }) } })),
});

describe('buildTable', () => {
  const runs = [
    run('grpo', 1, [[0, 0.5, 0.4], [10, 0.6, 0.5]]),
    run('grpo', 2, [[0, 0.5, 0.4], [10, 0.7, 0.6]]),
    run('opid', 1, [[0, 0.5, 0.4], [10, 0.8, 0.6]]),
    run('opid', 2, [[0, 0.5, 0.4], [5, 0.9, 0.9], [10, 0.8, 0.7]]),
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
    expect(pickEval(run('x', 1, [[0, 0.5, 0.5], [5, 0.6, 0.4]]), 'best', ['test-seen', 'test-unseen']).step).toBe(0);
    const [, o] = buildTable(runs, ['grpo', 'opid'], ['test-seen', 'test-unseen'], 'best', 'grpo');
    expect(o.cells['test-unseen'].mean).toBeCloseTo(0.75, 12); // seed 1 step 10 (0.6), seed 2 step 5 (0.9)
  });
  it('prints percent points with one decimal', () => {
    expect(pct({ mean: 0.6525, se: 0.0123, n: 2 })).toBe('65.3 ± 1.2');
    expect(pct({ mean: 0.015, se: 0.01, n: 2 }, true)).toBe('+1.5 ± 1.0');
    expect(pct(null)).toBe('—');
  });
});

describe('buildCurves', () => {
  it('mean ± s.e. over the seeds evaluated at each step, per method and split; null where none was', () => {
    const runs = [
      run('grpo', 1, [[0, 0.5, 0.4], [10, 0.6, 0.5]]),
      run('grpo', 2, [[0, 0.5, 0.4], [10, 0.7, 0.6]]),
      run('opid', 1, [[0, 0.5, 0.4], [5, 0.9, 0.9]]),
      { method: 'opid', seed: 2, evals: [{ step: 10, splits: { 'test-seen': split(0.3, {}) } }] },
    ];
    const c = buildCurves(runs, ['grpo', 'skill-grpo', 'opid'], ['test-seen', 'test-unseen']);
    expect(c.map((r) => [r.method, r.steps])).toEqual([['grpo', [0, 10]], ['opid', [0, 5, 10]]]);
    expect(c[0].splits['test-seen'][0]).toEqual({ mean: 0.5, se: 0, n: 2 });
    // 0.6, 0.7 → 0.65 ± sd 0.0707/√2 = 0.05
    expect(c[0].splits['test-seen'][1]!.mean).toBeCloseTo(0.65, 12);
    expect(c[0].splits['test-seen'][1]!.se).toBeCloseTo(0.05, 12);
    expect(c[1].splits['test-seen']).toEqual([{ mean: 0.5, se: 0, n: 1 }, { mean: 0.9, se: 0, n: 1 }, { mean: 0.3, se: 0, n: 1 }]);
    expect(c[1].splits['test-unseen'][2]).toBeNull(); // seed 2 evaluated no test-unseen at step 10
  });
});
