/**
 * The one interface the training worker exposes through Comlink (a narrow worker boundary; worker protocol:
 * docs/architecture.md). The page only ever talks to the worker through this type; snapshots cross it, never proxies
 * of reactive state. Shared by src/worker/trainer.worker.ts (implementation) and src/ui (caller).
 *
 * A leaf of the worker: every type the API exposes is declared here (or in core, or in run-meta.ts's schema), and the
 * modules that implement it import their types from here, never the reverse.
 */
import type { RunConfig } from '../core/run/config';
import type { TrainEvent } from '../core/train/events';
import type { PromptTemplate } from '../core/analyzer/prompt';
import type { ConnectionResult } from '../core/analyzer/http';
import type { ProbeTiming } from '../core/bench/probe';
import type { BenchProgress, BenchReport, BenchRequest } from '../core/bench/report';
import type { PhaseProgress } from '../core/cancel';
import type { RecordEvent, RunRecord, ValRecord } from '../core/run/record';
import type { PlayView } from '../core/envs/play';
import type { Split } from '../core/envs/types';
import type { ActDecoding, ActionProb } from '../core/rollout/act-topk';
import type { GroupDetail, TokenArrays, TrajectoryDetail, TurnDetail } from '../core/train/step-detail';
import type { StoredRunMeta } from './run-meta';
import type { BackendName } from '../core/backend/names';

/** A backend the user may force, or `auto` (webgpu → webgl → wasm → cpu). */
export type BackendPref = BackendName;

/** Which tfjs backend the worker runs on and why. */
export interface BackendInfo {
  /** The backend actually in use: webgpu | webgl | wasm | cpu. */
  backend: string;
  /** Adapter / renderer description when known (WebGPU adapter info, WebGL renderer), else ''. */
  adapter: string;
  /** Each backend tried before the one in use and why it was skipped; empty when the first choice worked. */
  fallbacks: { backend: string; reason: string }[];
  /** wasm only: threads of tfjs' wasm thread pool (getThreadsCount()); 1 without cross-origin isolation. */
  threads?: number;
  /** How the backend was chosen (src/worker/backend.ts); absent from older workers. */
  choice?: BackendChoice;
}

/** How `init` chose its backend. */
export interface BackendChoice {
  /**
   * `probe`: timed just now; `remembered`: a probe's stored choice for this browser and adapters; `forced`: Settings.
   */
  how: 'probe' | 'remembered' | 'forced';
  /** In words, e.g. `fastest of wasm 41 ms, cpu 160 ms per probe step`. */
  reason: string;
  /** The probe's timings (empty when forced). */
  timings: ProbeTiming[];
  /** When the probe ran (ms since the epoch). */
  at?: number;
}

/** Worker-side training state, as a snapshot. */
export type TrainerStatus = 'idle' | 'running' | 'paused' | 'done' | 'error';

/** A stored checkpoint as listed (no bytes). */
export interface WeightsInfo {
  /** Unique name (saving under an existing name replaces it). */
  name: string;
  /** Model size it was saved from, e.g. `nano`; a run must use the same size to start from it. */
  modelSize: string;
  /** When it was saved (ms since the epoch). */
  savedAt: number;
}

/** Options of `TrainerApi.configure`. */
export interface ConfigureOptions {
  /**
   * Name of a stored checkpoint to start the run from; it overrides `config.init`. Omitted = `config.init`: the
   * shipped base policy (`base`) or a fresh seeded init (`scratch`).
   */
  initWeights?: string;
}

