/**
 * The column-sum kernel on wasm (src/core/backend/wasm/colsum.ts, used by model/ops.ts for bias and LayerNorm
 * gradients) against the product it replaces, ones[1, M]·x in XNNPACK: the same bits on the training step's shapes,
 * on ragged widths (the JavaScript path), on edge values (±0, huge and tiny magnitudes, cancellation); no tensor left
 * behind.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '../../../../src/core/tf';
import { Rng } from '../../../../src/core/rng';
import { setWasmColSumEnabled, wasmColSum, wasmColSumUsable } from '../../../../src/core/backend/wasm/colsum';
import { useBackend } from '../../../helpers/backend';

beforeAll(() => useBackend('wasm'));

const rng = new Rng(21);
const words = (t: tf.Tensor) => new Uint32Array((t.dataSync() as Float32Array).slice().buffer);
/** Positions where two word arrays differ (an empty list: the same bits). */
const diff = (a: Uint32Array, b: Uint32Array) =>
  a.length !== b.length
    ? [-1]
    : Array.from(a.keys())
        .filter((i) => a[i] !== b[i])
        .slice(0, 5);

/** [kernel words, ones·x words] of the column sums of x. */
function both(x: tf.Tensor2D): [Uint32Array, Uint32Array] {
  let out: [Uint32Array, Uint32Array] | null = null;
  tf.tidy(() => {
    out = [words(wasmColSum(x)), words(tf.matMul(tf.ones([1, x.shape[0]]) as tf.Tensor2D, x))];
  });
  return out as unknown as [Uint32Array, Uint32Array];
}

describe('column sums on wasm', () => {
  it('is used on the wasm backend', () => {
    expect(wasmColSumUsable()).toBe(true);
  });
  it("gives ones·x bit for bit on the training step's shapes", () => {
    for (const [M, N] of [
      [4096, 128],
      [4096, 512],
      [4096, 384],
      [300, 48],
      [1, 8],
    ]) {
      const x = tf.tensor2d(
        Float32Array.from({ length: M * N }, () => rng.normal() * 10 ** rng.int(4)),
        [M, N],
      );
      const [k, p] = both(x);
      expect(k.length).toBe(N);
      expect(diff(k, p)).toEqual([]);
      x.dispose();
    }
  });
  it('matches on ragged widths (the JavaScript path) and edge values', () => {
    for (const [M, N] of [
      [97, 13],
      [5, 3],
      [64, 1],
    ]) {
      const x = tf.tensor2d(
        Float32Array.from({ length: M * N }, () => rng.normal()),
        [M, N],
      );
      const [k, p] = both(x);
      expect(diff(k, p)).toEqual([]);
      x.dispose();
    }
    // Columns, summed down the rows in order from +0: all −0 → +0; 1e30 + 1 − 1e30 + 1 + 0 → 1 (the 1 first
    // added is lost); 1e8 + 1 + 1 − 1e8 + 7 → 7 (float32 spacing at 1e8 is 8); two subnormals, ±1e-30, then 2 →
    // 2.
    const rows = [
      [-0, 1e30, 1e8, 3e-39],
      [-0, 1, 1, 3e-39],
      [-0, -1e30, 1, 1e-30],
      [-0, 1, -1e8, -1e-30],
      [-0, 0, 7, 2],
    ];
    const x = tf.tensor2d(rows);
    const [k, p] = both(x);
    expect(Array.from(new Float32Array(k.buffer))).toEqual([0, 1, 7, 2]);
    expect(Object.is(new Float32Array(k.buffer)[0], 0)).toBe(true);
    expect(diff(k, p)).toEqual([]);
    x.dispose();
  });
  it('switches off and leaves no tensor behind', () => {
    const x = tf.ones([6, 8]) as tf.Tensor2D;
    const before = tf.memory().numTensors;
    for (let i = 0; i < 3; i++) tf.dispose(wasmColSum(x));
    expect(tf.memory().numTensors).toBe(before);
    expect(setWasmColSumEnabled(false)).toBe(true);
    expect(wasmColSumUsable()).toBe(false);
    setWasmColSumEnabled(true);
    expect(Array.from(wasmColSum(x).dataSync())).toEqual([6, 6, 6, 6, 6, 6, 6, 6]);
    x.dispose();
  });
});
