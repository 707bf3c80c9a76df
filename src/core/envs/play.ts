/**
 * A person playing one task of an environment (`npm run play`, the page's Play view): the episode, its transcript,
 * a hint for every action that did nothing (./hint.ts) and the summary at the end (steps, success, total reward).
 * The environment is stepped exactly as a rollout steps it, so the task, observations and admissible actions are the
 * text the policy gets; the hints are kept beside the observations, never in them.
 */
import { Rng } from '../rng';
import { counted } from '../count-text';
import { commandHint } from './hint';
import { getEnvSpec } from './registry';
import {
  SPLITS,
  TRAIN_TASK_INDICES,
  isOpenAction,
  normalizeAction,
  type CommandForm,
  type Env,
  type EnvSpec,
  type Split,
} from './types';

/** Which task to play. */
export interface PlayTask {
  /** Registered environment name (src/core/envs/registry.ts). */
  env: string;
  /** One of the environment's presets, e.g. `easy`. */
  preset: string;
  split: Split;
  /** Task index in the split: a non-negative safe integer. */
  index: number;
}

/** One action and what came of it. */
export interface PlayTurn {
  /** The action as typed. */
  action: string;
  /** The environment's observation, exactly as a policy would read it (`Nothing happens.` when not valid). */
  observation: string;
  /** This step's reward (e.g. 1 on the step that completes the task, else 0). */
  reward: number;
  done: boolean;
  /** False when the action was not admissible. */
  valid: boolean;
  /** Why a not-admissible action did nothing and what is admissible (./hint.ts); absent on valid actions. */
  hint?: string;
}

/** How an episode stands; its end's summary. */
export interface PlaySummary {
  /** Actions taken (valid or not). */
  steps: number;
  /** The environment's step limit. */
  maxSteps: number;
  /** True once the task is complete. */
  success: boolean;
  /** Sum of the step rewards. */
  reward: number;
  /** Actions that were not admissible. */
  invalid: number;
  /** True once the episode ended (success, an action that ends the task, or the step limit). */
  done: boolean;
  /** True when the step limit ended it (the last step's `StepResult.truncated`); false otherwise. */
  truncated: boolean;
}

/** Everything the Play view shows, as plain data. */
export interface PlayView extends PlayTask {
  /** The task line, e.g. `put a laptop in sidetable.` */
  task: string;
  taskType: string;
  /** The first observation (after reset). */
  firstObservation: string;
  /** The latest observation: what the policy would read now. */
  observation: string;
  /** Admissible actions now (empty once done). */
  admissible: string[];
  /** The preset's command forms, e.g. `take … from …` (empty when the environment lists none). */
  commands: string[];
  turns: PlayTurn[];
  summary: PlaySummary;
}

/** How an episode's summary came about: the episode ended, the input ended, or the player stopped. */
export type PlayEnding = 'episode' | 'input' | 'stopped';

/**
 * The summary in one line:
 * - `Task complete: success in 4 of 10 steps, total reward 1 (0 invalid actions).`
 * - `Out of steps: no success in 10 of 10 steps, total reward 0 (3 invalid actions).`
 * - `Episode over: no success in 3 of 15 steps, total reward 0.2 (0 invalid actions).` (an action ended it, e.g.
 *   shop's `click[buy now]` of a product that does not fully match or searchqa's wrong `answer[…]`, on any step)
 * - `End of input: no success after 1 of 10 steps, total reward 0 (1 invalid action).` (ending `input`, not done)
 * - `Stopped: no success after 2 of 10 steps, …` (ending `stopped`, not done).
 * A done episode reads the same whatever `ending` says.
 */
export function summaryText(s: PlaySummary, ending: PlayEnding = 'episode'): string {
  const invalid = `(${counted(s.invalid, 'invalid action')})`;
  const rest = `${s.steps} of ${counted(s.maxSteps, 'step')}, total reward ${s.reward} ${invalid}.`;
  if (s.success) return `Task complete: success in ${rest}`;
  if (s.done) return `${s.truncated ? 'Out of steps' : 'Episode over'}: no success in ${rest}`;
  return `${ending === 'input' ? 'End of input' : 'Stopped'}: no success after ${rest}`;
}

