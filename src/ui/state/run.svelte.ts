/**
 * The page's run state: the config being edited, the worker's backend, and the events of the current run
 * (Svelte 5 runes: logic in a reactive class; big arrays in `$state.raw`, replaced whole; summaries
 * `$derived`; methods are verbs). Talks to the worker only through `TrainerApi`; never trains itself.
 */
import * as Comlink from 'comlink';
import {
  ConfigError,
  MODEL_SIZES,
  parseRunConfig,
  type ConfigIssue,
  type RunConfig,
  type RunConfigKey,
} from '../../core/run/config';
import type { EvalEvent, StartEvent, StepEvent, TrainEvent, TrajectoriesEvent } from '../../core/train/events';
import type { BackendInfo, BackendPref, InitSource, TrainerStatus } from '../../worker/api';
import type { PhaseProgress } from '../../core/cancel';
import { PhaseProgressState } from './phase-progress.svelte';
import { decodeHash, encodeHash, fieldsHoldingSecret, type LinkCheckpoint } from './link';
import { AnalyzerState } from './analyzer.svelte';
import { labelOf } from './messages';
import { spawnTrainer, type TrainerHandle } from './trainer-client';

/** What the page is doing: the worker's status, plus `booting` (worker or backend starting). */
export type RunPhase = 'booting' | TrainerStatus;

/** How many recent steps the ms/step average uses. */
const RATE_WINDOW = 10;

/** Message text of an unknown error (Comlink re-creates worker errors as Error with the same message). */
function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Run state for one page. Call `boot()` once after construction. */
export class RunState {
  /** The settings as the controls show them (may be invalid while being edited). */
  draft = $state.raw<RunConfig>(decodeHash('').config);
  /** The last valid config, sent to the worker. */
  config = $state.raw<RunConfig>(decodeHash('').config);
  /** Problems with `draft`, one per field; empty when valid. */
  fieldIssues = $state.raw<ConfigIssue[]>([]);
  /** Fields of the opened link that were ignored, and why. */
  linkIssues = $state.raw<ConfigIssue[]>([]);
  /** Last error from the worker (configure, training, crash), shown as a banner; null when none. */
  error = $state<string | null>(null);
  /** Short status line for screen readers and the copy-link button (e.g. "Link copied"). */
  notice = $state('');

  /** What the worker is doing. */
  phase = $state<RunPhase>('booting');
  /** True between `pause()` and the worker actually stopping. */
  pausing = $state(false);
  /** The worker's backend once chosen; null while starting or after it failed. */
  backend = $state.raw<BackendInfo | null>(null);

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
  /**
   * The field of a valid settings change held back because it would discard a run with unsaved progress (the
   * draft has it; `config` does not). `confirmChange()` applies the draft, `cancelChange()` restores `config`.
   */
  pendingChange = $state.raw<RunConfigKey | null>(null);
  /** Stored checkpoint that new runs start from (sent with every configure; overrides `config.init`); null = none. */
  initWeights = $state<string | null>(null);
  /** Where the configured run's weights come from, as the worker resolved it; null before the first configure. */
  initSource = $state.raw<InitSource | null>(null);
  /** Why the base policy asked for could not be used (the run starts from scratch); null when none or dismissed. */
  baseNotice = $state<string | null>(null);
  /** True while a pretraining runs in the worker (set by PretrainState): training and settings wait for it. */
  pretraining = $state(false);
  /** The stored checkpoint an opened link starts from when this browser does not have it (Import offers it); else null. */
  missingCheckpoint = $state.raw<LinkCheckpoint | null>(null);
  /** Called when the worker is replaced or crashes (work in it, such as a pretraining, is lost). */
  onWorkerLost: (() => void) | null = null;

  /**
   * The analyzer panel (OPID / Skill-GRPO): its API key (page memory only; never in the config, a link, an export, a
   * log or a notice), prompt template, connection test and failure notice. Setting the key rewrites the link without
   * it.
   */
  readonly analyzer = new AnalyzerState(this, () => this.writeHash());

