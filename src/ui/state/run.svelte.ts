/**
 * The page's run state (Svelte 5 runes: logic in a reactive class; big arrays in `$state.raw`, replaced whole;
 * summaries `$derived`; methods are verbs): the link (`location.hash`) and its checkpoint, settings editing, starting
 * from a stored checkpoint and resuming a stored run, on top of the worker control (run-control.svelte.ts: the phase,
 * Start / Step / Pause / Stop / Reset) and the current run's events (run-events.svelte.ts). Talks to the worker only
 * through `TrainerApi`; never trains itself.
 */
import {
  ConfigError,
  MODEL_SIZES,
  parseRunConfig,
  type ConfigIssue,
  type RunConfig,
  type RunConfigKey,
} from '../../core/run/config';
import type { EvalEvent, StepEvent } from '../../core/train/events';
import { draftIssues, runnableDraft, withField } from './draft-issues';
import { decodeHash, encodeHash, fieldsHoldingSecret, type LinkCheckpoint } from './link';
import { labelOf } from './messages';
import { RunControl, message } from './run-control.svelte';
import { isTraining, settleEvent } from './run-phase';
import type { ResumeResult } from '../../worker/api';
import { runButtonsWhy } from './run-buttons';

export { RunControl, type RunPhase, type SpawnTrainer } from './run-control.svelte';
export { RunEvents } from './run-events.svelte';

