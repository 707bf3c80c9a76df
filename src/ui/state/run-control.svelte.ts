/**
 * The page's control of the training worker (Svelte 5 runes; docs/architecture.md, "The worker protocol"): starting
 * and replacing the worker on a backend, sending the config, and Start / Step / Pause / Stop / Reset, with the phase,
 * the errors and the notices they give. Pause, Stop and Reset act at the trainer's next safe point (core/cancel.ts):
 * Pause keeps the run to go on, Stop ends it keeping what it has (events, checkpoints, the stored record marked
 * stopped, the weights for saving), Reset discards it. The base of `RunState` (run.svelte.ts), which adds the link,
 * settings editing and stored runs. Talks to the worker only through `TrainerApi`; never trains itself.
 */
import * as Comlink from 'comlink';
import type { ConfigIssue, RunConfig, RunConfigKey } from '../../core/run/config';
import type { TrainEvent } from '../../core/train/events';
import type { BackendInfo, BackendPref, InitSource, TrainerStatus } from '../../worker/api';
import type { PhaseProgress } from '../../core/cancel';
import { decodeHash } from './link';
import { nextInitLabel } from './next-init';
import { AnalyzerState } from './analyzer.svelte';
import { RunEvents } from './run-events.svelte';
import { spawnTrainer, type TrainerHandle } from './trainer-client';

/** What the page is doing: the worker's status, plus `booting` (worker or backend starting). */
export type RunPhase = 'booting' | TrainerStatus;

/** Starts a training worker (trainer-client.ts `spawnTrainer`; tests pass an in-process one). */
export type SpawnTrainer = (onCrash: (message: string) => void) => TrainerHandle;

/** Message text of an unknown error (Comlink re-creates worker errors as Error with the same message). */
export function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** The worker, the config it runs and the run buttons, for one page. `RunState` adds the link (`writeHash`). */
export abstract class RunControl extends RunEvents {
  /** The settings as the controls show them (may be invalid while being edited). */
  draft = $state.raw<RunConfig>(decodeHash('').config);
  /** The last valid config, sent to the worker. */
  config = $state.raw<RunConfig>(decodeHash('').config);
  /** Problems with `draft`, one per field; empty when valid. */
  fieldIssues = $state.raw<ConfigIssue[]>([]);
  /**
   * The field of a valid settings change held back because it would discard a run with unsaved progress (the
   * draft has it; `config` does not). `confirmChange()` applies the draft, `cancelChange()` restores `config`.
   */
  pendingChange = $state.raw<RunConfigKey | null>(null);
  /** Last error from the worker (configure, training, crash), shown as a banner; null when none. */
  error = $state<string | null>(null);
  /**
   * Short status line for screen readers and the copy-link button (e.g. "Link copied"). A phase notice (Paused,
   * Stopped, Resuming) lasts until the phase changes (Start / Step / Resume, the run ending, Reset, a new config);
   * any other notice (Link copied, Saved weights) also goes at the next action (a settings edit, Pause).
   */
  notice = $state('');
  /** The phase notice being shown ('' when none): `notice` equal to it is kept by `clearTransientNotice`. */
  private phaseNotice = '';

  /** What the worker is doing. */
  phase = $state<RunPhase>('booting');
  /** True between `pause()` and the worker actually stopping. */
  pausing = $state(false);
  /** True between `stop()` and the run having ended (its record written). */
  stopping = $state(false);
  /** The worker's backend once chosen; null while starting or after it failed. */
  backend = $state.raw<BackendInfo | null>(null);
  /** Stored checkpoint that new runs start from (sent with every configure; overrides `config.init`); null = none. */
  initWeights = $state<string | null>(null);
  /** Where the configured run's weights come from, as the worker resolved it; null before the first configure. */
  initSource = $state.raw<InitSource | null>(null);
  /**
   * True while the configured run is a stored run continued from its checkpoint (Runs → Resume); a configure clears
   * it.
   */
  resumed = $state(false);
  /** Why the base policy asked for could not be used (the run starts from scratch); null when none or dismissed. */
  baseNotice = $state<string | null>(null);
  /** True while a pretraining runs in the worker (set by PretrainState): training and settings wait for it. */
  pretraining = $state(false);
  /** Called when the worker is replaced or crashes (work in it, such as a pretraining, is lost). */
  onWorkerLost: (() => void) | null = null;