/** Where a configured run's initial weights come from. */
export interface InitSource {
  /** `base`: the shipped pretrained base policy; `checkpoint`: a stored checkpoint; `scratch`: a fresh seeded init. */
  kind: 'base' | 'checkpoint' | 'scratch';
  /** In words, for the page: e.g. `the base policy (pretrained; <env>/<preset>, nano)`. */
  label: string;
  /**
   * Set when the run asked for the base policy (`init: 'base'`) but it could not be used, so the run starts from
   * scratch: why, and what to do, e.g. "No base policy for <env>/<preset> (…); make one with npm run pretrain
   * -- --env <env> --preset <preset>. Starting from scratch."
   */
  fallback?: string;
  /**
   * Set when the starting weights were made with another environment version (their metadata `envVersions`): they
   * load, but the tasks may differ, so success rates are not comparable; or, for a union-teacher distillation, when
   * no teacher solves a val task of any type (likely nothing to distil). One sentence.
   */
  warning?: string;
  /** sha256 (hex) of the initial weights when they came from bytes (base policy or stored checkpoint). */
  sha256?: string;
}

/**
 * What `TrainerApi.resumeRun` resolves with: the run's config and its record up to the checkpoint it continues from.
 */
export interface ResumeResult {
  id: string;
  name: string;
  config: RunConfig;
  /** The checkpoint's step k; the next step event is k + 1. */
  fromStep: number;
  /** The stored events up to step k (start, step, eval …), to draw the run so far. */
  events: RecordEvent[];
  /** Where the run's weights first came from (for the link). */
  init: InitSource;
  /** Set when the run started from the shipped base policy and that file has changed since (other sha256). */
  baseChanged?: string;
}

/** Browser storage as `navigator.storage.estimate()` reports it (bytes), or null where it is unavailable. */
export interface StorageUsage {
  usage: number;
  quota: number;
}

/** What `TrainerApi.configure` resolves with. */
export interface ConfigureResult {
  /** The validated config as asked (`init` unchanged even when the run falls back to scratch). */
  config: RunConfig;
  /** Where the run's initial weights come from. */
  init: InitSource;
}

/** Iterations a page pretraining runs unless the user picks another number. */
export const PRETRAIN_ITERS_DEFAULT = 100;
/** Most iterations one pretraining request may ask for. */
export const PRETRAIN_ITERS_MAX = 100_000;
/** What the rollout explorer shows (`TrainerApi.explorerIndex`): the store's listing and, for a stored run, which. */
export interface ExplorerIndex extends StoreIndex {
  /** The stored run shown (`explorerOpenRun`), or null for the current run's trajectories. */
  run: StoredExplorerRun | null;
}

/** Longest run name (characters) Rename and import accept (the page checks it before asking the worker). */
export const MAX_RUN_NAME = 120;

/** A pretraining request (`TrainerApi.pretrain`): which policy to make, and how long to train it. */
export interface PretrainRequest {
  env: string;
  preset: string;
  /** Model size, e.g. `nano`. */
  model: string;
  /** Seed of the initial weights, the demonstrations and the batch order. */
  seed: number;
  /** Optimiser iterations (integer, 1 to PRETRAIN_ITERS_MAX). */
  iters: number;
  /** Train-split tasks demonstrated (one episode each); default `BROWSER_PRETRAIN.tasks`. */
  tasks?: number;
  /** Samples (env steps) per iteration; default `BROWSER_PRETRAIN.batch`. */
  batch?: number;
  /** Adam learning rate; default `BROWSER_PRETRAIN.learningRate`. */
  learningRate?: number;
  /** H: past turns in the prompt (use the run's, so the policy sees the prompts RL will show it). */
  historyTurns?: number;
  /** Max tokens of one action. */
  maxActionTokens?: number;
}

/** Progress of a pretraining, one per event of the core's `pretrain`. */
export interface PretrainProgress {
  /** `demos`: demonstrations built (before the first iteration); `iter`: one iteration done; `done`: finished. */
  phase: 'demos' | 'iter' | 'done';
  /** Iterations done so far. */
  iter: number;
  /** Iterations asked for. */
  iters: number;
  /** Mean negative log-likelihood per demonstrated action token (nats/token) at the last iteration; NaN before. */
  loss: number;
  /** Wall time since the pretraining began, pauses included (ms). */
  elapsedMs: number;
  /** Demonstration samples (env steps) built. */
  samples: number;
}

