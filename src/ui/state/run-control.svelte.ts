/**
 * The page's control of the training worker (Svelte 5 runes; docs/architecture.md, "The worker protocol"): starting
 * and replacing the worker on a backend, sending the config, and Start / Step / Pause / Stop / Reset, with the phase,
 * the errors and the notices they give. Pause, Stop and Reset act at the trainer's next safe point (core/cancel.ts):
 * Pause keeps the run to go on, Stop ends it keeping what it has (events, checkpoints, the stored record marked
 * stopped, the weights for saving), Reset discards it. The base of `RunState` (run.svelte.ts), which adds the link,
 * settings editing and stored runs. Talks to the worker only through `TrainerApi`; never trains itself.
 *
 * The phase has one owner, `RunPhaseState` (run-phase.svelte.ts, the table in run-phase.ts): each click and each answer
 * of the worker is sent there (`dispatch`), and this class does only the effect of an accepted event; an event the
 * phase does not take changes nothing and reaches no worker method. Answers of a call made stale by a Reset, a
 * settings change or a new worker are not sent.
 */
import * as Comlink from 'comlink';
import type { ConfigIssue, RunConfig, RunConfigKey } from '../../core/run/config';
import type { TrainEvent } from '../../core/train/events';
import type { BackendInfo, BackendPref, InitSource } from '../../worker/api';
import type { PhaseProgress } from '../../core/cancel';
import { decodeHash } from './link';
import { nextInitLabel } from './next-init';
import { AnalyzerState } from './analyzer.svelte';
import { RunEvents } from './run-events.svelte';
import { spawnTrainer, type TrainerHandle } from './trainer-client';
import { RunPhaseState } from './run-phase.svelte';
import {
  accepts,
  isBusy,
  isSettled,
  settleEvent,
  type RunPhase,
  type RunPhaseEvent,
  type RunTransition,
} from './run-phase';

