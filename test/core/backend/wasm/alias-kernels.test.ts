/**
 * Identity and same-dtype Cast as references on wasm (src/core/backend/wasm/alias-kernels.ts): the output is the
 * input's words, it outlives the input (reference counted), a Cast to another dtype still converts, gradients that
 * save their inputs (the engine clones them with Identity) give the same bits with the stock copies, and nothing is
 * left behind.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '../../../../src/core/tf';
import { setWasmAliasKernelsEnabled } from '../../../../src/core/backend/wasm/alias-kernels';
import { useBackend } from '../../../helpers/backend';

beforeAll(() => useBackend('wasm'));

const words = (t: tf.Tensor) => Array.from(new Uint32Array((t.dataSync() as Float32Array).slice().buffer));

describe('aliasing Identity and Cast on wasm', () => {
  it('clones and same-dtype casts share the data and outlive their input', () => {
    const x = tf.tensor1d([1.5, -0, NaN, 3e-39, -7]);
    const want = words(x);
    const c = tf.clone(x),
      k = tf.cast(x, 'float32');
    const be = tf.backend() as unknown as { refCount(d: object): number };
    expect(be.refCount(x.dataId)).toBe(3);
    x.dispose();
    expect(words(c)).toEqual(want);
    expect(words(k)).toEqual(want);
    c.dispose();
    expect(Array.from(k.dataSync())).toEqual([1.5, -0, NaN, 3e-39, -7].map(Math.fround));
    expect(be.refCount(k.dataId)).toBe(1);
    k.dispose();
  });
  it('a cast to another dtype still converts', () => {
    const i = tf.tensor1d([3, -2, 0], 'int32');
    const f = tf.cast(i, 'float32');
    expect(f.dtype).toBe('float32');
    expect(Array.from(f.dataSync())).toEqual([3, -2, 0]);
    const back = tf.cast(tf.tensor1d([2.7, -1.2]), 'int32');
    expect(Array.from(back.dataSync())).toEqual([2, -1]);
    tf.dispose([i, f, back]);
  });
  it('gradients through saved inputs give the same bits as with the stock copies', () => {
    const run = (alias: boolean) => {
      const was = setWasmAliasKernelsEnabled(alias);
      try {
        return tf.tidy(() => {
          const a = tf.tensor2d([
              [0.3, -1.7, 2.25],
              [4, 0.1, -0.6],
            ]),
            b = tf.tensor2d([
              [1.1, 0.9, -3],
              [0.5, -2, 7],
            ]);
          const g = tf.grads((p: tf.Tensor, q: tf.Tensor) => tf.sum(tf.mul(tf.mul(p, q), tf.exp(p))))([a, b]);
          return g.flatMap(words);
        });
      } finally {
        setWasmAliasKernelsEnabled(was);
      }
    };
    expect(run(true)).toEqual(run(false));
  });
  it('leaves no tensor and no heap buffer behind', () => {
    const x = tf.randomNormal([64, 32], 0, 1, 'float32', 2);
    const before = tf.memory();
    for (let i = 0; i < 3; i++)
      tf.tidy(
        () =>
          void tf
            .grad((v: tf.Tensor) => tf.sum(tf.mul(v, tf.cast(tf.clone(v), 'float32'))))(x)
            .dataSync(),
      );
    const after = tf.memory();
    expect(after.numTensors).toBe(before.numTensors);
    expect(after.numDataBuffers).toBe(before.numDataBuffers);
    x.dispose();
  });
});
