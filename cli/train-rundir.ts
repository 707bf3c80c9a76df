/**
 * The run directory side of `npm run train` (cli/train.ts; format in src/core/run/record.ts): checking `--run-dir`
 * and `--resume DIR` (its record validated, run-setting flags equal to the recorded config, the latest checkpoint
 * read), rebuilding a resumed distillation stage's teachers, and `RunRecorder`, which writes run.json, events.jsonl,
 * val.json and the checkpoints as the trainer's events come. Every refusal exits 2 through `fail`.
 */
import { shellLine } from './args';
import fs from 'node:fs';
import path from 'node:path';
import { buildTokenizer } from '../src/core/model/policy';
import type { GrownFrom } from '../src/core/model/grow';
import { getEnvSpec } from '../src/core/envs/registry';
import type { RunConfig } from '../src/core/run/config';
import type { TrainEvent } from '../src/core/train/events';
import { decodeTrainState } from '../src/core/train/checkpoint';
import {
  EVENTS_FILE,
  RECORD_VERSION,
  RUN_FILE,
  RUN_FORMAT,
  VAL_FILE,
  addValidation,
  checkpointFile,
  emptyValRecord,
  stateFile,
  type RunRecord,
  type ValRecord,
} from '../src/core/run/record';
import {
  checkpointLine,
  checkpointMismatch,
  configChanges,
  formatConfigChanges,
  type CheckpointLine,
} from '../src/core/run/resume-checks';
import {
  EventLog,
  RunDirError,
  cutEventsAt,
  listCheckpoints,
  readEvents,
  readRun,
  readVal,
  writeCheckpoint,
  writeFailureMessage,
  writeRun,
  writeVal,
} from './rundir';
import { checkFromRunUnchanged, readFromRun, sha256, type FromRun, type FromRunRecord } from './from-run';
import { FIELD, fail } from './train-flags';
import { resumeSteps } from './resume-steps';
import { LOCK_FILE, RunLockError, acquireRunLock, assertOwnLock, lockedMessage } from './runlock';

/** A run directory to continue: its record, the resolved config and the latest checkpoint's bytes. */
export interface Resume {
  dir: string;
  run: RunRecord;
  config: RunConfig;
  step: number;
  weights: Uint8Array;
  state: Uint8Array;
  best: { step: number; score: number; splits: Record<string, number> } | null;
  val: ValRecord | null;
  /** Checkpoint files after `step` without their pair (an interrupted checkpoint write), skipped; sorted. */
  skipped: string[];
}

/** Flags given on the command line (without `--`), whatever their parsed defaults. */
function givenFlags(): Set<string> {
  return new Set(
    process.argv
      .slice(2)
      .filter((a) => a.startsWith('--'))
      .map((a) => a.slice(2).split('=')[0]),
  );
}

/**
 * Check `--resume DIR` and read what it needs: run.json, events.jsonl and val.json validated, the latest checkpoint
 * with both files, run-setting flags equal to the recorded config (only --steps may differ: not below the run's plan,
 * and above the checkpoint's step; cli/resume-steps.ts), run.json's config equal to the one the run started with
 * (events.jsonl's first `start` line) and the checkpoint's files equal to the sha256 its events.jsonl line records
 * (lines without hashes are not checked). Exits 2 with the reason otherwise, before anything is written.
 */
export function prepareResume(
  dir: string,
  partial: Record<string, unknown>,
  init: string | undefined,
  runDir: string | undefined,
  force = false,
): Resume {
  if (runDir !== undefined) fail('--resume continues the run in its own folder; drop --run-dir');
  // Locked before anything is read, so a second writer is refused before it reads a record being written.
  if (fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory())
    if (fs.existsSync(path.join(dir, 'run.json')) || fs.existsSync(path.join(dir, LOCK_FILE))) lockRunDir(dir, force);
  const { run, events, val } = readResumeRecord(dir);
  checkRecordedConfig(dir, run, events);
  const given = givenFlags();
  checkResumeFlags(run, partial, init, given);
  const { step, skipped } = latestCheckpoint(dir, run, events);
  // Without --steps: the run's plan; --steps below it is refused (cli/resume-steps.ts).
  const planned = resumeSteps(dir, run, events, given.has('steps') ? (partial.steps as number) : undefined, step);
  if ('refusal' in planned) fail(`--resume: ${planned.refusal}`);
  const { steps } = planned;
  const { weights, state, best } = readCheckpoint(dir, events, step);
  return { dir, run, config: { ...run.config, steps }, step, weights, state, best, val, skipped };
}