/**
 * A task index drawn from a seed, for "a random task": uniform in [0, TRAIN_TASK_INDICES) from the seed's
 * `play/task` stream (src/core/rng.ts), so the same seed names the same task on every machine.
 * @throws Error naming `seed` unless it is a safe integer.
 */
export function randomTaskIndex(seed: number): number {
  if (!Number.isSafeInteger(seed)) throw new Error(`seed must be an integer, got ${seed}`);
  return new Rng(seed).fork('play/task').int(TRAIN_TASK_INDICES);
}

/**
 * The hint of the latest action when it did nothing (the CLI prints it in parentheses right after `Nothing
 * happens.`), for the page to show beside the observation; null before the first action or after a valid one.
 */
export function latestHint(view: Pick<PlayView, 'turns'>): string | null {
  const last = view.turns.at(-1);
  return last && !last.valid && last.hint ? last.hint : null;
}

/** What a typed line means: an action to play, or a number that names no admissible action (`message` says so). */
export type TypedAction = { action: string } | { message: string };

/**
 * A line a person typed, read as `npm run play` (text mode) and the page's Play view read it:
 * - a whole number n (digits, optionally a sign or the trailing `.` of the numbered list, spaces around allowed;
 *   full-width digits read as digits) picks the n-th admissible action (1-based, in the environment's order); a
 *   number outside 1..N, or one that is not whole (`1.5`), is refused with a message giving the range and costs no
 *   step;
 * - an open form as the list shows it (`search[…]`, or `search[...]`) is that open form (`search[`), so that it asks
 *   for words rather than searching for "…";
 * - any other text is the action itself.
 * Examples with 3 admissible actions: `"2"`, `"2."` → the second; `"7"`, `"-1"` → `{ message: 'there is no action
 * 7: type a number from 1 to 3, or an action' }`; `"go to desk 1"` → itself.
 */
export function readTyped(line: string, admissible: readonly string[]): TypedAction {
  const t = line.normalize('NFKC').trim();
  // NFKC reads the list's `…` as `...`; spaces inside the brackets do not matter
  const asListed = normalizeAction(t).replace(/\[ /, '[').replace(/ \]$/, ']');
  const listed = admissible.find((a) => isOpenAction(a) && asListed === `${a}...]`);
  if (listed !== undefined) return { action: listed };
  if (!/^[+-]?(\d+\.?|\d*\.\d+)$/.test(t)) return { action: line };
  const n = Number(t.replace(/\.$/, ''));
  if (Number.isInteger(n) && n >= 1 && n <= admissible.length) return { action: admissible[n - 1] };
  const shown = t.length > 12 ? `${t.slice(0, 11)}…` : t;
  return {
    message:
      admissible.length === 0
        ? `there is no action ${shown}: nothing is admissible now`
        : `there is no action ${shown}: type a number from 1 to ${admissible.length}, or an action`,
  };
}

/**
 * `text` as a person's action is played (the page's Play view and `npm run play`'s text mode): words typed after an
 * admissible open form (an action ending in `[`, types.ts `isOpenAction`, e.g. `search[`) with no closing `]`
 * get it, as a policy's sampler closes the same free-text slot: `search[red shoes` → `search[red shoes]`. Text is
 * compared as the environment judges actions (`normalizeAction`: spaces trimmed and collapsed, lower-case); the
 * closed text is the typed one trimmed. Any other text — a closed form, a bare `search[`, an open form that is not
 * admissible now — is returned as typed (the environment judges it, and a hint explains a miss).
 */
export function closeOpenForm(text: string, admissible: readonly string[]): string {
  const t = normalizeAction(text);
  const open = admissible.filter(isOpenAction).find((a) => t.startsWith(a) && t.length > a.length);
  return open && !t.includes(']', open.length) ? `${text.trim()}]` : text;
}

