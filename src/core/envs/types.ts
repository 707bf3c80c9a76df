/**
 * The environment interface every registered environment family implements (docs/architecture.md, "How to add an
 * environment").
 *
 * An `Env` is one episode's world: `reset(task)` builds the task's initial state and returns the first
 * observation; `step(action)` applies one text command. Environments are text-only, seeded by the task
 * address (split, index) and never import the model or the trainer. An `EnvSpec` is everything the rest of the system
 * needs to know about one family; registering it (src/core/envs/registry.ts) is all it takes for the run schema, the
 * page, the worker and the CLI to offer it.
 *
 * The analyzer interface (OPID's hindsight skills, src/core/analyzer/) is declared here too, below EnvSpec: an env may
 * bring its own embedded analyzer (`EnvSpec.analyzer`), and this folder cannot import the analyzer folder (that one
 * imports the registry).
 */
import type { TrajectorySkills } from '../math/skill';
import type { Rng } from '../rng';

export type { TrajectorySkills } from '../math/skill';

/**
 * Task splits. `test-unseen` holds what `train` never generates, by each env's rule (docs/envs/: object/receptacle
 * combinations and layouts, attribute combinations, or a second world's entities). `val`
 * (validation) holds tasks of the train distribution at addresses no training step and no test split uses (e.g. val
 * index i generated as train index TRAIN_TASK_INDICES + i, beyond the indices training draws).
 */
export type Split = 'train' | 'test-seen' | 'test-unseen' | 'val';
/** All splits, in display order. */
export const SPLITS: readonly Split[] = ['train', 'test-seen', 'test-unseen', 'val'];
/**
 * Training draws its task indices from [0, TRAIN_TASK_INDICES) of `train` (core/train/trainer.ts); the `val` split
 * is generated from train indices at or above this bound, so no training step ever meets a val task.
 */
export const TRAIN_TASK_INDICES = 1_000_000;

/** Address of one task: generated identically on every machine from (env version, preset, split, index). */
export interface TaskRef {
  split: Split;
  /** Non-negative integer; any index is valid (tasks are procedurally generated). */
  index: number;
}

/** What `reset` returns. */
export interface ResetResult {
  /** The task line shown to the agent, e.g. `put a clean apple in fridge.` */
  task: string;
  /** Task type name, one of the spec's `taskTypes(preset)` (ALFWorld's: pick, look, clean, heat, cool, pick2). */
  taskType: string;
  /** First observation text. */
  observation: string;
}

/** What `step` returns. Source: Gym's `step` → (obs, reward, done, info), Brockman et al. 2016. */
export interface StepResult {
  /**
   * Observation text after the action; for an inadmissible action the env's own invalid-action answer (ALFWorld's and
   * WebShop's `Nothing happens.`, Search-R1's `My previous action is invalid. …`).
   */
  observation: string;
  /** Reward for this step (e.g. 1 on the step that completes the task, else 0). */
  reward: number;
  /** True once the task is complete or `maxSteps` actions have been taken. */
  done: boolean;
  /** False when the action was not admissible (after whitespace/case normalisation). */
  valid: boolean;
  /** True when the task is complete (success). */
  success: boolean;
  /**
   * Present, and true, when the step limit ended the episode (`done` after `maxSteps` actions, none of which ended the
   * task: Gymnasium's `truncated`); absent on every other step, including a last-step action that ends the task
   * itself (a success, searchqa's `answer[…]`, shop's `buy now`).
   */
  truncated?: true;
  /**
   * Numbers an env reports besides the reward (Gym's `info`, numbers only), e.g. a question-answering env's answer
   * scores `{em, f1, subEm}` on the episode's last step. Absent: none. Nothing in the trainer reads them.
   */
  info?: Readonly<Record<string, number>>;
}

/** One episode's environment. */
export interface Env {
  /** Builds the task addressed by `ref` and returns the initial observation. Throws on a bad ref. */
  reset(ref: TaskRef): ResetResult;
  /** Applies one action (any string; normalised before it is judged). Throws if called before reset or after done. */
  step(action: string): StepResult;
  /**
   * Admissible actions in the current state, in a stable order, already normalised. An entry ending in `[` is an
   * open form (`isOpenAction`, e.g. shop's `search[`): the action is that prefix, free text and a closing `]`.
   */
  admissibleActions(): string[];
  /** Number of actions taken since reset. */
  readonly steps: number;
  /** Max actions per episode (e.g. 30). */
  readonly maxSteps: number;
}

