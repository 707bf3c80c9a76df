/**
 * Test helper: GRPO and OPID over three seeds with task types that differ from their split, for the per-task-type
 * paired differences of the results table (the numbers each test expects are computed by hand next to it).
 *
 * Every run evaluates at step 0 (low: seen 0.2, unseen 0.1) and step 10; OPID seed 3 also at step 5 (its best).
 * GRPO seed 3 has no `cool` task on test-seen, so the `cool` difference pairs only seeds 1 and 2.
 *
 * Step 10 (final), success rates:
 *
 * | run      | test-seen | pick | cool | test-unseen | pick | heat |
 * |----------|-----------|------|------|-------------|------|------|
 * | grpo 1   | 0.5       | 0.6  | 0.4  | 0.3         | 0.4  | 0.2  |
 * | grpo 2   | 0.6       | 0.7  | 0.5  | 0.4         | 0.4  | 0.4  |
 * | grpo 3   | 0.7       | 0.7  | —    | 0.35        | 0.4  | 0.3  |
 * | opid 1   | 0.6       | 0.7  | 0.5  | 0.4         | 0.3  | 0.5  |
 * | opid 2   | 0.8       | 0.8  | 0.8  | 0.4         | 0.4  | 0.4  |
 * | opid 3   | 0.7       | 0.8  | 0.6  | 0.5         | 0.4  | 0.6  |
 *
 * OPID seed 3 at step 5: test-seen 0.9 (pick 0.9, cool 0.9), test-unseen 0.7 (pick 0.7, heat 0.7).
 */
import type { RunEvals, SplitResult } from '../../src/core/run/aggregate';

/** A split's result: its success rate and each task type's (5 episodes each; the split's 10). */
function split(rate: number, types: Record<string, number>): SplitResult {
  return {
    successRate: rate,
    episodes: 10,
    byTaskType: Object.fromEntries(Object.entries(types).map(([t, r]) => [t, { successRate: r, episodes: 5 }])),
  };
}

/** One evaluation: [step, test-seen, its types, test-unseen, its types]. */
type Ev = [number, number, Record<string, number>, number, Record<string, number>];

function run(method: string, seed: number, evals: Ev[]): RunEvals {
  return {
    method,
    seed,
    evals: evals.map(([step, s, st, u, ut]) => ({
      step,
      splits: { 'test-seen': split(s, st), 'test-unseen': split(u, ut) },
    })),
  };
}

const START: Ev = [0, 0.2, { pick: 0.2, cool: 0.2 }, 0.1, { pick: 0.1, heat: 0.1 }];

/** The six runs of the module comment. */
export const TYPED_RUNS: readonly RunEvals[] = [
  run('grpo', 1, [START, [10, 0.5, { pick: 0.6, cool: 0.4 }, 0.3, { pick: 0.4, heat: 0.2 }]]),
  run('grpo', 2, [START, [10, 0.6, { pick: 0.7, cool: 0.5 }, 0.4, { pick: 0.4, heat: 0.4 }]]),
  run('grpo', 3, [START, [10, 0.7, { pick: 0.7 }, 0.35, { pick: 0.4, heat: 0.3 }]]),
  run('opid', 1, [START, [10, 0.6, { pick: 0.7, cool: 0.5 }, 0.4, { pick: 0.3, heat: 0.5 }]]),
  run('opid', 2, [START, [10, 0.8, { pick: 0.8, cool: 0.8 }, 0.4, { pick: 0.4, heat: 0.4 }]]),
  run('opid', 3, [
    START,
    [5, 0.9, { pick: 0.9, cool: 0.9 }, 0.7, { pick: 0.7, heat: 0.7 }],
    [10, 0.7, { pick: 0.8, cool: 0.6 }, 0.5, { pick: 0.4, heat: 0.6 }],
  ]),
];

/** The splits of TYPED_RUNS. */
export const TYPED_SPLITS: readonly string[] = ['test-seen', 'test-unseen'];
