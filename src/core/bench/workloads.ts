/**
 * The backend-agnostic benchmark workloads shared by `npm run bench` (cli/bench.ts) and the page's Bench view
 * (src/worker/bench.ts): a training step on random tokens, KV-cached sampling, a float32 matmul and the KV-cache
 * speed-up. Each runs on whatever tfjs backend is active; the caller chooses it. Results are plain typed objects
 * (`BenchResult`) so a backend's own counters (dispatches, read-backs, GPU bytes) can be added as optional fields.
 *
 * Speed is measured here and reported by the bench, never asserted in tests.
 */
import * as tf from '../tf';
import { Rng } from '../rng';
import { modelConfig, type ModelConfig, type ModelSize } from '../model/config';
import { countParams, initValues, makeVariables, type Params } from '../model/params';
import { forward, logits } from '../model/transformer';
import { sampleResponses } from '../model/sample';
import { freeMaskRow } from '../model/scoring';
import { activeWebGpuBackend, gpuMemory, installGpuStats, type GpuStats } from '../backend/gpu-stats';
import { applyAdam } from '../optim/adam';
import { summarizeRates, type RateRepeats } from './repeats';
import { now } from '../clock';

/** The size of one benchmark: model, batch and sequence of the training step, and the work of each phase. */
export interface BenchSize {
  /** Named model size (src/core/model/config.ts). */
  model: ModelSize;
  /** Sequence length T of the training step (tokens per row). */
  seq: number;
  /** Batch size B (rows of the training step and of the sampling). */
  batch: number;
  /** Vocabulary size V (1024 matches the PyTorch peer, scripts/peer_torch.py). */
  vocab: number;
  /** Timed training steps. */
  steps: number;
  /** Untimed warm-up training steps before them. */
  warmup: number;
  /** Tokens generated per row in the sampling benchmark (after a 16-token prompt). */
  newTokens: number;
  /** Side n of the n×n by n×n float32 matmul (512 in the CLI). */
  matmulN: number;
  /** Matmuls per timed repeat (after 2 untimed ones). */
  matmulReps: number;
  /** Timed repeats of `matmulReps` matmuls each; `matmulGflops` is the best of them (default MATMUL_REPEATS). */
  matmulRepeats?: number;
  /** Also time KV-cached sampling against recomputing the prefix at 128 tokens of context (`kvCacheSpeedup`). */
  kvCache: boolean;
}

/** `npm run bench`'s defaults: the `small` model (a PyTorch peer's default), B 32 × T 128, V 1024. */
export const CLI_BENCH_SIZE: BenchSize = {
  model: 'small',
  seq: 128,
  batch: 32,
  vocab: 1024,
  steps: 10,
  warmup: 2,
  newTokens: 32,
  matmulN: 512,
  matmulReps: 10,
  kvCache: true,
};

/**
 * Bench sizes offered by the page: `quick` (seconds on wasm, also usable on a software WebGPU adapter), and
 * `standard` (the CLI's size without the KV-cache comparison, a minute or more on wasm).
 */
export const PAGE_BENCH_SIZES = {
  quick: {
    model: 'nano',
    seq: 32,
    batch: 4,
    vocab: 1024,
    steps: 3,
    warmup: 1,
    newTokens: 8,
    matmulN: 128,
    matmulReps: 4,
    kvCache: false,
  },
  standard: { ...CLI_BENCH_SIZE, kvCache: false },
} as const satisfies Record<string, BenchSize>;
/** Name of a page bench size. */
export type PageBenchSize = keyof typeof PAGE_BENCH_SIZES;

/** Phases of `runBench`, in order, for progress reports. */
export type BenchPhase = 'train' | 'sample' | 'matmul' | 'kv';

/**
 * One benchmark's numbers on one backend. Rates are per second of wall time on the calling thread (read-back
 * included), so they are what a training run sees.
 */
