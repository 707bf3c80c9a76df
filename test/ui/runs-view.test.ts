/** Pure helpers of the Runs view (src/ui/state/runs-view.ts). */
import { describe, expect, it } from 'vitest';
import { interruptedRun, runFileName } from '../../src/ui/state/runs-view';
import type { RunInfo } from '../../src/worker/api';

const run = (id: string, o: Partial<RunInfo>) => ({ id, done: false, lastCheckpoint: 2, stepsPlanned: 6, ...o }) as RunInfo;

describe('runs view helpers', () => {
  it('picks the newest unfinished run with a checkpoint before its end, not the one being recorded', () => {
    const list = [run('a', {}), run('b', { done: true }), run('c', { lastCheckpoint: null }), run('d', { lastCheckpoint: 6 }), run('e', {})];
    expect(interruptedRun(list, null)?.id).toBe('a');
    expect(interruptedRun(list, 'a')?.id).toBe('e');
    expect(interruptedRun(list.slice(1, 4), null)).toBeNull();
  });
  it('makes safe file names', () => {
    expect(runFileName('grpo household/easy seed 1 · 2026-11-30 11:20', '.opdrun')).toBe('grpo_household_easy_seed_1_2026-11-30_11_20.opdrun');
    expect(runFileName('///', '.jsonl')).toBe('run.jsonl');
  });
});
