/**
 * The page's pretraining: behaviour cloning of a fresh policy in the worker, with its progress, pause, resume and
 * abort, and where the weights went (a Svelte 5 reactive class). The main thread only sends the request and shows
 * progress; the worker does every tensor op and stores the weights in IndexedDB.
 */
import * as Comlink from 'comlink';
import {
  PRETRAIN_ITERS_DEFAULT,
  PRETRAIN_ITERS_MAX,
  type PretrainProgress,
  type PretrainRequest,
  type PretrainResult,
} from '../../worker/api';
import { duration, num } from './format';
import type { RunState } from './run.svelte';
import { isBusy } from './run-phase';

/** What the pretraining panel shows: idle (never started), a call in flight, paused, or how the last one ended. */
export type PretrainPhase = 'idle' | 'running' | 'pausing' | 'paused' | 'aborting' | 'done' | 'aborted' | 'error';

/** Message text of an unknown error. */
function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** The problem with an iterations value, as a sentence; '' when fine. */
export function itersIssue(iters: number): string {
  return Number.isInteger(iters) && iters >= 1 && iters <= PRETRAIN_ITERS_MAX
    ? ''
    : `Iterations must be an integer from 1 to ${PRETRAIN_ITERS_MAX}.`;
}

/** The sentence shown when a pretraining has stored its weights. */
export function doneMessage(r: PretrainResult): string {
  const where = r.weights
    ? `Saved as "${r.weights.name}" in this browser (Weights panel); press its "Start from" to train from it.`
    : '';
  return (
    `Pretraining done: ${r.iters} iterations, loss ${num(r.loss)} nats/token, ${duration(r.elapsedMs)}. ` + `${where}`
  ).trim();
}

/** One pretraining at a time, driven through the run's worker. */
export class PretrainState {
  /** Iterations to run (the field; NaN while empty). */
  iters = $state(PRETRAIN_ITERS_DEFAULT);
  phase = $state<PretrainPhase>('idle');
  /** The request in progress or last run (env, preset, model, seed at the time it began). */
  request = $state.raw<PretrainRequest | null>(null);
  /** The latest progress, null before the first. */
  progress = $state.raw<PretrainProgress | null>(null);
  /** Outcome in words (done and where the weights went, paused, aborted, failed); '' when none. */
  message = $state('');

  /** The iterations field's problem, '' when valid. */
  issue = $derived(itersIssue(this.iters));
  /** A pretraining is in the worker (running or paused). */
  active = $derived(
    this.phase === 'running' || this.phase === 'pausing' || this.phase === 'paused' || this.phase === 'aborting',
  );
  /** Pretrain can begin: none active, a valid iteration count and run config, and the worker idle. */
  canStart = $derived.by(() => !this.active && !this.issue && this.run.valid && !this.trainerBusy());
  /** Resume can continue a paused one: the worker is not training. */
  canResume = $derived.by(() => this.phase === 'paused' && !this.trainerBusy());

  /** Bumped when the worker is replaced: results of calls to the old one are ignored. */
  private epoch = 0;
  private readonly sink = Comlink.proxy((p: PretrainProgress) => (this.progress = p));

  /**
   * @param run the page's run (its worker, config and busy flag).
   * @param onSaved called after the weights were stored (to refresh the Weights list).
   */
  constructor(
    private readonly run: RunState,
    private readonly onSaved: () => void,
  ) {
    run.onWorkerLost = () => this.lost();
  }

  /** Begins pretraining a fresh policy for the run's env, preset, model and seed. */
  async start(): Promise<void> {
    const api = this.run.api;
    if (!api || !this.canStart) return;
    const c = this.run.config;
    const req: PretrainRequest = {
      env: c.env,
      preset: c.preset,
      model: c.model,
      seed: c.seed,
      iters: this.iters,
      historyTurns: c.historyTurns,
      maxActionTokens: c.maxActionTokens,
    };
    this.request = req;
    this.progress = null;
    await this.drive(() => api.pretrain(req, this.sink));
  }

  /** Continues a paused pretraining. */
  async resume(): Promise<void> {
    const api = this.run.api;
    if (!api || !this.canResume) return;
    await this.drive(() => api.resumePretrain(this.sink));
  }

  /** Asks the worker to stop after the current iteration. */
  async pause(): Promise<void> {
    if (this.phase !== 'running') return;
    this.phase = 'pausing';
    await this.run.api?.pausePretrain().catch((e: unknown) => (this.message = `Pause failed: ${message(e)}`));
  }

  /** Discards the pretraining (nothing is stored). */
  async abort(): Promise<void> {
    const api = this.run.api;
    if (!api || !this.active || this.phase === 'aborting') return;
    const wasPaused = this.phase === 'paused';
    this.phase = 'aborting';
    try {
      await api.abortPretrain();
    } catch (e) {
      this.phase = 'error';
      this.message = `Abort failed: ${message(e)}`;
      return;
    }
    // A running call resolves `aborted` by itself (see drive); a paused one has no call in flight.
    if (wasPaused) this.ended('aborted');
  }

  private async drive(call: () => Promise<PretrainResult>): Promise<void> {
    const epoch = this.epoch;
    this.phase = 'running';
    this.message = '';
    this.run.pretraining = true;
    try {
      const r = await call();
      if (epoch !== this.epoch) return;
      if (r.status === 'paused') {
        this.phase = 'paused';
        this.message = `Paused after iteration ${r.iters} of ${this.request?.iters ?? '?'}; resume or abort.`;
      } else if (r.status === 'aborted') {
        this.ended('aborted');
      } else {
        this.phase = 'done';
        this.message = doneMessage(r);
        this.onSaved();
      }
    } catch (e) {
      if (epoch !== this.epoch) return;
      this.phase = 'error';
      this.message = `Pretraining failed: ${message(e)}`;
    } finally {
      if (epoch === this.epoch) this.run.pretraining = false;
    }
  }

  private ended(how: 'aborted'): void {
    this.phase = how;
    this.message = 'Pretraining aborted; nothing was stored.';
  }

  /** The worker was replaced or crashed: a pretraining in it is gone. */
  private lost(): void {
    this.epoch++;
    this.run.pretraining = false;
    if (!this.active) return;
    this.phase = 'error';
    this.message =
      'The training worker was replaced (backend change or crash), so the pretraining was lost; press ' +
      'Pretrain to begin again.';
  }

  /** True while the worker trains or starts. */
  private trainerBusy(): boolean {
    return isBusy(this.run.phase) || !this.run.api;
  }
}
