/**
 * The bench's training step (small, B 32 × T 128, forward + backward + Adam) with the project's wasm kernels on and
 * off, alternating in one process, so that both see the same load:
 * `npx tsx scripts/wasm-train-ab.ts [--kernels
 * copy,gelu,alias,colsum,layernorm,softmax,tanh,exp,adam,transpose,dworder,sumgrad,tn,nn] [--rounds 3] [--steps 2]
 * [--model small]`.
 *
 * `copy`: Transpose and GatherV2 as word copies (src/core/backend/wasm/copy-kernels.ts); `gelu`: GELU's element-wise
 * chains as single kernels (src/core/backend/wasm/gelu.ts); `alias`: Identity and same-dtype Cast as references
 * (src/core/backend/wasm/alias-kernels.ts); `colsum`: bias and LayerNorm gradients' column sums as one kernel
 * (src/core/backend/wasm/colsum.ts); `layernorm`: LayerNorm's forward and backward chains as one kernel each
 * (src/core/backend/wasm/layernorm.ts); `softmax`: the attention softmax's scale, bias and gradient chains
 * (src/core/backend/wasm/softmax.ts); `tanh`: Tanh as SIMD (src/core/backend/wasm/tanh.ts); `exp`:
 * Exp in JavaScript (src/core/backend/wasm/exp.ts); `adam`: Adam's update as one kernel per parameter tensor
 * (src/core/backend/wasm/adam.ts); `transpose`: 2-D transposes as 4×4 SIMD blocks
 * (src/core/backend/wasm/transpose.ts);
 * `dworder`: weight gradients ordered for XNNPACK's packing (src/core/model/ops.ts `tMatmul`); `sumgrad`: Sum's
 * gradient as a broadcast, not a product with ones (src/core/model/sum-grad.ts); `tn`: weight gradients aᵀ·b and
 * `nn`: the linear layers' other products in the project's GEMM (src/core/backend/wasm/gemm.ts; `dworder` matters only
 * with `tn` off). After one untimed step in each setting, each round times
 * `--steps` steps per setting (the order alternates from round to round) and prints wall and process CPU time per
 * step (ms): on cores shared with other jobs the CPU time varies less than the wall time. Both settings give the same
 * bits (test/core/backend/wasm/copy-kernels.test.ts, wasm-gelu.test.ts, wasm-alias-kernels.test.ts,
 * wasm-colsum.test.ts, wasm-layernorm.test.ts, wasm-softmax.test.ts, wasm-tanh.test.ts, wasm-exp.test.ts,
 * wasm-adam.test.ts); speed is
 * measured here, never in tests.
 */
import * as tf from '../src/core/tf';
import { setupBackend } from '../cli/backend';
import { checkScriptArgs } from './script-args';
import { setWasmCopyKernelsEnabled, setWasmSimdTransposeEnabled } from '../src/core/backend/wasm/copy-kernels';
import { setPackAwareWeightGrads } from '../src/core/model/ops';
import { setBroadcastSumGrad } from '../src/core/model/sum-grad';
import { setWasmGeluEnabled } from '../src/core/backend/wasm/gelu';
import { setWasmAliasKernelsEnabled } from '../src/core/backend/wasm/alias-kernels';
import { setWasmColSumEnabled } from '../src/core/backend/wasm/colsum';
import { setWasmLayerNormEnabled } from '../src/core/backend/wasm/layernorm';
import { setWasmSoftmaxEnabled } from '../src/core/backend/wasm/softmax';
import { setWasmTanhEnabled } from '../src/core/backend/wasm/tanh';
import { setWasmExpEnabled } from '../src/core/backend/wasm/exp';
import { setWasmAdamEnabled } from '../src/core/backend/wasm/adam';
import { setWasmGemmEnabled } from '../src/core/backend/wasm/gemm';
import { CLI_BENCH_SIZE, disposeBenchModel, makeBenchModel, trainStep } from '../src/core/bench/workloads';
import type { ModelSize } from '../src/core/model/config';

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const SWITCHES: Record<string, (on: boolean) => boolean> = {
  copy: setWasmCopyKernelsEnabled,
  gelu: setWasmGeluEnabled,
  alias: setWasmAliasKernelsEnabled,
  colsum: setWasmColSumEnabled,
  layernorm: setWasmLayerNormEnabled,
  softmax: setWasmSoftmaxEnabled,
  tanh: setWasmTanhEnabled,
  exp: setWasmExpEnabled,
  adam: setWasmAdamEnabled,
  transpose: setWasmSimdTransposeEnabled,
  dworder: setPackAwareWeightGrads,
  sumgrad: setBroadcastSumGrad,
  tn: (on) => setWasmGemmEnabled('tn', on),
  nn: (on) => setWasmGemmEnabled('nn', on),
};
checkScriptArgs(
  `npx tsx scripts/wasm-train-ab.ts [--kernels ${Object.keys(SWITCHES).join(',')}] [--rounds 3] [--steps ` +
    `2] [--model small]`,
  ['--kernels', '--rounds', '--steps', '--model'],
);
const kernels = arg('--kernels', 'copy,gelu').split(',');
for (const k of kernels)
  if (!SWITCHES[k])
    throw new Error(`--kernels: unknown kernel set ${k}; choose from ${Object.keys(SWITCHES).join(', ')}`);
const rounds = Number(arg('--rounds', '3')),
  steps = Number(arg('--steps', '2'));
if (!(Number.isInteger(rounds) && rounds >= 1 && Number.isInteger(steps) && steps >= 1))
  throw new Error('--rounds and --steps must be integers ≥ 1');
await setupBackend('wasm');
const m = makeBenchModel({ ...CLI_BENCH_SIZE, model: arg('--model', 'small') as ModelSize });
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const set = (on: boolean) => kernels.forEach((k) => SWITCHES[k](on));
for (const on of [false, true]) {
  set(on);
  await trainStep(m);
}
const res = { off: { wall: [] as number[], cpu: [] as number[] }, on: { wall: [] as number[], cpu: [] as number[] } };
for (let r = 0; r < rounds; r++) {
  for (const on of r % 2 ? [true, false] : [false, true]) {
    set(on);
    const t0 = performance.now(),
      c0 = cpuMs();
    for (let i = 0; i < steps; i++) await trainStep(m);
    const e = res[on ? 'on' : 'off'];
    e.wall.push((performance.now() - t0) / steps);
    e.cpu.push((cpuMs() - c0) / steps);
  }
}
set(true);
for (const k of ['off', 'on'] as const) {
  const e = res[k];
  console.log(
    `${kernels.join('+')} ${k}: wall ms/step ${e.wall.map((x) => x.toFixed(0)).join(' ')}; ` +
      `CPU ms/step ${e.cpu.map((x) => x.toFixed(0)).join(' ')} (min ${Math.min(...e.cpu).toFixed(0)})`,
  );
}
disposeBenchModel(m);
console.log(`numTensors after: ${tf.memory().numTensors}`);
