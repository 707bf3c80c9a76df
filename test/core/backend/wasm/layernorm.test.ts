/**
 * LayerNorm's wasm kernels (src/core/backend/wasm/layernorm.ts, used by model/ops.ts layerNorm) against the composed
 * ops (`composedLayerNorm`): forward values and the gradients of x, γ and β the same bits, on the `small` training
 * step's rows (d 128), on nano's width (d 48, where dividing by d and multiplying by 1/d differ), on rows of large
 * and tiny magnitude and constant rows; widths not a multiple of 4 keep the composed ops; nothing is left behind.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '../../../../src/core/tf';
import { Rng } from '../../../../src/core/rng';
import { composedLayerNorm, layerNorm } from '../../../../src/core/model/ops';
import { setWasmLayerNormEnabled, wasmLayerNormUsable } from '../../../../src/core/backend/wasm/layernorm';
import { useBackend } from '../../../helpers/backend';

beforeAll(() => useBackend('wasm'));

const rng = new Rng(17);
const words = (t: tf.Tensor) => Array.from(new Uint32Array((t.dataSync() as Float32Array).slice().buffer));
/** Positions where two word arrays differ (an empty list: the same bits). */
const diff = (a: number[], b: number[]) =>
  a.length !== b.length
    ? [-1]
    : Array.from(a.keys())
        .filter((i) => a[i] !== b[i])
        .slice(0, 5);

/** Value and the gradients of Σ LN(x)·w w.r.t. x, γ, β, as words, with the given LayerNorm. */
function run(
  ln: (x: tf.Tensor, g: tf.Tensor, b: tf.Tensor) => tf.Tensor,
  x: tf.Tensor,
  g: tf.Tensor,
  b: tf.Tensor,
  w: tf.Tensor,
): number[][] {
  let out: number[][] = [];
  tf.tidy(() => {
    const y = ln(x, g, b);
    const grads = tf.grads((p: tf.Tensor, q: tf.Tensor, s: tf.Tensor) => tf.sum(tf.mul(ln(p, q, s), w)))([x, g, b]);
    out = [words(y), ...grads.map(words)];
  });
  return out;
}

function compare(shape: number[], scale: () => number): void {
  const d = shape[shape.length - 1],
    n = shape.reduce((a, c) => a * c, 1);
  const x = tf.tensor(
    Float32Array.from({ length: n }, () => rng.normal() * scale() + scale()),
    shape,
  );
  const g = tf.tensor1d(Float32Array.from({ length: d }, () => 1 + 0.3 * rng.normal()));
  const b = tf.tensor1d(Float32Array.from({ length: d }, () => 0.1 * rng.normal()));
  const w = tf.tensor(
    Float32Array.from({ length: n }, () => rng.normal()),
    shape,
  );
  const want = run(composedLayerNorm, x, g, b, w),
    got = run(layerNorm, x, g, b, w);
  expect(got.map((a) => a.length)).toEqual([n, n, d, d]);
  for (let k = 0; k < 4; k++) expect(diff(got[k], want[k]), `output ${k}`).toEqual([]);
  tf.dispose([x, g, b, w]);
}

describe('LayerNorm kernels on wasm', () => {
  it('are used on the wasm backend for widths that are multiples of 4', () => {
    expect(wasmLayerNormUsable(128)).toBe(true);
    expect(wasmLayerNormUsable(48)).toBe(true);
    expect(wasmLayerNormUsable(6)).toBe(false);
  });
  it("give the composed ops' values and gradients bit for bit (small: d 128; nano: d 48)", () => {
    compare([8, 128, 128], () => 1);
    compare([3, 50, 48], () => 2);
  });
  it('match on rows of large and tiny magnitude and on constant rows', () => {
    compare([64, 48], () => 10 ** (rng.int(9) - 4));
    const x = tf.tensor2d([
      [3, 3, 3, 3],
      [-0, 0, -0, 0],
      [1e20, -1e20, 1e-20, 5],
    ]);
    const g = tf.tensor1d([1, 2, 3, 4]),
      b = tf.tensor1d([0.5, -0.5, 0, 1]),
      w = tf.tensor2d([
        [1, -2, 3, 0.5],
        [1, 1, 1, 1],
        [0.25, 2, -1, 3],
      ]);
    const want = run(composedLayerNorm, x, g, b, w),
      got = run(layerNorm, x, g, b, w);
    for (let k = 0; k < 4; k++) expect(got[k]).toEqual(want[k]);
    // a constant row normalises to β
    expect(
      Array.from(
        tf
          .tidy(() => layerNorm(x, g, b))
          .dataSync()
          .slice(0, 4),
      ),
    ).toEqual([0.5, -0.5, 0, 1]);
    tf.dispose([x, g, b, w]);
  });
  it('switched off or on a ragged width, the composed ops run with the same results', () => {
    const was = setWasmLayerNormEnabled(false);
    expect(wasmLayerNormUsable(128)).toBe(false);
    setWasmLayerNormEnabled(was);
    compare([5, 6], () => 1);
  });
  it('leaves no tensor behind', () => {
    const x = tf.randomNormal([4, 16, 48], 0, 1, 'float32', 1),
      g = tf.onesLike(tf.zeros([48])),
      b = tf.zeros([48]),
      w = tf.onesLike(x);
    run(layerNorm, x, g, b, w);
    const before = tf.memory().numTensors;
    for (let i = 0; i < 3; i++) run(layerNorm, x, g, b, w);
    expect(tf.memory().numTensors).toBe(before);
    tf.dispose([x, g, b, w]);
  });
});