  /** The most recent step's metrics, or null before the first update. */
  lastStep = $derived(this.steps.length ? this.steps[this.steps.length - 1] : null);
  /** Updates completed in this run. */
  stepsDone = $derived(this.lastStep?.step ?? 0);
  /** True once the configured run has built its analyzer (its first update began): a new key or template waits for Reset. */
  runStarted = $derived(this.startInfo !== null || this.phase === 'running' || this.stepsDone > 0);
  /** Mean wall time per update over the last few steps (ms), or null before the first. */
  msPerStep = $derived.by(() => {
    const recent = this.steps.slice(-RATE_WINDOW);
    return recent.length ? recent.reduce((a, s) => a + s.stepMs, 0) / recent.length : null;
  });
  /** Estimated time to finish the remaining steps (ms), or null when unknown. */
  etaMs = $derived(this.msPerStep == null ? null : Math.max(0, this.config.steps - this.stepsDone) * this.msPerStep);
  /** True while the worker trains or pretrains (controls that would change the run are disabled). */
  busy = $derived(this.phase === 'running' || this.phase === 'booting' || this.pretraining);
  /** True when the draft has no problems. */
  valid = $derived(this.fieldIssues.length === 0);
  /** True when the current run has updates that were not saved as weights since. */
  unsaved = $derived(this.stepsDone > this.savedStep);
  /** Progress of the phase in progress (evaluation, rollouts, update): done / total, rate, ETA. */
  readonly progress = new PhaseProgressState();
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
  private readonly sink = Comlink.proxy((e: TrainEvent) => this.receive(e));
  private readonly progressSink = Comlink.proxy((p: PhaseProgress) => {
    if (!this.discarding) this.progress.receive(p);
  });

  /** Reads the link in `location.hash`, starts the worker on the chosen backend and loads the config. */
  async boot(): Promise<void> {
    const { config, issues, checkpoint } = decodeHash(location.hash);
    this.linkIssues = issues;
    this.draft = config;
    this.config = config;
    try {
      parseRunConfig(config);
    } catch (e) {
      // A link can still break a cross-field rule after its bad fields fell back to defaults.
      this.fieldIssues = e instanceof ConfigError ? e.issues : [{ field: '(config)', message: message(e) }];
    }
    await this.respawn(config.backend);
    if (checkpoint) await this.useLinkCheckpoint(checkpoint);
  }

  /** Starts new runs from the link's checkpoint when this browser has it with that sha256; else offers to import it. */
  private async useLinkCheckpoint(c: LinkCheckpoint): Promise<void> {
    const sha = await this.api?.weightsSha256(c.name).catch(() => null);
    if (sha === c.sha256) {
      await this.startFrom(c.name);
      return;
    }
    this.missingCheckpoint = c;
  }

  /**
   * Imports a `.safetensors` file as the link's missing checkpoint; when its sha256 is the link's, new runs start from
   * it. Returns false, with the error shown, otherwise (the file is kept under its name either way once it loads).
   */
  async importLinkCheckpoint(file: File): Promise<boolean> {
    const c = this.missingCheckpoint;
    if (!c || !this.api) return false;
    try {
      const info = await this.api.importWeights(c.name, new Uint8Array(await file.arrayBuffer()));
      if (info.sha256 !== c.sha256) throw new Error(`${file.name} has sha256 ${info.sha256.slice(0, 12)}…, the link's checkpoint "${c.name}" has ${c.sha256.slice(0, 12)}…; it is stored, but this is not the link's run`);
      this.missingCheckpoint = null;
      await this.startFrom(c.name, info.modelSize);
      return true;
    } catch (e) {
      this.error = `import checkpoint: ${message(e)}`;
      return false;
    }
  }

  /** Hides the missing-checkpoint notice (runs start as Start from says). */
  dismissMissingCheckpoint(): void {
    this.missingCheckpoint = null;
  }

  /**
   * Changes one setting. A valid change discards the current run (a new config is a new run); when that run has
   * unsaved updates the change waits in `pendingChange` for `confirmChange()`.
   */
  async setField<K extends RunConfigKey>(key: K, value: RunConfig[K]): Promise<void> {
    this.draft = { ...this.draft, [key]: value };
    if (key.startsWith('analyzer')) this.analyzer.connection = { state: 'idle', text: '' }; // the last test was of other settings
    let next: RunConfig;
    try {
      next = parseRunConfig(this.draft);
    } catch (e) {
      this.fieldIssues = e instanceof ConfigError ? e.issues : [{ field: key, message: message(e) }];
      return;
    }
    this.fieldIssues = [];
    if (encodeHash(next) === encodeHash(this.config)) {
      this.pendingChange = null; // changed back: nothing to ask
      return;
    }
    if (this.unsaved) {
      this.pendingChange = key;
      return;
    }
    await this.apply(next);
  }

  /** Applies the held-back settings change, discarding the run. */
  async confirmChange(): Promise<void> {
    if (!this.pendingChange) return;
    this.pendingChange = null;
    try {
      await this.apply(parseRunConfig(this.draft));
    } catch (e) {
      this.fieldIssues = e instanceof ConfigError ? e.issues : [{ field: '(config)', message: message(e) }];
    }
  }

