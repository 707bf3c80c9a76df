/**
 * How a `small` training step's process CPU time splits between forward + backward and the Adam update on tfjs' wasm
 * backend, and how much of the Adam update is kernel time versus op dispatch:
 * `npx tsx scripts/wasm-step-split.ts [--steps 4] [--model small] [--stock-adam]` (`--stock-adam`: tfjs'
 * applyGradients instead of the wasm Adam kernel of src/core/backend/wasm/adam.ts).
 *
 * Runs the bench's training step (B 32 × T 128, as src/core/bench/workloads.ts `trainStep`) in two timed parts: the
 * loss and its gradients (`tf.variableGrads` and the loss read-back), then `applyAdam`. After one untimed step it times
 * `--steps` steps (process CPU ms, `process.cpuUsage()`; on cores shared with other jobs CPU time varies less than wall
 * time), then one more step with every wasm kernel wrapped to sum its own CPU time, which gives the kernel time and
 * kernel count of the Adam part (the rest of that part is op dispatch, tidy and variable bookkeeping).
 */
import * as tf from '../src/core/tf';
import { setupBackend } from '../cli/backend';
import { applyAdam } from '../src/core/optim/adam';
import { setWasmAdamEnabled } from '../src/core/backend/wasm/adam';
import {
  CLI_BENCH_SIZE,
  disposeBenchModel,
  lossAndGrads,
  makeBenchModel,
  type BenchModel,
} from '../src/core/bench/workloads';
import type { ModelSize } from '../src/core/model/config';

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const steps = Number(arg('--steps', '4'));
if (!(Number.isInteger(steps) && steps >= 1)) throw new Error('--steps must be an integer ≥ 1');
await setupBackend('wasm');
if (process.argv.includes('--stock-adam')) setWasmAdamEnabled(false);
const m = makeBenchModel({ ...CLI_BENCH_SIZE, model: arg('--model', 'small') as ModelSize });
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** One step as workloads.ts trainStep; returns [CPU ms of loss + gradients, CPU ms of Adam]. */
async function step(bm: BenchModel): Promise<[number, number]> {
  const c0 = cpu();
  const { value, grads } = lossAndGrads(bm);
  await value.data();
  const c1 = cpu();
  applyAdam(bm.opt, grads);
  const c2 = cpu();
  tf.dispose([value, ...Object.values(grads)]);
  return [c1 - c0, c2 - c1];
}

await step(m);
const fb: number[] = [],
  ad: number[] = [];
for (let i = 0; i < steps; i++) {
  const [a, b] = await step(m);
  fb.push(a);
  ad.push(b);
}
const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
console.log(
  `parameter tensors: ${Object.keys(m.p).length}, elements: ${Object.values(m.p).reduce((s, t) => s + t.size, 0)}`,
);
console.log(`loss + gradients CPU ms/step: ${fb.map((x) => x.toFixed(0)).join(' ')} (mean ${mean(fb).toFixed(0)})`);
const adamShare = ((100 * mean(ad)) / (mean(ad) + mean(fb))).toFixed(1);
console.log(
  `Adam CPU ms/step: ${ad.map((x) => x.toFixed(1)).join(' ')} (mean ${mean(ad).toFixed(1)}, ${adamShare}% ` +
    `of the step)`,
);

// Kernel time inside the Adam part: wrap every wasm kernel (outermost calls only).
let inK = 0,
  calls = 0,
  depth = 0,
  counting = false;
for (const k of tf.getKernelsForBackend('wasm')) {
  const inner = k.kernelFunc as (a: unknown) => unknown;
  tf.unregisterKernel(k.kernelName, 'wasm');
  tf.registerKernel({
    kernelName: k.kernelName,
    backendName: 'wasm',
    kernelFunc: ((a: unknown) => {
      if (depth++ || !counting) {
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
        inK += cpu() - c0;
        calls++;
      }
    }) as unknown as tf.KernelFunc,
  });
}
{
  const { value, grads } = lossAndGrads(m);
  await value.data();
  counting = true;
  const c0 = cpu();
  applyAdam(m.opt, grads);
  const total = cpu() - c0;
  counting = false;
  console.log(
    `Adam, one profiled step: CPU ${total.toFixed(1)} ms, inside ${calls} kernel calls ${inK.toFixed(1)} ` +
      `ms, outside kernels ${(total - inK).toFixed(1)} ms`,
  );
  tf.dispose([value, ...Object.values(grads)]);
}
disposeBenchModel(m);
console.log(`numTensors after: ${tf.memory().numTensors}`);
