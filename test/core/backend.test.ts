import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '../../src/core/tf';
import { Rng } from '../../src/core/rng';
import { useBackend } from '../helpers/backend';

beforeAll(() => useBackend('cpu')); // registers the fast cpu kernels

/** Reference broadcasting op in plain JS (NumPy rules). */
function ref(a: Float32Array, as: number[], b: Float32Array, bs: number[], op: (x: number, y: number) => number) {
  const n = Math.max(as.length, bs.length);
  const A = [...Array(n - as.length).fill(1), ...as],
    Bs = [...Array(n - bs.length).fill(1), ...bs];
  const out = A.map((x, i) => Math.max(x, Bs[i]));
  const size = out.reduce((p, c) => p * c, 1);
  const res = new Float32Array(size);
  const flat = (shape: number[], loc: number[]) =>
    loc.reduce((acc, l, i) => acc * shape[i] + (shape[i] === 1 ? 0 : l), 0);
  for (let i = 0; i < size; i++) {
    const loc: number[] = [];
    let r = i;
    for (let ax = n - 1; ax >= 0; ax--) {
      loc.unshift(r % out[ax]);
      r = Math.floor(r / out[ax]);
    }
    res[i] = op(a[flat(A, loc)], b[flat(Bs, loc)]);
  }
  return { res, out };
}

describe('fast cpu kernels', () => {
  const rng = new Rng(1);
  const cases: [number[], number[]][] = [
    [
      [3, 4],
      [3, 4],
    ],
    [[3, 4], [4]],
    [
      [3, 4],
      [3, 1],
    ],
    [
      [2, 1, 4],
      [1, 3, 1],
    ],
    [
      [2, 3, 4, 5],
      [2, 1, 4, 5],
    ],
    [[5], []],
    [[], [2, 2]],
    [
      [4, 1],
      [1, 6],
    ],
  ];
  const ops: [string, (a: tf.Tensor, b: tf.Tensor) => tf.Tensor, (x: number, y: number) => number][] = [
    ['add', tf.add, (x, y) => x + y],
    ['sub', tf.sub, (x, y) => x - y],
    ['mul', tf.mul, (x, y) => x * y],
    ['div', tf.div, (x, y) => x / y],
  ];
  for (const [as, bs] of cases)
    for (const [name, f, op] of ops) {
      it(`${name} [${as}] with [${bs}] equals the reference bit for bit`, async () => {
        const a = Float32Array.from({ length: as.reduce((p, c) => p * c, 1) }, () => rng.normal());
        const b = Float32Array.from({ length: bs.reduce((p, c) => p * c, 1) }, () => rng.normal() + 3);
        const got = f(tf.tensor(a, as), tf.tensor(b, bs));
        const want = ref(a, as, b, bs, op);
        expect(got.shape).toEqual(want.out.length ? want.out : []);
        expect(Array.from(await got.data())).toEqual(Array.from(want.res));
      });
    }
  it('int32 inputs keep the stock behaviour', async () => {
    expect(Array.from(await tf.add(tf.tensor1d([1, 2], 'int32'), tf.scalar(3, 'int32')).data())).toEqual([4, 5]);
  });
  it('softmax over the last axis sums to 1 and matches exp/sum', async () => {
    const x = tf.tensor2d([
      [1, 2, 3],
      [-1000, 0, 1000],
    ]);
    const s = Array.from(await tf.softmax(x).data());
    const e = [Math.exp(-2), Math.exp(-1), 1],
      z = e[0] + e[1] + e[2];
    e.forEach((v, i) => expect(s[i]).toBeCloseTo(v / z, 6));
    expect(s.slice(3)).toEqual([0, 0, 1]);
  });
});