  /** Drops the held-back settings change: the control shows the run's value again. */
  cancelChange(): void {
    this.pendingChange = null;
    this.draft = this.config;
    this.fieldIssues = [];
  }

  private async apply(next: RunConfig): Promise<void> {
    const backendChanged = next.backend !== this.config.backend;
    this.config = next;
    this.writeHash();
    if (backendChanged) await this.respawn(next.backend);
    else await this.configure();
  }

  /** Issues for one field (for `aria-invalid` and the message under the control). */
  issuesFor(key: RunConfigKey): ConfigIssue[] {
    return this.fieldIssues.filter((i) => i.field === key || i.field.startsWith(`${key}.`));
  }

  /** Starts (or resumes) training; a finished or failed run restarts from scratch. */
  async start(): Promise<void> {
    if (this.pendingChange) this.cancelChange();
    if (this.busy || !this.valid || !(await this.ready(this.phase === 'done'))) return;
    await this.drive((api) => api.start(this.sink, this.progressSink));
  }

  /** Runs exactly one more update. */
  async step(): Promise<void> {
    if (this.pendingChange) this.cancelChange();
    if (this.busy || !this.valid || this.phase === 'done' || !(await this.ready(false))) return;
    await this.drive((api) => api.stepOnce(this.sink, this.progressSink));
  }

