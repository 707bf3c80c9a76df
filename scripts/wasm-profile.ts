/**
 * Where the time of the bench's workloads goes on tfjs' wasm backend, kernel by kernel:
 * `npx tsx scripts/wasm-profile.ts [--workload sample|train] [--model small] [--stock] [--ops]`.
 *
 * Runs `npm run bench`'s sampling workload (B 32 random 16-token prompts, 32 new tokens, KV cache) or one training
 * step (B 32 × T 128) once untimed, then once under `tf.profile`, and prints the wall time, the summed kernel time
 * and kernel count per kernel name (descending), and what is left outside kernels (JavaScript: op dispatch, the
 * sampler's own loop, read-backs). `--stock` runs tfjs' own BatchMatMul instead of the SIMD one; `--ops` samples with
 * the composed decoding step of src/core/model/transformer.ts instead of the fused one (src/core/model/decode-wasm.ts).
 */
import * as tf from '../src/core/tf';
import { setupBackend } from '../cli/backend';
import { setWasmMatMulEnabled } from '../src/core/backend/wasm-kernels';
import { setWasmDecodeEnabled } from '../src/core/model/decode-wasm';
import { CLI_BENCH_SIZE, disposeBenchModel, makeBenchModel, samplingWorkload, trainStep } from '../src/core/bench/workloads';
import type { ModelSize } from '../src/core/model/config';

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const workload = arg('--workload', 'sample');
if (workload !== 'sample' && workload !== 'train') throw new Error(`--workload must be sample or train, got ${workload}`);
await setupBackend('wasm');
if (process.argv.includes('--stock')) setWasmMatMulEnabled(false);
if (process.argv.includes('--ops')) setWasmDecodeEnabled(false);
const m = makeBenchModel({ ...CLI_BENCH_SIZE, model: arg('--model', 'small') as ModelSize });
const w = samplingWorkload(m);
const run = workload === 'sample' ? () => w.run() : () => trainStep(m);
await run();
const t0 = performance.now();
const info = await tf.profile(async () => {
  await run();
});
const wall = performance.now() - t0;
const by = new Map<string, { ms: number; n: number }>();
let total = 0;
for (const k of info.kernels) {
  const ms = typeof k.kernelTimeMs === 'number' ? k.kernelTimeMs : 0;
  const e = by.get(k.name) ?? { ms: 0, n: 0 };
  e.ms += ms;
  e.n++;
  by.set(k.name, e);
  total += ms;
}
console.log(`${workload}: wall ${wall.toFixed(0)} ms (under the profiler), kernels ${total.toFixed(0)} ms in ${info.kernels.length} calls, outside kernels ${(wall - total).toFixed(0)} ms`);
for (const [name, e] of [...by].sort((a, b) => b[1].ms - a[1].ms))
  console.log(`  ${name.padEnd(24)} ${e.ms.toFixed(1).padStart(8)} ms ${(100 * e.ms / total).toFixed(1).padStart(5)}%  ${String(e.n).padStart(6)} calls  ${(1000 * e.ms / e.n).toFixed(0).padStart(6)} µs/call`);
disposeBenchModel(m);