export interface BenchResult {
  /** The tfjs backend measured (tf.getBackend()). */
  backend: string;
  model: ModelSize;
  /** Trainable parameters of the model (embeddings included). */
  params: number;
  /** T, B, V of the training step. */
  seq: number;
  batch: number;
  vocab: number;
  /** Mean wall time of one training step: forward + backward + Adam (ms). */
  trainStepMs: number;
  /** B·T / step time (tokens/s). */
  trainTokensPerSecond: number;
  /** KV-cached generation: B · newTokens / wall time (tokens/s). */
  sampleTokensPerSecond: number;
  /**
   * The backend's own float32 matmul speed (GFLOP/s, 2n³ per matmul): the best of `matmulGflopsRuns` (the least
   * disturbed repeat; src/core/bench/repeats.ts).
   */
  matmulGflops: number;
  /** The median of `matmulGflopsRuns` (GFLOP/s). */
  matmulGflopsMedian: number;
  /** Each timed repeat's matmul speed (GFLOP/s), in the order measured. */
  matmulGflopsRuns: number[];
  /** Training FLOPs ≈ 6 · params · tokens per second (GFLOP/s). */
  trainGflops: number;
  /** trainGflops / matmulGflops: training's share of the best matmul repeat. */
  trainShareOfMatmul: number;
  /** KV-cached sampling against recomputing the prefix (×, at 128 tokens of context); present when asked. */
  kvCacheSpeedup?: number;
  /**
   * Compute-shader dispatches per training step (WebGPU: mean over the timed steps; counted as in
   * src/core/backend/gpu-stats.ts), when a counter is installed.
   */
  dispatchesPerTrainStep?: number;
  /** GPU → CPU read-backs per training step (WebGPU, mean over the timed steps), when a counter is installed. */
  readbacksPerTrainStep?: number;
  /** CPU → GPU uploads of tensor values per training step (WebGPU, mean over the timed steps). */
  uploadsPerTrainStep?: number;
  /**
   * Dispatches per sampled token position of the timed sampling run (WebGPU): its dispatches, prefill included,
   * divided by newTokens. One position is a token for each of the B rows: the rows share every dispatch.
   */
  dispatchesPerSampledToken?: number;
  /** GPU → CPU read-backs per sampled token position (WebGPU; as dispatchesPerSampledToken). */
  readbacksPerSampledToken?: number;
  /** CPU → GPU uploads per sampled token position (WebGPU; as dispatchesPerSampledToken). */
  uploadsPerSampledToken?: number;
  /** GPU memory in use after the benchmark, the model freed (bytes; WebGPU buffer manager's numBytesUsed). */
  gpuBytes?: number;
  /** GPU memory the buffer manager holds after the benchmark: in use plus its pool of freed buffers (bytes). */
  gpuBytesAllocated?: number;
}

/** A benchmark model with its random training batch; `disposeBenchModel` frees it. */
export interface BenchModel {
  cfg: ModelConfig;
  p: Params;
  opt: tf.AdamOptimizer;
  /** Token ids [B, T] int32, targets [B·T] one-hot float32 [B·T, V], positions [B, T] int32. */
  ids: tf.Tensor2D;
  oneHot: tf.Tensor2D;
  pos: tf.Tensor2D;
  size: BenchSize;
  /** The generator every draw of the bench goes through (seeded 0). */
  rng: Rng;
}

/**
 * Checks a size's fields (positive integers, a known model, newTokens fitting the context).
 * @throws Error naming the field and the accepted range.
 */
export function checkBenchSize(s: BenchSize): void {
  const ints: [keyof BenchSize, number, number][] = [
    ['seq', 2, 512],
    ['batch', 1, 1024],
    ['vocab', 32, 65536],
    ['steps', 1, 1000],
    ['warmup', 0, 100],
    ['newTokens', 1, 256],
    ['matmulN', 1, 4096],
    ['matmulReps', 1, 1000],
    ['matmulRepeats', 1, 100],
  ];
  for (const [k, lo, hi] of ints) {
    const v = k === 'matmulRepeats' ? (s[k] ?? MATMUL_REPEATS) : s[k];
    if (typeof v !== 'number' || !Number.isInteger(v) || v < lo || v > hi)
      throw new Error(`bench: ${k} must be an integer from ${lo} to ${hi}, got ${String(v)}`);
  }
  modelConfig(s.model, s.vocab); // throws on an unknown model
}

/**
 * Makes the benchmark model (fresh weights from Rng(0)), an Adam optimiser (lr 1e-3) and a random batch: ids and
 * targets uniform over V. maxSeq is raised to T when T is longer than the size's default.
 */
export function makeBenchModel(size: BenchSize): BenchModel {
  checkBenchSize(size);
  const base = modelConfig(size.model, size.vocab);
  const cfg = { ...base, maxSeq: Math.max(base.maxSeq, size.seq) };
  const rng = new Rng(0);
  const p = makeVariables(cfg, initValues(cfg, rng));
  const B = size.batch,
    T = size.seq,
    V = size.vocab;
  const ids = tf.tensor2d(
    Int32Array.from({ length: B * T }, () => rng.int(V)),
    [B, T],
    'int32',
  );
  // float32 once here: an int32 one-hot would be cast to float32 by every step's Multiply and its gradient (4 Casts of
  // [B·T, V] per step), the same 0/1 values each time.
  const oneHot = tf.tidy(() =>
    tf.cast(
      tf.oneHot(
        tf.tensor1d(
          Int32Array.from({ length: B * T }, () => rng.int(V)),
          'int32',
        ),
        V,
      ),
      'float32',
    ),
  ) as tf.Tensor2D;
  const pos = tf.tensor2d(
    Int32Array.from({ length: B * T }, (_, i) => i % T),
    [B, T],
    'int32',
  );
  return { cfg, p, opt: tf.train.adam(1e-3), ids, oneHot, pos, size, rng };
}

