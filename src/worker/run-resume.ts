/**
 * Resuming a stored run from its latest checkpoint in the page (worker layer): the checkpoint's files, the record cut
 * back to it, the config and checkpoint checks `train --resume` makes (core/run/record.ts), and for an Agentic-OPD
 * distillation its teachers read back from the source stored run. Nothing is written.
 */
import type { RunConfig } from '../core/run/config';
import {
  EVENTS_FILE,
  RUN_FILE,
  RecordError,
  VAL_FILE,
  type ValRecord,
  checkpointFile,
  parseEvents,
  parseValRecord,
  stateFile,
  type RecordEvent,
} from '../core/run/record';
import { checkpointMismatch, configChanges, formatConfigChanges } from '../core/run/resume-checks';
import { TRAJECTORIES_FILE } from '../core/run-files/trajectories';
import { cutEventsText, cutTrajectoriesText } from '../core/run-files/cut';
import type { SourceCheckpoint } from '../core/run/distill';
import { stageValSha256, type PageFromRun } from './distill';
import { sha256Hex } from '../core/sha256';
import { storedCheckpoints, type RecordTexts, type RunStore } from './runs';
import type { StoredRunMeta } from './run-meta';
import { readMeta, readRecord, storedText } from './runs-library';
import { algorithmTraits } from '../core/algorithm-catalog';

/** What resuming a stored run needs. */
export interface ResumePlan {
  meta: StoredRunMeta;
  config: RunConfig;
  /** The checkpoint's two files. */
  weights: Uint8Array;
  state: Uint8Array;
  /** The checkpoint's step k: the continuation starts at k + 1. */
  fromStep: number;
  /** The record cut back to step k, for the recorder to continue. */
  texts: RecordTexts;
  /** The kept events (to draw the run's curves so far). */
  events: RecordEvent[];
  /**
   * An Agentic-OPD distillation's teachers, read back from its source stored run and checked against run.json
   * `fromRun` (worker/distill.ts resumePageDistillation builds the pool); absent for other algorithms.
   */
  distill?: { fromRun: PageFromRun; val: ValRecord; sources: SourceCheckpoint[] };
}

/**
 * The source of a stored distillation `name`: its source stored run's solved matrix and the student's and teachers'
 * checkpoints, each checked against the sha256 in `fromRun`. Nothing is written.
 * @throws Error naming what is missing or changed (the source run, its val.json, a checkpoint) and what to do.
 */
async function readDistillSource(
  store: RunStore,
  name: string,
  fromRun: PageFromRun | undefined,
): Promise<NonNullable<ResumePlan['distill']>> {
  const cannot = `run "${name}" is an Agentic-OPD distillation and cannot resume without its teachers`;
  const fresh =
    'start a new distillation instead (Distil in the Checkpoints view after a GRPO run with Validation ' +
    'tasks and Checkpoint every); the stored runs are unchanged';
  if (!fromRun) throw new Error(`${cannot}: its record does not name the run its checkpoints came from; ${fresh}`);
  const steps = [fromRun.student, ...fromRun.teachers];
  const raw = await store.getMeta(fromRun.dir);
  if (raw === undefined)
    throw new Error(
      `${cannot}: its source run (stored run id ${fromRun.dir}, ` +
        `whose checkpoints of steps ${steps.map((c) => c.step).join(', ')} ` +
        `are the student and the teachers) was deleted; ${fresh}`,
    );
  const src = await readMeta(store, fromRun.dir);
  const srcName = `the source run "${src.name}"`;
  let val: ValRecord;
  try {
    const t = await storedText(store, src, VAL_FILE);
    if (t === null) throw new RecordError(`${VAL_FILE} is missing`);
    val = parseValRecord(t);
  } catch (e) {
    throw new Error(
      `${cannot}: ${srcName} has no readable solved matrix (${e instanceof Error ? e.message : String(e)}); ${fresh}`,
      { cause: e },
    );
  }
  if (
    (await stageValSha256(
      val,
      steps.map((c) => c.step),
    )) !== fromRun.valSha256
  )
    throw new Error(
      `${cannot}: the validations of ${srcName} at steps ${steps.map((c) => c.step).join(', ')} differ ` +
        `from those the distillation began with; ${fresh}`,
    );
  const sources: SourceCheckpoint[] = [];
  for (const c of steps) {
    const role = c === fromRun.student ? 'the student' : 'a teacher';
    const bytes = Object.hasOwn(src.files, c.file) ? await store.getFile(src.id, c.file) : undefined;
    if (!bytes)
      throw new Error(
        `${cannot}: the checkpoint of step ${c.step} of ${srcName} (${role}) is missing from storage ` +
          `(deleted, or never stored because storage was full); ${fresh}`,
      );
    if ((await sha256Hex(bytes)) !== c.sha256)
      throw new Error(
        `${cannot}: the checkpoint of step ${c.step} of ${srcName} (${role}) differs from the one the ` +
          `distillation began with; ${fresh}`,
      );
    sources.push({ step: c.step, bytes, label: `the checkpoint at step ${c.step} of ${srcName}` });
  }
  return { fromRun, val, sources };
}

