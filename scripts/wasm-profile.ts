/**
 * Where the time of the bench's workloads goes on tfjs' wasm backend, kernel by kernel:
 * `npx tsx scripts/wasm-profile.ts [--workload sample|train] [--model small] [--stock] [--ops]`.
 *
 * Runs `npm run bench`'s sampling workload (B 32 random 16-token prompts, 32 new tokens, KV cache) or one training
 * step (B 32 × T 128) once untimed, then once under `tf.profile`, and prints the wall time, the summed kernel time
 * and kernel count per kernel name (descending), and what is left outside kernels (JavaScript: op dispatch, the
 * sampler's own loop, read-backs). `--stock` runs tfjs' own BatchMatMul instead of the SIMD one; `--ops` samples with
 * the composed decoding step of src/core/model/transformer.ts instead of the fused one (src/core/model/decode-wasm.ts).
 * `--cpu` times each kernel by the process's CPU time (`process.cpuUsage()` around every wasm kernel call) instead
 * of `tf.profile`'s wall clock, which on cores shared with other jobs swells kernels at random; it also lists the
 * costliest kernel-and-shape pairs (`--top N`, default 30).
 */
import * as tf from '../src/core/tf';
import { setupBackend } from '../cli/backend';
import { checkScriptArgs } from './script-args';
import { setWasmMatMulEnabled } from '../src/core/backend/wasm/kernels';
import { setWasmDecodeEnabled } from '../src/core/model/decode-wasm';
import {
  CLI_BENCH_SIZE,
  disposeBenchModel,
  makeBenchModel,
  samplingWorkload,
  trainStep,
} from '../src/core/bench/workloads';
import type { ModelSize } from '../src/core/model/config';

checkScriptArgs(
  'npx tsx scripts/wasm-profile.ts [--workload sample|train] [--model small] [--stock] [--ops] [--cpu] [--top N]',
  ['--workload', '--model', '--top'],
  ['--stock', '--ops', '--cpu'],
);
const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const workload = arg('--workload', 'sample');
if (workload !== 'sample' && workload !== 'train')
  throw new Error(`--workload must be sample or train, got ${workload}`);
await setupBackend('wasm');
if (process.argv.includes('--stock')) setWasmMatMulEnabled(false);
if (process.argv.includes('--ops')) setWasmDecodeEnabled(false);
const m = makeBenchModel({ ...CLI_BENCH_SIZE, model: arg('--model', 'small') as ModelSize });
const w = samplingWorkload(m);
const run = workload === 'sample' ? () => w.run() : () => trainStep(m);
await run();
if (process.argv.includes('--cpu')) {
  await cpuProfile(run, Number(arg('--top', '30')));
  disposeBenchModel(m);
  process.exit(0);
}
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
console.log(
  `${workload}: wall ${wall.toFixed(0)} ms (under the profiler), ` +
    `kernels ${total.toFixed(0)} ms in ${info.kernels.length} calls, outside kernels ${(wall - total).toFixed(0)} ms`,
);
for (const [name, e] of [...by].sort((a, b) => b[1].ms - a[1].ms))
  console.log(
    `  ${name.padEnd(24)} ${e.ms.toFixed(1).padStart(8)} ms ${((100 * e.ms) / total).toFixed(1).padStart(5)}% ` +
      ` ${String(e.n).padStart(6)} calls  ${((1000 * e.ms) / e.n).toFixed(0).padStart(6)} µs/call`,
  );
disposeBenchModel(m);

/**
 * One run of `run` with every wasm kernel wrapped to add the process CPU time (ms) it takes, by kernel name and by
 * kernel name with its input shapes; prints both (descending) and the CPU time outside kernels. The wrappers stay
 * registered: call this last.
 */
async function cpuProfile(run: () => Promise<unknown>, top: number): Promise<void> {
  const cpu = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const byName = new Map<string, { ms: number; n: number }>(),
    byShape = new Map<string, { ms: number; n: number }>();
  const bump = (map: Map<string, { ms: number; n: number }>, key: string, ms: number) => {
    const e = map.get(key) ?? { ms: 0, n: 0 };
    e.ms += ms;
    e.n++;
    map.set(key, e);
  };
  let depth = 0;
  for (const k of tf.getKernelsForBackend('wasm')) {
    const inner = k.kernelFunc as (a: { inputs: Record<string, tf.TensorInfo> }) => unknown;
    tf.unregisterKernel(k.kernelName, 'wasm');
    tf.registerKernel({
      kernelName: k.kernelName,
      backendName: 'wasm',
      kernelFunc: ((a: { inputs: Record<string, tf.TensorInfo> }) => {
        if (depth++) {
          try {
            return inner(a);
          } finally {
            depth--;
          }
        }
        const c0 = cpu();
        try {
          return inner(a);
        } finally {
          depth--;
          const ms = cpu() - c0;
          bump(byName, k.kernelName, ms);
          bump(
            byShape,
            `${k.kernelName} ${Object.values(a.inputs)
              .map((t) => `[${t.shape.join(',')}]`)
              .join(' ')}`,
            ms,
          );
        }
      }) as unknown as tf.KernelFunc,
    });
  }
  const c0 = cpu();
  await run();
  const total = cpu() - c0;
  const inK = [...byName.values()].reduce((s, e) => s + e.ms, 0);
  const calls = [...byName.values()].reduce((s, e) => s + e.n, 0);
  console.log(
    `${workload}: CPU ${total.toFixed(0)} ms, inside kernels ${inK.toFixed(0)} ms in ${calls} ` +
      `calls, outside ${(total - inK).toFixed(0)} ms`,
  );
  const print = (map: Map<string, { ms: number; n: number }>, n: number) => {
    for (const [name, e] of [...map].sort((a, b) => b[1].ms - a[1].ms).slice(0, n))
      console.log(
        `  ${name.padEnd(60)} ${e.ms.toFixed(1).padStart(8)} ms ${((100 * e.ms) / inK).toFixed(1).padStart(5)}% ` +
          ` ${String(e.n).padStart(5)} calls`,
      );
  };
  print(byName, 1000);
  console.log('by kernel and input shapes:');
  print(byShape, top);
}
