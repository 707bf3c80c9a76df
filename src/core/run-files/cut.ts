/**
 * Cutting a run record back to a checkpoint, as resuming does (the CLI's cutEventsAt in cli/rundir.ts applies it
 * on files): a continuation from the checkpoint after step k replaces whatever an interrupted run wrote after it.
 * Pure, on the files' text.
 */
import { checkpointFile, parseEvents, stateFile } from '../run/record';
import { parseTrajectoryLines } from './trajectories';

const LATER_KINDS = ['step', 'eval', 'validation', 'checkpoint', 'trajectories', 'error'];

/**
 * events.jsonl text cut back to the checkpoint after step k: every line from the first one that belongs to a later
 * step (a step, eval, validation, checkpoint, trajectories or error event of step > k) or is a `done` event is
 * dropped, and the checkpoint line of step k is added when missing. Every line ends in `\n`.
 * @throws RecordError (from parseEvents) when a line is corrupt.
 */
export function cutEventsText(text: string, k: number): { text: string; dropped: number } {
  parseEvents(text); // validates every line first
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  let cut = lines.length;
  for (let i = 0; i < lines.length; i++) {
    const o = JSON.parse(lines[i]) as { event?: unknown; step?: unknown };
    if ((typeof o.step === 'number' && o.step > k && LATER_KINDS.includes(String(o.event))) || o.event === 'done') {
      cut = i;
      break;
    }
  }
  const kept = lines.slice(0, cut);
  const has = kept.some((l) => {
    const o = JSON.parse(l) as { event?: unknown; step?: unknown };
    return o.event === 'checkpoint' && o.step === k;
  });
  if (!has)
    kept.push(JSON.stringify({ event: 'checkpoint', step: k, file: checkpointFile(k), stateFile: stateFile(k) }));
  return { text: kept.map((l) => l + '\n').join(''), dropped: lines.length - cut };
}

/**
 * trajectories.jsonl text without the lines of steps after k.
 * @throws RecordError (from parseTrajectoryLines) when a line is corrupt.
 */
export function cutTrajectoriesText(text: string, k: number): string {
  return parseTrajectoryLines(text)
    .filter((r) => r.step <= k)
    .map((r) => JSON.stringify(r) + '\n')
    .join('');
}
