/**
 * The environment interface shared by household, shop and searchqa (docs/architecture.md).
 *
 * An `Env` is one episode's world: `reset(task)` builds the task's initial state and returns the first
 * observation; `step(action)` applies one text command. Environments are text-only, seeded by the task
 * address (split, index) and never import the model or the trainer.
 */

/**
 * Task splits. `test-unseen` holds object/receptacle combinations and layouts never generated in `train`. `val`
 * (validation) holds tasks of the train distribution at addresses no training step and no test split uses
 * (household: val index i is generated as train index VAL_TRAIN_OFFSET + i, beyond the indices training draws).
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
  /** The task line shown to the agent, e.g. `put a clean apple in fridge 1.` */
  task: string;
  /** Task type name (household: pick, look, clean, heat, cool, pick2). */
  taskType: string;
  /** First observation text. */
  observation: string;
}

/** What `step` returns. Source: Gym's `step` → (obs, reward, done, info), Brockman et al. 2016. */
export interface StepResult {
  /** Observation text after the action (`Nothing happens.` for an inadmissible action). */
  observation: string;
  /** Reward for this step (household: 1 on the step that completes the task, else 0). */
  reward: number;
  /** True once the task is complete or `maxSteps` actions have been taken. */
  done: boolean;
  /** False when the action was not admissible (after whitespace/case normalisation). */
  valid: boolean;
  /** True when the task is complete (success). */
  success: boolean;
}

/** One episode's environment. */
export interface Env {
  /** Builds the task addressed by `ref` and returns the initial observation. Throws on a bad ref. */
  reset(ref: TaskRef): ResetResult;
  /** Applies one action (any string; normalised before it is judged). Throws if called before reset or after done. */
  step(action: string): StepResult;
  /** Admissible actions in the current state, in a stable order, already normalised. */
  admissibleActions(): string[];
  /** Number of actions taken since reset. */
  readonly steps: number;
  /** Max actions per episode (household 30). */
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

/** Everything the rest of the system needs to know about one environment family. */
export interface EnvSpec {
  /** Registry name, e.g. `household`. */
  readonly name: string;
  /** Version string; changes whenever task generation or rules change (stored in run configs and manifests). */
  readonly version: string;
  /** Preset names accepted by `create` (first is the default), e.g. ['default', 'easy']. */
  readonly presets: readonly string[];
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
   * The commands a preset can ever offer, as forms (`take … from …`), for people's hints when an action does
   * nothing (src/core/envs/play.ts); never part of a policy's prompt. Absent: hints name only the admissible actions.
   */
  commands?(preset: string): readonly CommandForm[];
  /**
   * Search steps of a trajectory: steps that chose where to look before the agent could know where the task's
   * object lies (household: src/core/envs/household/search.ts). OPID routes no episode skill there unless told to
   * (RunConfig.episodeSkillOnSearch). `steps[i].observation` is the observation action i was chosen on.
   * Returns step indices in increasing order. Absent: no step is a search step.
   */
  searchSteps?(task: string, steps: readonly { action: string; observation: string }[]): number[];
}

/** One command of an environment, e.g. household's `take … from …`. */
export interface CommandForm {
  /** Its leading word(s), e.g. `take`, `go to`, `inventory`. */
  verb: string;
  /** The form with `…` for each name, e.g. `take … from …`. */
  form: string;
  /** Matches a normalised action (`normalizeAction`) of this form, e.g. `take apple 1 from desk 1`. */
  pattern: RegExp;
}

/** Normalise an action for judging: trim, collapse runs of whitespace to one space, lower-case. */
export function normalizeAction(action: string): string {
  return action.trim().replace(/\s+/g, ' ').toLowerCase();
}
