/**
 * The attention softmax's wasm kernels (src/core/backend/wasm/softmax.ts, used by model/ops.ts attentionSoftmax)
 * against the composed ops (Multiply, broadcast Add, Softmax and autograd's gradients): values and the gradient of the
 * raw scores the same bits, with the causal bias shared by every sequence ([1, 1, T, T]) and with one bias per
 * sequence ([B, 1, T, T], left padding); shapes the kernels do not take keep the composed ops; nothing left behind.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '../../../../src/core/tf';
import { Rng } from '../../../../src/core/rng';
import { attentionSoftmax } from '../../../../src/core/model/ops';
import { causalBias, NEG } from '../../../../src/core/model/transformer';
import { setWasmSoftmaxEnabled, wasmSoftmaxUsable } from '../../../../src/core/backend/wasm/softmax';
import { useBackend } from '../../../helpers/backend';

beforeAll(() => useBackend('wasm'));

const rng = new Rng(5);
const words = (t: tf.Tensor) => Array.from(new Uint32Array((t.dataSync() as Float32Array).slice().buffer));
/** Positions where two word arrays differ (an empty list: the same bits). */
const diff = (a: number[], b: number[]) =>
  a.length !== b.length
    ? [-1]
    : Array.from(a.keys())
        .filter((i) => a[i] !== b[i])
        .slice(0, 5);

/** [value words, d/draw Σ softmax·w words] with the kernels on or off. */
function run(raw: tf.Tensor3D, w: tf.Tensor, bias: tf.Tensor, B: number, h: number, on: boolean): number[][] {
  const was = setWasmSoftmaxEnabled(on);
  let out: number[][] = [];
  try {
    tf.tidy(() => {
      const scale = 1 / Math.sqrt(32);
      const y = attentionSoftmax(raw, scale, B, h, { bias });
      const g = tf.grad((r: tf.Tensor) => tf.sum(tf.mul(attentionSoftmax(r as tf.Tensor3D, scale, B, h, { bias }), w)))(
        raw,
      );
      out = [words(y), words(g)];
    });
  } finally {
    setWasmSoftmaxEnabled(was);
  }
  return out;
}

function compare(B: number, h: number, T: number, bias: tf.Tensor): void {
  const n = B * h * T * T;
  const raw = tf.tensor3d(
    Float32Array.from({ length: n }, () => 4 * rng.normal()),
    [B * h, T, T],
  );
  const w = tf.tensor3d(
    Float32Array.from({ length: n }, () => rng.normal()),
    [B * h, T, T],
  );
  expect(wasmSoftmaxUsable(B, T, T, bias)).toBe(true);
  const want = run(raw, w, bias, B, h, false),
    got = run(raw, w, bias, B, h, true);
  expect(got[0].length).toBe(n);
  expect(diff(got[0], want[0])).toEqual([]);
  expect(diff(got[1], want[1])).toEqual([]);
  tf.dispose([raw, w]);
}

describe('attention softmax kernels on wasm', () => {
  it("give the composed ops' values and gradients bit for bit with the shared causal bias", () => {
    const bias = causalBias(128);
    compare(2, 4, 128, bias); // the small model's heads at T 128
    bias.dispose();
  });
  it('match with one bias per sequence (left padding)', () => {
    const B = 3,
      T = 12;
    const keyBias = tf.tensor2d(
      Array.from({ length: B * T }, (_, i) => (i % T < i / T ? NEG : 0)),
      [B, T],
    );
    const bias = tf.add(causalBias(T), tf.reshape(keyBias, [B, 1, 1, T]));
    compare(B, 2, T, bias);
    tf.dispose([keyBias, bias]);
  });
  it('leaves shapes it does not take to the composed ops', () => {
    const bias = causalBias(6);
    expect(wasmSoftmaxUsable(1, 6, 6, bias)).toBe(false); // Tk not a multiple of 4
    expect(wasmSoftmaxUsable(2, 8, 8, bias)).toBe(false); // bias of another T
    bias.dispose();
  });
  it('leaves no tensor behind', () => {
    const bias = causalBias(8),
      raw = tf.randomNormal([4, 8, 8], 0, 1, 'float32', 2) as tf.Tensor3D,
      w = tf.onesLike(raw);
    run(raw, w, bias, 2, 2, true);
    const before = tf.memory().numTensors;
    for (let i = 0; i < 3; i++) run(raw, w, bias, 2, 2, true);
    expect(tf.memory().numTensors).toBe(before);
    tf.dispose([bias, raw, w]);
  });
});
