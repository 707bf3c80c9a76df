/**
 * Pretraining a base policy inside the worker: the core's `pretrain` (behaviour cloning on expert,
 * noisy-expert and hint-conditioned demonstrations) driven like a training run — pulling the generator trains, so
 * *pause* = stop pulling after the current iteration, *resume* = pull again, *abort* = close it and drop the
 * policy. At the end the weights go to the checkpoint store (IndexedDB in the page) under
 * `pretrained-<model>-<preset>-seed<S>`, so "Start from" can train from them. No tfjs here beyond the policy's
 * lifetime: the core does the tensor work on whatever backend is active.
 */
import { getEnvSpec } from '../core/envs/registry';
import { MODEL_SIZES } from '../core/run/config';
import { Rng } from '../core/rng';
import {
  DEFAULT_PRETRAIN,
  maxActionTokensFor,
  pretrain,
  type PretrainConfig,
  type PretrainEvent,
} from '../core/pretrain/pretrain';
import { buildTokenizer, createPolicy, disposePolicy, savePolicy } from '../core/model/policy';
import type { PolicyHandle } from '../core/model/policy';
import {
  PRETRAIN_ITERS_DEFAULT,
  PRETRAIN_ITERS_MAX,
  type PretrainProgress,
  type PretrainRequest,
  type PretrainResult,
} from './api';
import { checkName, type WeightsStore } from './weights';

/**
 * Pretraining settings in the page: the shipped base policy's (`DEFAULT_PRETRAIN`) with fewer demonstrated tasks
 * (500, not 4000: demos are built in one go on the worker thread) and half the batch (32 samples per iteration:
 * ~0.5 s per iteration for nano on wasm with 2 cores), and PRETRAIN_ITERS_DEFAULT (100) iterations unless the user
 * picks another number.
 */
export const BROWSER_PRETRAIN: PretrainConfig = {
  ...DEFAULT_PRETRAIN,
  tasks: 500,
  batch: 32,
  iters: PRETRAIN_ITERS_DEFAULT,
};

/** The checkpoint name a pretraining stores its weights under. */
export function pretrainedName(req: Pick<PretrainRequest, 'model' | 'preset' | 'seed'>): string {
  return `pretrained-${req.model}-${req.preset}-seed${req.seed}`;
}

/** State between calls: `paused` keeps the generator and policy alive until resumed or aborted. */
export type PretrainStatus = 'idle' | 'running' | 'paused';

/** Receives progress (a Comlink proxy in the worker). */
export type ProgressSink = (p: PretrainProgress) => void;

/** One pretraining in flight (running or paused). */
interface Job {
  req: PretrainRequest & { iters: number };
  policy: PolicyHandle;
  gen: AsyncGenerator<PretrainEvent>;
  last: PretrainProgress;
}

/**
 * Checks a request and fills defaults. @throws Error naming the field and its accepted values.
 */
export function checkPretrainRequest(req: PretrainRequest): PretrainConfig & { env: string; model: string } {
  const spec = getEnvSpec(req.env); // throws naming the known envs
  if (!spec.presets.includes(req.preset))
    throw new Error(`pretrain: preset must be one of ${spec.presets.join(', ')} (got "${req.preset}")`);
  if (!(MODEL_SIZES as readonly string[]).includes(req.model))
    throw new Error(`pretrain: model must be one of ${MODEL_SIZES.join(', ')} (got "${req.model}")`);
  const intIn = (name: string, v: number, lo: number, hi: number) => {
    if (!Number.isInteger(v) || v < lo || v > hi)
      throw new Error(`pretrain: ${name} must be an integer from ${lo} to ${hi} (got ${v})`);
    return v;
  };
  const d = BROWSER_PRETRAIN;
  const lr = req.learningRate ?? d.learningRate;
  if (!(lr > 0 && lr <= 1)) throw new Error(`pretrain: learning rate must be in (0, 1] (got ${lr})`);
  return {
    ...d,
    env: req.env,
    model: req.model,
    preset: req.preset,
    seed: intIn('seed', req.seed, 0, 2 ** 31 - 1),
    iters: intIn('iterations', req.iters, 1, PRETRAIN_ITERS_MAX),
    tasks: intIn('tasks', req.tasks ?? d.tasks, 1, 100_000),
    batch: intIn('batch', req.batch ?? d.batch, 1, 4096),
    learningRate: lr,
    historyTurns: intIn('history turns', req.historyTurns ?? d.historyTurns, 0, 30),
    maxActionTokens: intIn('max action tokens', req.maxActionTokens ?? maxActionTokensFor(getEnvSpec(req.env)), 2, 64),
  };
}

/** At most one pretraining at a time; `busy()` lets the worker refuse training while one runs. */
export class PretrainSession {
  private job: Job | null = null;
  private running = false;
  private pauseRequested = false;
  private abortRequested = false;

