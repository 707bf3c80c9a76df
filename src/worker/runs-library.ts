/**
 * The stored runs as the Runs and Compare views use them (worker layer): listing (every summary and run.json
 * validated; a corrupt one is listed as corrupt, never thrown), rename, delete, export as one `.opdrun` file
 * (core/run-files/pack.ts), import of such a file (validated whole before anything is written; stored runs are
 * untouched on any error), trajectories as chat-messages JSONL, records for comparing, and records for resuming
 * (run-resume.ts). Also
 * `PageRuns`, which starts a recorder for each run the page trains. The store is passed in (persist.ts in the
 * worker, a Map in tests).
 */
import type { RunConfig } from '../core/run/config';
import {
  EVENTS_FILE,
  RUN_FILE,
  RecordError,
  parseEvents,
  parseRunRecord,
  type RecordEvent,
  type RunRecord,
} from '../core/run/record';
import { summarizeRun } from '../core/run/summary';
import { PackError, packRun, unpackRun } from '../core/run-files/pack';
import {
  TRAJECTORIES_FILE,
  forEachTrajectoryLine,
  parseTrajectoryLines,
  storedGroup,
  toChatJsonl,
} from '../core/run-files/trajectories';
import type { TrajectoryStore } from './trajectory-store';
import type { TrainEvent } from '../core/train/events';
import type { GroupDetail } from '../core/train/step-detail';
import type { PageFromRun } from './distill';
import {
  RunRecorder,
  errorOfEvents,
  isQuotaError,
  runBytes,
  storedCheckpoints,
  type RecordTexts,
  type RunStore,
} from './runs';
import { InitRecordSchema, StoredRunMetaSchema, type InitRecord, type StoredRunMeta } from './run-meta';
import { TabRunLocks, elsewhereMessage } from './run-locks';
import {
  MAX_RUN_NAME,
  type CorruptRun,
  type RecordStatus,
  type RunInfo,
  type RunsList,
  type StoredExplorerRun,
} from './api';

const dec = new TextDecoder();

/** The trimmed run name. @throws Error when empty or longer than MAX_RUN_NAME. */
export function checkRunName(name: string): string {
  const n = name.trim();
  if (!n) throw new Error('the run name is empty; type a name');
  if (n.length > MAX_RUN_NAME) throw new Error(`the run name has ${n.length} characters; use at most ${MAX_RUN_NAME}`);
  return n;
}

/** A stored summary, validated. @throws Error naming the run and the bad field, or saying it does not exist. */
export async function readMeta(store: RunStore, id: string): Promise<StoredRunMeta> {
  const raw = await store.getMeta(id);
  if (raw === undefined)
    throw new Error(`no stored run with id "${id}" (deleted in another tab?); reload the Runs list`);
  const r = StoredRunMetaSchema.safeParse(raw);
  if (!r.success)
    throw new Error(
      `stored run "${id}" is corrupt: ${r.error.issues[0].path.join('.')}: ${r.error.issues[0].message}; delete it`,
    );
  return r.data;
}

/**
 * The text of stored file `name` of a run, or null when the run has no such file (`meta.files` own key).
 * @throws Error naming the run and file when the summary lists it but storage has lost it.
 */
export async function storedText(store: RunStore, meta: StoredRunMeta, name: string): Promise<string | null> {
  if (!Object.hasOwn(meta.files, name)) return null;
  const b = await store.getFile(meta.id, name);
  if (!b)
    throw new Error(
      `stored run "${meta.name}": ${name} is missing from storage; the run is incomplete (delete it, or ` +
        `export what is left)`,
    );
  return dec.decode(b);
}

