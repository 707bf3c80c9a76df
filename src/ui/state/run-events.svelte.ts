/**
 * The events of the page's current run and their summaries (Svelte 5 runes: big arrays in `$state.raw`, replaced
 * whole; summaries `$derived`): the start event, every step and evaluation, the latest group of trajectories, the step
 * its weights were last saved at, and the progress of the phase in progress. The base of the page's run state
 * (run-control.svelte.ts, run.svelte.ts); it never talks to the worker.
 */
import type { EvalEvent, StartEvent, StepEvent, TrainEvent, TrajectoriesEvent } from '../../core/train/events';
import { PhaseProgressState } from './phase-progress.svelte';

/** How many recent steps the ms/step average uses. */
export const RATE_WINDOW = 10;

/** The current run's events, as the charts, the trajectory panel and the progress line show them. */
export class RunEvents {
  /** The current run's start event (resolved config, parameter count), null before the first pull. */
  startInfo = $state.raw<StartEvent | null>(null);
  /** Every step event of the current run, in order (replaced whole on each event). */
  steps = $state.raw<StepEvent[]>([]);
  /** Every evaluation of the current run, in order (step 0 first when evaluation is on). */
  evals = $state.raw<EvalEvent[]>([]);
  /** The latest sampled group of trajectories. */
  group = $state.raw<TrajectoriesEvent | null>(null);
  /** Step at which the current run's weights were last saved (0 = never); see `unsaved`. */
  savedStep = $state(0);
  /** Progress of the phase in progress (evaluation, rollouts, update): done / total, rate, ETA. */
  readonly progress = new PhaseProgressState();

  /** The most recent step's metrics, or null before the first update. */
  lastStep = $derived(this.steps.length ? this.steps[this.steps.length - 1] : null);
  /** Updates completed in this run. */
  stepsDone = $derived(this.lastStep?.step ?? 0);
  /** Mean wall time per update over the last RATE_WINDOW steps (ms), or null before the first. */
  msPerStep = $derived.by(() => {
    const recent = this.steps.slice(-RATE_WINDOW);
    return recent.length ? recent.reduce((a, s) => a + s.stepMs, 0) / recent.length : null;
  });
  /** True when the current run has updates that were not saved as weights since. */
  unsaved = $derived(this.stepsDone > this.savedStep);

  /**
   * Takes one event of the current run into the fields above (a step, evaluation or interruption also ends the phase
   * progress shown); `interrupted` and `done` change no field here.
   */
  protected takeEvent(e: TrainEvent): void {
    if (e.event === 'step' || e.event === 'eval' || e.event === 'interrupted') this.progress.ended();
    switch (e.event) {
      case 'start':
        this.startInfo = e;
        break;
      case 'step':
        this.steps = [...this.steps, e];
        break;
      case 'eval':
        this.evals = [...this.evals, e];
        break;
      case 'trajectories':
        this.group = e;
        break;
      default:
        break;
    }
  }

  /** Forgets the current run's events (a new run begins). */
  protected clearEvents(): void {
    this.savedStep = 0;
    this.startInfo = null;
    this.steps = [];
    this.evals = [];
    this.group = null;
    this.progress.ended();
  }
}