export type { RunPhase } from './run-phase';

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

  /** The run's phase, its one owner (run-phase.svelte.ts): only `dispatch` below changes it. */
  private readonly machine = new RunPhaseState();
  /** True between a Pause and the run having stopped at its safe point (the phase `pausing`). */
  pausing = $derived(this.machine.phase === 'pausing');
  /** True between a Stop and the run having ended, its record written (the phase `stopping`). */
  stopping = $derived(this.machine.phase === 'stopping');
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

  /** The run's phase (run-phase.ts): what the page and its worker are doing. */
  get phase(): RunPhase {
    return this.machine.phase;
  }
  /**
   * True once the configured run has built its analyzer (its first update began): a new key or template waits for
   * Reset.
   */
  runStarted = $derived(this.startInfo !== null || isBusy(this.machine.phase) || this.stepsDone > 0);
  /** Estimated time to finish the remaining steps (ms), or null when unknown. */
  etaMs = $derived(this.msPerStep == null ? null : Math.max(0, this.config.steps - this.stepsDone) * this.msPerStep);
  /**
   * True while the worker trains, is about to or is stopping, starts, or pretrains (controls that would change the
   * run are disabled).
   */
  busy = $derived(isBusy(this.machine.phase) || this.pretraining);
  /** True when the draft has no problems. */
  valid = $derived(this.fieldIssues.length === 0);
  /**
   * True when Stop can end the run: it is training, or paused (a started run); not while a pretraining holds the
   * worker.
   */
  canStop = $derived(accepts(this.machine.phase, 'click-stop') && !this.pretraining);
  /**
   * What a running run does before its first update completes (which takes seconds on wasm, minutes on an emulated
   * GPU); empty otherwise. The worker defers the step-0 evaluation after step 1: start → step 1 → eval (step 0).
   */
  activity = $derived.by(() => {
    const phase = this.machine.phase;
    if ((phase !== 'running' && phase !== 'stepping') || this.steps.length > 0) return '';
    if (!this.startInfo) return 'building the model…';
    return this.progress.summary ? `${this.progress.summary.label}…` : 'sampling rollouts for step 1…';
  });

  private trainer: TrainerHandle | null = null;
  /** Counts configure calls, so the answer to an older one (a slower base-policy fetch) is ignored. */
  private configureSeq = 0;
  /** The configure call in flight, if any (Start/Step wait for it). */
  private pendingConfigure: Promise<boolean> | null = null;
  /** The Start or Step in progress (getting the worker ready, then its call), if any. */
  private driving: Promise<void> | null = null;
  /** The Start or Step still getting the worker ready (a Stop waits for it), if any. */
  private preparing: Promise<unknown> | null = null;
  /** Counts Starts and Steps: only the current one's answer is an event. */
  private callSeq = 0;
  /** True while a start or step call is in the worker (a Pause is sent to it). */
  private inFlight = false;
  /** The configure whose run the last settled Start/Step call trained (its late events are still that run's). */
  private settledConfigure = -1;
  /** Receives the worker's events (a Comlink proxy). */
  protected readonly sink = Comlink.proxy((e: TrainEvent) => this.receive(e));
  /** Receives the worker's progress reports (a Comlink proxy); a discarded run's are dropped as its events are. */
  protected readonly progressSink = Comlink.proxy((p: PhaseProgress) => {
    if (accepts(this.machine.phase, 'worker-step')) this.progress.receive(p);
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

  /** Sends `event` to the run's phase (run-phase.ts): the transition taken, or null when it was ignored. */
  protected dispatch(event: RunPhaseEvent): RunTransition | null {
    return this.machine.dispatch(event);
  }

  /** Starts (or resumes) training; a finished, stopped or failed run restarts from scratch. */
  async start(): Promise<void> {
    if (this.pendingChange) this.cancelChange();
    if (!this.valid || this.startBlocked() || this.pretraining) return;
    const t = this.dispatch('click-start');
    if (t) await this.drive('start', t.from);
  }

  /** Runs exactly one more update. */
  async step(): Promise<void> {
    if (this.pendingChange) this.cancelChange();
    if (!this.valid || this.startBlocked() || this.pretraining) return;
    const t = this.dispatch('click-step');
    if (t) await this.drive('step', t.from);
  }

  /**
   * Asks the worker to stop at its next safe point (within a second or two); a step or evaluation cut there is
   * discarded and redone by the next Start/Step. A Start or Step still getting the worker ready does not train.
   */
  async pause(): Promise<void> {
    if (!this.dispatch('click-pause')) return;
    this.clearTransientNotice();
    if (this.inFlight && this.trainer) await this.trainer.api.pause().catch((e: unknown) => (this.error = message(e)));
  }

  /**
   * Ends the run, keeping what it has: a running one stops at the worker's next safe point as with Pause (a step cut
   * there is discarded whole), a paused one at once. Its steps, evaluations, trajectories, checkpoints and weights stay
   * (Save weights still works), the Runs view lists it as stopped, and the next Start begins a new run with the same
   * settings. No-op unless `canStop`.
   */
  async stop(): Promise<void> {
    if (this.pretraining || !this.dispatch('click-stop')) return;
    const trainer = this.trainer;
    const seq = this.configureSeq;
    await this.preparing; // a Step still getting the worker ready does not train
    try {
      await trainer?.api.stop();
      if (this.trainer !== trainer || seq !== this.configureSeq) return; // replaced or reset meanwhile
      this.dispatch('worker-done');
      this.progress.ended();
      this.sayPhase(
        `Stopped after step ${this.stepsDone} of ${this.config.steps}: the run is kept (Runs lists it as ` +
          `stopped; its weights can still be saved). Start begins a new run.`,
      );
    } catch (e) {
      if (this.trainer !== trainer || seq !== this.configureSeq) return;
      this.error = `stop: ${message(e)}`;
      this.dispatch('worker-error');
    }
  }

  /** Discards the run (a running one stops at its next safe point) and starts over with the same config. */
  async reset(): Promise<void> {
    if (this.pretraining || !this.dispatch('click-reset')) return;
    await this.configure();
  }

  /** Resolves once no configure and no Start or Step is in flight (a Pause or Reset has taken effect). */
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
   * Makes the worker able to train for a Start or Step that left phase `from`: a worker whose backend never came up
   * (or that crashed) is replaced, a failed run is reconfigured, and so is a finished one. Returns `new` for a fresh
   * run, `kept` for the run as it was, false when it cannot (the error is shown and the phase is `error`).
   */
  private async ready(from: RunPhase): Promise<'kept' | 'new' | false> {
    let fresh = from === 'ready' || from === 'resetting';
    // A configure still in flight (the base policy is being fetched and hashed; a Reset): training before it lands
    // would hit a worker without a config ("configure() must be called before training").
    while (this.pendingConfigure) {
      if (!(await this.pendingConfigure)) return false;
      fresh = true;
    }
    if (!this.trainer || !this.backend) return (await this.spawnWorker(this.config.backend)) && 'new';
    if (from === 'done' || from === 'error') return (await this.configure()) && 'new';
    return fresh ? 'new' : 'kept';
  }

  /** Forgets the current run on the page (a held-back settings change, events, the analyzer notice's dismissal). */
  protected clearRun(): void {
    if (this.pendingChange) this.cancelChange(); // the run it asked about is gone (reset, new weights)
    this.clearEvents();
    this.analyzer.failuresDismissedAt = 0;
  }

  /**
   * Takes an event of the run being trained. Comlink delivers events through the sink's own port, so the last events
   * of a Start or Step (a step's `trajectories`, a deferred evaluation) can arrive after the call's answer settled
   * the phase: they are taken while no configure (Reset, new settings) has discarded that run since. Any other event
   * not legal in the phase (a discarded run's) is dropped.
   */
  private receive(e: TrainEvent): void {
    const late = isSettled(this.machine.phase) && this.settledConfigure === this.configureSeq;
    if (!this.dispatch('worker-step') && !late) return;
    this.takeEvent(e);
    if (e.event === 'interrupted' && this.machine.phase !== 'stopping') {
      this.sayPhase(
        e.phase === 'step'
          ? `Paused: step ${e.step} was cut off at a safe point and discarded whole; Resume or Step ` +
              `redoes it with the same numbers.`
          : `Paused: the evaluation ${e.step === 0 ? 'before training' : `after step ${e.step}`} was cut ` +
              `off and will run again on Resume.`,
      );
    }
  }

  /** Replaces the worker (new backend), then configures it; nothing while a run trains (`boot` is not legal). */
  protected async respawn(pref: BackendPref): Promise<void> {
    if (this.dispatch('boot')) await this.spawnWorker(pref);
  }

  /**
   * Starts a new worker on backend `pref` (the old one is disposed with any run in it) and configures it when the
   * settings are valid. Returns true when it is ready (`worker-ready`), false when it failed (`worker-error`).
   */
  protected async spawnWorker(pref: BackendPref): Promise<boolean> {
    this.trainer?.dispose();
    this.backend = null;
    this.error = null;
    this.clearRun();
    this.onWorkerLost?.();
    const trainer: TrainerHandle = this.spawn((m) => {
      if (this.trainer !== trainer) return;
      // An uncaught error inside the worker: its state is unknown, so the next Start replaces it.
      this.error = m;
      this.backend = null;
      this.dispatch('worker-error');
      this.onWorkerLost?.();
    });
    this.trainer = trainer;
    try {
      const info = await trainer.api.init(pref);
      if (this.trainer !== trainer) return false; // replaced while starting
      this.backend = info;
    } catch (e) {
      if (this.trainer !== trainer) return false;
      this.error = `backend: ${message(e)}`;
      this.dispatch('worker-error');
      return false;
    }
    if (this.valid) return this.configure();
    this.dispatch('worker-ready');
    return true;
  }

  /**
   * Sends the config to the worker, which discards any run. Answers `worker-ready`, or `worker-error` with the error
   * shown; returns which.
   */
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
    const seq = ++this.configureSeq;
    if (!this.trainer) {
      this.error = 'configure: the training worker is not running; press Start to restart it';
      this.dispatch('worker-error');
      return false;
    }
    this.clearRun();
    this.clearNotice();
    this.error = null;
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
      this.dispatch('worker-ready');
      return true;
    } catch (e) {
      if (seq !== this.configureSeq) return false;
      this.error = `configure: ${message(e)}`;
      this.initSource = null;
      this.resumed = false;
      this.dispatch('worker-error');
      return false;
    }
  }

  /**
   * A Start or Step (`kind`) that left phase `from`: makes the worker ready, then (unless a Pause, Stop or Reset came
   * meanwhile) sends the call and turns its answer into the phase. `running` is the notice while it trains (e.g.
   * "Resuming run …"; '' = none); it goes when the call ends unless the run replaced it meanwhile (a Pause's
   * "Paused: …").
   */
  protected async drive(kind: 'start' | 'step', from: RunPhase, running = ''): Promise<void> {
    const p = this.driveNow(kind, from, running, ++this.callSeq);
    this.driving = p;
    try {
      await p;
    } finally {
      if (this.driving === p) this.driving = null;
    }
  }

  private async driveNow(kind: 'start' | 'step', from: RunPhase, running: string, id: number): Promise<void> {
    const prep = this.ready(from);
    this.preparing = prep;
    const ok = await prep;
    if (this.preparing === prep) this.preparing = null;
    if (!ok || id !== this.callSeq) return; // failed (phase error), or a later Start or Step owns the phase
    if (this.machine.phase !== (kind === 'start' ? 'starting' : 'stepping')) {
      // Paused while getting ready: settle where the worker is. Stop and Reset settle the phase themselves.
      if (this.machine.phase === 'pausing') this.dispatch(ok === 'new' ? 'worker-ready' : settleEvent(from));
      return;
    }
    await this.call(kind, running, id);
  }

  /** Sends the start or step call and turns its answer (when still current) into the phase. */
  private async call(kind: 'start' | 'step', running: string, id: number): Promise<void> {
    const trainer = this.trainer!;
    // A configure (Reset, a settings change) while this call runs discards the run: its late answer ("paused" after
    // the cut) must not be taken as the new run's.
    const seq = this.configureSeq;
    const current = () => this.trainer === trainer && seq === this.configureSeq && id === this.callSeq;
    this.dispatch('worker-started');
    this.sayPhase(running);
    this.error = null;
    this.inFlight = true;
    this.progress.begin();
    try {
      const status = await (kind === 'start'
        ? trainer.api.start(this.sink, this.progressSink)
        : trainer.api.stepOnce(this.sink, this.progressSink));
      if (current()) {
        this.settledConfigure = seq;
        this.dispatch(status === 'done' ? 'worker-done' : status === 'error' ? 'worker-error' : 'worker-paused');
      }
    } catch (e) {
      if (current()) {
        this.settledConfigure = seq;
        this.error = `training: ${message(e)}`;
        this.dispatch('worker-error');
      }
    } finally {
      if (id === this.callSeq) {
        this.inFlight = false;
        this.progress.ended();
      }
      if (running && this.notice === running) this.clearNotice();
    }
  }
}