/** run.json and events.jsonl of a stored run, validated. @throws Error naming the run, file, line and field. */
export async function readRecord(
  store: RunStore,
  meta: StoredRunMeta,
): Promise<{ run: RunRecord; events: RecordEvent[] }> {
  try {
    const runText = await storedText(store, meta, RUN_FILE);
    if (runText === null)
      throw new RecordError(`${RUN_FILE} was never written (the run stopped before its first update)`);
    return { run: parseRunRecord(runText), events: parseEvents((await storedText(store, meta, EVENTS_FILE)) ?? '') };
  } catch (e) {
    if (e instanceof RecordError) throw new Error(`stored run "${meta.name}" is corrupt: ${e.message}`, { cause: e });
    throw e;
  }
}

function info(meta: StoredRunMeta, run: RunRecord): RunInfo {
  const { files: _f, ...rest } = meta;
  const c = run.config;
  return {
    ...rest,
    bytes: runBytes(meta),
    checkpoints: storedCheckpoints(meta),
    algo: c.algo,
    env: c.env,
    preset: c.preset,
    model: c.model,
    seed: c.seed,
    checkpointEvery: c.checkpointEvery,
    backend: run.backend,
    envVersions: run.envVersions,
  };
}

/** Every stored run, validated one by one: a corrupt one goes to `corrupt` with the reason, the others stay usable. */
export async function listRuns(store: RunStore): Promise<RunsList> {
  const runs: RunInfo[] = [],
    corrupt: CorruptRun[] = [];
  for (const raw of await store.listMeta()) {
    const id =
      typeof raw === 'object' && raw !== null && Object.hasOwn(raw, 'id')
        ? String((raw as { id: unknown }).id)
        : '(no id)';
    try {
      const meta = await readMeta(store, id);
      const runText = await storedText(store, meta, RUN_FILE);
      if (runText === null) continue; // a run whose first write is still to come
      runs.push(info(meta, parseRunRecord(runText)));
    } catch (e) {
      corrupt.push({ id, reason: e instanceof Error ? e.message : String(e) });
    }
  }
  runs.sort((a, b) => b.createdAt - a.createdAt);
  return { runs, corrupt, totalBytes: runs.reduce((a, r) => a + r.bytes, 0) };
}

/** Rename a stored run. @throws Error on a bad name or a missing or corrupt run. */
export async function renameRun(store: RunStore, id: string, name: string): Promise<void> {
  const n = checkRunName(name);
  const meta = await readMeta(store, id);
  await store.write({ ...meta, name: n }, []);
}

/** Every stored file of a run. @throws Error naming a missing file. */
async function allFiles(store: RunStore, meta: StoredRunMeta): Promise<Map<string, Uint8Array>> {
  const out = new Map<string, Uint8Array>();
  for (const name of Object.keys(meta.files)) {
    const b = await store.getFile(meta.id, name);
    if (!b) throw new Error(`stored run "${meta.name}": ${name} is missing from storage; the run is incomplete`);
    out.set(name, b);
  }
  return out;
}

/**
 * A stored run as one `.opdrun` file (core/run-files/pack.ts), its record validated first.
 * @throws Error naming the run and what is wrong (corrupt, incomplete, over the size limit).
 */
export async function exportRun(store: RunStore, id: string): Promise<Uint8Array> {
  const meta = await readMeta(store, id);
  await readRecord(store, meta);
  return packRun(meta.name, await allFiles(store, meta), { init: JSON.stringify(meta.init) });
}

/**
 * The run's sampled trajectories as chat-messages JSONL (core/run-files/trajectories.ts). @throws Error on a corrupt
 * file.
 */
export async function exportTrajectories(store: RunStore, id: string): Promise<string> {
  const meta = await readMeta(store, id);
  try {
    return toChatJsonl(parseTrajectoryLines((await storedText(store, meta, TRAJECTORIES_FILE)) ?? ''));
  } catch (e) {
    if (e instanceof RecordError) throw new Error(`stored run "${meta.name}" is corrupt: ${e.message}`, { cause: e });
    throw e;
  }
}

/**
 * Adds every line of a trajectories.jsonl text to `into` as its step's group 0 (core/run-files/trajectories.ts
 * `storedGroup`), line by line, so the store's limits and byte bound apply as it fills (the parsed lines are never
 * all held). Untrusted text: each line is validated first.
 * @returns lines read and how many had `detail`.
 * @throws RecordError at the first bad line (the lines before it stay added).
 */