/** Run state for one page. Call `boot()` once after construction. */
export class RunState extends RunControl {
  /** Fields of the opened link that were ignored, and why. */
  linkIssues = $state.raw<ConfigIssue[]>([]);
  /**
   * The stored checkpoint an opened link starts from when this browser does not have it (Import offers it); else null.
   */
  missingCheckpoint = $state.raw<LinkCheckpoint | null>(null);
  /**
   * A link opened in this tab (its hash, '#…') while the run trains or has steps a reload would lose: it waits here
   * for `openPendingLink()` or `keepRunOverLink()`, as a settings change waits in `pendingChange`; null when none.
   */
  pendingLink = $state<string | null>(null);
  /** Why Start and Step are disabled, for their titles and the line under the top bar (run-buttons.ts). */
  buttonsWhy = $derived(
    runButtonsWhy({
      phase: this.phase,
      pretraining: this.pretraining,
      issues: this.fieldIssues,
      missingCheckpoint: this.missingCheckpoint?.name ?? null,
    }),
  );

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
      if (info.sha256 !== c.sha256)
        throw new Error(
          `${file.name} has sha256 ${info.sha256.slice(0, 12)}…, ` +
            `the link's checkpoint "${c.name}" has ${c.sha256.slice(0, 12)}…; ` +
            `it is stored, but this is not the link's run`,
        );
      this.missingCheckpoint = null;
      await this.startFrom(c.name, info.modelSize);
      return true;
    } catch (e) {
      this.error = `import checkpoint: ${message(e)}`;
      return false;
    }
  }

  /**
   * The user's explicit choice to train without the link's missing checkpoint: new runs start as Start from says (the
   * base policy or scratch), and the link no longer names the checkpoint. Until this or an import, Start and Step wait.
   */
  dismissMissingCheckpoint(): void {
    this.missingCheckpoint = null;
    this.writeHash();
  }

  /** Start and Step wait while the link's start checkpoint is missing and no other start was chosen. */
  protected override startBlocked(): boolean {
    return this.missingCheckpoint !== null;
  }

  /**
   * The hash changed (a link pasted into this tab). With nothing to lose the page reopens at once (`reload`) so it
   * loads exactly that run; while the run trains or has steps not saved as weights the link waits in `pendingLink`
   * (the run goes on) for `openPendingLink` or `keepRunOverLink`.
   */
  linkChanged(reload: () => void): void {
    if (!isTraining(this.phase) && !this.unsaved && !this.pendingChange) {
      reload();
      return;
    }
    this.pendingLink = location.hash;
  }

  /**
   * Opens the waiting link, discarding the current run: a running one is paused first (its record flushed at the safe
   * point, so Runs can resume it from its latest checkpoint), then the page reopens at the link.
   */
  async openPendingLink(reload: () => void): Promise<void> {
    const hash = this.pendingLink;
    if (hash === null) return;
    await this.pause(); // a run training (or about to) stops at its safe point; otherwise nothing happens
    await this.settled();
    this.pendingLink = null;
    history.replaceState(null, '', hash);
    reload();
  }

  /** Keeps the run and drops the waiting link: the address shows the run's own link again. */
  keepRunOverLink(): void {
    this.pendingLink = null;
    this.writeHash();
  }

  /**
   * Changes one setting. A valid change discards the current run (a new config is a new run); when that run has
   * unsaved updates the change waits in `pendingChange` for `confirmChange()`.
   */
  async setField<K extends RunConfigKey>(key: K, value: RunConfig[K]): Promise<void> {
    this.draft = withField(this.draft, key, value);
    this.clearTransientNotice();
    // the last test was of other settings
    if (key.startsWith('analyzer')) this.analyzer.connection = { state: 'idle', text: '' };
    let next: RunConfig;
    // Recomputed from the current draft every time; an unused bad analyzer URL is left out, not blocking.
    const runnable = runnableDraft(this.draft);
    try {
      next = parseRunConfig(runnable);
    } catch (e) {
      // Each invalid field keeps its own issue (a cross-field one too, while another field is out of range).
      this.fieldIssues =
        e instanceof ConfigError ? draftIssues(runnable, this.config) : [{ field: key, message: message(e) }];
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
      await this.apply(parseRunConfig(runnableDraft(this.draft)));
    } catch (e) {
      this.fieldIssues = e instanceof ConfigError ? e.issues : [{ field: '(config)', message: message(e) }];
    }
  }

  private async apply(next: RunConfig): Promise<void> {
    const backendChanged = next.backend !== this.config.backend;
    if (!this.dispatch(backendChanged ? 'boot' : 'reconfigure')) {
      this.cancelChange(); // a run is training: the settings wait (their controls are disabled meanwhile)
      return;
    }
    this.config = next;
    this.writeHash();
    if (backendChanged) await this.spawnWorker(next.backend);
    else await this.configure();
  }

  /** Issues for one field (for `aria-invalid` and the message under the control). */
  issuesFor(key: RunConfigKey): ConfigIssue[] {
    return this.fieldIssues.filter((i) => i.field === key || i.field.startsWith(`${key}.`));
  }

  /**
   * Copies a link that reproduces this run to the clipboard (the hash is kept up to date anyway). The API key is never
   * in it; a field that contains the key is left out, and the notice says so. While the draft has a field error
   * nothing is copied (the link would hold the last valid settings, not the ones shown): the notice names the
   * fields to fix, e.g. "Not copied: fix Steps first (the link holds the settings the run uses)."
   */
  async copyLink(): Promise<void> {
    if (!this.valid) {
      const labels = this.fieldIssues.map((i) => labelOf(i.field.split('.')[0]));
      const fields = labels.filter((l, n) => labels.indexOf(l) === n);
      this.notice = `Not copied: fix ${fields.join(', ')} first (the link holds the settings the run uses).`;
      return;
    }
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
    if (this.busy || !this.dispatch('reconfigure')) return;
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
    const t = this.dispatch('reconfigure');
    if (!t) return false;
    // What puts the phase back when the resume is refused (the run as it was; a fresh one after a new worker).
    let back = settleEvent(t.from);
    let resuming: string;
    try {
      if (!this.api) throw new Error('the training worker is not running; press Start to restart it');
      let r = await this.api.resumeRun(id);
      if (r.config.backend !== this.config.backend) {
        this.config = r.config;
        await this.respawn(r.config.backend);
        back = 'worker-ready';
        if (!this.api || !this.dispatch('reconfigure'))
          throw new Error(`the ${r.config.backend} backend did not start`);
        r = await this.api.resumeRun(id);
      }
      resuming = this.showResumed(r);
    } catch (e) {
      this.error = `resume: ${message(e)}`;
      if (this.phase === 'resetting') this.dispatch(back);
      return false;
    }
    this.dispatch('worker-ready');
    const s = this.dispatch('click-start');
    if (s) void this.drive('start', s.from, resuming);
    return true;
  }

  /** Shows the resumed stored run `r` as the page's run (settings, curves so far); returns the notice to show. */
  private showResumed(r: ResumeResult): string {
    this.clearRun();
    this.error = null;
    this.draft = this.config = r.config;
    this.fieldIssues = [];
    this.initWeights = r.init.kind === 'checkpoint' ? this.initWeights : null;
    this.initSource = r.init;
    this.resumed = true;
    this.baseNotice = r.baseChanged ?? null;
    this.steps = r.events.filter((e) => e.event === 'step') as unknown as StepEvent[];
    this.evals = r.events.filter((e) => e.event === 'eval') as unknown as EvalEvent[];
    this.writeHash();
    return `Resuming run "${r.name}" from its checkpoint of step ${r.fromStep}.`;
  }

  /** Hides the link notice. */
  dismissLinkIssues(): void {
    this.linkIssues = [];
  }

  /** Writes the link of the current config (without the API key; with the start checkpoint) into `location.hash`. */
  protected writeHash(): void {
    const c =
      this.initWeights && this.initSource?.kind === 'checkpoint' && this.initSource.sha256
        ? { name: this.initWeights, sha256: this.initSource.sha256 }
        : this.missingCheckpoint;
    history.replaceState(null, '', `#${encodeHash(this.config, [this.analyzer.analyzerKey], c)}`);
  }
}
