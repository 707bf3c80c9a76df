/**
 * The project's wasm kernels one at a time at the `small` training step's shapes, on and off alternating in one
 * process: `npx tsx scripts/wasm-kernel-micro.ts [--reps 5]`. Prints the median process CPU time per call (ms) of each
 * (stock or composed → project's): Tanh and Exp, the bias gradient's column sums, a LayerNorm forward and
 * forward + backward, the attention softmax forward + backward, a clone (Identity), and the Adam update of the
 * `small` model's 52 parameter tensors (tfjs' applyGradients → src/core/backend/wasm/adam.ts). Seconds of CPU in all;
 * a rough isolation figure — the training step's own change is measured by scripts/wasm-train-ab.ts.
 */
import * as tf from '../src/core/tf';
import { setupBackend } from '../cli/backend';
import { setWasmTanhEnabled } from '../src/core/backend/wasm/tanh';
import { setWasmExpEnabled } from '../src/core/backend/wasm/exp';
import { setWasmColSumEnabled } from '../src/core/backend/wasm/colsum';
import { setWasmLayerNormEnabled } from '../src/core/backend/wasm/layernorm';
import { setWasmSoftmaxEnabled } from '../src/core/backend/wasm/softmax';
import { setWasmAliasKernelsEnabled } from '../src/core/backend/wasm/alias-kernels';
import { setWasmAdamEnabled } from '../src/core/backend/wasm/adam';
import { applyAdam } from '../src/core/optim/adam';
import { CLI_BENCH_SIZE, disposeBenchModel, makeBenchModel } from '../src/core/bench/workloads';
import { attentionSoftmax, layerNorm, linear } from '../src/core/model/ops';
import { causalBias } from '../src/core/model/transformer';

const reps = Number(process.argv.includes('--reps') ? process.argv[process.argv.indexOf('--reps') + 1] : '5');
if (!(Number.isInteger(reps) && reps >= 1)) throw new Error('--reps must be an integer ≥ 1');
await setupBackend('wasm');
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
/** Median CPU ms of `run` with the switch off and on, alternating. */
function ab(name: string, set: (on: boolean) => boolean, run: () => void): void {
  const t: Record<'off' | 'on', number[]> = { off: [], on: [] };
  for (let r = 0; r <= reps; r++) {
    for (const on of r % 2 ? [true, false] : [false, true]) {
      set(on);
      const c0 = cpu();
      tf.tidy(run);
      if (r > 0) t[on ? 'on' : 'off'].push(cpu() - c0);
    }
  }
  set(true);
  console.log(
    `${name.padEnd(52)} ${median(t.off).toFixed(2).padStart(7)} → ${median(t.on).toFixed(2).padStart(7)} ` + `ms`,
  );
}
/** wasm kernels run synchronously: the work is done when the op returns, no read-back needed. */
const sync = (t: tf.Tensor) => void t.shape;
const h = tf.randomNormal([32, 128, 512], 0, 2, 'float32', 1),
  logits = tf.randomNormal([4096, 1024], -6, 3, 'float32', 2);
const dy = tf.randomNormal([4096, 512], 0, 1, 'float32', 3),
  x = tf.randomNormal([32, 128, 128], 0, 1, 'float32', 4);
const g = tf.ones([128]),
  b = tf.zeros([128]),
  w = tf.randomNormal([128, 512], 0, 0.02, 'float32', 5),
  bias512 = tf.zeros([512]);
const raw = tf.randomNormal([128, 128, 128], 0, 3, 'float32', 6) as tf.Tensor3D,
  cb = causalBias(128);
ab('Tanh [32, 128, 512]', setWasmTanhEnabled, () => sync(tf.tanh(h)));
ab('Exp [4096, 1024]', setWasmExpEnabled, () => sync(tf.exp(logits)));
ab('bias gradient of x[4096, 128]·W[128, 512] + b', setWasmColSumEnabled, () => {
  const gr = tf.grads((xx: tf.Tensor, ww: tf.Tensor, bb: tf.Tensor) =>
    tf.sum(tf.mul(linear(xx, ww as tf.Tensor2D, bb), dy)),
  );
  gr([tf.reshape(x, [4096, 128]), w, bias512]).forEach(sync);
});
ab('LayerNorm [32, 128, 128] forward', setWasmLayerNormEnabled, () => sync(layerNorm(x, g, b)));
ab('LayerNorm [32, 128, 128] forward + backward', setWasmLayerNormEnabled, () => {
  tf.grads((xx: tf.Tensor, gg: tf.Tensor, bb: tf.Tensor) => tf.sum(tf.mul(layerNorm(xx, gg, bb), x)))([
    x,
    g,
    b,
  ]).forEach(sync);
});
ab('attention softmax [128, 128, 128] forward + backward', setWasmSoftmaxEnabled, () => {
  sync(
    tf.grad((r: tf.Tensor) =>
      tf.sum(tf.mul(attentionSoftmax(r as tf.Tensor3D, 1 / Math.sqrt(32), 32, 4, { bias: cb }), raw)),
    )(raw),
  );
});
ab('clone [32, 128, 512] (Identity)', setWasmAliasKernelsEnabled, () => sync(tf.clone(h)));
const bm = makeBenchModel(CLI_BENCH_SIZE);
const grads = Object.fromEntries(
  Object.entries(bm.p).map(([k, v], i) => [v.name ?? k, tf.randomNormal(v.shape, 0, 1e-2, 'float32', 100 + i)]),
);
ab(
  `Adam update, ${Object.keys(grads).length} tensors (${Object.values(grads).reduce((s, t) => s + t.size, 0)} floats)`,
  setWasmAdamEnabled,
  () => applyAdam(bm.opt, { ...grads }),
);
tf.dispose(Object.values(grads));
disposeBenchModel(bm);
tf.dispose([h, logits, dy, x, g, b, w, bias512, raw, cb]);
console.log(`numTensors after: ${tf.memory().numTensors}`);