export function addStoredTrajectories(text: string, into: TrajectoryStore): { steps: number; withDetail: number } {
  let steps = 0,
    withDetail = 0;
  forEachTrajectoryLine(text, (r) => {
    steps++;
    if (r.detail) withDetail++;
    if (r.group.length) into.add({ step: r.step, groups: [storedGroup(r)] });
  });
  return { steps, withDetail };
}

/**
 * Reads stored run `id`'s trajectories into `into` (cleared first; its window set to the run's explorerSteps, its byte
 * bound left as given): `addStoredTrajectories` over the run's trajectories.jsonl, validated.
 * @throws Error naming the run and why (missing, corrupt summary, run.json or line, a file missing from storage).
 */
export async function loadStoredTrajectories(
  store: RunStore,
  id: string,
  into: TrajectoryStore,
): Promise<StoredExplorerRun> {
  const meta = await readMeta(store, id);
  const { run } = await readRecord(store, meta);
  into.clear();
  into.setLimits({ recentSteps: run.config.explorerSteps });
  try {
    const n = addStoredTrajectories((await storedText(store, meta, TRAJECTORIES_FILE)) ?? '', into);
    return {
      id,
      name: meta.name,
      env: run.config.env,
      algo: run.config.algo,
      lambdaSkill: run.config.lambdaSkill,
      ...n,
    };
  } catch (e) {
    into.clear();
    if (e instanceof RecordError) throw new Error(`stored run "${meta.name}" is corrupt: ${e.message}`, { cause: e });
    throw e;
  }
}

let seq = 0;
/** A new run id: time and a counter (not a random draw). */
export function newRunId(now: number): string {
  return `run-${now.toString(36)}-${(seq++).toString(36)}`;
}

/**
 * Store a `.opdrun` file as a new run, after validating all of it (core/run-files/pack.ts unpackRun: format, versions,
 * environment versions, model size of every checkpoint, every record file). Nothing is written on any error.
 * @throws Error (`PackError` message prefixed with the file name) naming the problem.
 */
export async function importRun(
  store: RunStore,
  bytes: Uint8Array,
  fileName: string,
  envVersions: Record<string, string>,
  now = Date.now(),
): Promise<RunInfo> {
  let u;
  try {
    u = unpackRun(bytes, { envVersions });
  } catch (e) {
    if (e instanceof PackError) throw new Error(`${fileName}: ${e.message}`, { cause: e });
    throw e;
  }
  let init: InitRecord = {
    kind: u.run.initWeights ? 'checkpoint' : u.run.config.init === 'scratch' ? 'scratch' : 'base',
  };
  const meta0 = u.header.meta && Object.hasOwn(u.header.meta, 'init') ? u.header.meta.init : undefined;
  if (meta0 !== undefined) {
    try {
      init = InitRecordSchema.parse(JSON.parse(meta0));
    } catch {
      // an unreadable note on the start weights does not make the run unusable; the run.json says the rest
    }
  }
  const s = summarizeRun('', u.run, u.events);
  const events = u.files.get(EVENTS_FILE);
  const stoppedBy = events ? errorOfEvents(dec.decode(events)) : null;
  // own buffers: a view would store the whole file
  const files = [...u.files].map(([name, data]) => ({ name, data: data.slice() }));
  const sizes: Record<string, number> = {};
  for (const f of files) sizes[f.name] = f.data.length;
  const meta: StoredRunMeta = {
    id: newRunId(now),
    name: checkRunName(u.header.name || fileName.replace(/\.opdrun$/, '') || 'imported run'),
    createdAt: now,
    updatedAt: now,
    files: sizes,
    stepsDone: s.stepsDone,
    stepsPlanned: s.stepsPlanned,
    done: s.done,
    lastCheckpoint: u.checkpoints.at(-1) ?? null,
    init,
    ...(stoppedBy !== null && !s.done ? { error: stoppedBy } : {}),
    importedFrom: fileName,
  };
  try {
    await store.write(meta, files);
  } catch (e) {
    if (isQuotaError(e))
      throw new Error(
        `${fileName}: storage is full (QuotaExceededError); the run was not imported and the stored runs ` +
          `are unchanged; delete runs or weights to free space`,
        { cause: e },
      );
    throw e;
  }
  return info(meta, u.run);
}

