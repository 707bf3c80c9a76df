/** Pure helpers of the Runs view (src/ui/state/runs-view.ts). */
import { describe, expect, it } from 'vitest';
import {
  LOADING_RUNS,
  importedRunName,
  interruptedRun,
  interruptedText,
  noRunsText,
  resumability,
  runFileName,
  runNameProblem,
  runsUsage,
  storageText,
} from '../../src/ui/state/runs-view';
import type { RunInfo } from '../../src/worker/api';

const run = (id: string, o: Partial<RunInfo>) =>
  ({ id, done: false, lastCheckpoint: 2, stepsPlanned: 6, ...o }) as RunInfo;

describe('runs view helpers', () => {
  it('the interrupted-run notice names the last stored step, says later steps were not kept and are run again', () => {
    const r = { name: 'grpo household', stepsDone: 2, stepsPlanned: 60, lastCheckpoint: 2 };
    expect(interruptedText(r)).toBe(
      'Run “grpo household” was interrupted (the tab was closed or reloaded). Its record was last stored at ' +
        'step 2 of 60; steps shown after that were not kept. It can continue from its checkpoint of step 2, ' +
        'running the steps after step 2 again.',
    );
    expect(interruptedText({ ...r, stepsDone: 5 })).toBe(
      'Run “grpo household” was interrupted (the tab was closed or reloaded). Its record was last stored at ' +
        'step 5 of 60; steps shown after that were not kept. It can continue from its checkpoint of step 2, ' +
        'running the steps after step 2 again.',
    );
  });

  it('picks the newest unfinished run with a checkpoint before its end, not the one being recorded', () => {
    const list = [
      run('a', {}),
      run('b', { done: true }),
      run('c', { lastCheckpoint: null }),
      run('d', { lastCheckpoint: 6 }),
      run('e', {}),
    ];
    expect(interruptedRun(list, null)?.id).toBe('a');
    expect(interruptedRun(list, 'a')?.id).toBe('e');
    expect(interruptedRun(list.slice(1, 4), null)).toBeNull();
  });
  it(
    'offers Resume for an interrupted run and for a stopped one before its end, and says why a stopped ' +
      'run without a checkpoint cannot',
    () => {
      const r = (o: Partial<RunInfo>) =>
        ({
          id: 'x',
          done: false,
          lastCheckpoint: 2,
          stepsDone: 3,
          stepsPlanned: 6,
          checkpointEvery: 2,
          ...o,
        }) as RunInfo;
      expect(resumability(r({}), null)).toEqual({ resume: true, why: null });
      expect(resumability(r({ done: true, stopped: true }), null)).toEqual({ resume: true, why: null });
      // being recorded
      expect(resumability(r({ done: true, stopped: true }), 'x')).toEqual({ resume: false, why: null });
      expect(resumability(r({ done: true, lastCheckpoint: 6, stepsDone: 6 }), null)).toEqual({
        resume: false,
        why: null,
      }); // finished
      expect(resumability(r({ done: true, stopped: true, lastCheckpoint: null, stepsDone: 1 }), null)).toEqual({
        resume: false,
        why:
          'cannot resume: no checkpoint was stored (the first comes at step 2 (“Checkpoint every” 2) ' +
          'and it was stopped at step 1); start it again instead',
      });
      expect(resumability(r({ done: true, stopped: true, lastCheckpoint: null, checkpointEvery: 0 }), null)).toEqual({
        resume: false,
        why:
          'cannot resume: no checkpoint was stored (checkpoints were off (“Checkpoint every” 0)); ' +
          'start it again instead',
      });
      expect(resumability(r({ lastCheckpoint: null, stepsDone: 1 }), null).why).toMatch(
        /^cannot resume: no checkpoint was stored \(the first comes at step 2 .* it was interrupted at step 1\)/,
      );
    },
  );
  it(
    "words the runs' files and the browser's estimate as two measures, so a smaller browser figure does " +
      'not read as an error',
    () => {
      expect(`${runsUsage(true, 1, 1_677_722)} · ${storageText(1_468_006, 10 * 2 ** 30)}`).toBe(
        '1 run, 1.6 MB of files · browser reports 1.4 MB used of 10.00 GB',
      );
    },
  );
  it('names an import apart from the run it came from, within the 120-character limit', () => {
    expect(importedRunName('grpo household/easy seed 1', [])).toBe('grpo household/easy seed 1 (imported)');
    expect(importedRunName('grpo seed 1', ['grpo seed 1', 'grpo seed 1 (imported)'])).toBe('grpo seed 1 (imported 2)');
    expect(importedRunName('grpo seed 1', ['grpo seed 1 (imported)', 'grpo seed 1 (imported 2)'])).toBe(
      'grpo seed 1 (imported 3)',
    );
    const long = importedRunName('x'.repeat(120), []);
    expect(long).toBe(`${'x'.repeat(109)} (imported)`);
    expect(long).toHaveLength(120);
    expect(runNameProblem(long)).toBeNull();
    expect(importedRunName('   ', [])).toBe('run (imported)');
  });
  it('makes safe file names', () => {
    expect(runFileName('grpo household/easy seed 1 · 2026-11-30 11:20', '.opdrun')).toBe(
      'grpo_household_easy_seed_1_2026-11-30_11_20.opdrun',
    );
    expect(runFileName('///', '.jsonl')).toBe('run.jsonl');
  });
  it('says the list is loading until the first list answer, then the count, size and empty-list hint', () => {
    expect(LOADING_RUNS).toBe('Loading stored runs…');
    expect(runsUsage(false, 0, 0)).toBe('Loading stored runs…');
    expect(noRunsText(false, '.opdrun')).toBe('Loading stored runs…');
    expect(runsUsage(true, 0, 0)).toBe('0 runs, 0 B of files');
    expect(runsUsage(true, 1, 512)).toBe('1 run, 512 B of files');
    expect(runsUsage(true, 6, 1536)).toBe('6 runs, 1.5 kB of files');
    expect(noRunsText(true, '.opdrun')).toBe(
      'No stored runs yet: press Start in the Train view, or import a .opdrun file.',
    );
  });
  it('refuses a run name over 120 characters or empty at Rename, naming the limit', () => {
    expect(runNameProblem('a'.repeat(300))).toBe('the run name has 300 characters; use at most 120');
    expect(runNameProblem(`  ${'a'.repeat(121)}  `)).toBe('the run name has 121 characters; use at most 120');
    expect(runNameProblem(`  ${'a'.repeat(120)}  `)).toBeNull();
    expect(runNameProblem('   ')).toBe('the run name is empty; type a name');
  });
});