/** The run directory's run.json, events.jsonl and val.json, validated; a RunDirError exits 2. */
function readResumeRecord(dir: string): {
  run: RunRecord;
  events: ReturnType<typeof readEvents>;
  val: ValRecord | null;
} {
  try {
    return { run: readRun(dir), events: readEvents(dir), val: readVal(dir) };
  } catch (e) {
    if (e instanceof RunDirError) fail(`--resume: ${e.message}`);
    throw e;
  }
}

/** run.json's config equal to the one the run started with, and made with this environment version. */
function checkRecordedConfig(dir: string, run: RunRecord, events: ReturnType<typeof readEvents>): void {
  const changed = configChanges(events, run.config);
  if (changed.length) {
    const ck = listCheckpoints(dir).at(-1);
    const fromCheckpoint =
      ck !== undefined ? ` from the checkpoint with --init ${path.join(dir, checkpointFile(ck))}` : '';
    fail(
      `--resume: ${path.join(dir, 'run.json')}'s config differs from the config the run started with (the ` +
        `start line of ${path.join(dir, 'events.jsonl')}): ${formatConfigChanges(changed)}; a resumed run ` +
        `keeps its config: restore run.json, or, to change settings, start a new run${fromCheckpoint} ` +
        `and the new flags`,
    );
  }
  const spec = getEnvSpec(run.config.env);
  if (Object.hasOwn(run.envVersions, spec.name) && run.envVersions[spec.name] !== spec.version)
    fail(
      `--resume: the run was made with environment version ${run.envVersions[spec.name]}; this is ${spec.version}, ` +
        `whose tasks differ; start a new run`,
    );
}

/** Run-setting flags given with --resume equal to the recorded config (--steps may differ; --init as recorded). */
function checkResumeFlags(
  run: RunRecord,
  partial: Record<string, unknown>,
  init: string | undefined,
  given: Set<string>,
): void {
  for (const [flag, field] of Object.entries(FIELD)) {
    if (!given.has(flag) || field === 'steps') continue;
    if (field === 'init') {
      if (init !== run.config.init)
        fail(
          `--resume: --init ${init} differs from the run's ${run.config.init}; the weights come from the ` +
            `checkpoint, so drop --init`,
        );
      continue;
    }
    if (partial[field] !== run.config[field])
      fail(
        `--resume: --${flag} ${String(partial[field])} differs from the run's ${String(run.config[field])}; ` +
          `a resumed run keeps its config (only --steps may change)`,
      );
  }
}

/**
 * The latest checkpoint's step (with its step event in events.jsonl) and the checkpoint files after it without their
 * pair, skipped.
 */
function latestCheckpoint(
  dir: string,
  run: RunRecord,
  events: ReturnType<typeof readEvents>,
): { step: number; skipped: string[] } {
  const ckpts = listCheckpoints(dir);
  if (!ckpts.length) fail(noCheckpointMessage(dir, run, events));
  const step = ckpts[ckpts.length - 1];
  // The step events up to the checkpoint are the run's history; a file emptied or cut at a line boundary would lose it.
  if (!events.some((e) => e.event === 'step' && e.step === step))
    fail(
      `--resume: ${path.join(dir, 'events.jsonl')} holds no step event of step ${step}, the latest ` +
        `checkpoint (it holds ${events.length} line${events.length === 1 ? '' : 's'}: emptied, cut or ` +
        `replaced?); resuming would lose the run's history: restore the file, or start a new run from the ` +
        `checkpoint with --init ${path.join(dir, checkpointFile(step))}`,
    );
  const skipped = fs
    .readdirSync(dir)
    .filter((f) => {
      const m = /^ckpt-(\d+)\.(safetensors|state)$/.exec(f);
      return m !== null && Number(m[1]) > step;
    })
    .sort();
  return { step, skipped };
}

