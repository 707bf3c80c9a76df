/**
 * The GEMM kernel on wasm (src/core/backend/wasm/gemm.ts, used by model/ops.ts for the linear layers' products and
 * weight gradients) against the XNNPACK products it replaces — tfjs' matMul for a·b, transpose-then-matMul for
 * aᵀ·b — word for word: on the training step's shapes, across chunk boundaries of the shared dimension (R_CHUNK)
 * and on ragged output shapes (the one-row, one-vector and scalar tiles); hand-computed sums with rounding; every tile
 * shape gives the same words; no tensor left behind.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '../../../../src/core/tf';
import { Rng } from '../../../../src/core/rng';
import {
  R_CHUNK,
  setGemmTile,
  setWasmGemmEnabled,
  wasmGemm,
  wasmGemmUsable,
} from '../../../../src/core/backend/wasm/gemm';
import { threadsOf, type WasmBackend } from '../../../../src/core/backend/wasm/heap';
import { useBackend } from '../../../helpers/backend';

beforeAll(() => useBackend('wasm'));

const rng = new Rng(33);
const words = (t: tf.Tensor) => new Uint32Array((t.dataSync() as Float32Array).slice().buffer);
/** Positions where two word arrays differ (an empty list: the same bits). */
const diff = (a: Uint32Array, b: Uint32Array) =>
  a.length !== b.length
    ? [-1]
    : Array.from(a.keys())
        .filter((i) => a[i] !== b[i])
        .slice(0, 5);
/** A float32 matrix of normal draws at mixed magnitudes (so the order of the additions shows in the low bits). */
const mat = (r: number, c: number) =>
  tf.tensor2d(
    Float32Array.from({ length: r * c }, () => rng.normal() * 10 ** rng.int(3)),
    [r, c],
  );

/** [kernel words, XNNPACK words] of aᵀ·b (tn) or a·b. */
function both(a: tf.Tensor2D, b: tf.Tensor2D, tn: boolean): [Uint32Array, Uint32Array] {
  let out: [Uint32Array, Uint32Array] | null = null;
  tf.tidy(() => {
    out = [words(wasmGemm(a, b, tn)), words(tn ? tf.matMul(tf.transpose(a) as tf.Tensor2D, b) : tf.matMul(a, b))];
  });
  return out as unknown as [Uint32Array, Uint32Array];
}

