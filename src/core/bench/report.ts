/**
 * The page's benchmark report: what the Bench view asks the worker for, what comes back per backend, and the
 * copyable one-line text and JSON. The numbers are `runBench`'s (src/core/bench/workloads.ts), the same as
 * `npm run bench` at the same size.
 */
import { z } from 'zod';
import type { BenchResult, PageBenchSize } from './workloads';
import { CONCRETE_BACKENDS } from '../backend/names';

/** Backends the Bench view can measure, in the order it runs them. */
export const BENCH_BACKENDS = CONCRETE_BACKENDS;
/** One of BENCH_BACKENDS. */
export type BenchBackend = (typeof BENCH_BACKENDS)[number];

/** A Bench view request: a size of PAGE_BENCH_SIZES and the backends to run, one after another. */
export const benchRequestSchema = z.strictObject({
  size: z.enum(['quick', 'standard']),
  backends: z.array(z.enum(BENCH_BACKENDS)).min(1, 'choose at least one backend').max(BENCH_BACKENDS.length),
});
/** A validated Bench view request. */
export type BenchRequest = z.infer<typeof benchRequestSchema>;

/** One backend's outcome: its numbers and adapter, or why it could not run. */
export type BenchBackendResult =
  | { backend: BenchBackend; ok: true; adapter: string; result: BenchResult }
  | { backend: BenchBackend; ok: false; reason: string };

/** Progress of a page benchmark: which backend (index of count) and which phase. */
export interface BenchProgress {
  backend: BenchBackend;
  /** 0-based position of `backend` in the request. */
  index: number;
  count: number;
  /** `start`: activating the backend; then runBench's phases. */
  phase: 'start' | 'train' | 'sample' | 'matmul' | 'kv';
}

/** A finished page benchmark. */
export interface BenchReport {
  size: PageBenchSize;
  /** The browser (navigator.userAgent) and its logical cores. */
  userAgent: string;
  cores: number;
  /** When it finished (ms since the epoch). */
  at: number;
  results: BenchBackendResult[];
  /** The backend the worker was on before and is on again after the benchmark. */
  restored: string;
}

/** `1376` for ≥ 100, `12.2` for ≥ 10, else 3 significant digits. */
function num(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  return Math.abs(x) >= 100 ? x.toFixed(0) : Math.abs(x) >= 10 ? x.toFixed(1) : x.toPrecision(3);
}

/**
 * One line per report, e.g. `OPD bench quick (nano, B 4 × T 32): wasm [WebAssembly · SIMD · 2 threads] train 1376
 * tok/s, sample 324 tok/s, matmul 12.2 GFLOP/s; webgl: failed (…)`, with dispatches per step and per sampled token
 * where the backend counted them.
 */
export function benchLine(r: BenchReport): string {
  const first = r.results.find((x) => x.ok);
  const shape = first && first.ok ? ` (${first.result.model}, B ${first.result.batch} × T ${first.result.seq})` : '';
  const parts = r.results.map((x) => {
    if (!x.ok) return `${x.backend}: failed (${x.reason})`;
    const b = x.result;
    const gpu =
      b.dispatchesPerTrainStep !== undefined
        ? `, ${num(b.dispatchesPerTrainStep)} dispatches/step, ${num(b.dispatchesPerSampledToken ?? NaN)} ` +
          `dispatches/token`
        : '';
    return (
      `${x.backend} [${x.adapter}] train ${num(b.trainTokensPerSecond)} tok/s, ` +
      `sample ${num(b.sampleTokensPerSecond)} tok/s, matmul ${num(b.matmulGflops)} GFLOP/s${gpu}`
    );
  });
  return `OPD bench ${r.size}${shape}: ${parts.join('; ')}`;
}

/** The report as one JSON line (every field, the user agent included). */
export function benchJson(r: BenchReport): string {
  return JSON.stringify(r);
}
