/**
 * Why Start and Step are disabled, in words, for the buttons' titles and the line under the top bar: the field to fix
 * and how, the link checkpoint to import, the pretraining or the run that holds the worker. One rule for both
 * buttons, so a disabled button never goes without a reason; likewise why the run settings are locked. Pure
 * functions.
 */
import type { ConfigIssue } from '../../core/run/config';
import { isBusy, type RunPhase } from './run-phase';
import { plainIssue } from './messages';

/** What decides whether Start and Step can run (the page's run state). */
export interface RunButtonsInput {
  phase: RunPhase;
  /** True while a pretraining holds the worker. */
  pretraining: boolean;
  /** Problems of the settings as the controls show them (the Start rule: none). */
  issues: readonly ConfigIssue[];
  /** The name of a link's start checkpoint this browser does not have and no other start was chosen; else null. */
  missingCheckpoint: string | null;
}

/** Why each button is disabled ('' = enabled), and the visible line ('' = none: the reason is plain to see). */
export interface RunButtonsWhy {
  start: string;
  step: string;
  /** Shown under the top bar: a blocker the user must act on (a field, a checkpoint, a pretraining). */
  line: string;
}

/** The first issues in words, e.g. "Fix Base URL: … (and 1 more field)". */
function fixText(issues: readonly ConfigIssue[]): string {
  const fields = new Set(issues.map((i) => i.field.split('.')[0]));
  const more = fields.size - 1;
  return `Fix ${plainIssue(issues[0])}${more > 0 ? ` (and ${more} more field${more === 1 ? '' : 's'})` : ''}`;
}

/**
 * The reasons Start and Step are disabled for `s`. Order: the worker's state (starting, training, pretraining), then
 * what the user must fix (a missing link checkpoint, the settings); Step is also disabled once the run is done.
 */
export function runButtonsWhy(s: RunButtonsInput): RunButtonsWhy {
  let reason = '';
  let line = '';
  if (s.phase === 'booting') reason = 'The training worker is starting; wait a moment.';
  else if (isBusy(s.phase)) reason = 'Training is running: Pause or Stop it first.';
  else if (s.pretraining) line = reason = 'A pretraining holds the worker: pause or abort it in Pretrain first.';
  else if (s.missingCheckpoint !== null)
    line = reason =
      `This link's run starts from the checkpoint "${s.missingCheckpoint}", which this browser does not have: ` +
      'import its .safetensors file, or choose to train without it (the notice above).';
  else if (s.issues.length) line = reason = `${fixText(s.issues)} Start and Step wait until it is fixed.`;
  const step = reason || (s.phase === 'done' ? 'The run has finished: Restart begins a new one.' : '');
  return { start: reason, step, line };
}

/**
 * Why the run settings are locked (disabled), for the settings panel's note and each locked field's tooltip, or ''
 * when they are not. While the run trains, Pause (or Stop) unlocks them: in a paused or ended run a setting can be
 * changed, and the change starts a new run (run.svelte.ts setField). Pause and Stop act at the next safe point, so
 * the settings stay locked until then.
 */
export function settingsLockedWhy(phase: RunPhase, pretraining: boolean): string {
  if (phase === 'booting') return 'Locked while the training worker starts; wait a moment.';
  if (phase === 'pausing') return 'Locked until the run pauses at its next safe point.';
  if (phase === 'stopping') return 'Locked until the run stops at its next safe point.';
  if (isBusy(phase))
    return (
      'Locked while the run trains: Pause (or Stop) unlocks the settings; changing one then ends this run and ' +
      'starts a new one.'
    );
  if (pretraining)
    return 'Locked while a pretraining holds the worker: pause or abort it in Pretrain to unlock the settings.';
  return '';
}
