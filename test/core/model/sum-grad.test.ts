/**
 * Sum's gradient on wasm (src/core/model/sum-grad.ts with backend/wasm/broadcast.ts) against tfjs' own (dy × ones):
 * the same words for sums over the trailing axis of a loss-shaped tensor, over the last two axes, with keepDims, and
 * for a sum over a leading axis (tfjs' gradient runs there); hand-computed values; no tensor left behind.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '../../../src/core/tf';
import { Rng } from '../../../src/core/rng';
import { setBroadcastSumGrad } from '../../../src/core/model/sum-grad';
import { useBackend } from '../../helpers/backend';

beforeAll(() => useBackend('wasm'));

const rng = new Rng(3);
const words = (t: tf.Tensor) => Array.from(new Uint32Array((t.dataSync() as Float32Array).slice().buffer));

/** d/dx of Σ w·sum(x·c, axes) with the row broadcast on or off: the gradient's words. */
function grad(
  x: tf.Tensor,
  c: tf.Tensor,
  w: tf.Tensor,
  axes: number | number[],
  keepDims: boolean,
  on: boolean,
): number[] {
  const was = setBroadcastSumGrad(on);
  const g = tf.grad((t: tf.Tensor) => tf.sum(tf.mul(tf.sum(tf.mul(t, c), axes, keepDims), w)))(x);
  setBroadcastSumGrad(was);
  const out = words(g);
  g.dispose();
  return out;
}

describe('Sum gradient on wasm', () => {
  it("gives tfjs' words for trailing, multi-axis, keepDims and leading-axis sums", () => {
    const before = tf.memory().numTensors;
    const cases: [number[], number | number[], boolean][] = [
      [[64, 1024], 1, false],
      [[6, 5, 4], [1, 2], false],
      [[6, 5, 4], -1, true],
      [[7, 3], 0, false],
    ];
    for (const [shape, axes, keep] of cases) {
      const n = shape.reduce((a, b) => a * b, 1);
      const x = tf.tensor(
        Float32Array.from({ length: n }, () => rng.normal()),
        shape,
      );
      const c = tf.tensor(
        Float32Array.from({ length: n }, () => rng.normal()),
        shape,
      );
      const y = tf.sum(x, axes, keep);
      const w = tf.tensor(
        Float32Array.from({ length: y.size }, () => rng.normal() * 1e3),
        y.shape,
      );
      expect(grad(x, c, w, axes, keep, true)).toEqual(grad(x, c, w, axes, keep, false));
      tf.dispose([x, c, y, w]);
    }
    expect(tf.memory().numTensors).toBe(before);
  });

  it('writes each output weight across its row (hand-computed)', () => {
    // f(x) = 2·Σ_j x[0, j] − 3·Σ_j x[1, j] → df/dx = [[2, 2, 2], [−3, −3, −3]]
    const x = tf.tensor2d([
      [1, 2, 3],
      [4, 5, 6],
    ]);
    const w = tf.tensor1d([2, -3]);
    const g = tf.grad((t: tf.Tensor) => tf.sum(tf.mul(tf.sum(t, 1), w)))(x);
    expect(Array.from(g.dataSync())).toEqual([2, 2, 2, -3, -3, -3]);
    tf.dispose([x, w, g]);
  });
});
