/**
 * One training run driven step by step inside the worker (worker layer, docs/architecture.md).
 *
 * The trainer is an async generator of events; pulling `next()` is what trains. So:
 * - *pause* = stop pulling after the current update's events;
 * - *step* = pull until the next `step` event, then the events that belong to it (`trajectories`, an `eval`
 *   when one is due, and `done` after the last step).
 *
 * The live policy (for saving weights) comes from the trainer's `onPolicy` hook. It stays alive after the run is
 * done because the session never pulls the generator past its `done` event: the generator stays suspended there,
 * and its `finally` (which disposes every tensor) runs only on the next `configure` or `discard`. Reading it is
 * refused while an update runs, and updates and `discard` wait for a read in progress, so a checkpoint is always
 * the weights after a whole update and never a disposed tensor.
 * No tfjs here: the generator does all tensor work on whatever backend is active.
 */
import { parseRunConfig, type RunConfig } from '../core/run/config';
import type { TrainEvent } from '../core/train/events';
import type { PolicyHandle } from '../core/model/policy';
import type { Analyzer } from '../core/analyzer/types';
import type { AnalyzerExtras, TrainerStatus } from './api';
import { runAnalyzer } from './analyzer';
import type { CancelSignal, PhaseProgress } from '../core/cancel';
import type { StepDetail } from '../core/train/step-detail';
import { TrajectoryStore } from './trajectory-store';

/** The trainer's signature (src/core/train/trainer.ts; see its `TrainOptions`). */
export type TrainFn = (
  config: RunConfig,
  opts: {
    backend: string;
    signal?: { aborted: boolean };
    onPolicy?: (p: PolicyHandle) => void;
    initWeights?: Uint8Array;
    /** OPID / Skill-GRPO analyzer built by the worker; absent = the trainer builds it from the config. */
    analyzer?: Analyzer;
    /** What the algorithm needs besides the config (TrainOptions.algorithmInit: Agentic-OPD's teacher pool). */
    algorithmInit?: Readonly<Record<string, unknown>>;
    /** Yield validation and checkpoint events (TrainOptions.checkpoints). */
    checkpoints?: boolean;
    /** Continue from a checkpoint's bytes (TrainOptions.resume). */
    resume?: { weights: Uint8Array; state: Uint8Array };
    /** Safe-point cancellation (TrainOptions.cancel, core/cancel.ts). */
    cancel?: CancelSignal;
    /** Progress of evaluations, rollouts and updates (TrainOptions.onProgress). */
    onProgress?: (p: PhaseProgress) => void;
    /** Evaluate step 0 after step 1 (TrainOptions.initialEvalAfterFirstStep). */
    initialEvalAfterFirstStep?: boolean;
    /** Every group of each completed step (TrainOptions.onStepDetail). */
    onStepDetail?: (d: StepDetail) => void;
  },
) => AsyncGenerator<TrainEvent>;

/** The current run's policy, handed to `TrainingSession.withPolicy`. */
export interface LivePolicy {
  policy: PolicyHandle;
  config: RunConfig;
  /** Updates applied to it so far (0 = as initialised or loaded). */
  step: number;
}

/** Receives each event as it is pulled (a Comlink proxy in the worker). */
export type EventSink = (e: TrainEvent) => void;

/** Receives progress reports of the phase in progress (a Comlink proxy in the worker); see `PROGRESS_EVERY_MS`. */
export type ProgressSink = (p: PhaseProgress) => void;

/**
 * Least time between two progress reports sent to the page (ms); a phase's last report (done = total) is always sent.
 */
export const PROGRESS_EVERY_MS = 250;

/** A macrotask yield: lets the worker read its message queue (a `pause()`) at the trainer's safe points. */
const yieldToEvents = () => new Promise<void>((r) => setTimeout(r, 0));

/** True when the trainer yields an `eval` right after step `s` (every `evalEvery` steps and at the last). */
export function evalDueAfter(config: RunConfig, s: number): boolean {
  return config.evalEvery > 0 && (s % config.evalEvery === 0 || s === config.steps);
}

/**
 * Events the trainer yields after step `s` with checkpoints on: a validation (valTasks > 0) and a checkpoint when due.
 */