  /**
   * The analyzer panel (OPID / Skill-GRPO): its API key (page memory only; never in the config, a link, an export, a
   * log or a notice), prompt template, connection test and failure notice. Setting the key rewrites the link without
   * it.
   */
  readonly analyzer = new AnalyzerState(this, () => this.writeHash());

  /**
   * True once the configured run has built its analyzer (its first update began): a new key or template waits for
   * Reset.
   */
  runStarted = $derived(this.startInfo !== null || this.phase === 'running' || this.stepsDone > 0);
  /** Estimated time to finish the remaining steps (ms), or null when unknown. */
  etaMs = $derived(this.msPerStep == null ? null : Math.max(0, this.config.steps - this.stepsDone) * this.msPerStep);
  /** True while the worker trains or pretrains (controls that would change the run are disabled). */
  busy = $derived(this.phase === 'running' || this.phase === 'booting' || this.pretraining);
  /** True when the draft has no problems. */
  valid = $derived(this.fieldIssues.length === 0);
  /**
   * True when Stop can end the run: it is training, or paused (a started run); not while a pretraining holds the
   * worker.
   */
  canStop = $derived((this.phase === 'running' || this.phase === 'paused') && !this.pretraining);
  /**
   * What a running run does before its first update completes (which takes seconds on wasm, minutes on an emulated
   * GPU); empty otherwise. The worker defers the step-0 evaluation after step 1: start → step 1 → eval (step 0).
   */
  activity = $derived.by(() => {
    if (this.phase !== 'running' || this.steps.length > 0) return '';
    if (!this.startInfo) return 'building the model…';
    return this.progress.summary ? `${this.progress.summary.label}…` : 'sampling rollouts for step 1…';
  });
  /** True from Reset during a run until the worker has discarded it: late events of that run are ignored. */
  private discarding = false;

  private trainer: TrainerHandle | null = null;
  /** Counts configure calls, so the answer to an older one (a slower base-policy fetch) is ignored. */
  private configureSeq = 0;
  /** The configure call in flight, if any (Start/Step wait for it). */
  private pendingConfigure: Promise<boolean> | null = null;
  /** The start or step call in flight (`drive`), if any. */
  private driving: Promise<void> | null = null;
  /** Counts `drive` calls: only the latest one's end clears `pausing` and the phase progress. */
  private driveSeq = 0;
  /** True while a Start or Step waits for the worker to be ready (`enter`). */
  private entering = false;
  /** Set by a Pause while a Start or Step waits (`enter`): that Start or Step does not run. */
  private enterCancelled = false;
  /** Receives the worker's events (a Comlink proxy). */
  protected readonly sink = Comlink.proxy((e: TrainEvent) => this.receive(e));
  /** Receives the worker's progress reports (a Comlink proxy). */
  protected readonly progressSink = Comlink.proxy((p: PhaseProgress) => {
    if (!this.discarding) this.progress.receive(p);
  });

  /** @param spawn starts a training worker (default: the page's module worker). */
  constructor(private readonly spawn: SpawnTrainer = spawnTrainer) {
    super();
  }

  /** Writes the link of the current config into `location.hash` (run.svelte.ts). */
  protected abstract writeHash(): void;

  /** The worker's API, or null while none is up (for the weights, pretraining and analyzer state beside this file). */
  get api(): TrainerHandle['api'] | null {
    return this.trainer && this.backend ? this.trainer.api : null;
  }

  /**
   * Where the next new run's weights come from, for the Weights panel (ui/state/next-init.ts): the configured run's
   * start, or, after Runs → Resume, what the page's settings give. '' before the first configure.
   */
  get nextInitLabel(): string {
    return nextInitLabel({ initSource: this.initSource, resumed: this.resumed, config: this.config });
  }

  /** Drops the held-back settings change: the control shows the run's value again. */
  cancelChange(): void {
    this.pendingChange = null;
    this.draft = this.config;
    this.fieldIssues = [];
  }

  /** True while something besides the worker keeps Start and Step waiting (run.svelte.ts: a link checkpoint). */
  protected startBlocked(): boolean {
    return false;
  }

  /** Starts (or resumes) training; a finished, stopped or failed run restarts from scratch. */
  async start(): Promise<void> {
    if (this.pendingChange) this.cancelChange();
    if (this.busy || !this.valid || this.startBlocked() || this.entering) return;
    if (await this.enter(this.phase === 'done')) await this.drive((api) => api.start(this.sink, this.progressSink));
  }

  /** Runs exactly one more update. */
  async step(): Promise<void> {
    if (this.pendingChange) this.cancelChange();
    if (this.busy || !this.valid || this.startBlocked() || this.phase === 'done' || this.entering) return;
    if (await this.enter(false)) await this.drive((api) => api.stepOnce(this.sink, this.progressSink));
  }