/** Frees the model's variables, the optimiser's state and the batch. */
export function disposeBenchModel(m: BenchModel): void {
  m.opt.dispose();
  tf.dispose([m.ids, m.oneHot, m.pos, ...Object.values(m.p)]);
}

/**
 * The bench step's loss and gradients: next-token cross-entropy (nats, mean over B·T positions) of the model's random
 * targets, and its gradient for every parameter (same shapes, float32). The caller disposes both.
 */
export function lossAndGrads(m: BenchModel): { value: tf.Scalar; grads: tf.NamedTensorMap } {
  const B = m.size.batch,
    T = m.size.seq;
  return tf.variableGrads(
    () => {
      const { hidden } = forward(m.p, m.cfg, m.ids, m.pos);
      const lsm = tf.logSoftmax(logits(m.p, tf.reshape(hidden, [B * T, -1]) as tf.Tensor2D));
      return tf.neg(tf.mean(tf.sum(tf.mul(lsm, m.oneHot), 1))) as tf.Scalar;
    },
    Object.values(m.p) as tf.Variable[],
  );
}

/**
 * One training step: `lossAndGrads` and an Adam update; resolves after the loss has been read back.
 */
export async function trainStep(m: BenchModel): Promise<void> {
  const { value, grads } = lossAndGrads(m);
  applyAdam(m.opt, grads); // the trainers' Adam step: fused on webgpu and wasm, tfjs' applyGradients elsewhere
  await value.data();
  tf.dispose([value, ...Object.values(grads)]);
}

/**
 * Mean wall time (ms) of `size.steps` training steps after `size.warmup` untimed ones; `onTimed` runs before the timed
 * ones.
 */
export async function timeTraining(m: BenchModel, onTimed?: () => void): Promise<number> {
  for (let i = 0; i < m.size.warmup; i++) await trainStep(m);
  onTimed?.();
  const t = now();
  for (let i = 0; i < m.size.steps; i++) await trainStep(m);
  return (now() - t) / m.size.steps;
}

/**
 * The sampling workload: B random 16-token prompts, free decoding without <eos>; returns a runner and the tokens it
 * makes.
 */
export function samplingWorkload(m: BenchModel): { run: () => Promise<unknown>; tokens: number } {
  const V = m.size.vocab,
    B = m.size.batch;
  const free = freeMaskRow(V, 0, -1);
  const prompts = Array.from({ length: B }, () => Array.from({ length: 16 }, () => m.rng.int(V)));
  const nNew = Math.min(m.size.newTokens, m.cfg.maxSeq - 16);
  const run = () =>
    sampleResponses(m.p, m.cfg, prompts, {
      temperature: 1,
      maxTokens: nNew,
      eos: -1,
      freeRow: free,
      rng: m.rng,
      allowed: () => null,
    });
  return { run, tokens: B * nNew };
}

/**
 * KV-cached sampling speed (tokens/s): one untimed run of `samplingWorkload`, then one timed; `onTimed` runs before it.
 */
export async function timeSampling(m: BenchModel, onTimed?: () => void): Promise<number> {
  const w = samplingWorkload(m);
  await w.run();
  onTimed?.();
  const t = now();
  await w.run();
  return w.tokens / ((now() - t) / 1000);
}

/** Timed repeats of the matmul when a size does not say (`BenchSize.matmulRepeats`). */
export const MATMUL_REPEATS = 5;

/**
 * The active backend's float32 matmul speed (GFLOP/s): after 2 untimed n×n by n×n products (2n³ FLOPs each),
 * `repeats` timed repeats of `reps` products each (every product read back); the best repeat, the median and every
 * repeat's speed (`summarizeRates`). Inputs are standard normal from `rng`.
 */
export async function matmulGflops(rng: Rng, n = 512, reps = 10, repeats = MATMUL_REPEATS): Promise<RateRepeats> {
  const draw = () =>
    tf.tensor2d(
      Float32Array.from({ length: n * n }, () => rng.normal()),
      [n, n],
    );
  const a = draw(),
    b = draw();
  const once = async () => {
    const c = tf.matMul(a, b);
    await c.data();
    c.dispose();
  };
  try {
    for (let i = 0; i < 2; i++) await once();
    const runs: number[] = [];
    for (let r = 0; r < repeats; r++) {
      const t = now();
      for (let i = 0; i < reps; i++) await once();
      runs.push((2 * n ** 3 * reps) / ((now() - t) / 1000) / 1e9);
    }
    return summarizeRates(runs);
  } finally {
    tf.dispose([a, b]);
  }
}