export function checkpointEventsAfter(config: RunConfig, s: number): number {
  const due = config.checkpointEvery > 0 && (s % config.checkpointEvery === 0 || s === config.steps);
  return due ? 1 + (config.valTasks > 0 ? 1 : 0) : 0;
}

/** Owns the current config and generator; at most one `start`/`stepOnce` runs at a time. */
export class TrainingSession {
  private config: RunConfig | null = null;
  private gen: AsyncGenerator<TrainEvent> | null = null;
  private signal = { aborted: false };
  /**
   * Set by `pause`/`discard`: the trainer stops at its next safe point and discards the step or evaluation in progress.
   */
  private cancel = { aborted: false, poll: yieldToEvents };
  /** The run's trajectories for the explorer (every group of the last explorerSteps steps, a sample of older ones). */
  readonly trajectories = new TrajectoryStore();
  /** Where progress reports go during the current start/stepOnce (null: nowhere). */
  private progressSink: ProgressSink | null = null;
  private lastProgressAt = -Infinity;
  /** Trailing events still due from the last step event (a pause may cut them: the next update pulls them first). */
  private owed = 0;
  /** True once the step-0 evaluation came before step 1 (a trainer that does not defer it). */
  private eval0Seen = false;
  private state: TrainerStatus = 'idle';
  private pauseRequested = false;
  /** Set by `stop`: the run ends (status `done`) once the call in flight stops at its safe point. */
  private stopRequested = false;
  private running: Promise<TrainerStatus> | null = null;
  /** Initial weights (safetensors bytes) for the next generator; null = fresh init from the seed. */
  private initWeights: Uint8Array | null = null;
  /** What the next generator's algorithm needs besides the config (setAlgorithmInit); null = nothing. */
  private algorithmInit: Readonly<Record<string, unknown>> | null = null;
  /** The generator's policy once built (null before the first pull and after discard). */
  private policy: PolicyHandle | null = null;
  /** The last step event's index. */
  private lastStep = 0;
  /** A `withPolicy` read in progress. */
  private reading: Promise<unknown> | null = null;
  /** The page's analyzer key and prompt template (memory only; never in the config). */
  private extras: AnalyzerExtras = {};

  /** A checkpoint to continue from in the next generator (configure's `resume`); null = a new run. */
  private resume: { weights: Uint8Array; state: Uint8Array } | null = null;

  /**
   * @param trainFn the trainer.
   * @param backendName returns the active tfjs backend's name (passed to the trainer).
   * @param opts `checkpoints`: ask the trainer for validation and checkpoint events (every config.checkpointEvery
   *   steps; the page records them) and count them among a step's trailing events. `onStepDetail`: told of each
   *   step's groups just before `trajectories` keeps them.
   */
  constructor(
    private readonly trainFn: TrainFn,
    private readonly backendName: () => string,
    private readonly opts: { checkpoints?: boolean; onStepDetail?: (d: StepDetail) => void } = {},
  ) {}

  /** Current status. */
  get status(): TrainerStatus {
    return this.state;
  }

  /** The configured run's config, or null before the first `configure`. */
  get currentConfig(): RunConfig | null {
    return this.config;
  }

  /**
   * Validates `partial` (missing fields take defaults), stops and discards any run in progress, and makes the
   * next `start`/`stepOnce` begin a fresh run with this config.
   * @param initWeights safetensors bytes to start from instead of a fresh init (checked by the trainer on the
   *   first pull: model size, vocabulary, shapes); omitted = fresh init from the seed.
   * @throws ConfigError naming each bad field.
   */
  async configure(
    partial: Partial<RunConfig>,
    initWeights?: Uint8Array,
    resume?: { weights: Uint8Array; state: Uint8Array },
  ): Promise<RunConfig> {
    const config = parseRunConfig(partial);
    await this.discard();
    this.config = config;
    this.initWeights = initWeights ?? null;
    this.algorithmInit = null;
    this.resume = resume ?? null;
    this.state = 'idle';
    this.trajectories.clear();
    this.trajectories.setLimits({ recentSteps: config.explorerSteps });
    return config;
  }

  /**
   * Gives the configured run's algorithm what it needs besides the config (TrainOptions.algorithmInit, e.g.
   * Agentic-OPD's teacher pool); call after `configure` (which clears it) and before the first start/step.
   * @throws Error when the run has started already.
   */
  setAlgorithmInit(init: Readonly<Record<string, unknown>>): void {
    if (this.gen) throw new Error('the run has started; configure a new run first');
    this.algorithmInit = init;
  }

