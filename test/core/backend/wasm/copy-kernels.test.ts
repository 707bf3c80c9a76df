/**
 * The copy kernels of src/core/backend/wasm/copy-kernels.ts (Transpose and GatherV2 on the wasm backend) against
 * tfjs' stock wasm kernels: the same words on the training step's shapes and on ragged ones (sides that leave
 * remainders of the 8×8 block), size-1 axes, permutations of runs (left to the stock kernel), int32 data, NaN
 * payloads; permutations outside the kernel's forms and out-of-range indices left to the stock kernel; swapForm on
 * hand-worked permutations; no tensor left behind.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '../../../../src/core/tf';
import { Rng } from '../../../../src/core/rng';
import { setWasmCopyKernelsEnabled, swapCopy, swapForm } from '../../../../src/core/backend/wasm/copy-kernels';
import { useBackend } from '../../../helpers/backend';

beforeAll(() => useBackend('wasm'));

const rng = new Rng(5);
const size = (s: number[]) => s.reduce((a, b) => a * b, 1);
const randn = (shape: number[]) =>
  tf.tensor(
    Float32Array.from({ length: size(shape) }, () => rng.normal()),
    shape,
  );
const words = (t: tf.Tensor) => Array.from(new Uint32Array((t.dataSync() as Float32Array | Int32Array).slice().buffer));

/** `op` with the stock kernels and with the copy kernels: [stock words, copy words], shapes checked equal. */
function both(op: () => tf.Tensor): [number[], number[]] {
  setWasmCopyKernelsEnabled(false);
  const s = op();
  setWasmCopyKernelsEnabled(true);
  const c = op();
  expect(c.shape).toEqual(s.shape);
  expect(c.dtype).toBe(s.dtype);
  const out: [number[], number[]] = [words(s), words(c)];
  tf.dispose([s, c]);
  return out;
}

describe('swapForm', () => {
  it('reduces permutations to [batch, R, C, W] → [batch, C, R, W]', () => {
    expect(swapForm([4096, 128], [1, 0])).toEqual({ batch: 1, R: 4096, C: 128, W: 1 });
    expect(swapForm([32, 128, 4, 32], [0, 2, 1, 3])).toEqual({ batch: 32, R: 128, C: 4, W: 32 }); // head split
    expect(swapForm([32, 4, 128, 32], [0, 2, 1, 3])).toEqual({ batch: 32, R: 4, C: 128, W: 32 }); // head merge
    expect(swapForm([5, 6, 7], [0, 2, 1])).toEqual({ batch: 5, R: 6, C: 7, W: 1 });
    expect(swapForm([2, 3, 4], [2, 0, 1])).toEqual({ batch: 1, R: 6, C: 4, W: 1 }); // axes 0, 1 move together
    expect(swapForm([2, 3, 4], [1, 0, 2])).toEqual({ batch: 1, R: 2, C: 3, W: 4 });
    expect(swapForm([1, 9, 1, 3], [2, 3, 0, 1])).toEqual({ batch: 1, R: 9, C: 3, W: 1 }); // size-1 axes dropped
  });
  it('is null where no data moves or the permutation is not a swap of two groups', () => {
    expect(swapForm([3, 4], [0, 1])).toBeNull();
    expect(swapForm([1, 4], [1, 0])).toBeNull();
    expect(swapForm([2, 3, 4], [2, 1, 0])).toBeNull();
    expect(swapForm([2, 3, 4, 5], [1, 0, 3, 2])).toBeNull();
  });
  it('swapCopy moves words as the form says', () => {
    // [2, 3] → [3, 2]: rows 0 1 2 / 3 4 5 become 0 3 / 1 4 / 2 5
    const heap = new Int32Array(12);
    heap.set([0, 1, 2, 3, 4, 5]);
    swapCopy(heap, 0, 6, { batch: 1, R: 2, C: 3 });
    expect(Array.from(heap.subarray(6))).toEqual([0, 3, 1, 4, 2, 5]);
  });
});