/**
 * Read a stored run for resuming from its latest checkpoint, with its record cut back to it (as `train --resume`
 * does): a run a reload interrupted, or one ended by Stop before its planned steps (the continuation clears `stopped`).
 * @throws Error naming why it cannot resume: no checkpoint yet, finished, another environment version, a corrupt file,
 *   a run.json config other than the one the run started with, a checkpoint file whose sha256 differs from the one its
 *   events.jsonl line records (core/run/record.ts configChanges, checkpointMismatch).
 */
export async function planResume(
  store: RunStore,
  id: string,
  envVersions: Record<string, string>,
): Promise<ResumePlan> {
  const meta = await readMeta(store, id);
  const { run } = await readRecord(store, meta);
  for (const [env, v] of Object.entries(run.envVersions))
    if (Object.hasOwn(envVersions, env) && envVersions[env] !== v)
      throw new Error(
        `run "${meta.name}" was made with environment version ${v}; this is ${envVersions[env]}, whose ` +
          `tasks differ; start a new run`,
      );
  const k = storedCheckpoints(meta).at(-1);
  if (k === undefined)
    throw new Error(
      `run "${meta.name}" has no checkpoint yet ` +
        `(the first comes at step ${run.config.checkpointEvery || '— checkpoints are off'}); ` +
        `start it again instead`,
    );
  if (k >= run.config.steps)
    throw new Error(`run "${meta.name}" is finished (its latest checkpoint is its last step, ${k}); nothing to resume`);
  const [weights, state] = await Promise.all([store.getFile(id, checkpointFile(k)), store.getFile(id, stateFile(k))]);
  if (!weights || !state)
    throw new Error(`run "${meta.name}": the checkpoint of step ${k} is missing from storage; the run cannot resume`);
  const distill = algorithmTraits(run.config.algo).teacherPool
    ? await readDistillSource(store, meta.name, run.fromRun)
    : undefined;
  try {
    const ev = cutEventsText((await storedText(store, meta, EVENTS_FILE)) ?? '', k).text;
    const trajectories = cutTrajectoriesText((await storedText(store, meta, TRAJECTORIES_FILE)) ?? '', k);
    const valText = await storedText(store, meta, VAL_FILE);
    const val0 = valText === null ? null : parseValRecord(valText);
    const val = val0 ? { ...val0, checkpoints: val0.checkpoints.filter((c) => c.step <= k) } : null;
    const events = parseEvents(ev);
    const changed = configChanges(events, run.config);
    if (changed.length)
      throw new Error(
        `stored run "${meta.name}": its ${RUN_FILE} config differs from the config the run started with ` +
          `(the start line of ${EVENTS_FILE}): ${formatConfigChanges(changed)}; a resumed run keeps its ` +
          `config: import the run again from an unedited copy, or start a new run with these settings`,
      );
    const bad = checkpointMismatch(events, k, { weights: await sha256Hex(weights), state: await sha256Hex(state) });
    if (bad)
      throw new Error(
        `stored run "${meta.name}": ${bad.file} differs from the checkpoint the run stored ` +
          `(sha256 ${bad.actual.slice(0, 12)}…, ` +
          `${EVENTS_FILE} records ${bad.recorded.slice(0, 12)}…: corrupt or replaced); the run cannot ` +
          `resume from it: import the run again from an intact copy (or without this checkpoint's two ` +
          `files, to resume from the one before)`,
      );
    const { error: _stoppedBy, ...kept } = meta; // the continuation replaces what came after the checkpoint
    return {
      meta: { ...kept, done: false, stopped: false, stepsDone: k },
      config: run.config,
      weights,
      state,
      fromStep: k,
      texts: { run, events: ev, trajectories, val },
      events,
      ...(distill ? { distill } : {}),
    };
  } catch (e) {
    if (e instanceof RecordError) throw new Error(`stored run "${meta.name}" is corrupt: ${e.message}`, { cause: e });
    throw e;
  }
}