/** One task being played: reset at construction, stepped by `step`. */
export class PlayEpisode {
  readonly task: PlayTask;
  private readonly spec: EnvSpec;
  private readonly env: Env;
  private readonly forms: readonly CommandForm[];
  private readonly start: { task: string; taskType: string; observation: string };
  private readonly log: PlayTurn[] = [];
  private total = 0;
  private invalid = 0;
  private solved = false;
  private ended = false;
  private truncated = false;

  /**
   * Builds the task's world. @throws Error naming the field and its accepted values on an unknown env, preset or
   * split, an index that is not a non-negative safe integer, or a train index past TRAIN_TASK_INDICES (val's tasks).
   */
  constructor(task: PlayTask) {
    this.spec = getEnvSpec(task.env);
    if (!this.spec.presets.includes(task.preset)) {
      throw new Error(`preset must be one of: ${this.spec.presets.join(', ')} (got "${task.preset}")`);
    }
    if (!SPLITS.includes(task.split))
      throw new Error(`split must be one of: ${SPLITS.join(', ')} (got "${task.split}")`);
    if (!Number.isSafeInteger(task.index) || task.index < 0)
      throw new Error(`task index must be an integer ≥ 0 (got ${task.index})`);
    if (task.split === 'train' && task.index >= TRAIN_TASK_INDICES)
      throw new Error(
        `task index ${task.index} is past split train's tasks (0 to ${TRAIN_TASK_INDICES - 1}; the indices from ` +
          `${TRAIN_TASK_INDICES} on are split val's): play a smaller index, or split val's task ` +
          `${task.index - TRAIN_TASK_INDICES}`,
      );
    this.task = { env: task.env, preset: task.preset, split: task.split, index: task.index };
    this.env = this.spec.create(task.preset);
    this.start = this.env.reset({ split: task.split, index: task.index });
    this.forms = this.spec.commands?.(task.preset) ?? [];
  }

  /** The environment being played (for an expert: `getEnvSpec(env).expert(episode.environment)`). */
  get environment(): Env {
    return this.env;
  }

  /** The environment's spec. */
  get envSpec(): EnvSpec {
    return this.spec;
  }

  /** True once the episode ended. */
  get done(): boolean {
    return this.ended;
  }

  /** Admissible actions now (empty once done). */
  admissible(): string[] {
    return this.env.admissibleActions();
  }

  /**
   * Plays one action (any string), adding a hint when it was not admissible.
   * @throws Error when the episode has ended.
   */
  step(action: string): PlayTurn {
    if (this.ended) throw new Error('the episode has ended; start a new task');
    const before = this.env.admissibleActions();
    const r = this.env.step(action);
    const turn: PlayTurn = { action, observation: r.observation, reward: r.reward, done: r.done, valid: r.valid };
    if (!r.valid) {
      const hint = commandHint({
        env: this.task.env,
        preset: this.task.preset,
        commands: this.forms,
        action,
        admissible: before,
        ended: r.done,
      });
      if (hint !== null) turn.hint = hint;
      this.invalid++;
    }
    this.total += r.reward;
    this.solved ||= r.success;
    this.ended = r.done;
    this.truncated = r.truncated === true;
    this.log.push(turn);
    return turn;
  }

  /** Steps, success, total reward, invalid actions and whether it ended. */
  summary(): PlaySummary {
    return {
      steps: this.env.steps,
      maxSteps: this.env.maxSteps,
      success: this.solved,
      reward: this.total,
      invalid: this.invalid,
      done: this.ended,
      truncated: this.truncated,
    };
  }

  /** The whole episode as plain data (copies; safe to send to another thread). */
  view(): PlayView {
    const last = this.log.length ? this.log[this.log.length - 1].observation : this.start.observation;
    return {
      ...this.task,
      task: this.start.task,
      taskType: this.start.taskType,
      firstObservation: this.start.observation,
      observation: last,
      admissible: this.admissible(),
      commands: this.forms.map((f) => f.form),
      turns: this.log.map((t) => ({ ...t })),
      summary: this.summary(),
    };
  }
}
