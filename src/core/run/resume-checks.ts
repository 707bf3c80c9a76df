/**
 * A run's own consistency checks before a resume (./record.ts module comment): the checkpoint line events.jsonl keeps
 * with the sha256 of its two files, the files whose bytes differ from it, and the config fields run.json changed
 * since the run's first `start` line. Pure: the callers (cli/train-rundir.ts, the page's worker) read the bytes.
 */
import type { RunConfig } from './config';
import { checkpointFile, stateFile, type RecordEvent } from './record';

/**
 * The hex sha256 (64 lowercase hex digits) of a checkpoint's two files: `weights` of ckpt-<k>.safetensors, `state` of
 * ckpt-<k>.state.
 */
export interface CheckpointHashes {
  weights: string;
  state: string;
}

/** An events.jsonl checkpoint line (module comment): the step, its two file names and, when known, their sha256. */
export interface CheckpointLine {
  event: 'checkpoint';
  step: number;
  file: string;
  stateFile: string;
  sha256?: CheckpointHashes;
}

/** The events.jsonl line (as an object) of the checkpoint after `step`, with the sha256 of its files when given. */
export function checkpointLine(step: number, sha256?: CheckpointHashes): CheckpointLine {
  return {
    event: 'checkpoint',
    step,
    file: checkpointFile(step),
    stateFile: stateFile(step),
    ...(sha256 ? { sha256: { weights: sha256.weights, state: sha256.state } } : {}),
  };
}

/** A checkpoint file whose bytes differ from the sha256 its events.jsonl line records. */
export interface CheckpointMismatch {
  /** The file's name in the run (ckpt-<k>.safetensors or ckpt-<k>.state). */
  file: string;
  /** The sha256 the line records, and the file's (hex). */
  recorded: string;
  actual: string;
}

/**
 * Check the files of the checkpoint after `step` against the sha256 its latest events.jsonl line records.
 * @param actual the sha256 (hex) of the files' bytes as read now.
 * @returns the first file that differs (the weights before the state), or null when both match — and when no line of
 *   that step records hashes (a run recorded before checkpoint lines held them resumes unchecked, as it always did).
 */
export function checkpointMismatch(
  events: readonly RecordEvent[],
  step: number,
  actual: CheckpointHashes,
): CheckpointMismatch | null {
  const line = events
    .filter((e): e is Extract<RecordEvent, { event: 'checkpoint' }> => e.event === 'checkpoint' && e.step === step)
    .at(-1);
  if (!line?.sha256) return null;
  if (line.sha256.weights !== actual.weights)
    return { file: checkpointFile(step), recorded: line.sha256.weights, actual: actual.weights };
  if (line.sha256.state !== actual.state)
    return { file: stateFile(step), recorded: line.sha256.state, actual: actual.state };
  return null;
}

/** A config field whose value in run.json differs from the one the run started with. Values as JSON text. */
export interface ConfigChange {
  field: string;
  started: string;
  now: string;
}

/**
 * The config fields of run.json (`now`, parsed) that differ from the config of the run's first `start` line in
 * events.jsonl (the config the run was started with), in run.json's key order. Fields the start line lacks (added to
 * the config after the run was recorded, so run.json holds their defaults) are not compared. Empty when there is no
 * start line (an emptied events.jsonl is refused by the callers for its own reason).
 */
export function configChanges(events: readonly RecordEvent[], now: RunConfig): ConfigChange[] {
  const start = events.find((e): e is Extract<RecordEvent, { event: 'start' }> => e.event === 'start');
  if (!start) return [];
  const out: ConfigChange[] = [];
  for (const [field, value] of Object.entries(now)) {
    if (!Object.hasOwn(start.config, field)) continue;
    const started = JSON.stringify(start.config[field]),
      cur = JSON.stringify(value);
    if (started !== cur) out.push({ field, started, now: cur });
  }
  return out;
}

/** ConfigChanges as `field old → new`, joined by commas (e.g. `learningRate 0.0001 → 0.5`). */
export function formatConfigChanges(changes: readonly ConfigChange[]): string {
  return changes.map((c) => `${c.field} ${c.started} → ${c.now}`).join(', ');
}