  /**
   * `ready(restart)` for one Start or Step at a time: a second click while the first waits for a configure (after a
   * Reset) is ignored, so two start calls never race in the worker ("training is already running").
   */
  private async enter(restart: boolean): Promise<boolean> {
    this.entering = true;
    this.enterCancelled = false;
    try {
      return (await this.ready(restart)) && !this.enterCancelled;
    } finally {
      this.entering = false;
    }
  }

  /**
   * Asks the worker to stop at its next safe point (within a second or two); a step or evaluation cut there is
   * discarded and redone by the next Start/Step.
   */
  async pause(): Promise<void> {
    if (this.entering) this.enterCancelled = true; // the last click wins: a Start still waiting does not run
    if (this.phase !== 'running' || !this.trainer) return;
    this.clearTransientNotice();
    this.pausing = true;
    await this.trainer.api.pause().catch((e: unknown) => (this.error = message(e)));
  }

  /**
   * Ends the run, keeping what it has: a running one stops at the worker's next safe point as with Pause (a step cut
   * there is discarded whole), a paused one at once. Its steps, evaluations, trajectories, checkpoints and weights stay
   * (Save weights still works), the Runs view lists it as stopped, and the next Start begins a new run with the same
   * settings. No-op unless `canStop`.
   */
  async stop(): Promise<void> {
    if (!this.canStop || this.stopping || !this.trainer) return;
    const trainer = this.trainer;
    const seq = this.configureSeq;
    this.stopping = true;
    try {
      await trainer.api.stop();
      if (this.trainer !== trainer || seq !== this.configureSeq) return; // replaced or reset meanwhile
      this.phase = 'done';
      this.progress.ended();
      this.sayPhase(
        `Stopped after step ${this.stepsDone} of ${this.config.steps}: the run is kept (Runs lists it as ` +
          `stopped; its weights can still be saved). Start begins a new run.`,
      );
    } catch (e) {
      this.error = `stop: ${message(e)}`;
    } finally {
      this.stopping = false;
    }
  }

  /** Discards the run (a running one stops at its next safe point) and starts over with the same config. */
  async reset(): Promise<void> {
    if (this.phase === 'booting' || this.pretraining) return;
    this.discarding = true;
    try {
      await this.configure();
    } finally {
      this.discarding = false;
    }
  }

  /** Resolves once no configure and no start or step call is in flight (a Pause or Reset has taken effect). */
  protected async settled(): Promise<void> {
    while (this.pendingConfigure || this.driving) await (this.pendingConfigure ?? this.driving);
  }

  /** Shows `text` as the phase notice (it stays until the phase changes). */
  protected sayPhase(text: string): void {
    this.notice = this.phaseNotice = text;
  }

  /** Clears a notice that is not the phase notice (Link copied, Saved weights): the user has moved on. */
  protected clearTransientNotice(): void {
    if (this.notice !== this.phaseNotice) this.notice = '';
  }

  /** Clears the notice, whatever it is (the phase changed: a new config, Reset, training again). */
  private clearNotice(): void {
    this.notice = this.phaseNotice = '';
  }

  /** Hides the base-policy fallback notice (until the next configure falls back again). */
  dismissBaseNotice(): void {
    this.baseNotice = null;
  }

  /**
   * Makes the worker able to train: a worker whose backend never came up (or that crashed) is replaced, a failed
   * run is reconfigured, and so is a finished one when `restart`. Returns false (with the error shown) if not.
   */
  protected async ready(restart: boolean): Promise<boolean> {
    // A configure still in flight (the base policy is being fetched and hashed): training before it lands would hit
    // a worker without a config ("configure() must be called before training").
    while (this.pendingConfigure) if (!(await this.pendingConfigure)) return false;
    if (!this.trainer || !this.backend) {
      await this.respawn(this.config.backend);
      return this.phase === 'idle';
    }
    if (restart || this.phase === 'error') return this.configure();
    return true;
  }

  /** Forgets the current run on the page (a held-back settings change, events, the analyzer notice's dismissal). */
  protected clearRun(): void {
    if (this.pendingChange) this.cancelChange(); // the run it asked about is gone (reset, new weights)
    this.clearEvents();
    this.analyzer.failuresDismissedAt = 0;
  }

