/**
 * Run records kept by the page (worker layer): every run the page trains is written to storage as the CLI's run
 * record (core/run/record.ts; with trajectories.jsonl beside it) — run.json, events.jsonl, val.json and, every
 * `checkpointEvery` steps, ckpt-<k>.safetensors + ckpt-<k>.state with the same bytes `train --run-dir` writes
 * (core/train/checkpoint.ts). A write happens at each checkpoint, at the end of the run, when training pauses and when
 * a non-finite value stops it (the trainer's `error` event, kept as events.jsonl's last line and as the summary's
 * `error`), each one transaction, so a reload keeps the run up to its last write and resumes from its last checkpoint.
 *
 * The store is passed in (IndexedDB in the worker: persist.ts; a Map in tests), so this runs in Node too.
 */
import type { TrainEvent } from '../core/train/events';
import type { GroupDetail } from '../core/train/step-detail';
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
} from '../core/run/record';
import { checkpointLine, type CheckpointHashes } from '../core/run/resume-checks';
import { sha256Hex } from '../core/sha256';
import type { StoredRunMeta } from './run-meta';
import type { RecordStatus } from './api';
import { TRAJECTORIES_FILE, trajectoryLine } from '../core/run-files/trajectories';

/** Where run records live; persist.ts implements it on IndexedDB (module comment there). */
export interface RunStore {
  /** One transaction: put the summary and `files`, delete `remove`. All or nothing; throws the storage error. */
  write(
    meta: StoredRunMeta,
    files: readonly { name: string; data: Uint8Array }[],
    remove?: readonly string[],
  ): Promise<void>;
  /** A summary as stored (validated by the caller), or undefined. */
  getMeta(id: string): Promise<unknown>;
  /** Every summary as stored. */
  listMeta(): Promise<unknown[]>;
  getFile(id: string, name: string): Promise<Uint8Array | undefined>;
  /** Delete a run and its files (no error if absent). */
  delete(id: string): Promise<void>;
}

/** The run record text a recorder starts from (empty for a new run; the kept part for a resumed one). */
export interface RecordTexts {
  run: RunRecord | null;
  events: string;
  trajectories: string;
  val: ValRecord | null;
}

const enc = new TextEncoder();

/**
 * The message of the last `error` line of events.jsonl text (a run a non-finite value stopped), or null when it has
 * none. Lines that are not JSON objects are skipped (the record's own validation reports them).
 */
export function errorOfEvents(text: string): string | null {
  let found: string | null = null;
  for (const line of text.split('\n')) {
    if (!line.includes('"error"')) continue;
    try {
      const o = JSON.parse(line) as { event?: unknown; message?: unknown };
      if (o.event === 'error' && typeof o.message === 'string') found = o.message;
    } catch {
      // not this function's to report
    }
  }
  return found;
}

/** Sum of a run's stored file sizes (bytes). */
export function runBytes(meta: Pick<StoredRunMeta, 'files'>): number {
  return Object.values(meta.files).reduce((a, b) => a + b, 0);
}

/** Steps of the checkpoints stored with both files, ascending. */
export function storedCheckpoints(meta: Pick<StoredRunMeta, 'files'>): number[] {
  return Object.keys(meta.files)
    .flatMap((f) => {
      const m = /^ckpt-(\d+)\.safetensors$/.exec(f);
      return m && Object.hasOwn(meta.files, stateFile(Number(m[1]))) ? [Number(m[1])] : [];
    })
    .sort((a, b) => a - b);
}

/** True for a storage-full error (IndexedDB's QuotaExceededError, by name or message). */
export function isQuotaError(e: unknown): boolean {
  const name = (e as { name?: unknown })?.name;
  return name === 'QuotaExceededError' || /quota/i.test(e instanceof Error ? e.message : String(e));
}

/**
 * Records one run into a RunStore as its events come: `take` every event (synchronous), writes are queued one at a
 * time (`flush`, also started by checkpoint and done events). A failed write keeps the previous one intact (one
 * transaction each) and is reported through `onStatus` with what was kept and every checkpoint lost so far; the
 * next write tries again, without the checkpoint files that did not fit.
 */
export class RunRecorder {
  private run: RunRecord | null;
  private events: string;
  private trajectories: string;
  private val: ValRecord | null;
  /** Checkpoints taken and not yet written (their events.jsonl line holds no hashes until the write computes them). */
  private pending: { step: number; weights: Uint8Array; state: Uint8Array; hashes?: CheckpointHashes }[] = [];
  private queue: Promise<void> = Promise.resolve();
  private lastStep = 0;
  private savedStep = 0;
  /** Steps of checkpoints whose write failed (their bytes are dropped, never retried), ascending. */
  private lostCheckpoints: number[] = [];
  /** True once a write stored the run's end (its done event, or Stop). */
  private endStored = false;
  /** `updatedAt` of the summary as this recorder last found or wrote it in the store; null before the first write. */
  private stored: number | null;

