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

/** True when the trainer yields an `eval` right after step `s` (every `evalEvery` steps and at the last). */
export function evalDueAfter(config: RunConfig, s: number): boolean {
  return config.evalEvery > 0 && (s % config.evalEvery === 0 || s === config.steps);
}

/** Owns the current config and generator; at most one `start`/`stepOnce` runs at a time. */
export class TrainingSession {
  private config: RunConfig | null = null;
  private gen: AsyncGenerator<TrainEvent> | null = null;
  private signal = { aborted: false };
  private state: TrainerStatus = 'idle';
  private pauseRequested = false;
  private running: Promise<TrainerStatus> | null = null;
  /** Initial weights (safetensors bytes) for the next generator; null = fresh init from the seed. */
  private initWeights: Uint8Array | null = null;
  /** The generator's policy once built (null before the first pull and after discard). */
  private policy: PolicyHandle | null = null;
  /** The last step event's index. */
  private lastStep = 0;
  /** A `withPolicy` read in progress. */
  private reading: Promise<unknown> | null = null;
  /** The page's analyzer key and prompt template (memory only; never in the config). */
  private extras: AnalyzerExtras = {};

  /**
   * @param trainFn the trainer.
   * @param backendName returns the active tfjs backend's name (passed to the trainer).
   */
  constructor(
    private readonly trainFn: TrainFn,
    private readonly backendName: () => string,
  ) {}

  /** Current status. */
  get status(): TrainerStatus {
    return this.state;
  }

  /**
   * Validates `partial` (missing fields take defaults), stops and discards any run in progress, and makes the
   * next `start`/`stepOnce` begin a fresh run with this config.
   * @param initWeights safetensors bytes to start from instead of a fresh init (checked by the trainer on the
   *   first pull: model size, vocabulary, shapes); omitted = fresh init from the seed.
   * @throws ConfigError naming each bad field.
   */
  async configure(partial: Partial<RunConfig>, initWeights?: Uint8Array): Promise<RunConfig> {
    const config = parseRunConfig(partial);
    await this.discard();
    this.config = config;
    this.initWeights = initWeights ?? null;
    this.state = 'idle';
    return config;
  }

  /**
   * Sets the analyzer's key and prompt template for runs whose first update comes later (a started run keeps its
   * analyzer). Kept in memory only.
   */
  setAnalyzerExtras(extras: AnalyzerExtras): void {
    this.extras = { apiKey: extras.apiKey, promptTemplate: extras.promptTemplate };
  }

  /** Runs updates until the run is done or `pause()` is called. Resolves with the status after stopping. */
  start(onEvent: EventSink): Promise<TrainerStatus> {
    return this.exclusive(async () => {
      while (!this.pauseRequested) {
        if ((await this.update(onEvent)) === 'done') return 'done';
        // Yield a macrotask between updates: on wasm and cpu every await resolves as a microtask, so without
        // this the worker never reads its message queue and a `pause()` sent by the page would never arrive.
        await new Promise((r) => setTimeout(r, 0));
      }
      return 'paused';
    });
  }

  /** Runs exactly one update (with its trailing events). Resolves with the status after it. */
  stepOnce(onEvent: EventSink): Promise<TrainerStatus> {
    return this.exclusive(async () => ((await this.update(onEvent)) === 'done' ? 'done' : 'paused'));
  }

  /** Asks a running `start` to stop after the current update; no-op otherwise. */
  pause(): void {
    if (this.running) this.pauseRequested = true;
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
      throw new Error('the run\'s policy was released (the run failed or was stopped); train again first');
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
    if (gen) await gen.return(undefined).catch(() => undefined);
  }

  private async exclusive(body: () => Promise<TrainerStatus>): Promise<TrainerStatus> {
    if (this.running) throw new Error('training is already running; pause it first');
    if (this.reading) throw new Error('the weights are being saved; try again when that finishes');
    if (this.state === 'done') return 'done';
    if (!this.config) throw new Error('configure() must be called before training');
    this.pauseRequested = false;
    this.state = 'running';
    const run = body().then(
      (s) => (this.state = s),
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
    }
  }

  /** Pulls one update's events. Returns 'done' when the generator has finished. */
  private async update(onEvent: EventSink): Promise<'more' | 'done'> {
    const config = this.config!;
    this.gen ??= this.trainFn(config, {
      backend: this.backendName(),
      signal: this.signal,
      onPolicy: (p) => (this.policy = p),
      initWeights: this.initWeights ?? undefined,
      analyzer: runAnalyzer(config, this.extras),
    });
    // Pull until the step event (the first update also brings `start` and the step-0 `eval`).
    let step = -1;
    while (step < 0) {
      const r = await this.gen.next();
      if (r.done) return 'done';
      onEvent(r.value);
      if (r.value.event === 'done') return 'done';
      if (r.value.event === 'step') step = this.lastStep = r.value.step;
    }
    // Then the events that belong to this step: trajectories, an eval if due, and done after the last step.
    let trailing = 1 + (evalDueAfter(config, step) ? 1 : 0) + (step >= config.steps ? 1 : 0);
    while (trailing-- > 0) {
      const r = await this.gen.next();
      if (r.done) return 'done';
      onEvent(r.value);
      if (r.value.event === 'done') return 'done';
    }
    return 'more';
  }
}
