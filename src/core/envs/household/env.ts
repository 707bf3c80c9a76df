/**
 * `HouseholdEnv`: one ALFWorld-like episode behind the shared `Env` interface (ALFWorld, Shridhar et al. 2021;
 * docs/architecture.md).
 *
 * - State: see `world.ts` (hidden; exposed read-only as `world` for the expert and tests).
 * - Actions: any string, normalised by `normalizeAction` (trim, collapse whitespace, lower-case) and judged
 *   against `admissibleActions()`; anything else (empty, 10 000 characters, unknown) answers `Nothing happens.`,
 *   `valid: false`, and still counts as a step.
 * - Reward: 1 on the step that completes the task, else 0.
 * - done: on success, or once `steps` reaches `maxSteps` (30 in `default`, 10 in `easy`, 15 in `easy-pick2`).
 */
import { normalizeAction, type Env, type ResetResult, type StepResult, type TaskRef } from '../types';
import { generateWorld } from './generate';
import { presetConfig } from './presets';
import { admissible, applyAction } from './rules';
import { roomText, taskText } from './text';
import type { World } from './world';

/** An episode of the household env for one preset. */
export class HouseholdEnv implements Env {
  /** Preset name this env generates tasks for. */
  readonly preset: string;
  /** Max actions per episode (30 in `default`, 10 in `easy`, 15 in `easy-pick2`; see `presets.ts`). */
  readonly maxSteps: number;
  private state: World | null = null;
  private taken = 0;
  private finished = false;
  private solved = false;

  /** @throws Error naming the accepted presets on an unknown preset. */
  constructor(preset: string) {
    this.maxSteps = presetConfig(preset).maxSteps;
    this.preset = preset;
  }

  /**
   * Start task (split, index): generate its world and return the task line and the room overview.
   * @throws Error on an unknown split or a negative / non-integer index.
   */
  reset(ref: TaskRef): ResetResult {
    return this.start(generateWorld(this.preset, ref));
  }

  /**
   * Start an episode from a given world (hand-built states in tests, replays). The world is used as is and
   * mutated by later steps; pass a copy (`cloneWorld`) to keep the original.
   */
  resetWorld(world: World): ResetResult {
    return this.start(world);
  }

  private start(world: World): ResetResult {
    this.state = world;
    this.taken = 0;
    this.finished = false;
    this.solved = false;
    return { task: taskText(world.goal), taskType: world.goal.type, observation: roomText(world.receptacles) };
  }

  /**
   * Apply one action (any string). @throws Error before `reset` and after the episode is done.
   */
  step(action: string): StepResult {
    const w = this.world;
    if (this.finished) throw new Error('household: step() called after the episode ended (done); call reset() first');
    const r = applyAction(w, normalizeAction(String(action)));
    this.taken++;
    this.solved = r.success;
    this.finished = r.success || this.taken >= this.maxSteps;
    return {
      observation: r.observation,
      reward: r.success ? 1 : 0,
      done: this.finished,
      valid: r.valid,
      success: r.success,
      ...(this.finished && !r.success ? { truncated: true as const } : {}),
    };
  }

  /** Admissible actions now (normalised, stable order); empty once done. @throws Error before `reset`. */
  admissibleActions(): string[] {
    const w = this.world;
    return this.finished ? [] : admissible(w);
  }

  /** Actions taken since reset (valid or not). */
  get steps(): number {
    return this.taken;
  }

  /** True once the episode has ended (success or `maxSteps`). */
  get done(): boolean {
    return this.finished;
  }

  /** True once the task has been completed. */
  get success(): boolean {
    return this.solved;
  }

  /** The hidden state, for the expert and tests (do not show it to a policy). @throws Error before `reset`. */
  get world(): World {
    if (this.state === null) throw new Error('household: call reset() before step() or admissibleActions()');
    return this.state;
  }
}
