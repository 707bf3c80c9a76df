/**
 * Evaluation on the machine's other cores: a pool of worker threads (cli/eval-worker.ts), each with its own tfjs
 * backend, that play evaluation jobs (src/core/rollout/eval-job.ts). tfjs' multi-threaded wasm does not run in Node,
 * so a training run uses one core; the pool puts evaluations on the others. A job's numbers equal those of
 * `runEvalJob` in this thread on the same backend (test/cli/eval-pool.test.ts): the weights travel as float32 bytes and
 * each job carries its own random stream.
 *
 * Workers start on first use and run TypeScript through tsx's loader, registered in each thread. They keep the process
 * alive only while they hold a job; `close()` ends them.
 */
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { z } from 'zod';
import type { EvalJob, EvalJobResult, Evaluator } from '../src/core/rollout/eval-job';
import type { NodeBackend } from './backend';

/**
 * Default number of evaluation threads: 2 when the machine has at least 2 cores (one per split of the trainer's
 * evaluation, test-seen and test-unseen), else 0 (evaluate in the training thread).
 */
export function defaultEvalThreads(): number {
  return (os.availableParallelism?.() ?? os.cpus().length) >= 2 ? 2 : 0;
}

/**
 * The least evaluation work, in episode-turns per split (episodes × the preset's max turns per episode), for which
 * `eval` starts worker threads by default. Starting a worker (tsx's loader, the wasm backend, the weights) costs ~3 s
 * of a core; below this a split's evaluation saves less than that by running beside the others:
 * `eval --policy base --split test-seen,test-unseen --episodes 60` (easy: 60 × 10 = 600 per split) took 7.4 s in one
 * thread and 8.0 s in two (docs/experiments/speed.md).
 */
export const EVAL_THREADS_MIN_WORK = 1000;

/**
 * Default evaluation threads of `eval` for `splits` splits of `episodes` episodes of at most `maxTurns` turns each:
 * `defaultEvalThreads()` when there are at least 2 splits and episodes × maxTurns ≥ EVAL_THREADS_MIN_WORK, else 0
 * (all in the calling thread).
 */
export function evalThreadsFor(
  splits: number,
  episodes: number,
  maxTurns: number,
  available = defaultEvalThreads(),
): number {
  return splits >= 2 && episodes * maxTurns >= EVAL_THREADS_MIN_WORK ? available : 0;
}

/** The means of an env's metrics (rollout/evaluate.ts `MetricMeans`), or an episode's metrics; optional. */
const METRICS = z.record(z.string(), z.number()).optional();
/** A worker's reply, checked before use. */
const SPLIT_EVAL = z.object({
  successRate: z.number(),
  episodes: z.number(),
  byTaskType: z.record(z.string(), z.object({ successRate: z.number(), episodes: z.number(), metrics: METRICS })),
  metrics: METRICS,
});
const REPLY = z.union([
  z.object({
    id: z.number().int(),
    ok: z.literal(true),
    result: z.object({
      eval: SPLIT_EVAL,
      tokens: z.number(),
      episodes: z.array(
        z.object({
          index: z.number(),
          taskType: z.string(),
          success: z.boolean(),
          reward: z.number(),
          steps: z.number(),
          metrics: METRICS,
        }),
      ),
    }),
  }),
  z.object({ id: z.number().int(), ok: z.literal(false), error: z.string() }),
]);

/** A job waiting for or held by a worker. */
interface Pending {
  id: number;
  job: EvalJob;
  weights: Uint8Array;
  resolve: (r: EvalJobResult) => void;
  reject: (e: Error) => void;
}

/** One worker thread and the job it holds. */
interface Slot {
  worker: Worker;
  busy: Pending | null;
}

/**
 * The worker's entry: it registers tsx's ESM loader in the new thread (a thread does not inherit the parent's, and
 * Node 20 ignores `--import` in a worker's execArgv for its entry), then imports cli/eval-worker.ts.
 */
function workerBootstrap(): string {
  // The ESM build of tsx's API (package.json exports `./esm/api` → import → dist/esm/api/index.mjs).
  const tsx = pathToFileURL(
    path.join(path.dirname(createRequire(import.meta.url).resolve('tsx/package.json')), 'dist/esm/api/index.mjs'),
  ).href;
  const entry = new URL('./eval-worker.ts', import.meta.url).href;
  return `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); });`;
}

/** A pool of evaluation worker threads. */
export class EvalPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Pending[] = [];
  private nextId = 0;
  private closed = false;

  /**
   * @param threads worker threads (≥ 1).
   * @param backend the tfjs backend every worker starts (the training run's, so the numbers agree).
   * @throws Error when threads is not a positive integer.
   */
  constructor(
    private readonly threads: number,
    private readonly backend: NodeBackend,
  ) {
    if (!Number.isInteger(threads) || threads < 1)
      throw new Error(`EvalPool: threads must be a positive integer, got ${threads}`);
  }

  /** The pool as the trainer's `Evaluator` (TrainOptions.evaluator): queues the job, resolves with its result. */
  readonly evaluate: Evaluator = (job, weights) => {
    if (this.closed) return Promise.reject(new Error('EvalPool: the pool is closed'));
    return new Promise<EvalJobResult>((resolve, reject) => {
      this.queue.push({ id: this.nextId++, job, weights, resolve, reject });
      this.pump();
    });
  };

  /** Ends every worker; jobs still queued or running are rejected. */
  async close(): Promise<void> {
    this.closed = true;
    for (const p of this.queue.splice(0)) p.reject(new Error('EvalPool: closed before the job ran'));
    await Promise.all(
      this.slots.splice(0).map(async (s) => {
        s.busy?.reject(new Error('EvalPool: closed while the job ran'));
        await s.worker.terminate();
      }),
    );
  }

  /** Hands queued jobs to idle workers, starting workers up to `threads`. */
  private pump(): void {
    while (this.queue.length) {
      let slot = this.slots.find((s) => !s.busy);
      if (!slot && this.slots.length < this.threads) slot = this.start();
      if (!slot) return;
      const p = this.queue.shift()!;
      slot.busy = p;
      slot.worker.ref();
      // The bytes are copied (not transferred): the caller may hand the same weights to several jobs.
      slot.worker.postMessage({ id: p.id, job: p.job, weights: p.weights });
    }
  }

  /** Starts one worker thread and wires its replies. */
  private start(): Slot {
    const worker = new Worker(workerBootstrap(), { eval: true, workerData: { backend: this.backend } });
    const slot: Slot = { worker, busy: null };
    worker.unref();
    worker.on('message', (msg: unknown) => {
      const r = REPLY.safeParse(msg);
      const p = slot.busy;
      slot.busy = null;
      worker.unref();
      if (!p) return;
      if (!r.success) p.reject(new Error(`eval worker: malformed reply (${r.error.issues[0]?.message})`));
      else if (r.data.id !== p.id) p.reject(new Error(`eval worker: reply for job ${r.data.id}, expected ${p.id}`));
      else if (r.data.ok) p.resolve(r.data.result);
      else p.reject(new Error(r.data.error));
      this.pump();
    });
    const died = (e: Error) => {
      const i = this.slots.indexOf(slot);
      if (i >= 0) this.slots.splice(i, 1);
      slot.busy?.reject(new Error(`eval worker stopped: ${e.message}`));
      slot.busy = null;
      if (!this.closed) this.pump();
    };
    worker.on('error', died);
    worker.on('exit', (code) => died(new Error(`exit code ${code}`)));
    this.slots.push(slot);
    return slot;
  }
}
