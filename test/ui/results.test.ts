/** The Results view's data: per-split tables and curve charts of a hand-made table.json (hand-computed numbers). */
import { describe, expect, it } from 'vitest';
import type { RunEvals } from '../../src/core/run/aggregate';
import { makeResultsTable, parseResultsTable, resultsTableJson } from '../../src/core/run/table-schema';
import { curveCharts, splitViews } from '../../src/ui/state/results';
import { RUN_COLORS } from '../../src/ui/state/compare';
import { pctDiff } from '../../src/core/run/aggregate';
import { TYPED_RUNS, TYPED_SPLITS } from '../helpers/table-runs';
import { getEnvSpec, inEnvOrder } from '../../src/core/envs/registry';

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
const TABLE = makeResultsTable({
  header: [],
  command: '',
  baseline: 'grpo',
  splits: ['test-seen', 'test-unseen'],
  methods: ['grpo', 'opid'],
  runs: [
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
      [10, 0.8, 0.6],
    ]),
  ],
});

describe('splitViews', () => {
  it("one table per split: task types in the env's order, the baseline marked, Δ of the whole split", () => {
    const [seen, unseen] = splitViews(TABLE, 'final');
    expect([seen.split, seen.taskTypes, unseen.taskTypes]).toEqual(['test-seen', ['pick'], ['pick', 'heat']]);
    expect(unseen.rows.map((r) => [r.method, r.seeds, r.baseline])).toEqual([
      ['grpo', 2, true],
      ['opid', 1, false],
    ]);
    // GRPO unseen heat 0.25, 0.3 → 0.275 ± 0.025; OPID − GRPO on seed 1: 0.6 − 0.5
    expect(unseen.rows[0].byType[1]!.mean).toBeCloseTo(0.275, 12);
    expect(unseen.rows[0].byType[1]!.se).toBeCloseTo(0.025, 12);
    expect(unseen.rows[0].diff).toBeNull();
    expect(unseen.rows[1].diff!.mean).toBeCloseTo(0.1, 12);
    expect(unseen.rows[1].diff!.n).toBe(1);
    // per task type: pick OPID − GRPO on seed 1: 0.6 − 0.5; heat 0.3 − 0.25
    expect(unseen.rows[1].diffByType[0]!.mean).toBeCloseTo(0.1, 12);
    expect(unseen.rows[1].diffByType[1]!.mean).toBeCloseTo(0.05, 12);
    expect(unseen.rows[0].diffByType).toEqual([null, null]);
    // best: OPID seed 1's best is step 5 (0.9)
    expect(splitViews(TABLE, 'best')[0].rows[1].total).toEqual({ mean: 0.9, se: 0, n: 1 });
  });
});

describe('splitViews per task type (three seeds, test/helpers/table-runs.ts)', () => {
  const typed = makeResultsTable({
    header: [],
    command: '',
    baseline: 'grpo',
    splits: TYPED_SPLITS,
    methods: ['grpo', 'opid'],
    runs: TYPED_RUNS,
  });
  it('the paired Δ of each task type, in the order of the task types; null for the baseline', () => {
    const [seen, unseen] = splitViews(typed, 'final');
    // ALFWorld's order (pick, look, clean, heat, cool, pick2), not the alphabet's
    expect([seen.taskTypes, unseen.taskTypes]).toEqual([
      ['pick', 'cool'],
      ['pick', 'heat'],
    ]);
    expect(seen.rows[0].diffByType).toEqual([null, null]);
    // seen: pick 0.1 on every seed → +10.0 ± 0.0, cool paired over seeds 1, 2 (0.1, 0.3 → +20.0 ± 10.0)
    expect(seen.rows[1].diffByType.map((d) => pctDiff(d, seen.rows[1].seeds))).toEqual([
      '+10.0 ± 0.0',
      '+20.0 ± 10.0 (2 seeds)',
    ]);
    // unseen: pick −0.1, 0, 0 → −3.3 ± 3.3; heat 0.3, 0, 0.3 → +20.0 ± 10.0; the whole split 0.1, 0, 0.15 →
    // +8.3 ± 4.4
    expect(unseen.rows[1].diffByType[0]!.mean).toBeCloseTo(-0.1 / 3, 12);
    expect(unseen.rows[1].diffByType[0]!.se).toBeCloseTo(1 / 30, 12);
    expect(unseen.rows[1].diffByType[1]!.mean).toBeCloseTo(0.2, 12);
    expect(unseen.rows[1].diffByType[1]!.se).toBeCloseTo(0.1, 12);
    expect(pctDiff(unseen.rows[1].diff, 3)).toBe('+8.3 ± 4.4');
    // best: OPID seed 3 reads step 5: pick −0.1, 0, 0.3 → +6.7 ± 12.0; heat 0.3, 0, 0.4 → +23.3 ± 12.0
    expect(splitViews(typed, 'best')[1].rows[1].diffByType.map((d) => pctDiff(d, 3))).toEqual([
      '+6.7 ± 12.0',
      '+23.3 ± 12.0',
    ]);
  });
  it('reads them from a version-1 file as well', () => {
    const {
      curves: _c,
      format: _f,
      version: _v,
      command: _m,
      baseline: _b,
      ...v1
    } = JSON.parse(resultsTableJson(typed));
    expect(splitViews(parseResultsTable(v1), 'final')).toEqual(splitViews(typed, 'final'));
  });
});

describe('inEnvOrder', () => {
  it("task types in their env's order (the preset's, as the registry lists them); unknown ones last, sorted", () => {
    expect(inEnvOrder(['pick2', 'clean', 'cool', 'heat', 'look', 'pick'])).toEqual([
      'pick',
      'look',
      'clean',
      'heat',
      'cool',
      'pick2',
    ]);
    const shop = getEnvSpec('shop').taskTypes('default');
    expect(inEnvOrder([...shop].sort())).toEqual(shop);
    const qa = getEnvSpec('searchqa').taskTypes('default');
    expect(inEnvOrder([...qa].reverse())).toEqual(qa);
    expect(inEnvOrder(['zeta', 'heat', 'alpha', 'pick', 'heat'])).toEqual(['pick', 'heat', 'alpha', 'zeta']);
  });
});

describe('curveCharts', () => {
  it('x = every evaluation step; one line per method, null where it did not evaluate', () => {
    const [seen] = curveCharts(TABLE);
    expect(seen.split).toBe('test-seen');
    expect(seen.data.xs).toEqual([0, 5, 10]);
    expect(seen.data.series.map((s) => [s.label, s.color])).toEqual([
      ['grpo', RUN_COLORS[0]],
      ['opid', RUN_COLORS[1]],
    ]);
    expect(seen.data.series[0].values[0]).toBe(0.5);
    expect(seen.data.series[0].values[1]).toBeNull();
    expect(seen.data.series[0].values[2]).toBeCloseTo(0.65, 12);
    expect(seen.data.series[1].values).toEqual([0.5, 0.9, 0.8]);
    const {
      curves: _c,
      format: _f,
      version: _v,
      command: _m,
      baseline: _b,
      ...v1
    } = JSON.parse(resultsTableJson(TABLE));
    expect(curveCharts(parseResultsTable(v1))).toEqual([]);
  });
});