/**
 * A policy that can act in an env from its (hidden) state: used for demonstrations, checks and the privileged
 * `oracle` analyzer (analyzer/oracle.ts), never by the `heuristic` or `http` analyzers.
 */
export interface Expert {
  /** The next action for the env's current state. */
  act(): string;
}

/**
 * Where a renamed demonstration's new names come from (`EnvSpec.demoRenamer`, `npm run pretrain -- --rename-names`):
 * `seen`, another seen entity's name of the same kind, one bijection per kind; `fresh`, new names drawn from the
 * env's word inventory for the kind, so a name cannot be completed from memory and must be copied.
 */
export type RenameNames = 'seen' | 'fresh';

/** The accepted `RenameNames`, the default first. */
export const RENAME_NAMES: readonly RenameNames[] = ['seen', 'fresh'];

/**
 * What the noisy demonstrator's random steps do (pretraining, `npm run pretrain -- --noise-actions`): `random`, a
 * uniformly random admissible action (an open form completed with random words of the task line); `plausible`, the
 * env's `plausibleMistake`.
 */
export type NoiseActions = 'random' | 'plausible';

/** The accepted `NoiseActions`, the default first. */
export const NOISE_ACTIONS: readonly NoiseActions[] = ['random', 'plausible'];

/**
 * Everything the rest of the system needs to know about one environment family: registered in
 * src/core/envs/registry.ts, it is offered by the run schema (`env`, `preset`), the page's selects, Play, links, the
 * worker and every CLI command's `--env` without any of them naming it. Required fields are what every env has;
 * optional ones have the default their doc states.
 */
