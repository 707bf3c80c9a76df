/**
 * The hand-written gradients of model/ops.ts against tfjs autograd of the plain formulas (the implementation they
 * replaced): forward values equal to the bit, gradients equal within float32 rounding (max |Δ| ≤ 2e-6 · max |g|,
 * the sums run in another order). Wasm backend, seeded inputs.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '../../../src/core/tf';
import { Rng } from '../../../src/core/rng';
import { bmm, bmmNT, gelu, layerNorm, linear } from '../../../src/core/model/ops';
import { useBackend } from '../../helpers/backend';

beforeAll(() => useBackend('wasm'));

const rng = new Rng(11);
const randn = (shape: number[], scale = 1) =>
  tf.tensor(
    Float32Array.from({ length: shape.reduce((a, b) => a * b, 1) }, () => rng.normal() * scale),
    shape,
  );

/** The formulas as they were written before the hand-written gradients (autograd differentiates them). */
const plain = {
  gelu: (x: tf.Tensor) =>
    tf.mul(
      tf.mul(x, 0.5),
      tf.add(tf.tanh(tf.mul(tf.add(x, tf.mul(tf.mul(tf.mul(x, x), x), 0.044715)), Math.sqrt(2 / Math.PI))), 1),
    ),
  layerNorm: (x: tf.Tensor, g: tf.Tensor, b: tf.Tensor) => {
    const { mean, variance } = tf.moments(x, -1, true);
    return tf.add(tf.mul(tf.mul(tf.sub(x, mean), tf.rsqrt(tf.add(variance, 1e-5))), g), b);
  },
  linear: (x: tf.Tensor, w: tf.Tensor, b: tf.Tensor) =>
    tf.add(tf.matMul(tf.reshape(x, [-1, w.shape[0]]) as tf.Tensor2D, w as tf.Tensor2D), b),
  bmm: (a: tf.Tensor, b: tf.Tensor) => tf.matMul(a as tf.Tensor3D, b as tf.Tensor3D),
  bmmNT: (a: tf.Tensor, b: tf.Tensor) => tf.matMul(a as tf.Tensor3D, tf.transpose(b, [0, 2, 1]) as tf.Tensor3D),
};

/** Forward values and gradients of Σ f(inputs)·w (w a fixed random weight) for every input. */
async function run(
  f: (...xs: tf.Tensor[]) => tf.Tensor,
  xs: tf.Tensor[],
  w: tf.Tensor,
): Promise<{ y: Float32Array; g: Float32Array[] }> {
  const y = tf.tidy(() => f(...xs));
  const g = tf.grads((...a: tf.Tensor[]) => tf.sum(tf.mul(tf.reshape(f(...a), w.shape), w)))(xs);
  const out = { y: (await y.data()) as Float32Array, g: (await Promise.all(g.map((t) => t.data()))) as Float32Array[] };
  tf.dispose([y, ...g]);
  return out;
}

async function compare(
  name: keyof typeof plain,
  mine: (...xs: tf.Tensor[]) => tf.Tensor,
  xs: tf.Tensor[],
  outShape: number[],
): Promise<void> {
  const w = randn(outShape);
  const before = tf.memory().numTensors;
  const a = await run(mine, xs, w),
    b = await run(plain[name], xs, w);
  expect(tf.memory().numTensors).toBe(before);
  expect(Array.from(a.y)).toEqual(Array.from(b.y));
  a.g.forEach((ga, i) => {
    const gb = b.g[i];
    let scale = 0,
      diff = 0;
    for (let k = 0; k < gb.length; k++) {
      scale = Math.max(scale, Math.abs(gb[k]));
      diff = Math.max(diff, Math.abs(ga[k] - gb[k]));
    }
    expect(scale, `${name} input ${i}: gradient is not zero`).toBeGreaterThan(0);
    expect(diff / scale, `${name} input ${i}`).toBeLessThanOrEqual(2e-6);
  });
  tf.dispose([w]);
}

describe('hand-written gradients equal autograd within float32 rounding', () => {
  it('gelu', () => compare('gelu', gelu, [randn([6, 5, 16], 2)], [6, 5, 16]));
  it('layerNorm (gains and biases not 1 and 0)', () =>
    compare('layerNorm', layerNorm, [randn([3, 7, 24], 3), randn([24]), randn([24])], [3, 7, 24]));
  it('linear with a bias', () =>
    compare(
      'linear',
      (x, w, b) => linear(x, w as tf.Tensor2D, b),
      [randn([4, 9, 12]), randn([12, 20], 0.3), randn([20])],
      [36, 20],
    ));
  it('linear whose output is narrower than its input (dW transposes dy)', () =>
    compare(
      'linear',
      (x, w, b) => linear(x, w as tf.Tensor2D, b),
      [randn([40, 32]), randn([32, 8], 0.3), randn([8])],
      [40, 8],
    ));
  it('bmm', () =>
    compare('bmm', (a, b) => bmm(a as tf.Tensor3D, b as tf.Tensor3D), [randn([4, 6, 5]), randn([4, 5, 7])], [4, 6, 7]));
  it('bmmNT (a·bᵀ)', () =>
    compare(
      'bmmNT',
      (a, b) => bmmNT(a as tf.Tensor3D, b as tf.Tensor3D),
      [randn([4, 6, 5]), randn([4, 7, 5])],
      [4, 6, 7],
    ));
});