describe('copy kernels on wasm', () => {
  it("Transpose gives the stock kernel's words on the training step's shapes and ragged ones", () => {
    const cases: [number[], number[]][] = [
      [
        [4096, 128],
        [1, 0],
      ],
      [
        [128, 512],
        [1, 0],
      ],
      [
        [13, 29],
        [1, 0],
      ],
      [
        [9, 8],
        [1, 0],
      ],
      [
        [1, 7],
        [1, 0],
      ],
      [
        [32, 128, 4, 32],
        [0, 2, 1, 3],
      ],
      [
        [32, 4, 128, 32],
        [0, 2, 1, 3],
      ],
      [
        [3, 5, 2, 7],
        [0, 2, 1, 3],
      ],
      [
        [6, 11, 17],
        [0, 2, 1],
      ],
      [
        [2, 3, 4],
        [2, 0, 1],
      ],
      [
        [2, 3, 4],
        [1, 0, 2],
      ],
      [
        [1, 9, 1, 3],
        [2, 3, 0, 1],
      ],
      [
        [2, 3, 4],
        [2, 1, 0],
      ],
      [
        [2, 3, 4, 5],
        [1, 0, 3, 2],
      ], // not a swap: the stock kernel runs
    ];
    for (const [shape, perm] of cases) {
      const x = randn(shape);
      const [s, c] = both(() => tf.transpose(x, perm));
      expect(c, `${shape} ${perm}`).toEqual(s);
      x.dispose();
    }
  });
  it('Transpose copies int32 data and NaN payloads word for word', () => {
    const xi = tf.tensor2d(
      Int32Array.from({ length: 35 }, (_, i) => i * 7919 - 100000),
      [5, 7],
      'int32',
    );
    const [si, ci] = both(() => tf.transpose(xi));
    expect(ci).toEqual(si);
    const raw = new Uint32Array(12).map((_, i) => 0x7fc00000 + i); // quiet NaNs with distinct payloads
    const xn = tf.tensor2d(new Float32Array(raw.buffer), [3, 4]);
    const [, cn] = both(() => tf.transpose(xn));
    expect(cn).toEqual([0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11].map((i) => raw[i]));
    tf.dispose([xi, xn]);
  });
  it("GatherV2 on axis 0 gives the stock kernel's rows, repeated indices included", () => {
    const table = randn([1024, 128]);
    const ids = tf.tensor1d(
      Int32Array.from({ length: 4096 }, () => rng.int(1024)),
      'int32',
    );
    const [s, c] = both(() => tf.gather(table, ids));
    expect(c).toEqual(s);
    const ids2 = tf.tensor2d(
      [
        [3, 3],
        [0, 1023],
      ],
      [2, 2],
      'int32',
    );
    const [s2, c2] = both(() => tf.gather(table, ids2));
    expect(c2).toEqual(s2);
    const t3 = randn([5, 2, 3]);
    const [s3, c3] = both(() => tf.gather(t3, tf.tensor1d([4, 0, 4], 'int32')));
    expect(c3).toEqual(s3);
    const [s4, c4] = both(() => tf.gather(t3, tf.tensor1d([1, 0], 'int32'), 1)); // axis 1: the stock kernel runs
    expect(c4).toEqual(s4);
    tf.dispose([table, ids, ids2, t3]);
  });
  it("an out-of-range index still raises the stock kernel's error", () => {
    const table = randn([4, 2]);
    expect(() => tf.gather(table, tf.tensor1d([1, 4], 'int32'))).toThrow(
      'GatherV2: the index value 4 is not in [0, 3]',
    );
    table.dispose();
  });
  it('leaves no tensor behind', () => {
    const x = randn([64, 48]);
    const ids = tf.tensor1d([0, 5, 63], 'int32');
    const before = tf.memory().numTensors;
    for (let i = 0; i < 3; i++)
      tf.tidy(
        () => void tf.gather(tf.transpose(tf.reshape(x, [4, 16, 3, 16]), [0, 2, 1, 3]), tf.tensor1d([3, 0], 'int32')),
      );
    for (let i = 0; i < 3; i++) tf.dispose([tf.transpose(x), tf.gather(x, ids)]);
    expect(tf.memory().numTensors).toBe(before);
    tf.dispose([x, ids]);
  });
});
