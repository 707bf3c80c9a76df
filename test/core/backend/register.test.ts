/**
 * The shared kernel registration (src/core/backend/register.ts): a project kernel is registered once and never
 * replaces one already there; a fast path sits in front of the stock kernel, which runs wherever the fast path
 * returns null, and wrapping twice leaves the first wrapper in place.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '../../../src/core/tf';
import { registerKernels, wrapStockKernel } from '../../../src/core/backend/register';
import { useBackend } from '../../helpers/backend';

beforeAll(() => useBackend('cpu'));

describe('kernel registration', () => {
  it('registerKernels registers a kernel once and keeps the first', () => {
    const first = () => null;
    const second = () => null;
    registerKernels('cpu', { OpdTestKernel: first });
    registerKernels('cpu', { OpdTestKernel: second });
    expect(tf.getKernel('OpdTestKernel', 'cpu')!.kernelFunc).toBe(first);
    tf.unregisterKernel('OpdTestKernel', 'cpu');
  });

  it('wrapStockKernel runs the fast path, falls back to the stock kernel on null, and wraps once', () => {
    const stock = tf.getKernel('Neg', 'cpu')!;
    const seen: number[] = [];
    // Fast path: answers only for a one-element input, with the constant 7 (so its result is told apart).
    type CpuArgs = {
      inputs: { x: tf.TensorInfo };
      backend: { makeTensorInfo(shape: number[], dtype: string, values: Float32Array): tf.TensorInfo };
    };
    wrapStockKernel('Neg', 'cpu', ({ inputs: { x }, backend }: CpuArgs) => {
      seen.push(tf.util.sizeFromShape(x.shape));
      return tf.util.sizeFromShape(x.shape) === 1
        ? backend.makeTensorInfo(x.shape, 'float32', Float32Array.of(7))
        : null;
    });
    const wrapped = tf.getKernel('Neg', 'cpu')!.kernelFunc;
    wrapStockKernel('Neg', 'cpu', () => null);
    expect(tf.getKernel('Neg', 'cpu')!.kernelFunc).toBe(wrapped);
    try {
      expect(Array.from(tf.neg(tf.tensor1d([1, -2, 3])).dataSync())).toEqual([-1, 2, -3]);
      expect(tf.neg(tf.tensor1d([5])).dataSync()[0]).toBe(7);
      expect(seen).toEqual([3, 1]);
    } finally {
      tf.unregisterKernel('Neg', 'cpu');
      tf.registerKernel(stock);
    }
    expect(tf.neg(tf.tensor1d([5])).dataSync()[0]).toBe(-5);
  });
});
