/**
 * The SIMD BatchMatMul of src/core/backend/wasm/batch-matmul.ts against tfjs' stock wasm kernel: the same bits on
 * every transpose combination, on ragged shapes (rows and columns that leave remainders of the 4×2·4 tile, shared
 * dimensions below, at and across the stock loop's 48-wide blocks) and on 4-D operands; batch broadcasting equal to
 * the product with the operand tiled out; the plain 2-D product left to XNNPACK; the module alone over a shared
 * memory (the page's threaded build) against the stock loop's sums written out in float32. Also the LEB128 encoders
 * of wasm/emit.ts on known values.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '../../../../src/core/tf';
import { Rng } from '../../../../src/core/rng';
import { setWasmMatMulEnabled, wasmMatMulActive } from '../../../../src/core/backend/wasm/kernels';
import { instantiateMatMul, K_BLOCK, matMulModuleBytes } from '../../../../src/core/backend/wasm/batch-matmul';
import { sleb, uleb } from '../../../../src/core/backend/wasm/emit';
import { useBackend } from '../../../helpers/backend';

beforeAll(() => useBackend('wasm'));

const rng = new Rng(21);
const randn = (shape: number[]) =>
  tf.tensor(
    Float32Array.from({ length: shape.reduce((a, b) => a * b, 1) }, () => rng.normal()),
    shape,
  );
const bits = (t: tf.Tensor) => Array.from(new Uint32Array((t.dataSync() as Float32Array).slice().buffer));

/** The product with the stock kernel and with the SIMD one: [stock bits, simd bits]. */
function both(a: tf.Tensor, b: tf.Tensor, ta: boolean, tb: boolean): [number[], number[]] {
  setWasmMatMulEnabled(false);
  const s = tf.matMul(a, b, ta, tb);
  setWasmMatMulEnabled(true);
  const m = tf.matMul(a, b, ta, tb);
  expect(m.shape).toEqual(s.shape);
  const out: [number[], number[]] = [bits(s), bits(m)];
  tf.dispose([s, m]);
  return out;
}

describe('SIMD BatchMatMul on wasm', () => {
  it('is active on the wasm backend', () => {
    expect(wasmMatMulActive()).toBe(true);
  });

  it("gives the stock kernel's bits for every transpose combination and ragged shapes", () => {
    const before = tf.memory().numTensors;
    // [batch, M, N, K]: remainders of the 4-row and 8/4/1-column tiles; K below, at, just over and across 48.
    const shapes = [
      [3, 5, 7, 1],
      [2, 9, 13, 47],
      [4, 4, 8, 48],
      [2, 7, 12, 49],
      [3, 6, 33, 130],
      [1, 3, 5, 96],
      [5, 128, 24, 24],
    ];
    let checked = 0;
    for (const [batch, M, N, K] of shapes)
      for (const ta of [false, true])
        for (const tb of [false, true]) {
          const a = randn(ta ? [batch, K, M] : [batch, M, K]),
            b = randn(tb ? [batch, N, K] : [batch, K, N]);
          const [stock, simd] = both(a, b, ta, tb);
          expect(simd, `batch ${batch} M ${M} N ${N} K ${K} ta ${ta} tb ${tb}`).toEqual(stock);
          checked += stock.length;
          tf.dispose([a, b]);
        }
    expect(checked).toBe(4 * shapes.reduce((s, [b, m, n]) => s + b * m * n, 0));
    expect(tf.memory().numTensors).toBe(before);
  });

  it("gives the stock kernel's bits on 4-D operands (attention [B, h, T, hs]) and on 2-D transposed ones", () => {
    const q = randn([2, 3, 10, 6]),
      k = randn([2, 3, 10, 6]);
    const [s1, m1] = both(q, k, false, true);
    expect(m1).toEqual(s1);
    const x = randn([9, 5]),
      w = randn([11, 5]);
    const [s2, m2] = both(x, w, false, true);
    expect(m2).toEqual(s2);
    tf.dispose([q, k, x, w]);
  });

  it('broadcasts a batch of 1 as the operand tiled out', () => {
    const a = randn([4, 6, 5]),
      b = randn([1, 5, 9]);
    const y = tf.matMul(a, b),
      tiled = tf.matMul(a, tf.tile(b, [4, 1, 1]));
    expect(y.shape).toEqual([4, 6, 9]);
    expect(bits(y)).toEqual(bits(tiled));
    const c = randn([1, 7, 6]); // with both flags: a [4, 6, 5] gives M 5, K 6; c gives N 7
    const y2 = tf.matMul(a, c, true, true),
      t2 = tf.matMul(a, tf.tile(c, [4, 1, 1]), true, true);
    expect(y2.shape).toEqual([4, 5, 7]);
    expect(bits(y2)).toEqual(bits(t2));
    const y3 = tf.matMul(c, a, false, false),
      t3 = tf.matMul(tf.tile(c, [4, 1, 1]), a);
    expect(y3.shape).toEqual([4, 7, 5]);
    expect(bits(y3)).toEqual(bits(t3));
    tf.dispose([a, b, c, y, tiled, y2, t2, y3, t3]);
  });

  it('leaves the plain 2-D product to the stock kernel (XNNPACK): same bits either way', () => {
    const a = randn([7, 12]),
      b = randn([12, 10]);
    const [stock, simd] = both(a, b, false, false);
    expect(simd).toEqual(stock);
    tf.dispose([a, b]);
  });

  it('computes a hand-checked product, including a shared dimension of two blocks', () => {
    // a = [[1, 2, 3]], b = [[4], [5], [6]] transposed flags: 1·4 + 2·5 + 3·6 = 32.
    const y = tf.matMul(tf.tensor3d([1, 2, 3], [1, 3, 1]), tf.tensor3d([4, 5, 6], [1, 1, 3]), true, true);
    expect(Array.from(y.dataSync())).toEqual([32]);
    // 60 ones times 60 twos: 48·2 in the first block + 12·2 in the second = 120.
    const z = tf.matMul(tf.ones([2, 1, 60]), tf.fill([2, 60, 1], 2));
    expect(Array.from(z.dataSync())).toEqual([120, 120]);
    tf.dispose([y, z]);
  });
});