  /**
   * @param meta the run's summary (its id, name, init; files of a resumed run).
   * @param texts the record to continue (a resumed run's files cut back to its checkpoint), or empty.
   * @param fromRun a new distillation stage's source (run.json `fromRun`: the source run's id and the sha256 of what it
   * read).
   */
  constructor(
    private readonly store: RunStore,
    private meta: StoredRunMeta,
    texts: RecordTexts,
    private readonly onStatus: (s: RecordStatus) => void,
    private readonly fromRun?: RunRecord['fromRun'],
  ) {
    this.run = texts.run;
    this.events = texts.events;
    this.trajectories = texts.trajectories;
    this.val = texts.val;
    this.lastStep = this.savedStep = meta.stepsDone;
    this.stored = texts.run ? meta.updatedAt : null;
  }

  /**
   * `updatedAt` of the run's summary as this recorder last wrote it (for a resumed run, as it was read back before
   * the first write); null while a new run has not been written. Another tab that wrote the run since (it resumed
   * it) or deleted it leaves the store with another value.
   */
  get storedAt(): number | null {
    return this.stored;
  }

  /** The run's id. */
  get id(): string {
    return this.meta.id;
  }

  /** True once a successful write stored the run's end (its done event, or Stop): the record is complete. */
  get ended(): boolean {
    return this.endStored;
  }

  /** Renames the run being recorded (the next write stores it; the caller writes the summary now). */
  rename(name: string): void {
    this.meta = { ...this.meta, name };
  }

  /**
   * Takes one trainer event into the record; a checkpoint or done event starts a write.
   * @param detail for a `trajectories` event: the same step's group 0 as the trainer handed it to the explorer
   *   (core/train/step-detail.ts), whose numbers the line keeps beside the text (core/run-files/trajectories.ts
   *   `detail`);
   *   null or absent: the text alone.
   */
  take(e: TrainEvent, detail?: GroupDetail | null): void {
    switch (e.event) {
      case 'start':
        if (!this.run) {
          this.run = {
            format: RUN_FORMAT,
            version: RECORD_VERSION,
            config: e.config,
            envVersions: e.envVersions,
            command: 'page',
            argv: [],
            backend: e.backend,
            params: e.params,
            vocabSize: e.vocabSize,
            initWeights: this.meta.init.kind === 'checkpoint' ? (this.meta.init.name ?? null) : null,
            createdAt: new Date(this.meta.createdAt).toISOString(),
            resumes: [],
            ...(this.fromRun ? { fromRun: this.fromRun } : {}),
          };
        } else if (e.resumedFrom !== undefined) {
          this.run = {
            ...this.run,
            resumes: [
              ...this.run.resumes,
              { fromStep: e.resumedFrom, steps: e.config.steps, command: 'page: Resume', at: new Date().toISOString() },
            ],
          };
        }
        this.meta = { ...this.meta, stepsPlanned: e.config.steps };
        this.line(e);
        break;
      case 'step':
        this.lastStep = e.step;
        this.line(e);
        break;
      case 'trajectories':
        this.trajectories += trajectoryLine(e, detail) + '\n';
        break;
      case 'validation':
        this.val = addValidation(
          this.val ??
            emptyValRecord(
              this.run?.config ?? { preset: '', valTasks: e.passRates.length, valSamples: e.samples },
              e.taskTypes,
            ),
          e.step,
          e.passRates,
          e.taskTypes,
        );
        this.line(e);
        break;
      case 'checkpoint':
        this.pending.push({ step: e.step, weights: e.weights, state: e.state });
        this.events += lineText(e.step);
        void this.flush();
        break;
      case 'done':
        this.meta = { ...this.meta, done: true };
        this.line(e);
        void this.flush();
        break;
      case 'error':
        // A non-finite value stopped the run: why is stored at once, so a reload, the Runs view and an export say it.
        this.meta = { ...this.meta, error: e.message };
        this.line(e);
        void this.flush();
        break;
      case 'eval':
        this.line(e);
        break;
      default:
        break; // kinds the run record does not hold
    }
  }