/**
 * The refusal of `--resume` for a run folder without a checkpoint: a run stopped (killed, failed, out of space) before
 * its first checkpoint, how far it got, and the command that starts it again.
 */
function noCheckpointMessage(dir: string, run: RunRecord, events: ReturnType<typeof readEvents>): string {
  const done = events.filter((e) => e.event === 'step').length;
  const every = run.config.checkpointEvery;
  return (
    `--resume: ${dir} was stopped before its first checkpoint (it holds ${done} step event` +
    `${done === 1 ? '' : 's'} and no ckpt-<k>.safetensors with its ckpt-<k>.state; ` +
    `the first is written at step ${every > 0 ? Math.min(every, run.config.steps) : run.config.steps}` +
    `): there is nothing to continue. Start it again: rm -r ${dir} && ${run.command}`
  );
}

/** The checkpoint's two files, equal to the sha256 events.jsonl records, and the best evaluation its state holds. */
function readCheckpoint(
  dir: string,
  events: ReturnType<typeof readEvents>,
  step: number,
): Pick<Resume, 'weights' | 'state' | 'best'> {
  const weights = new Uint8Array(fs.readFileSync(path.join(dir, checkpointFile(step))));
  const state = new Uint8Array(fs.readFileSync(path.join(dir, stateFile(step))));
  const bad = checkpointMismatch(events, step, { weights: sha256(weights), state: sha256(state) });
  if (bad)
    fail(
      `--resume: ${path.join(dir, bad.file)} differs from the checkpoint the run wrote (sha256 ` +
        `${bad.actual.slice(0, 12)}…, events.jsonl records ${bad.recorded.slice(0, 12)}…: corrupt or replaced); ` +
        `remove this checkpoint's two files to resume from the one before`,
    );
  let decoded;
  try {
    decoded = decodeTrainState(state);
    if (decoded.step !== step) throw new Error(`it records step ${decoded.step}`);
  } catch (e) {
    fail(
      `--resume: ${path.join(dir, stateFile(step))} is corrupt (${(e as Error).message}); remove this ` +
        `checkpoint's two files to resume from the one before`,
    );
  }
  return { weights, state, best: decoded.best };
}

/**
 * The warning for checkpoint files after the resumed step without their pair (`Resume.skipped`); null when none.
 */
export function skippedWarning(resume: Resume): string | null {
  if (!resume.skipped.length) return null;
  const pairOf = (f: string) =>
    f.endsWith('.state') ? f.replace(/\.state$/, '.safetensors') : f.replace(/\.safetensors$/, '.state');
  const lone = resume.skipped.map((f) => `${f} without ${pairOf(f)}`);
  return (
    `--resume: ${lone.join(', ')} (an interrupted checkpoint write?) ${lone.length === 1 ? 'is' : 'are'} ` +
    `skipped; the run continues from the checkpoint of step ${resume.step}`
  );
}

/**
 * The teachers of a resumed distillation stage: the source run recorded in run.json (`fromRun`), read again after
 * checking that its val.json and the checkpoint files the stage read are unchanged (sha256). Exits 2 naming what
 * changed, or when `--from-run` names another directory.
 */
