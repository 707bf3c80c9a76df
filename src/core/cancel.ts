/**
 * Cancellation and progress of the trainer's long phases (docs/architecture.md, "Pausing mid-step").
 *
 * A caller that wants Pause or Stop to take effect within seconds passes a `CancelSignal` (the shape of the web's
 * `AbortSignal`, so one can be passed as is; the core reads only `aborted`). The trainer, the rollout runner and the
 * update look at it at safe points: before each lockstep turn of a rollout or evaluation, between the phases of a
 * step and before each mini-batch. Once it is set, the work in progress throws `RunCancelled`; the trainer then puts
 * back what the cut step had changed (weights, Adam state, the algorithm's state) and yields an `interrupted` event.
 * Pulling the generator again redoes that step (or evaluation) from its start with fresh forks of its random streams,
 * so the events that follow equal an uninterrupted run's.
 *
 * Progress: the same places report how far a phase is (`PhaseProgress`) through an optional callback. No DOM, no
 * timers: wall-clock rates and ETAs are the caller's business.
 */

/** What the trainer reads to know it should stop at the next safe point (an `AbortSignal` fits). */
export interface CancelSignal {
  /** True once the caller asked to stop; it may turn false again before the generator is pulled anew. */
  readonly aborted: boolean;
  /**
   * Awaited at every safe point before `aborted` is read. A worker passes a macrotask yield here: on wasm and cpu
   * every await of the trainer resolves as a microtask, so without one a pause message would wait for the step's end.
   */
  poll?(): Promise<void>;
}

/** Thrown at a safe point once the `CancelSignal` is set; the trainer catches it, never the caller. */
export class RunCancelled extends Error {
  constructor(where: string) {
    super(`cancelled at a safe point (${where})`);
    this.name = 'RunCancelled';
  }
}

/**
 * A safe point: awaits `signal.poll`, then @throws RunCancelled naming `where` when `signal` is set; no-op without a
 * signal.
 */
export async function checkCancelled(signal: CancelSignal | undefined, where: string): Promise<void> {
  if (!signal) return;
  if (signal.poll) await signal.poll();
  if (signal.aborted) throw new RunCancelled(where);
}

/** True when `e` is the trainer's cancellation (not a real failure). */
export function isCancelled(e: unknown): e is RunCancelled {
  return e instanceof RunCancelled;
}

/**
 * How far a long phase is. Phases: `eval` (the test-seen and test-unseen episodes of an evaluation, step 0 = before
 * training), `rollout` (a step's B·G training episodes), `update` (the step's mini-batches, all epochs).
 */
export interface PhaseProgress {
  phase: 'eval' | 'rollout' | 'update';
  /** The training step the phase belongs to (the evaluation's step for `eval`). */
  step: number;
  /** Units finished: episodes (eval, rollout) or mini-batches (update). */
  done: number;
  /** Units in the phase (`done` reaches it when the phase ends). */
  total: number;
  /** `episodes` or `mini-batches`. */
  unit: 'episodes' | 'mini-batches';
  /**
   * Fraction of the phase's work done, in [0, 1]. For episodes, each unfinished episode counts its turns taken over
   * the environment's step limit (`Env.maxSteps`), a finished one counts 1, so the fraction moves with every
   * lockstep turn even when most episodes end together at the limit.
   */
  fraction: number;
}

/** Receives progress reports (called synchronously from the trainer, between awaits). */
export type ProgressSink = (p: PhaseProgress) => void;