  private receive(e: TrainEvent): void {
    if (this.discarding) return;
    this.takeEvent(e);
    if (e.event === 'interrupted' && !this.stopping) {
      this.sayPhase(
        e.phase === 'step'
          ? `Paused: step ${e.step} was cut off at a safe point and discarded whole; Resume or Step ` +
              `redoes it with the same numbers.`
          : `Paused: the evaluation ${e.step === 0 ? 'before training' : `after step ${e.step}`} was cut ` +
              `off and will run again on Resume.`,
      );
    }
  }

  /** Replaces the worker (new backend), then configures it. */
  protected async respawn(pref: BackendPref): Promise<void> {
    this.trainer?.dispose();
    this.phase = 'booting';
    this.backend = null;
    this.error = null;
    this.clearRun();
    this.onWorkerLost?.();
    const trainer: TrainerHandle = this.spawn((m) => {
      if (this.trainer !== trainer) return;
      // An uncaught error inside the worker: its state is unknown, so the next Start replaces it.
      this.error = m;
      this.phase = 'error';
      this.backend = null;
      this.onWorkerLost?.();
    });
    this.trainer = trainer;
    try {
      const info = await trainer.api.init(pref);
      if (this.trainer !== trainer) return; // replaced while starting
      this.backend = info;
    } catch (e) {
      this.error = `backend: ${message(e)}`;
      this.phase = 'error';
      return;
    }
    this.phase = 'idle';
    if (this.valid) await this.configure();
  }

  /** Sends the config to the worker, which discards any run. Returns false (and shows why) on failure. */
  protected async configure(): Promise<boolean> {
    const p = this.configureNow();
    this.pendingConfigure = p;
    try {
      return await p;
    } finally {
      if (this.pendingConfigure === p) this.pendingConfigure = null;
    }
  }

  private async configureNow(): Promise<boolean> {
    if (!this.trainer) return false;
    this.clearRun();
    this.clearNotice();
    this.error = null;
    const seq = ++this.configureSeq;
    try {
      const opts = this.initWeights ? { initWeights: this.initWeights } : undefined;
      // The key and template travel apart from the config, before it, so the run's analyzer gets them.
      await this.trainer.api.setAnalyzerExtras(this.analyzer.extras());
      const r = await this.trainer.api.configure($state.snapshot(this.config), opts);
      if (seq !== this.configureSeq) return true; // a later configure is in flight; its answer counts
      this.initSource = r.init;
      this.resumed = false;
      if (r.init.kind === 'checkpoint') this.writeHash(); // the link names the checkpoint and its sha256
      this.baseNotice = r.init.fallback ?? r.init.warning ?? null;
      this.phase = 'idle';
      this.pausing = false;
      return true;
    } catch (e) {
      if (seq !== this.configureSeq) return false;
      this.error = `configure: ${message(e)}`;
      this.initSource = null;
      this.resumed = false;
      this.phase = 'error';
      return false;
    }
  }

  /**
   * Runs a start or step call in the worker, keeping the phase as it answers (unless the run was replaced meanwhile).
   * The notice becomes `running` (e.g. "Resuming run …"; '' = none) while it trains; it goes when the call ends
   * unless the run replaced it meanwhile (a Pause's "Paused: …").
   */
  protected async drive(call: (api: TrainerHandle['api']) => Promise<TrainerStatus>, running = ''): Promise<void> {
    const p = this.driveNow(call, running, ++this.driveSeq);
    this.driving = p;
    try {
      await p;
    } finally {
      if (this.driving === p) this.driving = null;
    }
  }

  private async driveNow(
    call: (api: TrainerHandle['api']) => Promise<TrainerStatus>,
    running: string,
    id: number,
  ): Promise<void> {
    const trainer = this.trainer!;
    // A configure (Reset, a settings change) while this call runs discards the run: its late answer ("paused" after
    // the cut) must not overwrite the new run's phase.
    const seq = this.configureSeq;
    this.sayPhase(running);
    this.error = null;
    this.phase = 'running';
    this.pausing = false;
    this.progress.begin();
    try {
      const status = await call(trainer.api);
      if (this.trainer === trainer && seq === this.configureSeq) this.phase = status;
    } catch (e) {
      if (this.trainer !== trainer || seq !== this.configureSeq) return;
      this.error = `training: ${message(e)}`;
      this.phase = 'error';
    } finally {
      // A late answer of a discarded call must not end the newer call's Pausing… or progress.
      if (id === this.driveSeq) {
        this.pausing = false;
        this.progress.ended();
      }
      if (running && this.notice === running) this.clearNotice();
    }
  }
}
