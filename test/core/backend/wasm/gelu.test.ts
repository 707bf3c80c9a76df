/**
 * GELU's fused element-wise kernels on wasm (src/core/backend/wasm/gelu.ts, used by model/ops.ts gelu) against the
 * composed ops: forward values and gradients the same bits on the training step's shape and on edge values (±0,
 * large and tiny magnitudes, where tanh saturates or the cube underflows); the kernels in use; no tensor left behind.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '../../../../src/core/tf';
import { Rng } from '../../../../src/core/rng';
import { gelu } from '../../../../src/core/model/ops';
import { setWasmGeluEnabled, wasmGeluUsable } from '../../../../src/core/backend/wasm/gelu';
import { useBackend } from '../../../helpers/backend';

beforeAll(() => useBackend('wasm'));

const rng = new Rng(9);
const words = (t: tf.Tensor) => new Uint32Array((t.dataSync() as Float32Array).slice().buffer);
/** Positions where two word arrays differ (an empty list: the same bits). */
const diff = (a: Uint32Array, b: Uint32Array) =>
  a.length !== b.length
    ? [-1]
    : Array.from(a.keys())
        .filter((i) => a[i] !== b[i])
        .slice(0, 5);

/** gelu(x) and d/dx Σ gelu(x)·w, with the fused kernels on or off: [value words, gradient words]. */
function run(x: tf.Tensor, w: tf.Tensor, fused: boolean): [Uint32Array, Uint32Array] {
  const was = setWasmGeluEnabled(fused);
  let out: [Uint32Array, Uint32Array] | null = null;
  try {
    tf.tidy(() => {
      const y = gelu(x);
      const g = tf.grad((v: tf.Tensor) => tf.sum(tf.mul(gelu(v), w)))(x);
      out = [words(y), words(g)];
    });
  } finally {
    setWasmGeluEnabled(was);
  }
  return out as unknown as [Uint32Array, Uint32Array];
}

describe('fused GELU on wasm', () => {
  it('is used on the wasm backend', () => {
    expect(wasmGeluUsable()).toBe(true);
  });
  it("gives the composed ops' values and gradients bit for bit", () => {
    const shape = [4, 128, 512]; // the small model's MLP activation for 4 of the bench's 32 rows
    const n = shape[0] * shape[1] * shape[2];
    const x = tf.tensor(
      Float32Array.from({ length: n }, () => 3 * rng.normal()),
      shape,
    );
    const w = tf.tensor(
      Float32Array.from({ length: n }, () => rng.normal()),
      shape,
    );
    const [v0, g0] = run(x, w, false),
      [v1, g1] = run(x, w, true);
    expect(v1.length).toBe(n);
    expect(diff(v1, v0)).toEqual([]);
    expect(diff(g1, g0)).toEqual([]);
    tf.dispose([x, w]);
  });
  it('matches on edge values: ±0, saturated tanh, tiny and huge inputs', () => {
    const vals = [0, -0, 1e-30, -1e-30, 1e-3, -1e-3, 0.5, -0.5, 4, -4, 9, -9, 30, -30, 1e5, -1e5, 3e12, -3e12];
    const x = tf.tensor1d(vals),
      w = tf.tensor1d(vals.map((_, i) => (i % 3) - 1.25));
    const [v0, g0] = run(x, w, false),
      [v1, g1] = run(x, w, true);
    expect(Array.from(v1)).toEqual(Array.from(v0));
    expect(Array.from(g1)).toEqual(Array.from(g0));
    tf.dispose([x, w]);
  });
  it('leaves no tensor behind', () => {
    const x = tf.randomNormal([7, 5], 0, 1, 'float32', 3),
      w = tf.onesLike(x);
    run(x, w, true);
    const before = tf.memory().numTensors;
    for (let i = 0; i < 3; i++) run(x, w, true);
    expect(tf.memory().numTensors).toBe(before);
    tf.dispose([x, w]);
  });
});