/** How a `pretrain`/`resumePretrain` call ended. */
export interface PretrainResult {
  /** `done`: finished and stored; `paused`: `pausePretrain` was called (resume or abort next); `aborted`: discarded. */
  status: 'done' | 'paused' | 'aborted';
  /** Iterations done. */
  iters: number;
  /** Last iteration's loss (nats/token); NaN before the first. */
  loss: number;
  elapsedMs: number;
  /** The stored checkpoint, when `done`. */
  weights?: WeightsInfo;
}

/**
 * Analyzer settings of the page that are not part of the run config: they never enter a run link, an
 * export or a log. Used by the `http` analyzer only; the `heuristic` one ignores them.
 */
export interface AnalyzerExtras {
  /** API key, sent only as `Authorization: Bearer <key>`; '' or absent = no header. Kept in worker memory only. */
  apiKey?: string;
  /** The prompt (system + user, placeholders as in core/analyzer/prompt.ts); absent = `DEFAULT_HTTP_PROMPT`. */
  promptTemplate?: PromptTemplate;
}

/** What the page's "Test connection" button checks: the analyzer fields of the draft config and the key. */
export interface ConnectionRequest {
  /** Server root, `http://` or `https://`, e.g. `http://localhost:11434`. */
  baseUrl: string;
  /** Model name, e.g. `qwen2.5:7b-instruct`. */
  model: string;
  /** API key, or '' for none. Never part of the answer. */
  apiKey: string;
  /** Limit of the one request (ms). */
  timeoutMs: number;
}

// ---- The views the worker sends: the rollout explorer (trajectory-store.ts, explorer-view.ts, act.ts) ----

/** One stored group as listed (no trajectories). */
export interface StoredGroupInfo {
  group: number;
  task: string;
  taskType: string;
  /** Trajectories of the group that succeeded, and how many it has. */
  solved: number;
  size: number;
  /** Estimated bytes (`groupBytes`). */
  bytes: number;
}

/** The store's contents as listed for the page: steps ascending, each with its kept groups ascending. */
export interface StoreIndex {
  steps: { step: number; groups: StoredGroupInfo[] }[];
  /** Estimated bytes held, and the bound. */
  bytes: number;
  maxBytes: number;
  recentSteps: number;
  sampleEvery: number;
}

/** A prompt split at its section markers. Texts are decoded without the leading space each section starts with. */
export interface PromptView {
  /** The task line (after `<task>`); '' when the prompt was cut before it. */
  task: string;
  /** Text after `<skill>` (an episode skill in the prompt: Skill-GRPO at rollout), if any. */
  episodeSkill?: string;
  /** The history window (after `<hist>`), oldest first: each past action and the reply to it. */
  history: { action: string; observation: string }[];
  /** The current observation (after `<obs>`). */
  observation: string;
  /**
   * The admissible actions listed (after `<actions>`), in prompt order (the end of the list is dropped when too long).
   */
  admissible: string[];
  /** Text after `<step_skill>`, if any. */
  stepSkill?: string;
  /** The whole prompt decoded with its special tokens shown, e.g. `<bos><task> put …<act>`. */
  raw: string;
  /** Prompt length in tokens. */
  length: number;
}

/** One turn as the explorer shows it. */
export interface ExplorerTurn extends Omit<TurnDetail, 'prompt'> {
  /**
   * The decoded prompt; null for a group read back from a stored run (prompts are not kept: `ExplorerGroup.stored`).
   */
  prompt: PromptView | null;
  /** Display text of each action token (`tokenCount` of them; `<eos>` as is). */
  tokenTexts: string[];
}

/** One trajectory as the explorer shows it. */
export interface ExplorerTrajectory extends Omit<TrajectoryDetail, 'turns'> {
  turns: ExplorerTurn[];
}