export interface EnvSpec {
  /** Registry name (`--env <name>`): lower case letters, digits and `-` (it appears in file names and links). */
  readonly name: string;
  /** Version string; changes whenever task generation or rules change (stored in run configs and manifests). */
  readonly version: string;
  /** One line saying what the tasks are, for `--help` and the page (e.g. `ALFWorld-like rooms: …`). */
  readonly summary: string;
  /** Preset names accepted by `create`, in display order. */
  readonly presets: readonly string[];
  /**
   * The preset a run, an evaluation, Play or a pretraining uses when none is named (the run schema's default for
   * this env); one of `presets`. A shipped base policy for it (`public/base/<baseStem>.json`) makes the page's
   * default run start from pretrained weights.
   */
  readonly defaultPreset: string;
  /**
   * The longest response a policy may sample for one action on this env (tokens, <eos> included): the run schema's
   * default `maxActionTokens` for this env and pretraining's. Absent: the schema's own (12). An env whose expert
   * writes longer actions (free-text searches) must raise it, or pretraining refuses the longer demonstrations.
   */
  readonly maxActionTokens?: number;
  /**
   * K, the most step skills per trajectory, as the OPID paper sets it for this family (Yang et al. 2026: 5 for ALFWorld
   * and WebShop, 2 for search-QA): `npm run experiment -- opid-table` passes it to every row whose algorithm reads
   * it (the OPID and Skill-GRPO rows of the table, map-easy and map-update protocols). Absent: the run config's
   * default (5).
   */
  readonly opidMaxStepSkills?: number;
  /** Per preset, a short phrase for help texts (e.g. `one task type, few receptacles`). Absent: names only. */
  readonly presetSummaries?: Readonly<Record<string, string>>;
  /** Task type names for per-type success reporting. */
  taskTypes(preset: string): readonly string[];
  /** A new env instance for the preset. @throws Error naming the accepted presets on an unknown one. */
  create(preset: string): Env;
  /** An expert bound to an env instance created by this spec (reads its hidden state). */
  expert(env: Env): Expert;
  /**
   * Text covering every word the env can ever emit (templates, names, numbers): the tokenizer's vocabulary
   * is built from it deterministically.
   */
  vocabularyCorpus(): string[];
  /**
   * The file stem of the preset's shipped base policy under `public/base/`: the manifest is `<stem>.json`, the
   * weights `<stem>.safetensors` (src/core/pretrain/base.ts `baseManifestPath`; `npm run pretrain -- --env <name>
   * --preset <preset> --out public/base/<stem>.safetensors` writes both). Absent: `<name>-<preset>`. A preset without
   * those files has no base policy: the page starts from scratch with a notice, the CLI's `--init base` stops naming
   * the command that makes one.
   */
  baseStem?(preset: string): string;
  /**
   * The commands a preset can ever offer, as forms (`take … from …`): people's hints when an action does nothing
   * (src/core/envs/play.ts) and the `http` analyzer's prompt (`{commands}`, src/core/analyzer/prompt.ts); never part
   * of a policy's prompt. Absent: hints name only the admissible actions, the prompt says the commands are those the
   * episode shows.
   */
  commands?(preset: string): readonly CommandForm[];
  /**
   * Search steps of a trajectory: steps that chose where to look before the agent could know where the task's
   * object lies (an ALFWorld-like env: `go to` / `open` before the object was in sight). OPID routes no episode skill
   * there unless told to (RunConfig.episodeSkillOnSearch). `steps[i].observation` is the observation action i was
   * chosen on. Returns step indices in increasing order. Absent: no step is a search step.
   */
  searchSteps?(task: string, steps: readonly { action: string; observation: string }[]): number[];
  /**
   * The env's embedded analyzer, `--analyzer heuristic` (RunConfig.analyzer): deterministic, no network, reading only
   * what a trajectory shows (task line, observations, actions, validity, returns), never the hidden state, the expert
   * or `ref`; skills phrased with src/core/skills/grammar.ts. `makeAnalyzer` (src/core/analyzer/index.ts) calls it.
   * Absent: `heuristic` fails naming the env and the analyzers that work with any env (`oracle`, `http`).
   * @throws Error when `opts.maxStepSkills` is not an integer ≥ 0 (`checkMaxStepSkills`).
   */
  analyzer?(opts: AnalyzerOptions): Analyzer;
  /**
   * What the generic `http` analyzer's prompt takes from this env (src/core/analyzer/prompt.ts): worked examples and
   * how an observation is quoted. The trajectory itself (task line, observations, actions, validity, returns) is
   * sent as recorded. Absent: no worked example, observations cut to OBS_MAX_CHARS.
   */
  analyzerPrompt?(preset: string): AnalyzerPromptSpec;
  /**
   * What the environment server's `GET /available_actions` (`npm run serve`, cli/serve/) answers for an episode of
   * this env, when the env's AgentGym reference server answers another shape than the admissible list: AgentGym's
   * WebShop server answers `{has_search_bar, clickables}`. `admissible` is the episode's `admissibleActions()` now.
   * The value is sent as JSON. Absent: the admissible list itself.
   */
  availableActions?(admissible: readonly string[]): Readonly<Record<string, unknown>>;
  /**
   * Retrieval over the env's own corpus, for the server's Search-R1 `POST /retrieve` route: the `topk` (integer ≥ 1)
   * best passages for `query`, best first, each with its title, text and score (higher is better). Absent: the env
   * has no corpus to search, and `/retrieve` answers that no registered env has one.
   */
  retrieve?(query: string, topk: number): readonly RetrievedPassage[];
  /**
   * Pretraining augmentation (`npm run pretrain -- --rename P`, src/core/pretrain/demos.ts): for one demonstration
   * episode, a text rewriter that renames the env's entities consistently (the same name always to the same other
   * name of its kind), applied to every text the episode's samples hold, so behaviour cloning cannot lean on
   * memorised facts. Deterministic in `rng`. `names` says where the new names come from (`RenameNames`; default
   * `seen`). Absent: the env has no names to rename, and `--rename` above 0 is refused naming the env.
   */
  demoRenamer?(rng: Rng, names?: RenameNames): (text: string) => string;
  /**
   * Pretraining's noisy demonstrator with `npm run pretrain -- --noise-actions plausible` (src/core/pretrain/demos.ts):
   * a plausible wrong action for a step, from the task line and the observation shown (a search for the wrong
   * entity, an early answer), demonstrated instead of a uniformly random admissible action. Undefined: none fits,
   * and the random action is drawn. Deterministic in `rng`. Absent: `plausible` is refused naming the env.
   */
  plausibleMistake?(task: string, observation: string, rng: Rng): string | undefined;
}

/** One passage `EnvSpec.retrieve` returns: a document's title and text, and its retrieval score. */
export interface RetrievedPassage {
  title: string;
  text: string;
  /** Retrieval score; higher is better (e.g. BM25). */
  score: number;
}

/** What an env gives the `http` analyzer's prompt (EnvSpec.analyzerPrompt; placeholders: analyzer/prompt.ts). */
export interface AnalyzerPromptSpec {
  /**
   * Worked examples, shown in order in place of `{examples}`: `situation` says in a few words what the episode did
   * (in the env's own action wording), `skills` the skills a good analysis writes for it, phrased with the skill
   * grammar (src/core/skills/grammar.ts) so they never drift from what the base policy was taught.
   */
  examples: readonly { situation: string; skills: TrajectorySkills }[];
  /**
   * An observation as `{steps}` and `{final}` quote it (e.g. a long page cut down to what matters). Absent: the first
   * OBS_MAX_CHARS characters.
   */
  observationText?(observation: string): string;
}