describe("GEMM in XNNPACK's order on wasm", () => {
  it('is used on the wasm backend for both products', () => {
    expect(wasmGemmUsable('tn')).toBe(true);
    expect(wasmGemmUsable('nn')).toBe(true);
  });
  it("gives XNNPACK's words on the training step's shapes", () => {
    // tn: a [R, P], b [R, N] → [P, N] (weight gradients); nn: a [M, K], b [K, N] → [M, N] (forward, input
    // gradients)
    const cases: [boolean, number, number, number][] = [
      [true, 4096, 128, 128],
      [true, 4096, 128, 512],
      [true, 4096, 512, 128],
      [true, 2048, 1024, 128],
      [false, 4096, 128, 128],
      [false, 4096, 512, 128],
      [false, 1024, 128, 1024],
      [false, 4096, 1024, 128],
    ];
    for (const [tn, d0, d1, N] of cases) {
      const a = mat(d0, d1),
        b = mat(tn ? d0 : d1, N);
      const [k, x] = both(a, b, tn);
      expect(k.length).toBe((tn ? d1 : d0) * N);
      expect(diff(k, x)).toEqual([]);
      tf.dispose([a, b]);
    }
  });
  it('matches across chunk boundaries and on ragged shapes (every tile kind)', () => {
    expect(R_CHUNK).toBe(64);
    for (const R of [1, 2, 63, 64, 65, 129, 200]) {
      for (const [P, N] of [
        [1, 1],
        [5, 3],
        [7, 13],
        [13, 8],
        [6, 4],
        [19, 21],
      ]) {
        const a = mat(R, P),
          b = mat(R, N),
          at = mat(P, R);
        expect(diff(...both(a, b, true))).toEqual([]);
        expect(diff(...both(at, b, false))).toEqual([]);
        tf.dispose([a, b, at]);
      }
    }
  });
  it('sums in order from +0 with one rounding per product and per addition (hand-computed)', () => {
    // aᵀ·b over 3 rows, one output: (+0 + 1e8·1) + 1·1 → 1e8 (float32 spacing at 1e8 is 8), + 1·7 →
    // 100000008; added as 1·1 + 1·7 first it would be 1e8 + 8 = 100000008 too, so a fourth row −1e8·1 → 8 tells:
    // in order it is (100000008 − 1e8) = 8. A second column of −0 products: +0 + (−0) = +0.
    const a = tf.tensor2d([[1e8], [1], [1], [-1e8]]),
      b = tf.tensor2d([
        [1, -0],
        [1, -0],
        [7, -0],
        [1, -0],
      ]);
    const out = tf.tidy(() => Array.from(wasmGemm(a, b, true).dataSync()));
    expect(out).toEqual([8, 0]);
    expect(Object.is(out[1], 0)).toBe(true);
    expect(diff(...both(a, b, true))).toEqual([]);
    const z = tf.tensor2d([[0, 0]]),
      zb = tf.tensor2d([[5], [6]]); // a·b with the shared dimension 2 → 0
    expect(tf.tidy(() => Array.from(wasmGemm(z, zb, false).dataSync()))).toEqual([0]);
    tf.dispose([a, b, z, zb]);
  });
  it('gives the same words with every tile shape', () => {
    const a = mat(150, 23),
      b = mat(150, 18),
      an = mat(23, 150);
    const ref = both(a, b, true)[1],
      refN = both(an, b, false)[1];
    try {
      for (const t of [
        { rows: 1, vecs: 1 },
        { rows: 4, vecs: 2 },
        { rows: 8, vecs: 1 },
        { rows: 3, vecs: 4 },
      ]) {
        setGemmTile(t);
        expect(diff(both(a, b, true)[0], ref)).toEqual([]);
        expect(diff(both(an, b, false)[0], refN)).toEqual([]);
      }
      expect(() => setGemmTile({ rows: 9, vecs: 1 })).toThrow(/rows must be 1–8/);
    } finally {
      setGemmTile();
    }
    tf.dispose([a, b, an]);
  });
  it('leaves products to XNNPACK where the backend has a thread pool', () => {
    const be = (n?: number) =>
      ({ wasm: { tfjs: n === undefined ? {} : { getThreadsCount: () => n } } }) as unknown as WasmBackend;
    expect([threadsOf(be(4)), threadsOf(be(1)), threadsOf(be(0)), threadsOf(be())]).toEqual([4, 1, 1, 1]);
    expect(threadsOf(tf.backend() as unknown as WasmBackend)).toBe(1); // Node: one thread, so the kernel runs
  });
  it('refuses mismatched shapes with a message naming them, switches off, and leaves no tensor behind', () => {
    const a = mat(4, 3),
      b = mat(5, 2);
    expect(() => wasmGemm(a, b, true)).toThrow(/same R, got float32 \[4,3\] and float32 \[5,2\]/);
    expect(() => wasmGemm(a, b, false)).toThrow(/same K/);
    const before = tf.memory().numTensors;
    const was = setWasmGemmEnabled('nn', false);
    expect(wasmGemmUsable('nn')).toBe(false);
    expect(wasmGemmUsable('tn')).toBe(true);
    setWasmGemmEnabled('nn', was);
    const c = mat(64, 8);
    for (let i = 0; i < 3; i++)
      tf.tidy(() => {
        wasmGemm(c, c, true);
        wasmGemm(tf.transpose(c) as tf.Tensor2D, c, false);
      });
    c.dispose();
    expect(tf.memory().numTensors).toBe(before);
    tf.dispose([a, b]);
  });
});