export function resumeFromRun(resume: Resume, config: RunConfig, given: string | undefined): FromRun {
  const rec = resume.run.fromRun;
  if (!rec)
    fail(
      `--resume: ${path.join(resume.dir, 'run.json')} records no --from-run source for this agentic-opd ` +
        `run; start a new distillation with --from-run DIR`,
    );
  if (given !== undefined && path.resolve(given) !== rec.dir)
    fail(
      `--resume: --from-run ${given} differs from the run's ${rec.dir}; a resumed distillation keeps its ` +
        `source, so drop --from-run`,
    );
  let fr: FromRun;
  try {
    checkFromRunUnchanged(rec);
    const spec = getEnvSpec(config.env);
    fr = readFromRun(rec.dir, config, spec, buildTokenizer(spec));
  } catch (e) {
    fail(`--resume: ${(e as Error).message}`);
  }
  if (fr.studentStep !== rec.student.step || fr.pool.ids.join() !== rec.teachers.map((t) => t.step).join())
    fail(
      `--resume: the source run ${rec.dir} now gives student ${fr.studentStep} and teachers ` +
        `${fr.pool.ids.join(', ')}, the run began with student ${rec.student.step} and teachers ` +
        `${rec.teachers.map((t) => t.step).join(', ')}; start a new distillation`,
    );
  return fr;
}

/**
 * Check `--run-dir DIR`: a new or empty folder (made by `makeRunDir` once every other check has passed). Exits 2
 * otherwise.
 */
export function prepareRunDir(dir: string): void {
  if (dir.trim() === '') fail('--run-dir needs a folder path, e.g. --run-dir runs/grpo-seed1');
  if (fs.existsSync(dir)) {
    if (!fs.statSync(dir).isDirectory()) fail(`--run-dir: "${dir}" is a file; give a folder path`);
    const locked = fs.readdirSync(dir).includes(LOCK_FILE) ? lockedMessage(dir) : null;
    if (locked) fail(`--run-dir: ${locked}`);
    if (fs.readdirSync(dir).length)
      fail(
        `--run-dir: "${dir}" is not empty; give a new folder` +
          (fs.existsSync(path.join(dir, 'run.json'))
            ? `, or continue that run with --resume ${dir}`
            : ' (it holds no run.json, so it is not a run to resume)'),
      );
  }
}

/**
 * Create `--run-dir DIR` (checked by `prepareRunDir`) and take its lock (`lockRunDir`). Exits 2 when it cannot be
 * made or another writer took it meanwhile.
 */
export function makeRunDir(dir: string, force = false): void {
  try {
    fs.mkdirSync(dir, { recursive: true });
  } catch (e) {
    fail(`--run-dir: cannot create "${dir}" (${(e as Error).message})`);
  }
  lockRunDir(dir, force);
}

/** A turn of the event loop, so signal handlers run (a training loop otherwise never yields to them). */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Take the lock of run directory `dir` for this process (cli/runlock.ts) until it exits, printing its notes (a
 * stale lock taken over, a lock broken with `force`) on stderr. Exits 2 naming the holder when another writer has it.
 */
export function lockRunDir(dir: string, force: boolean): void {
  try {
    const lock = acquireRunLock(dir, { force, command: 'npm run train -- ' + shellLine(process.argv.slice(2)) });
    for (const n of lock.notes) process.stderr.write(`train: ${n}\n`);
  } catch (e) {
    if (e instanceof RunLockError) fail(e.message);
    fail(`cannot lock ${dir} (${(e as Error).message})`);
  }
}

/**
 * Writes the run record as the trainer's events come (format: src/core/run/record.ts). A failed write (a full disk, a
 * read-only file system, …) throws an Error naming the file, what was kept and what to do (`writeFailureMessage`).
 */
export class RunRecorder {
  private readonly log: EventLog;
  private val: ValRecord | null;
  private run: RunRecord | null = null;
  /** The latest checkpoint line (`lineOf` hashes each checkpoint's bytes once). */
  private lastLine: CheckpointLine | null = null;
  /** The step of the latest complete checkpoint (both files written), the one a --resume continues from. */
  private kept: number | null;

  constructor(
    private readonly dir: string,
    private readonly config: RunConfig,
    private readonly command: string,
    private readonly backend: string,
    private readonly initWeights: string | null,
    private readonly resume: Resume | null,
    /** A distillation stage's source run and the sha256 of what it read (run.json `fromRun`). */
    private readonly fromRun: FromRunRecord | null = null,
    /** The size and sha256 of the --init file grown into the config's model (run.json `grownFrom`). */
    private readonly grownFrom: GrownFrom | null = null,
    /** The hex sha256 of the weights a fresh run began from (run.json `initSha256`); null for a fresh init. */
    private readonly initSha256: string | null = null,
  ) {
    this.kept = resume?.step ?? null;
    this.val = null;
    if (resume) this.continueRecord(resume);
    this.log = this.guard(EVENTS_FILE, () => new EventLog(dir));
  }