describe('the kernel module on its own memory', () => {
  it(
    "runs over a shared memory (the page's threaded wasm build) with the stock loop's sums, transposing " +
      'b through tr',
    () => {
      const mem = new WebAssembly.Memory({ initial: 1, maximum: 65536, shared: true });
      const mod = instantiateMatMul(mem);
      expect(mod).not.toBeNull();
      const [batch, M, N, K] = [2, 5, 6, 53];
      const heap = new Float32Array(mem.buffer);
      const A = 0,
        Bt = batch * M * K,
        Bp = Bt + batch * N * K,
        O = Bp + batch * K * N; // float offsets
      for (let i = 0; i < Bp; i++) heap[i] = rng.normal();
      mod!.tr(Bt * 4, Bp * 4, batch, N, K); // b stored [N, K] per batch → [K, N]
      mod!.mm(A * 4, Bp * 4, O * 4, batch, M, N, K, M * K * 4, K * 4, 4, K * N * 4);
      for (let t = 0; t < batch; t++)
        for (let i = 0; i < M; i++)
          for (let j = 0; j < N; j++) {
            let out = 0;
            for (let k0 = 0; k0 < K; k0 += K_BLOCK) {
              let s = 0;
              for (let k = k0; k < Math.min(k0 + K_BLOCK, K); k++)
                s = Math.fround(s + Math.fround(heap[A + (t * M + i) * K + k] * heap[Bt + (t * N + j) * K + k]));
              out = Math.fround(out + s);
            }
            expect(heap[O + (t * M + i) * N + j]).toBe(out);
          }
    },
  );
});

describe('wasm-emit encoders', () => {
  it("writes LEB128 as the WebAssembly specification's examples", () => {
    expect(uleb(0)).toEqual([0]);
    expect(uleb(127)).toEqual([0x7f]);
    expect(uleb(128)).toEqual([0x80, 0x01]);
    expect(uleb(624485)).toEqual([0xe5, 0x8e, 0x26]);
    expect(uleb(65536)).toEqual([0x80, 0x80, 0x04]);
    expect(sleb(0)).toEqual([0]);
    expect(sleb(-1)).toEqual([0x7f]);
    expect(sleb(63)).toEqual([0x3f]);
    expect(sleb(64)).toEqual([0xc0, 0x00]);
    expect(sleb(-123456)).toEqual([0xc0, 0xbb, 0x78]);
    expect(() => uleb(-1)).toThrow(/u32/);
  });

  it('builds modules the engine validates for shared and unshared memory, and refuses a bad tile', () => {
    expect(WebAssembly.validate(matMulModuleBytes({ rows: 4, vecs: 2 }, false))).toBe(true);
    expect(WebAssembly.validate(matMulModuleBytes({ rows: 1, vecs: 1 }, true))).toBe(true);
    expect(() => matMulModuleBytes({ rows: 0, vecs: 2 }, false)).toThrow(/rows must be 1–8/);
  });
});