/**
 * KV-cached sampling against recomputing the prefix: `n` new tokens for B rows after a 128-token context, (a) with
 * the cache (model/sample.ts) and (b) by a full forward pass over the whole prefix for every new token. Returns b/a
 * (×), or NaN when 128 + n exceeds the model's maxSeq.
 */
export async function kvCacheSpeedup(m: BenchModel, n = 8): Promise<number> {
  const ctx = 128,
    B = m.size.batch,
    V = m.size.vocab,
    { p, cfg, rng } = m;
  if (ctx + n > cfg.maxSeq) return NaN;
  const prompts = Array.from({ length: B }, () => Array.from({ length: ctx }, () => rng.int(V)));
  const free = freeMaskRow(V, 0, -1);
  const cached = () =>
    sampleResponses(p, cfg, prompts, {
      temperature: 1,
      maxTokens: n,
      eos: -1,
      freeRow: free,
      rng,
      allowed: () => null,
    });
  await cached();
  let t = now();
  await cached();
  const withCache = now() - t;
  const recompute = async () => {
    const rows = prompts.map((x) => [...x]);
    for (let k = 0; k < n; k++) {
      const T = ctx + k;
      const lg = tf.tidy(() => {
        const ids = tf.tensor2d(rows.flat(), [B, T], 'int32');
        const pos = tf.tensor2d(
          Int32Array.from({ length: B * T }, (_, i) => i % T),
          [B, T],
          'int32',
        );
        const { hidden } = forward(p, cfg, ids, pos);
        return logits(p, tf.reshape(tf.slice(hidden, [0, T - 1, 0], [B, 1, -1]), [B, -1]) as tf.Tensor2D);
      });
      const v = await lg.data();
      lg.dispose();
      rows.forEach((r, i) => r.push(v[i * V] > v[i * V + 1] ? 0 : 1)); // any token: the cost is the same
    }
  };
  await recompute();
  t = now();
  await recompute();
  return (now() - t) / withCache;
}

/**
 * Runs the whole benchmark on the active backend: training, sampling, matmul and (when `size.kvCache`) the KV-cache
 * speed-up, in that order, calling `onPhase` before each. Frees everything it made, also on error.
 * @throws Error on a bad size (naming the field) or when the backend fails.
 */
export async function runBench(size: BenchSize, onPhase?: (phase: BenchPhase) => void): Promise<BenchResult> {
  const m = makeBenchModel(size);
  const stats: GpuStats | null = installGpuStats(); // null unless the backend is webgpu
  let r: BenchResult;
  try {
    const B = size.batch,
      T = size.seq;
    onPhase?.('train');
    const trainMs = await timeTraining(m, () => stats?.reset());
    const train = stats?.counters();
    onPhase?.('sample');
    const sampleTokensPerSecond = await timeSampling(m, () => stats?.reset());
    const sample = stats?.counters();
    onPhase?.('matmul');
    const mm = await matmulGflops(m.rng, size.matmulN, size.matmulReps, size.matmulRepeats ?? MATMUL_REPEATS);
    const gflops = mm.best;
    let kv: number | undefined;
    if (size.kvCache) {
      onPhase?.('kv');
      kv = await kvCacheSpeedup(m);
    }
    const params = countParams(m.cfg);
    // Training FLOPs ≈ 6 · params · tokens (forward 2, backward 4 per parameter and token).
    const trainGflops = (6 * params * B * T) / (trainMs / 1000) / 1e9;
    const nNew = Math.min(size.newTokens, m.cfg.maxSeq - 16); // as samplingWorkload
    const gpu =
      train && sample
        ? {
            dispatchesPerTrainStep: train.dispatches / size.steps,
            readbacksPerTrainStep: train.readbacks / size.steps,
            uploadsPerTrainStep: train.uploads / size.steps,
            dispatchesPerSampledToken: sample.dispatches / nNew,
            readbacksPerSampledToken: sample.readbacks / nNew,
            uploadsPerSampledToken: sample.uploads / nNew,
          }
        : {};
    r = {
      backend: tf.getBackend(),
      model: size.model,
      params,
      seq: T,
      batch: B,
      vocab: size.vocab,
      trainStepMs: trainMs,
      trainTokensPerSecond: (B * T) / (trainMs / 1000),
      sampleTokensPerSecond,
      matmulGflops: gflops,
      matmulGflopsMedian: mm.median,
      matmulGflopsRuns: mm.runs,
      trainGflops,
      trainShareOfMatmul: trainGflops / gflops,
      ...(kv === undefined ? {} : { kvCacheSpeedup: kv }),
      ...gpu,
    };
  } finally {
    disposeBenchModel(m);
    stats?.uninstall();
  }
  const wg = activeWebGpuBackend();
  if (!wg) return r;
  const mem = gpuMemory(wg);
  return { ...r, gpuBytes: mem.bytesInUse, gpuBytesAllocated: mem.bytesAllocated };
}
