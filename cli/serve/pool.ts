/**
 * The environment server's open environments (`npm run serve`, cli/serve.ts): one `Env` per id, made by the
 * registered env's `EnvSpec.create`, reset to a task address (split, index) as every command of the playground
 * addresses tasks, and stepped with any text. Bounded: at most `maxEnvs` open at once (a create beyond that first
 * reclaims the idle ones, then is refused with 429), and an environment unused for `idleMs` is reclaimed. Ids are
 * integers from 0, never reused; a closed or reclaimed id is remembered (the last 10 000) so a late request hears
 * why it is gone.
 */
import { ENV_NAMES, getEnvSpec } from '../../src/core/envs/registry';
import {
  SPLITS,
  TRAIN_TASK_INDICES,
  type Env,
  type EnvSpec,
  type Expert,
  type ResetResult,
  type Split,
} from '../../src/core/envs/types';
import { didYouMean } from '../args';
import { HttpError } from './http';

/** The pool's bounds. */
export interface PoolOptions {
  /** Most environments open at once (integer ≥ 1). */
  maxEnvs: number;
  /** An environment unused this long (ms) is reclaimed; 0 = never. */
  idleMs: number;
  /** Clock in ms (tests); default Date.now. */
  now?: () => number;
}

/** The task an environment was last reset to, and how its episode stands. */
export interface Episode {
  split: Split;
  index: number;
  task: string;
  taskType: string;
  /** The latest observation (the first one right after reset). */
  observation: string;
  done: boolean;
  won: boolean;
}

/** One open environment. */
export interface Slot {
  readonly id: number;
  readonly spec: EnvSpec;
  readonly preset: string;
  readonly env: Env;
  episode: Episode | null;
  lastUsed: number;
  /** The expert bound to this episode, made on first use (`/expert_action`). */
  expert: Expert | null;
}

/** How many ended ids are remembered with the reason they ended. */
const REMEMBERED = 10_000;

/** The open environments (see the module doc). */
export class EnvPool {
  private readonly slots = new Map<number, Slot>();
  private readonly ended = new Map<number, string>();
  private nextId = 0;
  private readonly now: () => number;

  constructor(private readonly o: PoolOptions) {
    this.now = o.now ?? Date.now;
  }

  /** Environments open now. */
  get size(): number {
    return this.slots.size;
  }

  /**
   * Open an environment of `envName` (default: the first registered) with `preset` (default: the env's own).
   * @returns its id.
   * @throws HttpError 400 naming the accepted envs or presets; 429 when `maxEnvs` are open and none is idle.
   */
  create(envName: string, preset: string | undefined): number {
    if (!ENV_NAMES.includes(envName))
      throw new HttpError(
        400,
        `POST /create: unknown env "${envName}"; accepted: ${ENV_NAMES.join(', ')}${didYouMean(envName, ENV_NAMES)}`,
      );
    const spec = getEnvSpec(envName);
    const p = preset ?? spec.defaultPreset;
    if (!spec.presets.includes(p))
      throw new HttpError(
        400,
        `POST /create: env ${spec.name} has no preset "${p}"; accepted: ${spec.presets.join(', ')} ` +
          `(or leave preset out for ${spec.defaultPreset})${didYouMean(p, spec.presets)}`,
      );
    if (this.slots.size >= this.o.maxEnvs) this.sweep();
    if (this.slots.size >= this.o.maxEnvs)
      throw new HttpError(
        429,
        `POST /create: ${this.slots.size} environments are open, the most this server keeps (--max-envs ` +
          `${this.o.maxEnvs}); POST /close the ones you are done with, or start the server with a higher --max-envs`,
      );
    const id = this.nextId++;
    this.slots.set(id, { id, spec, preset: p, env: spec.create(p), episode: null, lastUsed: this.now(), expert: null });
    return id;
  }

  /** The open environment `id`, or undefined; unlike `get`, it neither throws nor counts as a use. */
  peek(id: number): Slot | undefined {
    return this.slots.get(id);
  }

  /**
   * The open environment `id`, marked as used now.
   * @throws HttpError 404 saying whether it was closed, reclaimed idle, or never made.
   */
  get(id: number, route: string): Slot {
    const slot = this.slots.get(id);
    if (slot) {
      slot.lastUsed = this.now();
      return slot;
    }
    const why = this.ended.get(id);
    if (why !== undefined) throw new HttpError(404, `${route}: env ${id} ${why}; POST /create a new one`);
    throw new HttpError(404, `${route}: no env ${id}; ids come from POST /create (the next one is ${this.nextId})`);
  }

  /**
   * Reset environment `id` to task (split, index).
   * @throws HttpError 404 (see `get`), 400 on an unknown split (with a did-you-mean), a train index at or past
   *   TRAIN_TASK_INDICES (those tasks are `val`'s: training never draws them) or an index the env refuses.
   */
  reset(id: number, split: string, index: number): { slot: Slot; result: ResetResult } {
    const slot = this.get(id, 'POST /reset');
    if (!SPLITS.includes(split as Split))
      throw new HttpError(
        400,
        `POST /reset: unknown split "${split}"; accepted: ${SPLITS.join(', ')}${didYouMean(split, SPLITS)}`,
      );
    if (split === 'train' && index >= TRAIN_TASK_INDICES)
      throw new HttpError(
        400,
        `POST /reset: field "index" must be below ${TRAIN_TASK_INDICES} for split train, got ${index}: train ` +
          `indices from ${TRAIN_TASK_INDICES} on are the val tasks; send split: "val" with index ` +
          `${index - TRAIN_TASK_INDICES} for that task`,
      );
    let result: ResetResult;
    try {
      result = slot.env.reset({ split: split as Split, index });
    } catch (e) {
      throw new HttpError(400, `POST /reset: ${e instanceof Error ? e.message : String(e)}`);
    }
    const { task, taskType, observation } = result;
    slot.episode = { split: split as Split, index, task, taskType, observation, done: false, won: false };
    slot.expert = null;
    return { slot, result };
  }

  /**
   * The episode of environment `id`, which must have been reset and not be done.
   * @throws HttpError 404 (see `get`); 409 before any reset, or after done (`route` names the caller).
   */
  running(id: number, route: string): Slot & { episode: Episode } {
    const slot = this.get(id, route);
    const ep = slot.episode;
    if (!ep) throw new HttpError(409, `${route}: env ${id} has no task yet; POST /reset it to a task first`);
    if (ep.done)
      throw new HttpError(
        409,
        `${route}: env ${id}'s episode is done (${ep.won ? 'success' : 'failure'} after ${slot.env.steps} steps); ` +
          `POST /reset it to start another task`,
      );
    return slot as Slot & { episode: Episode };
  }

  /** Close environment `id`. @throws HttpError 404 (see `get`). */
  close(id: number): void {
    this.get(id, 'POST /close');
    this.end(id, 'was closed by POST /close');
  }

  /** Reclaim every environment unused for `idleMs` or longer; returns how many. */
  sweep(): number {
    if (this.o.idleMs <= 0) return 0;
    const limit = this.now() - this.o.idleMs;
    const idle = [...this.slots.values()].filter((s) => s.lastUsed <= limit);
    const secs = Math.round(this.o.idleMs / 1000);
    for (const s of idle) this.end(s.id, `was reclaimed after ${secs} s unused (--idle-timeout ${secs})`);
    return idle.length;
  }

  private end(id: number, why: string): void {
    this.slots.delete(id);
    this.ended.set(id, why);
    if (this.ended.size > REMEMBERED) this.ended.delete(this.ended.keys().next().value as number);
  }
}
