/**
 * The one owner of the run's phase (Svelte 5 runes): the phase is reactive state that only `dispatch` changes, by
 * the pure transition table of run-phase.ts. The page's worker control (run-control.svelte.ts) sends every click and
 * every worker answer here and does the effect an accepted event names; an illegal event changes nothing.
 */
import { transition, type RunPhase, type RunPhaseEvent, type RunTransition } from './run-phase';

export { type RunPhase, type RunPhaseEvent, type RunEffect, type RunTransition } from './run-phase';

/** The run's phase and the only way to change it. */
export class RunPhaseState {
  #phase = $state<RunPhase>('booting');

  /** The current phase (reactive). */
  get phase(): RunPhase {
    return this.#phase;
  }

  /**
   * Applies `event`: the transition taken (its effect is the caller's to do), or null when the event is illegal in
   * the current phase (then nothing changed).
   */
  dispatch(event: RunPhaseEvent): RunTransition | null {
    const t = transition(this.#phase, event);
    if (t) this.#phase = t.to;
    return t;
  }
}
