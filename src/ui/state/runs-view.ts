/** Pure helpers of the Runs view (no DOM, no runes), tested without a browser. */
import { MAX_RUN_NAME, type RunInfo } from '../../worker/api';
import { bytesText } from './compare';

/** What the Runs view says before the worker's first list answer (the list takes 1–3 s with several stored runs). */
export const LOADING_RUNS = 'Loading stored runs…';

/**
 * The Runs view's usage line: LOADING_RUNS until the first list answer (`loaded` false), then the count and the
 * sum of the runs' file sizes in bytes (as exported, uncompressed), e.g. `runsUsage(true, 6, 1536) → "6 runs,
 * 1.5 kB of files"`.
 */
export function runsUsage(loaded: boolean, runs: number, bytes: number): string {
  return loaded ? `${runs} run${runs === 1 ? '' : 's'}, ${bytesText(bytes)} of files` : LOADING_RUNS;
}

/**
 * The browser's own figure beside `runsUsage`, from `navigator.storage.estimate()` (bytes), e.g. `storageText(1468006,
 * 10 * 2 ** 30) → "browser reports 1.4 MB used of 10.00 GB"`. It is a different measure: everything this page stores
 * (runs, weights), as the browser keeps it (possibly compressed, and rounded on purpose), so it can be smaller than the
 * runs' files; STORAGE_NOTE says so.
 */
export function storageText(usage: number, quota: number): string {
  return `browser reports ${bytesText(usage)} used of ${bytesText(quota)}`;
}

/** Why the browser's figure can be smaller than the runs' files (the usage line's tooltip). */
export const STORAGE_NOTE =
  "The runs' size is the sum of their files as Export writes them. The browser's figure is its own " +
  'estimate of everything this page stores (runs and weights), kept compressed where the browser ' +
  'compresses and rounded on purpose, so it can be smaller.';

/** The Runs table's text when it has no rows: LOADING_RUNS until the first list answer, then how to make a run. */
export function noRunsText(loaded: boolean, ext: string): string {
  return loaded ? `No stored runs yet: press Start in the Train view, or import a ${ext} file.` : LOADING_RUNS;
}

/** A file name for run `name` with extension `ext`: characters other than letters, digits, `.`, `-`, `_` become `_`. */
export function runFileName(name: string, ext: string): string {
  return `${name.replace(/[^\w.-]+/g, '_').replace(/^_+|_+$/g, '') || 'run'}${ext}`;
}

/**
 * The stored run a reload interrupted: the newest one (the list is newest first) that is not finished, was not
 * stopped by an error (a non-finite value: the Runs view says why), has a checkpoint before its last step, and is not
 * the run being recorded now. Null when none.
 */
export function interruptedRun(runs: readonly RunInfo[], activeId: string | null): RunInfo | null {
  return (
    runs.find(
      (r) =>
        !r.done &&
        r.error === undefined &&
        r.id !== activeId &&
        r.lastCheckpoint !== null &&
        r.lastCheckpoint < r.stepsPlanned,
    ) ?? null
  );
}

/**
 * The notice for a run a reload interrupted (`interruptedRun`). The record is stored every few steps, so it can end
 * before the step the page last showed: the notice names the last stored step, says later steps were not kept, and
 * that Resume runs every step after the checkpoint again, e.g. "… Its record was last stored at step 2 of 60; steps
 * shown after that were not kept. It can continue from its checkpoint of step 2, running the steps after step 2 again."
 */
export function interruptedText(r: Pick<RunInfo, 'name' | 'stepsDone' | 'stepsPlanned' | 'lastCheckpoint'>): string {
  return (
    `Run “${r.name}” was interrupted (the tab was closed or reloaded). Its record was last stored at step ` +
    `${r.stepsDone} of ${r.stepsPlanned}; steps shown after that were not kept. It can continue from its checkpoint ` +
    `of step ${r.lastCheckpoint}, running the steps after step ${r.lastCheckpoint} again.`
  );
}

/**
 * The Runs view's state of stored run `r`: recording (the run this tab records now), finished, or stopped (by Stop;
 * by an error, with its message, e.g. "stopped by an error; checkpoint at step 2: step 3: the gradient norm is NaN;
 * …"; or when the tab closed), with its latest checkpoint.
 */
export function runStateText(
  r: Pick<RunInfo, 'id' | 'done' | 'stopped' | 'error' | 'stepsDone' | 'lastCheckpoint'>,
  activeId: string | null,
): string {
  const ckpt = r.lastCheckpoint !== null ? `; checkpoint at step ${r.lastCheckpoint}` : '';
  if (r.id === activeId) return 'recording';
  if (r.done) return r.stopped ? `stopped at step ${r.stepsDone}${ckpt}` : 'finished';
  if (r.error !== undefined) return `stopped by an error${ckpt}: ${r.error}`;
  return r.lastCheckpoint !== null ? `stopped${ckpt}` : 'stopped before its first checkpoint';
}

/**
 * Why Rename refuses `name`, in the worker's words (runs-library checkRunName), or null when it is fine: the trimmed
 * name must be 1 to MAX_RUN_NAME (120) characters.
 */
export function runNameProblem(name: string): string | null {
  const n = name.trim();
  if (!n) return 'the run name is empty; type a name';
  return n.length > MAX_RUN_NAME ? `the run name has ${n.length} characters; use at most ${MAX_RUN_NAME}` : null;
}

/**
 * The name an imported run is given, told apart from the run it was exported from: `name (imported)`, or
 * `name (imported 2)`, `(imported 3)` … when that is taken by one of `taken` (the other stored runs' names). `name`
 * is shortened (trailing spaces dropped) so the result has at most MAX_RUN_NAME (120) characters; an empty name
 * becomes `run (imported)`.
 */
export function importedRunName(name: string, taken: readonly string[]): string {
  const used = new Set(taken);
  const base = name.trim() || 'run';
  for (let n = 1; ; n++) {
    const suffix = n === 1 ? ' (imported)' : ` (imported ${n})`;
    const out = `${base.slice(0, MAX_RUN_NAME - suffix.length).trimEnd()}${suffix}`;
    if (!used.has(out)) return out;
  }
}

/**
 * Whether the Runs view offers Resume for stored run `r` (continue from its latest checkpoint, as after a reload),
 * and when it does not, why, for a run that stopped before its planned steps (null for a finished run or the one
 * being recorded: nothing to explain). A run a reload interrupted and a run ended by Stop resume alike; either needs
 * a stored checkpoint before its last planned step.
 */
export function resumability(
  r: Pick<
    RunInfo,
    'id' | 'done' | 'stopped' | 'error' | 'lastCheckpoint' | 'stepsPlanned' | 'stepsDone' | 'checkpointEvery'
  >,
  activeId: string | null,
): { resume: boolean; why: string | null } {
  if (r.id === activeId || (r.done && !r.stopped)) return { resume: false, why: null };
  if (r.lastCheckpoint === null) {
    const how = r.stopped
      ? 'was stopped at'
      : r.error !== undefined
        ? 'was stopped by an error after'
        : 'was interrupted at';
    const when =
      r.checkpointEvery > 0
        ? `the first comes at step ${r.checkpointEvery} (“Checkpoint every” ${r.checkpointEvery}) and ` +
          `it ${how} step ${r.stepsDone}`
        : 'checkpoints were off (“Checkpoint every” 0)';
    return { resume: false, why: `cannot resume: no checkpoint was stored (${when}); start it again instead` };
  }
  if (r.lastCheckpoint >= r.stepsPlanned) return { resume: false, why: null };
  return { resume: true, why: null };
}