  /**
   * Marks the run as ended by Stop (`done` and `stopped` in its summary; events.jsonl keeps what was taken, without a
   * `done` line) and writes it. Resolves when written or failed (never rejects).
   */
  stop(): Promise<void> {
    this.meta = { ...this.meta, done: true, stopped: true };
    return this.flush();
  }

  /**
   * Writes what was taken so far (queued after any write in flight). Resolves when written or failed (never rejects).
   */
  flush(): Promise<void> {
    this.queue = this.queue.then(() => this.write());
    return this.queue;
  }

  private line(e: object): void {
    this.events += JSON.stringify(e) + '\n';
  }

  private async write(): Promise<void> {
    if (!this.run) return; // nothing before the start event
    const ckpts = this.pending;
    this.pending = [];
    // What the write stores is what was taken when it started; hashing below lets more events come meanwhile.
    const step = this.lastStep,
      meta = this.meta;
    let events = this.events;
    const texts = [
      { name: RUN_FILE, data: enc.encode(JSON.stringify(this.run, null, 2) + '\n') },
      { name: TRAJECTORIES_FILE, data: enc.encode(this.trajectories) },
      ...(this.val ? [{ name: VAL_FILE, data: enc.encode(JSON.stringify(this.val) + '\n') }] : []),
    ];
    // Each checkpoint's line gets the sha256 of its two files (Resume checks them), in place of the line taken.
    for (const c of ckpts) {
      const hashes: CheckpointHashes = { weights: await sha256Hex(c.weights), state: await sha256Hex(c.state) };
      events = events.replace(lineText(c.step), lineText(c.step, hashes));
      this.events = this.events.replace(lineText(c.step), lineText(c.step, hashes));
      c.hashes = hashes;
    }
    const files = [
      texts[0],
      { name: EVENTS_FILE, data: enc.encode(events) },
      ...texts.slice(1),
      ...ckpts.flatMap((c) => [
        { name: checkpointFile(c.step), data: c.weights },
        { name: stateFile(c.step), data: c.state },
      ]),
    ];
    const sizes = { ...meta.files };
    for (const f of files) sizes[f.name] = f.data.length;
    const next: StoredRunMeta = { ...meta, files: sizes, stepsDone: step, updatedAt: Date.now() };
    next.lastCheckpoint = storedCheckpoints(next).at(-1) ?? null;
    try {
      await this.store.write(next, files);
      // Keep what changed while the write was in flight (a done event, a rename); take the write's files and steps.
      this.meta = {
        ...this.meta,
        files: next.files,
        stepsDone: next.stepsDone,
        updatedAt: next.updatedAt,
        lastCheckpoint: next.lastCheckpoint,
      };
      this.savedStep = step;
      this.stored = next.updatedAt;
      if (next.done) this.endStored = true;
      this.onStatus({
        id: next.id,
        name: next.name,
        savedStep: step,
        lastCheckpoint: next.lastCheckpoint,
        error: null,
      });
    } catch (e) {
      const what = isQuotaError(e)
        ? 'storage is full (QuotaExceededError)'
        : `storage failed (${e instanceof Error ? e.message : String(e)})`;
      const kept =
        this.savedStep > 0
          ? `the run is kept up to step ${this.savedStep}` +
            (this.meta.lastCheckpoint !== null ? ` with its checkpoint of step ${this.meta.lastCheckpoint}` : '')
          : 'nothing of this run could be kept';
      // Every checkpoint lost so far, not only this write's: the pause's write right after a failed checkpoint write
      // carries no checkpoint, and its message replaces the one before it on the page.
      for (const c of ckpts) {
        this.lostCheckpoints.push(c.step);
        // events.jsonl names only checkpoints whose files are stored (compare counts them; Resume offers them).
        this.events = this.events.replace(lineText(c.step, c.hashes), '');
      }
      const ls = this.lostCheckpoints;
      const lost =
        ls.length === 1
          ? `; the checkpoint of step ${ls[0]} was not stored`
          : ls.length > 1
            ? `; the checkpoints of steps ${ls.slice(0, -1).join(', ')} and ${ls.at(-1)} were not stored`
            : '';
      this.onStatus({
        id: this.meta.id,
        name: this.meta.name,
        savedStep: this.savedStep,
        lastCheckpoint: this.meta.lastCheckpoint,
        error: `${what}: ${kept}${lost}. Training goes on; delete runs or weights in the Runs view to free space.`,
      });
    }
  }
}

/** events.jsonl's line for the checkpoint of `step` (core/run/record.ts checkpointLine), with its newline. */
function lineText(step: number, hashes?: CheckpointHashes): string {
  return JSON.stringify(checkpointLine(step, hashes)) + '\n';
}
