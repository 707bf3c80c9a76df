/**
 * `eval`'s default number of evaluation threads (cli/eval-pool.ts `evalThreadsFor`): worker threads only when several
 * splits each need at least EVAL_THREADS_MIN_WORK episode-turns (episodes × the preset's max turns), since starting a
 * worker costs more than a shorter evaluation saves; the flag's help states the threshold.
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { EVAL_THREADS_MIN_WORK, evalThreadsFor } from '../../cli/eval-pool';
import { getEnvSpec } from '../../src/core/envs/registry';
import { unwrapHelp } from '../helpers/help-text';

describe('eval --eval-threads default', () => {
  it('stays in the calling thread below the threshold and uses the available threads at or above it', () => {
    expect(EVAL_THREADS_MIN_WORK).toBe(1000);
    const spec = getEnvSpec('household');
    const easy = spec.create('easy').maxSteps,
      dflt = spec.create('default').maxSteps;
    expect([easy, dflt]).toEqual([10, 30]);
    // eval --split test-seen,test-unseen --episodes 60 on easy: 600 episode-turns per split → in this thread.
    expect(evalThreadsFor(2, 60, easy, 2)).toBe(0);
    expect(evalThreadsFor(2, 99, easy, 2)).toBe(0);
    expect(evalThreadsFor(2, 100, easy, 2)).toBe(2); // exactly 1000
    // The default preset's episodes are three times as long: 34 × 30 = 1020.
    expect(evalThreadsFor(2, 33, dflt, 2)).toBe(0);
    expect(evalThreadsFor(2, 34, dflt, 2)).toBe(2);
    // One split has nothing to run beside; a one-core machine has no threads to give.
    expect(evalThreadsFor(1, 5000, dflt, 2)).toBe(0);
    expect(evalThreadsFor(3, 5000, dflt, 0)).toBe(0);
  });

  it("names the threshold in the flag's help", () => {
    const r = spawnSync('node_modules/.bin/tsx', ['cli/eval.ts', '--help'], { encoding: 'utf8', timeout: 120_000 });
    expect(r.status).toBe(0);
    expect(unwrapHelp(r.stdout)).toMatch(
      /--eval-threads[\s\S]*episodes × the preset's max turns ≥ 1000 episode-turns, else 0/,
    );
  });
});