/** One command of an environment, e.g. `take … from …`. */
export interface CommandForm {
  /** Its leading word(s), e.g. `take`, `go to`, `inventory`. */
  verb: string;
  /** The form with `…` for each name, e.g. `take … from …`. */
  form: string;
  /** Matches a normalised action (`normalizeAction`) of this form, e.g. `take apple 1 from desk 1`. */
  pattern: RegExp;
  /**
   * One action of this form as a person would type it, in the env's own words, e.g. a store's `search[red shoes]` or
   * a QA env's `answer[Silver Vale]`: the example `npm run play` gives when an open form (`isOpenAction`) is sent
   * with nothing inside. Absent: the message gives none.
   */
  example?: string;
}

/**
 * True when an admissible action is an open form: it ends in a `[` that no `]` follows (shop's `search[`, WebShop's
 * `search[keywords]`, Yao et al. 2022), so a policy or a person completes it with free text and `]`.
 */
export function isOpenAction(action: string): boolean {
  return action.endsWith('[');
}

/** Normalise an action for judging: trim, collapse runs of whitespace to one space, lower-case. */
export function normalizeAction(action: string): string {
  return action.trim().replace(/\s+/g, ' ').toLowerCase();
}

// The analyzer interface (OPID, Yang et al. 2026, §3): src/core/analyzer/types.ts re-exports it with the analyzer
// kinds; every implementation (heuristic, http, oracle, an env's embedded one) implements `Analyzer`.

/** One step of a trajectory as the analyzer sees it. */
export interface AnalyzerStep {
  /** The observation the action answered (raw env text). */
  observation: string;
  /** The action taken. */
  action: string;
  /** False when the action was inadmissible (the env answered with its invalid-action observation). */
  valid: boolean;
  /** Discounted return from this step, G_t = Σ_{k≥t} γ^{k−t} r_k with γ = 0.95 (unitless reward). */
  return: number;
}

/** One trajectory as the analyzer sees it. */
export interface AnalyzerTrajectory {
  task: string;
  success: boolean;
  /** The observation after the last action (so the analyzer can see how the episode ended). */
  finalObservation: string;
  steps: AnalyzerStep[];
  /**
   * Privileged: the address of the trajectory's task, read only by the `oracle` analyzer (it replays the task); the
   * `http` analyzer never sends it and the `heuristic` one never reads it. Absent: the oracle fails the trajectory.
   */
  ref?: TaskRef;
}

/** The trajectories of one group (same task, G rollouts). */
export interface AnalyzerGroup {
  env: string;
  trajectories: AnalyzerTrajectory[];
}

/** Per trajectory: its skills, or `null` when its analysis failed (it then gets no skill signal). */
export type AnalysisResult = (TrajectorySkills | null)[];

/** Counters an analyzer reports for the run's metrics (Metrics). */
export interface AnalyzerStats {
  /** Requests made (heuristic: trajectories analysed). */
  calls: number;
  /** Trajectories whose analysis failed after retries. */
  failures: number;
  /** Sum of call latencies (ms). */
  latencyMs: number;
  /** Failure counts by reason, in words a user understands (e.g. "HTTP 429 (rate limited)": 3). */
  failureReasons: Record<string, number>;
}

/** Analyzer options shared by implementations. */
export interface AnalyzerOptions {
  /** K: max step skills per trajectory (the OPID paper: 5 for ALFWorld and WebShop, 2 for search-QA). */
  maxStepSkills: number;
  /** `failedOnly`: analyse only failed trajectories; successful ones get no skills (null). */
  failedOnly?: boolean;
}

/** An analyzer: one group in, skills per trajectory out. Must not throw for bad model replies: return null entries. */
export interface Analyzer {
  readonly name: string;
  analyze(group: AnalyzerGroup, signal?: AbortSignal): Promise<AnalysisResult>;
  /** Cumulative counters since creation. */
  stats(): AnalyzerStats;
}

/** Counters of an analyzer that has made no call yet. */
export function emptyStats(): AnalyzerStats {
  return { calls: 0, failures: 0, latencyMs: 0, failureReasons: {} };
}

/**
 * Check K, the most step skills an analyzer writes per trajectory (AnalyzerOptions.maxStepSkills).
 * @throws Error naming the analyzer when K is not an integer ≥ 0.
 */
export function checkMaxStepSkills(analyzer: string, k: number): void {
  if (!Number.isInteger(k) || k < 0)
    throw new Error(`${analyzer} analyzer: maxStepSkills must be an integer ≥ 0, got ${k}`);
}