/** One stored group as sent to the page (`TrainerApi.explorerGroup`). */
export interface ExplorerGroup extends Omit<GroupDetail, 'trajectories'> {
  trajectories: ExplorerTrajectory[];
  tokens: TokenArrays;
}

/** The action taken at a turn. */
export interface ActChoice {
  action: string;
  /**
   * `sampled` (the rollout sampler, seeded) or `greedy` (the most probable admissible action; an open form filled
   * with its most probable tokens).
   */
  how: 'sampled' | 'greedy';
  /**
   * Its probability: the list's p(a) when admissible; else the sampler's exp(Σ token log-probs) (words in an open
   * form, free decoding, a response cut at maxActionTokens).
   */
  prob: number;
  /** Its full-sequence log-prob ℓ (nats). */
  logp: number;
  /**
   * 1-based rank in the turn's list (most probable first) of the action, or of the open form it fills (`form`); null
   * when it is neither.
   */
  rank: number | null;
  /** The admissible open form the action fills with words (`search[` for `search[red shoes]`); absent otherwise. */
  form?: string;
  /** False when the environment refused it (its reply says so in the env's words). */
  valid: boolean;
}

/** One turn played. */
export interface ActTurn {
  /** 1-based turn number. */
  turn: number;
  /** The observation the action answered. */
  observation: string;
  /** Admissible actions listed in the prompt's state. */
  admissibleCount: number;
  /** The ACT_TOP_K most probable admissible actions, most probable first. */
  top: ActionProb[];
  /** 1 − Σ p over `top`: the other admissible actions' mass (and, under free decoding, inadmissible responses'). */
  rest: number;
  chosen: ActChoice;
  reward: number;
  done: boolean;
  /** The environment's reply (the next observation). */
  reply: string;
  /** Updates applied to the weights that acted (0 = the initial weights). */
  weightsStep: number;
}

/** An episode being played, as the page shows it. Plain data. */
export interface ActEpisodeView {
  /** The stored trajectory whose task is played: step, group, trajectory index. */
  from: { step: number; group: number; trajectory: number };
  task: string;
  taskType: string;
  /** Train-split task index. */
  taskIndex: number;
  initialObservation: string;
  /** The episode skill the rollout's prompt held (Skill-GRPO), put in every prompt here too. */
  episodeSkill?: string;
  decoding: ActDecoding;
  temperature: number;
  historyTurns: number;
  k: number;
  /** The environment's step limit. */
  maxSteps: number;
  turns: ActTurn[];
  done: boolean;
  success: boolean;
}

// ---- The Checkpoints view (checkpoints.ts) ----

/** One HCN (or ablation) teacher choice of a distillation stage, as the page shows it. */
export interface TeacherRoundView {
  /** Round number (1 = at the start; +1 after each validation of the student). */
  round: number;
  /** The last step before the choice (0 for the first round). */
  afterStep: number;
  /** The chosen teacher (checkpoint step); null under the union ablation. */
  teacherId: number | null;
  /**
   * Every teacher's numbers in the round, ascending id: HCN score Σ w(q) over Q ∖ P, gain |Q ∖ P|, type coverage.
   */
  scores: { id: number; score: number; gain: number; typeCoverage: number }[];
  /** |P|: val tasks the student solved when the round began. */
  studentSolved: number;
  /** True when no teacher solves a val task the student does not. */
  nothingToLearn: boolean;
}

/** What the page's Checkpoints view reads (a plain snapshot; no bytes). */
export interface CheckpointsSnapshot {
  /** The run's solved matrix (null before its first validation). */
  val: ValRecord | null;
  /** Steps whose weights are kept, with their size in bytes, ascending. */
  kept: { step: number; bytes: number }[];
  /** Bytes of weights kept, and the most that will be. */
  usedBytes: number;
  budgetBytes: number;
  /** Validated steps whose weights were dropped for the budget. */
  dropped: number[];
  /** The distillation stage from these checkpoints, once one was configured; null before. */
  distill: {
    studentStep: number;
    teachers: number[];
    rounds: TeacherRoundView[];
    /** The student's validations during the stage (pass rate per val task). */
    validations: { step: number; passRates: number[] }[];
  } | null;
}