/** The runs `ids` with their run.json and events, validated, for the Compare view. @throws Error naming a bad one. */
export async function runRecords(
  store: RunStore,
  ids: readonly string[],
): Promise<{ id: string; name: string; run: RunRecord; events: RecordEvent[] }[]> {
  const out = [];
  for (const id of ids) {
    const meta = await readMeta(store, id);
    out.push({ id, name: meta.name, ...(await readRecord(store, meta)) });
  }
  return out;
}

/**
 * The default name of a new run: algorithm, env/preset, seed and the local start time to the second (two runs of one
 * setting started within the same minute — Stop, Reset, Start — would otherwise share a name in the Runs list).
 */
export function defaultRunName(config: Pick<RunConfig, 'algo' | 'env' | 'preset' | 'seed'>, now: number): string {
  const d = new Date(now);
  const two = (n: number) => String(n).padStart(2, '0');
  return (
    `${config.algo} ${config.env}/${config.preset} seed ${config.seed} · ` +
    `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ` +
    `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`
  );
}

/**
 * Keeps the record of the run the page trains: `begin` before a new run, `resume` for a resumed one; `tap` wraps
 * the event sink so that each event reaches the recorder, which starts at the run's start event.
 */
export class PageRuns {
  private recorder: RunRecorder | null = null;
  private next: { init: InitRecord; fromRun?: PageFromRun } | null = null;
  private watcher: ((s: RecordStatus) => void) | null = null;
  /** The Web Locks lock of the run being recorded, so other tabs show it as training here (run-locks.ts). */
  locks = new TabRunLocks();

  /**
   * @param detailOf the explorer's group 0 of a step, kept in the `trajectories.jsonl` line of that step's
   *   `trajectories` event (the trainer hands it over just before the event); null when it has none.
   */
  constructor(
    private readonly store: RunStore,
    private readonly now: () => number = Date.now,
    private readonly detailOf: (step: number) => GroupDetail | null = () => null,
  ) {}

  /** The id of the run being recorded, or null. */
  get activeId(): string | null {
    return this.recorder?.id ?? null;
  }

  /**
   * The id of the run being recorded whose end is not stored yet, or null: once its done event is written, the run
   * is finished (the Runs view lists it so) though `activeId` still names it until the next run begins.
   */
  get recordingId(): string | null {
    return this.recorder && !this.recorder.ended ? this.recorder.id : null;
  }

  /**
   * The next run (configured now) starts from `init`; its record begins with its start event. `fromRun`: a
   * distillation stage's source (worker/distill.ts pageFromRun), kept in its run.json so that Resume finds its
   * teachers.
   */
  begin(init: InitRecord, fromRun?: PageFromRun): void {
    this.recorder = null;
    this.locks.follow(null);
    this.next = { init, ...(fromRun ? { fromRun } : {}) };
  }

