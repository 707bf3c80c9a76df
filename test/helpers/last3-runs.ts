/**
 * Test helper: GRPO and OPID over two seeds, for the `last3` endpoint (the mean of each run's last three evaluations
 * after step 0) of the results table; the numbers each test expects are computed by hand next to it.
 *
 * Seed 1 of each method evaluates at steps 0, 10, 20, 30 and 40 (four after step 0: step 10 is not among the last
 * three); seed 2 only at 0, 20 and 40 (two after step 0: it averages those two). Step 0 is the same start for all.
 * test-seen has one task type (`pick`, at the split's rate); test-unseen has `pick` (at the split's rate) and `heat`
 * (GRPO seed 1 drew none at step 40).
 *
 * | run    | step | test-seen | test-unseen | heat |
 * |--------|------|-----------|-------------|------|
 * | grpo 1 | 10   | 0.9       | 0.9         | 0.9  |
 * | grpo 1 | 20   | 0.4       | 0.2         | 0.1  |
 * | grpo 1 | 30   | 0.5       | 0.3         | 0.3  |
 * | grpo 1 | 40   | 0.6       | 0.4         | —    |
 * | grpo 2 | 20   | 0.3       | 0.3         | 0.2  |
 * | grpo 2 | 40   | 0.6       | 0.3         | 0.4  |
 * | opid 1 | 10   | 0.5       | 0.5         | 0.9  |
 * | opid 1 | 20   | 0.6       | 0.4         | 0.3  |
 * | opid 1 | 30   | 0.7       | 0.5         | 0.4  |
 * | opid 1 | 40   | 0.8       | 0.6         | 0.5  |
 * | opid 2 | 20   | 0.7       | 0.6         | 0.5  |
 * | opid 2 | 40   | 0.5       | 0.4         | 0.6  |
 *
 * Every run at step 0: test-seen 0.2, test-unseen 0.1, heat 0.1.
 *
 * Per run, last three (hand-computed): grpo 1 seen (0.4 + 0.5 + 0.6)/3 = 0.5, unseen 0.3, heat (0.1 + 0.3)/2 = 0.2;
 * grpo 2 seen 0.45, unseen 0.3, heat 0.3; opid 1 seen 0.7, unseen 0.5, heat 0.4; opid 2 seen 0.6, unseen 0.5,
 * heat 0.55.
 */
import type { RunEvals, SplitResult } from '../../src/core/run/aggregate';

/** A split's result: its rate and each task type's (10 episodes; 5 per type). */
function split(rate: number, types: Record<string, number>): SplitResult {
  return {
    successRate: rate,
    episodes: 10,
    byTaskType: Object.fromEntries(Object.entries(types).map(([t, r]) => [t, { successRate: r, episodes: 5 }])),
  };
}

/** One evaluation: [step, test-seen, test-unseen, heat (null: none drawn)]. */
type Ev = [number, number, number, number | null];

function run(method: string, seed: number, evals: Ev[]): RunEvals {
  return {
    method,
    seed,
    evals: [[0, 0.2, 0.1, 0.1] as Ev, ...evals].map(([step, s, u, heat]) => ({
      step,
      splits: {
        'test-seen': split(s, { pick: s }),
        'test-unseen': split(u, heat === null ? { pick: u } : { pick: u, heat }),
      },
    })),
  };
}

/** The four runs of the module comment. */
export const LAST3_RUNS: readonly RunEvals[] = [
  run('grpo', 1, [
    [10, 0.9, 0.9, 0.9],
    [20, 0.4, 0.2, 0.1],
    [30, 0.5, 0.3, 0.3],
    [40, 0.6, 0.4, null],
  ]),
  run('grpo', 2, [
    [20, 0.3, 0.3, 0.2],
    [40, 0.6, 0.3, 0.4],
  ]),
  run('opid', 1, [
    [10, 0.5, 0.5, 0.9],
    [20, 0.6, 0.4, 0.3],
    [30, 0.7, 0.5, 0.4],
    [40, 0.8, 0.6, 0.5],
  ]),
  run('opid', 2, [
    [20, 0.7, 0.6, 0.5],
    [40, 0.5, 0.4, 0.6],
  ]),
];

/** The splits of LAST3_RUNS. */
export const LAST3_SPLITS: readonly string[] = ['test-seen', 'test-unseen'];