// ---- The Runs view (runs.ts, runs-library.ts) ----

/** What the page hears after each write of the run being recorded. */
export interface RecordStatus {
  id: string;
  name: string;
  /** Last step whose events are stored. */
  savedStep: number;
  /** The latest stored checkpoint, or null. */
  lastCheckpoint: number | null;
  /** Why the last write failed, and what was kept; null when it succeeded. */
  error: string | null;
}

/** A stored run as the Runs view lists it. Sizes in bytes; times in ms since the epoch. */
export interface RunInfo extends Omit<StoredRunMeta, 'files'> {
  /** Sum of the run's stored file sizes. */
  bytes: number;
  /** Stored checkpoints (both files present), ascending. */
  checkpoints: number[];
  algo: string;
  env: string;
  preset: string;
  model: string;
  seed: number;
  backend: string;
  /**
   * The run's checkpoint interval in steps (0: off), so the Runs view can say why a run has no checkpoint to resume
   * from.
   */
  checkpointEvery: number;
  /** Environment versions the run was made with. */
  envVersions: Record<string, string>;
}

/** A stored run that could not be read, and why. */
export interface CorruptRun {
  id: string;
  reason: string;
}

/** The Runs view's list. */
export interface RunsList {
  /** Readable runs, newest first. */
  runs: RunInfo[];
  corrupt: CorruptRun[];
  /** Sum of the readable runs' bytes. */
  totalBytes: number;
}

/** A stored run as the rollout explorer shows it (TrainerApi.explorerOpenRun). */
export interface StoredExplorerRun {
  id: string;
  name: string;
  /** The run's environment (its tokenizer decodes the stored action tokens), algorithm and λ_skill. */
  env: string;
  algo: RunConfig['algo'];
  lambdaSkill: number;
  /** Lines (steps) read from trajectories.jsonl, and how many of them kept the per-token numbers (`detail`). */
  steps: number;
  withDetail: number;
}

// ---- The Play view (play.ts) ----

/**
 * What the page asks to play (`playStart`): env, preset, split and either a task `index` (an integer ≥ 0) or a `seed`
 * (an integer) that draws the index (core `randomTaskIndex`: the same seed, the same task). play.ts validates it.
 */
export interface PlayRequest {
  env: string;
  preset: string;
  split: Split;
  index?: number;
  seed?: number;
}