  /** @param store where the finished weights go. */
  constructor(private readonly store: WeightsStore) {}

  /** `running` while a call pulls iterations, `paused` while a job waits for resume/abort, else `idle`. */
  get status(): PretrainStatus {
    return this.running ? 'running' : this.job ? 'paused' : 'idle';
  }

  /**
   * Builds a fresh policy (seeded like a run: `Rng(seed).fork('init')`) and pretrains it; see `TrainerApi.pretrain`.
   * @throws Error on a bad request, or while another pretraining runs or is paused.
   */
  async start(req: PretrainRequest, onProgress: ProgressSink): Promise<PretrainResult> {
    if (this.job)
      throw new Error(
        this.running ? 'pretraining is already running' : 'a pretraining is paused; resume or abort it first',
      );
    const c = checkPretrainRequest(req);
    const spec = getEnvSpec(c.env);
    const policy = createPolicy(c.model, buildTokenizer(spec), new Rng(c.seed).fork('init'));
    const { env: _e, model: _m, ...cfg } = c;
    this.job = {
      req: { ...req, iters: c.iters },
      policy,
      gen: pretrain(policy, spec, cfg),
      last: { phase: 'demos', iter: 0, iters: c.iters, loss: NaN, elapsedMs: 0, samples: 0 },
    };
    return this.drive(onProgress);
  }

  /** Continues a paused pretraining. @throws Error when none is paused or one runs. */
  async resume(onProgress: ProgressSink): Promise<PretrainResult> {
    if (this.running) throw new Error('pretraining is already running');
    if (!this.job) throw new Error('no pretraining is paused; press Pretrain to begin one');
    return this.drive(onProgress);
  }

  /** Stop after the current iteration (the running call resolves `paused`); no-op when not running. */
  pause(): void {
    if (this.running) this.pauseRequested = true;
  }

  /**
   * Discard the pretraining: a running one stops after its current iteration (its call resolves `aborted`), a
   * paused one is released now. Nothing is stored.
   */
  async abort(): Promise<void> {
    if (this.running) this.abortRequested = true;
    else if (this.job) await this.release();
  }

  private async drive(onProgress: ProgressSink): Promise<PretrainResult> {
    const job = this.job!;
    this.running = true;
    this.pauseRequested = this.abortRequested = false;
    try {
      for (;;) {
        if (this.abortRequested) {
          await this.release();
          return this.result('aborted', job);
        }
        if (this.pauseRequested) return this.result('paused', job);
        const r = await job.gen.next();
        if (r.done) break;
        const e = r.value;
        if (e.event === 'demos') job.last = { ...job.last, phase: 'demos', samples: e.samples, elapsedMs: e.ms };
        else if (e.event === 'iter')
          job.last = { ...job.last, phase: 'iter', iter: e.iter, loss: e.loss, elapsedMs: e.elapsedMs };
        else job.last = { ...job.last, phase: 'done', iter: e.iters, loss: e.loss, elapsedMs: e.elapsedMs };
        onProgress(job.last);
        if (e.event === 'done') break;
        // A macrotask before checking the flags, so a pause/abort message sent meanwhile is read first (on wasm and
        // cpu every await resolves as a microtask and the worker would not read its queue otherwise).
        await new Promise((r) => setTimeout(r, 0));
      }
      const weights = await this.save(job);
      await this.release();
      return { ...this.result('done', job), weights };
    } catch (e) {
      await this.release();
      throw e;
    } finally {
      this.running = false;
      this.pauseRequested = this.abortRequested = false;
    }
  }

  /** Serialises the policy with its provenance and stores it. */
  private async save(job: Job) {
    const spec = getEnvSpec(job.req.env);
    const name = checkName(pretrainedName(job.req));
    const bytes = await savePolicy(
      job.policy,
      job.req.model,
      { [spec.name]: spec.version },
      {
        env: spec.name,
        preset: job.req.preset,
        seed: String(job.req.seed),
        step: '0',
        pretrainIters: String(job.last.iter),
        pretrainLoss: String(job.last.loss),
        savedBy: 'opd-playground page (pretrain)',
      },
    );
    const savedAt = Date.now();
    await this.store.put({ name, bytes, modelSize: job.req.model, savedAt });
    return { name, modelSize: job.req.model, savedAt };
  }

  /** Closes the generator (its `finally` disposes the optimiser) and disposes the policy. */
  private async release(): Promise<void> {
    const job = this.job;
    this.job = null;
    if (!job) return;
    await job.gen.return(undefined).catch(() => undefined);
    disposePolicy(job.policy);
  }

  private result(status: PretrainResult['status'], job: Job): PretrainResult {
    return { status, iters: job.last.iter, loss: job.last.loss, elapsedMs: job.last.elapsedMs };
  }
}