  /** A resumed run: events.jsonl cut back to the checkpoint, val.json likewise, run.json with the resume added. */
  private continueRecord(resume: Resume): void {
    this.guard(EVENTS_FILE, () => cutEventsAt(this.dir, resume.step));
    this.val = resume.val
      ? { ...resume.val, checkpoints: resume.val.checkpoints.filter((c) => c.step <= resume.step) }
      : null;
    if (this.val) this.guard(VAL_FILE, () => writeVal(this.dir, this.val!));
    this.run = {
      ...resume.run,
      resumes: [
        ...resume.run.resumes,
        { fromStep: resume.step, steps: this.config.steps, command: this.command, at: new Date().toISOString() },
      ],
    };
    this.guard(RUN_FILE, () => writeRun(this.dir, this.run!));
  }

  /**
   * Run a write of `file` once this process is checked to still hold the run directory's lock (a RunLockError when
   * another train took it with --force); a file-system error becomes an Error naming the file, what was kept and
   * what to do.
   */
  private guard<T>(file: string, f: () => T): T {
    assertOwnLock(this.dir);
    try {
      return f();
    } catch (e) {
      // The file the error names (a checkpoint's state file, say), without writeAtomic's temporary suffix.
      const named = (e as { path?: unknown }).path;
      const p = typeof named === 'string' ? named.replace(/\.tmp-\d+$/, '') : path.join(this.dir, file);
      const msg = writeFailureMessage(this.dir, p, e, this.kept, this.command);
      if (msg === null) throw e;
      throw new Error(msg, { cause: e });
    }
  }

  /** The events.jsonl line of a checkpoint event: its file names and the sha256 of its bytes (checked on --resume). */
  lineOf(ev: { step: number; weights: Uint8Array; state: Uint8Array }): CheckpointLine {
    if (this.lastLine?.step !== ev.step)
      this.lastLine = checkpointLine(ev.step, { weights: sha256(ev.weights), state: sha256(ev.state) });
    return this.lastLine;
  }

  /** Record one event (files first, then its line); returns it unchanged. */
  take(ev: TrainEvent): TrainEvent {
    if (ev.event === 'start' && !this.run) {
      this.run = {
        format: RUN_FORMAT,
        version: RECORD_VERSION,
        config: ev.config,
        envVersions: ev.envVersions,
        command: this.command,
        argv: process.argv.slice(2),
        backend: ev.backend,
        params: ev.params,
        vocabSize: ev.vocabSize,
        initWeights: this.initWeights,
        ...(this.initSha256 ? { initSha256: this.initSha256 } : {}),
        createdAt: new Date().toISOString(),
        resumes: [],
        ...(this.fromRun ? { fromRun: this.fromRun } : {}),
        ...(this.grownFrom ? { grownFrom: this.grownFrom } : {}),
      };
      this.guard(RUN_FILE, () => writeRun(this.dir, this.run!));
    }
    if (ev.event === 'validation') {
      this.val = addValidation(
        this.val ?? emptyValRecord(this.config, ev.taskTypes),
        ev.step,
        ev.passRates,
        ev.taskTypes,
      );
      this.guard(VAL_FILE, () => writeVal(this.dir, this.val!));
    }
    if (ev.event === 'checkpoint') {
      this.guard(checkpointFile(ev.step), () => writeCheckpoint(this.dir, ev.step, ev.weights, ev.state));
      this.kept = ev.step;
      this.guard(EVENTS_FILE, () => {
        this.log.append(this.lineOf(ev));
        this.log.sync();
      });
    } else if (ev.event !== 'trajectories') this.guard(EVENTS_FILE, () => this.log.append(ev));
    if (ev.event === 'done') this.log.close();
    return ev;
  }
}
