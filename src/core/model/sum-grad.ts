/**
 * The gradient of Sum without a tensor of ones on wasm. tfjs' own (tfjs-core gradients/Sum_grad.ts) returns dy
 * (reshaped to keep the summed axes as size 1) × ones(x.shape): it fills a float32 array of x's size with ones in
 * JavaScript, uploads it and multiplies — for the loss's sum over the vocabulary of a `small` training step
 * ([4096, 1024]) ≈ 20–30 ms per step (docs/experiments/speed.md). On wasm, for float32 sums over x's trailing axes
 * (the losses' sums over the vocabulary), each value of dy is written across its row instead
 * (backend/wasm/broadcast.ts): the same values, since y·1 = y exactly in IEEE 754 binary32. Other cases, and other
 * backends, run tfjs' gradient.
 */
import * as tf from '../tf';
import { wasmBroadcastRows, wasmBroadcastRowsUsable } from '../backend/wasm/broadcast';

const stock = tf.getGradient('Sum');

/** Whether `axes` (of a rank-r tensor) are exactly its last axes. */
function trailing(axes: number[], r: number): boolean {
  const s = [...axes].sort((a, b) => a - b);
  return s.length > 0 && s.every((a, i) => a === r - s.length + i);
}

const sumGrad: tf.GradConfig = {
  kernelName: 'Sum',
  inputsToSave: ['x'],
  gradFunc: (dy, saved, attrs) => {
    const [x] = saved;
    const axes = tf.util.parseAxisParam((attrs as unknown as { axis: number | number[] }).axis, x.shape);
    const d = dy as tf.Tensor;
    if (
      on &&
      wasmBroadcastRowsUsable() &&
      x.dtype === 'float32' &&
      d.dtype === 'float32' &&
      x.size > 0 &&
      trailing(axes, x.rank)
    ) {
      const n = axes.reduce((p, a) => p * x.shape[a], 1);
      return { x: () => tf.reshape(wasmBroadcastRows(tf.reshape(d, [x.size / n]) as tf.Tensor1D, n), x.shape) };
    }
    return (stock as tf.GradConfig).gradFunc(dy, saved, attrs);
  },
};

let on = true;
if (stock) tf.registerGradient(sumGrad);

/**
 * Use the row broadcast (true, the default) or tfjs' product with ones (false) in Sum's gradient on wasm; returns the
 * previous setting (scripts/wasm-train-ab.ts compares the two).
 */
export function setBroadcastSumGrad(use: boolean): boolean {
  const was = on;
  on = use;
  return was;
}
