/**
 * The page's Bench view, worker side: runs `runBench` (src/core/bench/workloads.ts, the workloads of `npm run
 * bench`) on each requested backend, one after another, then switches back to the backend the worker was on, so a
 * configured or paused run continues where it was. Refused while training or pretraining runs; while it runs,
 * training calls are refused (`benchRunning`).
 */
import * as tf from '@tensorflow/tfjs-core';
import {
  benchRequestSchema,
  type BenchBackendResult,
  type BenchProgress,
  type BenchReport,
} from '../core/bench/report';
import { PAGE_BENCH_SIZES, runBench } from '../core/bench/workloads';
import { tryBackend } from './backend';

let running = false;

/** True while a page benchmark runs (training, stepping and pretraining must wait). */
export function benchRunning(): boolean {
  return running;
}

/** Switches tf back to `previous` when the benchmark left another backend on; throws when it cannot. */
async function restoreBackend(previous: string): Promise<void> {
  if (previous && tf.getBackend() !== previous && !(await tf.setBackend(previous)))
    throw new Error(`could not switch back to the ${previous} backend`);
}

/**
 * Runs the benchmark.
 * @param request `{size: 'quick' | 'standard', backends: [...]}` (validated here).
 * @param busy why the worker cannot benchmark now (a run or a pretraining in progress), or null.
 * @param onProgress called before each backend and each phase.
 * @returns every backend's numbers and adapter, or why it could not run; the worker is back on its previous backend.
 * @throws Error naming the field on a bad request, saying why when busy or when a benchmark already runs, or when
 *   the previous backend cannot be restored.
 */
export async function runPageBench(
  request: unknown,
  busy: string | null,
  onProgress: (p: BenchProgress) => void,
): Promise<BenchReport> {
  const parsed = benchRequestSchema.safeParse(request);
  if (!parsed.success) {
    const i = parsed.error.issues[0];
    throw new Error(`bench request: ${i.path.join('.') || 'request'}: ${i.message}`);
  }
  if (running) throw new Error('a benchmark is already running');
  if (busy) throw new Error(`cannot benchmark now: ${busy}`);
  const { size, backends } = parsed.data;
  const previous = tf.getBackend();
  const results: BenchBackendResult[] = [];
  running = true;
  try {
    for (const [index, backend] of backends.entries()) {
      onProgress({ backend, index, count: backends.length, phase: 'start' });
      const attempt = await tryBackend(backend);
      if (!attempt.ok) {
        results.push({ backend, ok: false, reason: attempt.reason });
        continue;
      }
      try {
        const result = await runBench(PAGE_BENCH_SIZES[size], (phase) =>
          onProgress({ backend, index, count: backends.length, phase }),
        );
        results.push({ backend, ok: true, adapter: attempt.adapter, result });
      } catch (e) {
        results.push({ backend, ok: false, reason: e instanceof Error ? e.message : String(e) });
      }
    }
  } finally {
    // A backend that cannot be restored is the error reported, even over one the benchmark threw.
    try {
      await restoreBackend(previous);
    } finally {
      running = false;
    }
  }
  const nav = (globalThis as { navigator?: { userAgent?: string; hardwareConcurrency?: number } }).navigator;
  return {
    size,
    userAgent: nav?.userAgent ?? '',
    cores: nav?.hardwareConcurrency ?? 1,
    at: Date.now(),
    results,
    restored: tf.getBackend(),
  };
}