  /**
   * Asks the worker to stop at its next safe point (within a second or two); a step or evaluation cut there is
   * discarded and redone by the next Start/Step.
   */
  async pause(): Promise<void> {
    if (this.phase !== 'running' || !this.trainer) return;
    this.pausing = true;
    await this.trainer.api.pause().catch((e: unknown) => (this.error = message(e)));
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

  /**
   * Copies a link that reproduces this run to the clipboard (the hash is kept up to date anyway). The API key is never
   * in it; a field that contains the key is left out, and the notice says so.
   */
  async copyLink(): Promise<void> {
    this.writeHash();
    const left = fieldsHoldingSecret(this.config, [this.analyzer.analyzerKey]).map(labelOf);
    const why = left.length ? ` ${left.join(', ')} left out: it contains the API key.` : '';
    try {
      await navigator.clipboard.writeText(location.href);
      this.notice = `Link copied to the clipboard.${why}`;
    } catch {
      this.notice = `Copy this link: ${location.href}${why}`;
    }
  }

  /**
   * Makes new runs start from stored checkpoint `name` (null = as the Start from setting says: the base policy or
   * scratch) and begins a new run now,
   * discarding the current one (as a settings change does). A checkpoint of another model size switches Model to it.
   */
  async startFrom(name: string | null, modelSize?: string): Promise<void> {
    if (this.busy) return;
    this.initWeights = name;
    const size = MODEL_SIZES.find((m) => m === modelSize);
    if (size && size !== this.config.model && this.valid) {
      this.draft = { ...this.draft, model: size };
      this.config = { ...this.config, model: size };
      this.writeHash();
    }
    if (await this.configure()) {
      this.notice = `New runs start from ${this.initSource?.label ?? (name ? `"${name}"` : 'the Start from setting')}.`;
    }
  }

  /**
   * Continues stored run `id` (Runs view) from its latest checkpoint: its settings become the page's (a run on another
   * backend first gets a worker on that backend), its curves so far are drawn from its record, and training starts.
   * A changed base policy is said in the base notice. Returns false, with the error shown, when it cannot resume.
   */
  async resumeStored(id: string): Promise<boolean> {
    if (this.busy) return false;
    try {
      if (!this.api) throw new Error('the training worker is not running; press Start to restart it');
      let r = await this.api.resumeRun(id);
      if (r.config.backend !== this.config.backend) {
        this.config = r.config;
        await this.respawn(r.config.backend);
        if (!this.api) throw new Error(`the ${r.config.backend} backend did not start`);
        r = await this.api.resumeRun(id);
      }
      this.clearRun();
      this.error = null;
      this.draft = this.config = r.config;
      this.fieldIssues = [];
      this.initWeights = r.init.kind === 'checkpoint' ? this.initWeights : null;
      this.initSource = r.init;
      this.baseNotice = r.baseChanged ?? null;
      this.steps = r.events.filter((e) => e.event === 'step') as unknown as StepEvent[];
      this.evals = r.events.filter((e) => e.event === 'eval') as unknown as EvalEvent[];
      this.phase = 'idle';
      this.writeHash();
      this.notice = `Resuming run "${r.name}" from its checkpoint of step ${r.fromStep}.`;
    } catch (e) {
      this.error = `resume: ${message(e)}`;
      return false;
    }
    void this.drive((api) => api.start(this.sink, this.progressSink));
    return true;
  }

  /** The worker's API, or null while none is up (for the weights, pretraining and analyzer state beside this file). */
  get api(): TrainerHandle['api'] | null {
    return this.trainer && this.backend ? this.trainer.api : null;
  }

  /** Hides the link notice. */
  dismissLinkIssues(): void {
    this.linkIssues = [];
  }

  /** Hides the base-policy fallback notice (until the next configure falls back again). */
  dismissBaseNotice(): void {
    this.baseNotice = null;
  }

  /**
   * Makes the worker able to train: a worker whose backend never came up (or that crashed) is replaced, a failed
   * run is reconfigured, and so is a finished one when `restart`. Returns false (with the error shown) if not.
   */
  private async ready(restart: boolean): Promise<boolean> {
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

  private writeHash(): void {
    const c = this.initWeights && this.initSource?.kind === 'checkpoint' && this.initSource.sha256 ? { name: this.initWeights, sha256: this.initSource.sha256 } : this.missingCheckpoint;
    history.replaceState(null, '', `#${encodeHash(this.config, [this.analyzer.analyzerKey], c)}`);
  }

  private clearRun(): void {
    if (this.pendingChange) this.cancelChange(); // the run it asked about is gone (reset, new weights)
    this.savedStep = 0;
    this.startInfo = null;
    this.steps = [];
    this.evals = [];
    this.group = null;
    this.analyzer.failuresDismissedAt = 0;
    this.progress.ended();
  }

  private receive(e: TrainEvent): void {
    if (this.discarding) return;
    if (e.event === 'step' || e.event === 'eval' || e.event === 'interrupted') this.progress.ended();
    switch (e.event) {
      case 'interrupted':
        this.notice = e.phase === 'step'
          ? `Paused: step ${e.step} was cut off at a safe point and discarded whole; Resume or Step redoes it with the same numbers.`
          : `Paused: the evaluation ${e.step === 0 ? 'before training' : `after step ${e.step}`} was cut off and will run again on Resume.`;
        break;
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
      case 'done':
        break;
    }
  }

  /** Replaces the worker (new backend), then configures it. */
  private async respawn(pref: BackendPref): Promise<void> {
    this.trainer?.dispose();
    this.phase = 'booting';
    this.backend = null;
    this.error = null;
    this.clearRun();
    this.onWorkerLost?.();
    const trainer: TrainerHandle = spawnTrainer((m) => {
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

  /** The configure call in flight, if any (Start/Step wait for it). */
  private pendingConfigure: Promise<boolean> | null = null;

  /** Sends the config to the worker, which discards any run. Returns false (and shows why) on failure. */
  private async configure(): Promise<boolean> {
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
    this.error = null;
    const seq = ++this.configureSeq;
    try {
      const opts = this.initWeights ? { initWeights: this.initWeights } : undefined;
      // The key and template travel apart from the config, before it, so the run's analyzer gets them.
      await this.trainer.api.setAnalyzerExtras(this.analyzer.extras());
      const r = await this.trainer.api.configure($state.snapshot(this.config), opts);
      if (seq !== this.configureSeq) return true; // a later configure is in flight; its answer counts
      this.initSource = r.init;
      if (r.init.kind === 'checkpoint') this.writeHash(); // the link names the checkpoint and its sha256
      this.baseNotice = r.init.fallback ?? r.init.warning ?? null;
      this.phase = 'idle';
      return true;
    } catch (e) {
      if (seq !== this.configureSeq) return false;
      this.error = `configure: ${message(e)}`;
      this.initSource = null;
      this.phase = 'error';
      return false;
    }
  }

  private async drive(call: (api: TrainerHandle['api']) => Promise<TrainerStatus>): Promise<void> {
    const trainer = this.trainer!;
    // A configure (Reset, a settings change) while this call runs discards the run: its late answer ("paused" after
    // the cut) must not overwrite the new run's phase.
    const seq = this.configureSeq;
    this.error = null;
    this.phase = 'running';
    this.progress.begin();
    try {
      const status = await call(trainer.api);
      if (this.trainer === trainer && seq === this.configureSeq) this.phase = status;
    } catch (e) {
      if (this.trainer !== trainer || seq !== this.configureSeq) return;
      this.error = `training: ${message(e)}`;
      this.phase = 'error';
    } finally {
      this.pausing = false;
      this.progress.ended();
    }
  }
}
