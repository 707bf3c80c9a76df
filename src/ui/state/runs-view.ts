/** Pure helpers of the Runs view (no DOM, no runes), tested without a browser. */
import type { RunInfo } from '../../worker/api';

/** A file name for run `name` with extension `ext`: characters other than letters, digits, `.`, `-`, `_` become `_`. */
export function runFileName(name: string, ext: string): string {
  return `${name.replace(/[^\w.-]+/g, '_').replace(/^_+|_+$/g, '') || 'run'}${ext}`;
}

/**
 * The stored run a reload interrupted: the newest one (the list is newest first) that is not finished, has a
 * checkpoint before its last step, and is not the run being recorded now. Null when none.
 */
export function interruptedRun(runs: readonly RunInfo[], activeId: string | null): RunInfo | null {
  return runs.find((r) => !r.done && r.id !== activeId && r.lastCheckpoint !== null && r.lastCheckpoint < r.stepsPlanned) ?? null;
}