/** The Comlink-exposed API. Every method resolves after the worker has acted; errors reject with a message. */
export interface TrainerApi {
  /** Initialise tfjs on the preferred backend (falls back in order); resolves with what was chosen. */
  init(pref: BackendPref): Promise<BackendInfo>;
  /**
   * Validate and load a config, discarding any run (and its policy); the next start/step begins a new run,
   * from the stored checkpoint `opts.initWeights` when given. Rejects with a ConfigError message naming fields,
   * or when that checkpoint does not exist or has another model size than `config.model`. A checkpoint of
   * another vocabulary or corrupt bytes are reported by the first start/step. With `init: 'base'` and no
   * checkpoint the shipped base policy is fetched and checked; if it is missing or does not fit the run (env
   * version, vocabulary, model size, corrupt bytes), the run starts from scratch and `init.fallback` says why.
   * With `algo: 'agentic-opd'` it configures Agentic-OPD's distillation stage from the checkpoints the worker keeps
   * (`checkpoints()`: the best-validation one is the student, the others its teachers) and rejects, saying what is
   * needed, when they cannot be distilled (see `checkDistillation`); the kept checkpoints stay.
   */
  configure(config: Partial<RunConfig>, opts?: ConfigureOptions): Promise<ConfigureResult>;
  /**
   * Run until all steps are done or `pause()` is called; each event is passed to `onEvent` (a Comlink proxy), and the
   * progress of each evaluation, rollout and update to `onProgress` (a Comlink proxy; at most every 250 ms).
   */
  start(onEvent: (e: TrainEvent) => void, onProgress?: (p: PhaseProgress) => void): Promise<TrainerStatus>;
  /**
   * Ask a running `start`/`stepOnce` to stop at the trainer's next safe point (between rollout or evaluation turns and
   * mini-batches, usually within a second or two): a step or evaluation cut there is discarded whole (an
   * `interrupted` event) and redone by the next start/step, so the run's numbers do not change.
   */
  pause(): Promise<void>;
  /**
   * End the run, keeping what it has: a running `start`/`stepOnce` stops at the trainer's next safe point as with
   * `pause` (a step or evaluation cut there is discarded) and resolves `done`; a paused run ends at once. Its events,
   * checkpoints, trajectories and live policy (saveWeights) stay; its stored record is marked ended by Stop (`done` and
   * `stopped`, not offered for resuming) and written before this resolves. The next start or step begins a new run
   * only after a `configure`. No-op when no started run is in progress.
   */
  stop(): Promise<void>;
  /** Run exactly one more update (and any eval due), passing its events to `onEvent` and progress to `onProgress`. */
  stepOnce(onEvent: (e: TrainEvent) => void, onProgress?: (p: PhaseProgress) => void): Promise<TrainerStatus>;
  /**
   * What the rollout explorer shows (src/worker/trajectory-store.ts): steps and their groups, without trajectories,
   * and its bytes and bound; `run` names the stored run it shows (`explorerOpenRun`), null for the current run. The
   * current run's is empty before the first step and after a new configure; a resumed run's starts with the stored
   * steps up to its checkpoint (group 0 of each, read back from its trajectories.jsonl).
   */
  explorerIndex(): Promise<ExplorerIndex>;
  /**
   * One group of what the explorer shows, with its prompts decoded and the per-token numbers the trainer used
   * (src/worker/explorer-view.ts); only this group crosses to the page. A group read back from a stored run has
   * `stored` set, naming what it does not keep (its prompts, and more for lines stored without numbers). Rejects naming
   * the step and group when the store does not hold it (never stored, or evicted).
   */
  explorerGroup(step: number, group: number): Promise<ExplorerGroup>;
  /**
   * Shows stored run `id` in the explorer: its trajectories.jsonl read back, validated line by line, group 0 of each
   * stored step (core/run-files/trajectories.ts `storedGroup`), in a store of its own with the run's explorerSteps
   * window and what the current run's store leaves of the 64 MiB bound (so both together stay within it). `null` shows
   * the current run again. The current run's next step also shows it again (the stored one is dropped first). Resolves
   * with the new index. Rejects, saying why, when the run is missing or corrupt, or the current run's trajectories fill
   * the bound (Reset, then open it).
   */
  explorerOpenRun(id: string | null): Promise<ExplorerIndex>;
  /**
   * "Act with the current policy" (src/worker/act.ts): start playing the task of stored trajectory `trajectory` of
   * group `group` of step `step` from its start with the run's current weights (replacing any episode in progress);
   * resolves with the episode, no turn played yet. Rejects, saying why, when the explorer does not hold that group or
   * trajectory, no run has started, or training is running (pause first).
   */
  actStart(step: number, group: number, trajectory: number): Promise<ActEpisodeView>;
  /**
   * Play the episode's next turn with the current weights: the top-5 admissible actions by probability (full-sequence
   * log-prob at the run's temperature and decoding) and the action taken, drawn by the rollout sampler with a seeded
   * generator, or the most probable one when `greedy`. Resolves with the whole episode so far. Rejects when no episode
   * was started, it is over, the run changed, or training is running.
   */
  actStep(greedy: boolean): Promise<ActEpisodeView>;
  /** Current status. */
  status(): Promise<TrainerStatus>;
  /**
   * Store the current run's policy (after its latest whole update; a finished run's too) in IndexedDB under
   * `name` (trimmed), replacing a checkpoint of that name. Rejects, saying why, when no run is configured, none
   * has started, training is running (pause first), the run failed, the name is empty, or storage fails.
   */
  saveWeights(name: string): Promise<WeightsInfo>;
  /** Stored checkpoints, newest first. */
  listWeights(): Promise<WeightsInfo[]>;
  /** Delete a stored checkpoint (no error if it is absent). */
  deleteWeights(name: string): Promise<void>;
  /**
   * A stored checkpoint's safetensors bytes (transferred, not copied), to download as a `.safetensors` file that
   * `npm run eval -- --policy FILE` and `npm run train -- --init FILE` read. Rejects naming it if absent.
   */
  exportWeights(name: string): Promise<Uint8Array>;
  /**
   * Pretrain a fresh policy by behaviour cloning (core `pretrain`) on the worker's backend, calling
   * `onProgress` (a Comlink proxy) after the demonstrations are built and after every iteration. When all
   * iterations are done the weights are stored as checkpoint `pretrained-<model>-<preset>-seed<S>` (replacing one of
   * that name), ready for "Start from". Resolves when done, paused or aborted. Rejects, saying why, on a bad request
   * or while training runs, another pretraining runs or one is paused (resume or abort it first).
   */
  pretrain(req: PretrainRequest, onProgress: (p: PretrainProgress) => void): Promise<PretrainResult>;
  /** Continue a paused pretraining. Rejects when none is paused. */
  resumePretrain(onProgress: (p: PretrainProgress) => void): Promise<PretrainResult>;
  /** Ask a running pretraining to stop after its current iteration (its `pretrain` call resolves `paused`). */
  pausePretrain(): Promise<void>;
  /** Discard a running or paused pretraining (nothing is stored); no-op when there is none. */
  abortPretrain(): Promise<void>;
  /**
   * Set the analyzer's API key and prompt template for every run whose first update comes after this
   * call; a run that has already started keeps the analyzer it was built with (reset it to use the new ones).
   * Never rejects; the key is kept in the worker's memory only.
   */
  setAnalyzerExtras(extras: AnalyzerExtras): Promise<void>;
  /**
   * One chat-completions request to the analyzer endpoint (core `testConnection`): resolves `{ok: true, latencyMs
   * (ms), model}` or `{ok: false, reason}` in words (bad URL, HTTP 401/429/500, timeout, connection refused …).
   * Never rejects; the answer never contains the key.
   */
  testAnalyzer(req: ConnectionRequest): Promise<ConnectionResult>;
  /**
   * The Checkpoints view's data: the current run's solved matrix (every validation, config.valTasks > 0, at each
   * config.checkpointEvery), the steps whose weights the worker keeps in memory (bounded, src/worker/checkpoints.ts),
   * and a distillation stage's teacher rounds and student validations. A new run (not a distillation) clears it.
   */
  checkpoints(): Promise<CheckpointsSnapshot>;
  /**
   * Whether a distillation stage (Agentic-OPD) could start from the kept checkpoints with `config` (its algo is taken
   * as agentic-opd): resolves the student's step and the teachers' steps, or rejects saying what is needed and how to
   * get it (no validated checkpoints, fewer than two, an empty validation panel, nothing to distil, a setting that
   * differs from the run's). Changes nothing.
   */
  checkDistillation(config: Partial<RunConfig>): Promise<{ studentStep: number; teachers: number[] }>;
  /**
   * Stored runs (every run the page trains is recorded: run.json and events at each checkpoint, pause and end,
   * checkpoints every config.checkpointEvery steps; src/worker/runs.ts), newest first, each validated: a corrupt one
   * is listed in `corrupt` with the reason. `activeId`: the run being recorded now, null once its end is stored (a
   * finished run is not "recording"); `storage`: the browser's estimate; `elsewhere`: the ids of the runs another tab
   * of this browser trains (it holds their Web Locks lock, run-locks.ts; empty without Web Locks), whose resume and
   * delete are refused.
   */
  listRuns(): Promise<RunsList & { activeId: string | null; storage: StorageUsage | null; elsewhere: string[] }>;
  /** Rename a stored run. Rejects on an empty or too long name, or a missing run. */
  renameRun(id: string, name: string): Promise<void>;
  /**
   * Delete a stored run and its checkpoints (no error if absent); the run being recorded stops being recorded; the
   * explorer stops showing it.
   */
  deleteRun(id: string): Promise<void>;
  /**
   * Configure the next start/step to continue stored run `id` from its latest checkpoint (the trainer's resume: on
   * the same backend, step events equal those of an uninterrupted run), recording into the same run. Rejects,
   * saying why, when it has no checkpoint, is finished, was made with another environment version, or is corrupt.
   */
  resumeRun(id: string): Promise<ResumeResult>;
  /**
   * A stored run as one `.opdrun` file (core/run-files/pack.ts; transferred). Rejects when it is corrupt or incomplete.
   */
  exportRun(id: string): Promise<Uint8Array>;
  /** A stored run's sampled trajectories as chat-messages JSONL (core/run-files/trajectories.ts). */
  exportTrajectories(id: string): Promise<string>;
  /**
   * Store a `.opdrun` file as a new run after validating all of it (format, versions, environment versions, model
   * size, every record file; at most MAX_PACK_BYTES). Nothing is stored on any error; rejects naming the problem.
   */
  importRun(bytes: Uint8Array, fileName: string): Promise<RunInfo>;
  /** run.json and events of stored runs, validated, for comparing. Rejects naming a corrupt one. */
  runRecords(ids: string[]): Promise<{ id: string; name: string; run: RunRecord; events: RecordEvent[] }[]>;
  /** Calls `onStatus` (a Comlink proxy) after every write of the run being recorded, with what was kept or why not. */
  watchRuns(onStatus: (s: RecordStatus) => void): Promise<void>;
  /** sha256 (hex) of a stored checkpoint's bytes, or null when there is none of that name. */
  weightsSha256(name: string): Promise<string | null>;
  /**
   * Store safetensors bytes (a downloaded `.safetensors` file) as checkpoint `name`, after checking them (format,
   * model size, vocabulary). Rejects naming the problem; resolves with its info and sha256.
   */
  importWeights(name: string, bytes: Uint8Array): Promise<WeightsInfo & { sha256: string }>;
  /**
   * The Bench view: `npm run bench`'s workloads (training tokens/s, KV-cached sampling tokens/s, matmul GFLOP/s;
   * WebGPU dispatch counts) at a page size on each requested backend, one after another (src/worker/bench.ts),
   * calling `onProgress` (a Comlink proxy) before each backend and phase; the worker then returns to its backend.
   * Rejects, saying why, on a bad request or while training or pretraining runs; start/step wait for it to end.
   */
  bench(request: BenchRequest, onProgress: (p: BenchProgress) => void): Promise<BenchReport>;
  /**
   * The Play view: start playing one task (src/worker/play.ts; env, preset, split and a task `index` or a `seed` that
   * draws one) and resolve with its first view: task, observation, admissible actions, the preset's commands. Replaces
   * the task played before. Rejects naming the field on a bad request. Touches no training state.
   */
  playStart(request: PlayRequest): Promise<PlayView>;
  /**
   * Play one action (any text) of the started task; resolves with the whole episode so far: its turns (reward, done,
   * valid, and for an action that did nothing a hint naming the preset's commands and the admissible actions), the
   * admissible actions now and the summary (steps, success, total reward). Rejects when no task is started or the
   * episode has ended.
   */
  playStep(action: string): Promise<PlayView>;
}