  /**
   * Sets the analyzer's key and prompt template for runs whose first update comes later (a started run keeps its
   * analyzer). Kept in memory only.
   */
  setAnalyzerExtras(extras: AnalyzerExtras): void {
    this.extras = { apiKey: extras.apiKey, promptTemplate: extras.promptTemplate };
  }

  /**
   * Runs updates until the run is done or `pause()` is called. Resolves with the status after stopping.
   * @param onProgress receives the progress of each long phase (at most every PROGRESS_EVERY_MS).
   */
  start(onEvent: EventSink, onProgress?: ProgressSink): Promise<TrainerStatus> {
    return this.exclusive(onProgress, async () => {
      while (!this.pauseRequested) {
        const r = await this.update(onEvent);
        if (r === 'done') return 'done';
        if (r === 'interrupted') return 'paused';
        // Yield a macrotask between updates: on wasm and cpu every await resolves as a microtask, so without
        // this the worker never reads its message queue and a `pause()` sent by the page would never arrive.
        await new Promise((r) => setTimeout(r, 0));
      }
      return 'paused';
    });
  }

  /** Runs exactly one update (with its trailing events). Resolves with the status after it. */
  stepOnce(onEvent: EventSink, onProgress?: ProgressSink): Promise<TrainerStatus> {
    return this.exclusive(onProgress, async () => ((await this.update(onEvent)) === 'done' ? 'done' : 'paused'));
  }

  /**
   * Asks a running `start`/`stepOnce` to stop at the trainer's next safe point (between rollout or evaluation turns
   * and mini-batches): a step or evaluation cut there is discarded whole (an `interrupted` event) and redone by the
   * next start/step. No-op when nothing runs.
   */
  pause(): void {
    if (!this.running) return;
    this.pauseRequested = true;
    this.cancel.aborted = true;
  }

  /**
   * Ends the run: a running `start`/`stepOnce` stops at the trainer's next safe point as with `pause` (a step or
   * evaluation cut there is discarded whole) and then resolves `done`; a paused run ends at once. What the run has is
   * kept: its live policy (for saving weights), its trajectories and the generator, suspended, until the next
   * `configure` or `discard`; the next start or step answers `done` until then. Resolves once the run has stopped;
   * true when this call ended it, false when there was no started run to end (nothing configured, not started, already
   * done or failed) or it finished, failed or was discarded before reaching a safe point.
   */
  async stop(): Promise<boolean> {
    if (!this.gen || this.state === 'done' || this.state === 'error') return false;
    this.stopRequested = true;
    this.pause();
    await this.running?.catch(() => undefined);
    // It finished on its own, failed, or a configure discarded it meanwhile: nothing was ended by this call.
    if (!this.stopRequested || this.status === 'error') return false;
    this.state = 'done';
    return true;
  }

  /**
   * Runs `read` on the current run's live policy, between updates (e.g. to serialise its weights). Updates and
   * `discard` wait until `read` settles; do not train or dispose inside it.
   * @throws Error naming why there is no policy to read: no run configured, not started, training in progress,
   *   or the policy already released (the run failed or was discarded).
   */
  async withPolicy<T>(read: (live: LivePolicy) => Promise<T>): Promise<T> {
    if (!this.config) throw new Error('no run is configured yet; choose the settings and press Start or Step first');
    if (this.running) throw new Error('training is running; pause it (or let it finish) first');
    if (this.reading) throw new Error('the weights are being read already; try again when that finishes');
    const policy = this.policy;
    if (!policy) throw new Error('the run has not started yet, so there are no weights; press Start or Step first');
    if (Object.values(policy.params).some((v) => v.isDisposed)) {
      throw new Error("the run's policy was released (the run failed or was stopped); train again first");
    }
    const r = read({ policy, config: this.config, step: this.lastStep });
    this.reading = r;
    try {
      return await r;
    } finally {
      this.reading = null;
    }
  }