  /**
   * Before this tab trains the run it records again (Start or Step after a pause) or ends it (`verb` stop): takes the
   * run's lock back and checks that no other tab wrote the run since it paused here. No-op for a new run (its record
   * begins with its start event) and for a finished one.
   * @throws Error when another tab trains the run now, or resumed or deleted it since: nothing is trained or written,
   *   and this tab no longer records the run (a new run — Start after the error — begins its own record; Resume in
   *   the Runs view continues the stored one).
   */
  async claim(verb: 'continue' | 'stop' = 'continue'): Promise<void> {
    const r = this.recorder;
    if (!r || r.ended) return;
    const before = (await this.store.getMeta(r.id)) as { name?: unknown } | undefined;
    const name = typeof before?.name === 'string' ? before.name : r.id;
    // Held elsewhere: another tab resumed the run since this one paused it. Either way this tab's copy is out of date
    // and no longer the run it records (the Runs view then offers the stored run's Resume here too).
    if (!(await this.locks.hold(r.id))) {
      this.recorder = null;
      throw new Error(elsewhereMessage(verb, name));
    }
    const now = (await this.store.getMeta(r.id)) as { updatedAt?: unknown } | undefined;
    if (r.storedAt === null || now?.updatedAt === r.storedAt) return;
    this.recorder = null;
    this.locks.follow(null);
    throw new Error(
      `cannot ${verb} run "${name}": it was ${now === undefined ? 'deleted' : 'resumed'} in another tab since ` +
        `it paused here, so this tab's copy is out of date; press Start for a new run` +
        (now === undefined ? '' : ', or Resume it in the Runs view'),
    );
  }

  /**
   * The call that trained the recorded run ended (paused, finished, failed): its lock goes, so another tab may
   * resume it; `claim` takes it back before this tab trains it again.
   */
  idle(): void {
    this.locks.follow(null);
  }

  /**
   * The next run continues stored run `plan.meta` (its record cut back to the checkpoint: run-resume.ts planResume).
   */
  resume(plan: { meta: StoredRunMeta; texts: RecordTexts }): void {
    this.next = null;
    this.recorder = new RunRecorder(this.store, plan.meta, plan.texts, (s) => this.watcher?.(s));
    this.locks.follow(this.recordingId);
  }

  /** Sends every write's outcome to `cb` (a Comlink proxy in the worker). */
  watch(cb: (s: RecordStatus) => void): void {
    this.watcher = cb;
  }

  /** The sink with recording in front of it. */
  tap(sink: (e: TrainEvent) => void): (e: TrainEvent) => void {
    return (e) => {
      if (e.event === 'start' && !this.recorder && this.next) {
        const t = this.now();
        const meta: StoredRunMeta = {
          id: newRunId(t),
          name: defaultRunName(e.config, t),
          createdAt: t,
          updatedAt: t,
          files: {},
          stepsDone: 0,
          stepsPlanned: e.config.steps,
          done: false,
          lastCheckpoint: null,
          init: this.next.init,
        };
        const fromRun = this.next.fromRun;
        this.next = null;
        this.recorder = new RunRecorder(
          this.store,
          meta,
          { run: null, events: '', trajectories: '', val: null },
          (s) => this.watcher?.(s),
          fromRun,
        );
      }
      this.recorder?.take(e, e.event === 'trajectories' ? this.detailOf(e.step) : null);
      this.locks.follow(this.recordingId);
      sink(e);
    };
  }

  /** Writes the recorded run now (after a pause); resolves when done (never rejects: failures go to the watcher). */
  async flush(): Promise<void> {
    await this.recorder?.flush();
  }

  /**
   * The run being recorded was ended by Stop: its record is marked stopped and written, and it is no longer the run
   * being recorded (the next run begins its own). No-op when none is recorded. Never rejects (failures go to the
   * watcher).
   */
  async stop(): Promise<void> {
    const r = this.recorder;
    if (!r) return;
    this.recorder = null;
    this.locks.follow(null);
    await r.stop();
  }

  /** Rename, also for the run being recorded (its next write keeps the new name). */
  async rename(id: string, name: string): Promise<void> {
    if (this.recorder?.id === id) {
      this.recorder.rename(checkRunName(name));
      await this.recorder.flush();
      return;
    }
    await renameRun(this.store, id, name);
  }

  /** Delete a run; the run being recorded stops being recorded. */
  async delete(id: string): Promise<void> {
    if (this.recorder?.id === id) {
      await this.recorder.flush();
      this.recorder = null;
      this.locks.follow(null);
    }
    await this.store.delete(id);
  }
}