  /** Stops the current run (after its current update) and releases the generator's resources. */
  async discard(): Promise<void> {
    this.pause();
    this.signal.aborted = true;
    await this.running?.catch(() => undefined);
    await this.reading?.catch(() => undefined);
    const gen = this.gen;
    this.gen = null;
    this.policy = null;
    this.lastStep = 0;
    this.signal = { aborted: false };
    this.cancel = { aborted: false, poll: yieldToEvents };
    this.stopRequested = false;
    this.owed = 0;
    this.eval0Seen = false;
    if (gen) await gen.return(undefined).catch(() => undefined);
  }

  private async exclusive(
    onProgress: ProgressSink | undefined,
    body: () => Promise<TrainerStatus>,
  ): Promise<TrainerStatus> {
    if (this.running) throw new Error('training is already running; pause it first');
    if (this.reading) throw new Error('the weights are being saved; try again when that finishes');
    if (this.state === 'done') return 'done';
    if (!this.config) throw new Error('configure() must be called before training');
    this.pauseRequested = false;
    this.cancel.aborted = false;
    this.progressSink = onProgress ?? null;
    this.state = 'running';
    const run = body().then(
      (s) => {
        if (s === 'done') this.stopRequested = false; // it finished on its own
        return (this.state = this.stopRequested ? 'done' : s);
      },
      (e: unknown) => {
        this.state = 'error';
        throw e;
      },
    );
    this.running = run;
    try {
      return await run;
    } finally {
      this.running = null;
      this.pauseRequested = false;
      this.progressSink = null;
    }
  }

  /** Forwards a progress report, at most every PROGRESS_EVERY_MS except a phase's last. */
  private progress(p: PhaseProgress): void {
    const t = Date.now();
    if (!this.progressSink || (p.done < p.total && t - this.lastProgressAt < PROGRESS_EVERY_MS)) return;
    this.lastProgressAt = t;
    this.progressSink(p);
  }

  /**
   * Pulls one update's events: first any trailing events a pause cut off, then up to the next step event and its
   * trailing events. Returns 'done' when the generator has finished, 'interrupted' when a pause cut a step or an
   * evaluation (the next call redoes it).
   * @throws Error with the message of the trainer's `error` event (a non-finite value stopped the run), after
   *   forwarding the event.
   */
  private async update(onEvent: EventSink): Promise<'more' | 'done' | 'interrupted'> {
    const config = this.config!;
    this.gen ??= this.trainFn(config, {
      backend: this.backendName(),
      signal: this.signal,
      onPolicy: (p) => (this.policy = p),
      initWeights: this.initWeights ?? undefined,
      analyzer: runAnalyzer(config, this.extras),
      algorithmInit: this.algorithmInit ?? undefined,
      checkpoints: this.opts.checkpoints ?? false,
      resume: this.resume ?? undefined,
      cancel: this.cancel,
      onProgress: (p) => this.progress(p),
      initialEvalAfterFirstStep: true,
      onStepDetail: (d) => {
        this.opts.onStepDetail?.(d);
        this.trajectories.add(d);
      },
    });
    // Pull until the step event (the first update also brings `start`, and the step-0 `eval` unless the trainer
    // defers it after step 1), then the events that belong to this step: trajectories, the deferred step-0 eval after
    // step 1, an eval if due, validation and checkpoint when due, and done after the last step.
    let gotStep = false;
    while (!gotStep || this.owed > 0) {
      const r = await this.gen.next();
      if (r.done) return 'done';
      const e = r.value;
      onEvent(e);
      // A value turned non-finite (core/train/finite.ts): the trainer ended the run at its last good checkpoint;
      // the call fails with the event's message, so the page shows it as a run error (status `error`).
      if (e.event === 'error') throw new Error(e.message);
      if (e.event === 'done') return 'done';
      if (e.event === 'interrupted') return 'interrupted';
      if (e.event === 'eval' && e.step === 0 && !gotStep && this.lastStep === 0) this.eval0Seen = true;
      if (e.event === 'step') {
        gotStep = true;
        const step = (this.lastStep = e.step);
        const deferred = step === 1 && config.evalEvery > 0 && !this.eval0Seen && !this.resume;
        this.owed =
          1 +
          (deferred ? 1 : 0) +
          (evalDueAfter(config, step) ? 1 : 0) +
          (step >= config.steps ? 1 : 0) +
          (this.opts.checkpoints ? checkpointEventsAfter(config, step) : 0);
      } else if (this.owed > 0) this.owed--;
    }
    return 'more';
  }
}
