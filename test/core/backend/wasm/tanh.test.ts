/**
 * The SIMD Tanh on wasm (src/core/backend/wasm/tanh.ts) against the stock kernel (the C library's tanhf): the same
 * words for 2^20 float32 bit patterns drawn uniformly (every exponent, both signs), for normal inputs as GELU sees
 * them, at every branch boundary of tanhf and expm1f and its neighbours, and for ±0, subnormals, ±∞; the JavaScript
 * tail (n mod 4) and the JavaScript `tanhf` agree too; NaN stays NaN.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '../../../../src/core/tf';
import { Rng } from '../../../../src/core/rng';
import { setWasmTanhEnabled, tanhf } from '../../../../src/core/backend/wasm/tanh';
import { useBackend } from '../../../helpers/backend';

beforeAll(() => useBackend('wasm'));

const rng = new Rng(11);
const fromBits = (u: Uint32Array) => new Float32Array(u.buffer);
/** tanh's words with the SIMD kernel on or off (the stock kernel). */
function tanhWords(x: Float32Array, on: boolean): Uint32Array {
  const was = setWasmTanhEnabled(on);
  try {
    let out = new Uint32Array(0);
    tf.tidy(() => {
      out = new Uint32Array((tf.tanh(tf.tensor1d(x)).dataSync() as Float32Array).slice().buffer);
    });
    return out;
  } finally {
    setWasmTanhEnabled(was);
  }
}
/** Indices where the words differ, NaNs (any payload) counted equal. */
function mismatches(x: Float32Array, a: Uint32Array, b: Uint32Array): string[] {
  const fa = fromBits(a.slice()),
    fb = fromBits(b.slice()),
    out: string[] = [];
  for (let i = 0; i < x.length && out.length < 5; i++)
    if (a[i] !== b[i] && !(Number.isNaN(fa[i]) && Number.isNaN(fb[i]))) out.push(`tanh(${x[i]}): ${fa[i]} vs ${fb[i]}`);
  return out;
}
function check(x: Float32Array): void {
  const want = tanhWords(x, false),
    got = tanhWords(x, true);
  expect(mismatches(x, got, want)).toEqual([]);
  const js = new Uint32Array(Float32Array.from(x, tanhf).buffer);
  expect(mismatches(x, js, want)).toEqual([]);
}

describe('SIMD Tanh on wasm', () => {
  it("gives the stock kernel's words on 2^20 uniformly drawn bit patterns", () => {
    const u = Uint32Array.from({ length: 1 << 20 }, () => ((rng.int(0x10000) << 16) | rng.int(0x10000)) >>> 0);
    check(fromBits(u));
  });
  it("gives the stock kernel's words on GELU-like inputs (normal, σ 3) and a ragged tail", () => {
    check(Float32Array.from({ length: (1 << 18) + 3 }, () => 3 * rng.normal()));
  });
  it('matches at every branch boundary and its neighbours, and on special values', () => {
    // tanhf: 2^-126, log(5/3)/2, log(3)/2, 10; expm1f of ±2|x|: 2^-25, 0.5 ln2, 1.5 ln2, 27 ln2, and the k = 23 edge
    const edges = [
      0x00800000, 0x3e82c578, 0x3f0c9f54, 0x41200000, 0x32800000, 0x3e317218, 0x3f051592, 0x4115b844, 0x40fe4000,
      0x4100b000,
    ];
    const words: number[] = [];
    for (const e of edges)
      for (let d = -40; d <= 40; d++) for (const s of [0, 0x80000000]) words.push(((e + d) | s) >>> 0);
    const x = Float32Array.from([
      ...fromBits(Uint32Array.from(words)),
      0,
      -0,
      1e-45,
      -1e-45,
      1e-40,
      Infinity,
      -Infinity,
      3.4e38,
      -3.4e38,
      0.5,
      -1,
      9,
      16,
      19.9,
    ]);
    check(x);
    const nan = tanhWords(Float32Array.from([NaN, 1, NaN, -2, NaN]), true);
    const v = fromBits(nan.slice());
    expect([Number.isNaN(v[0]), Number.isNaN(v[2]), Number.isNaN(v[4])]).toEqual([true, true, true]);
    expect(Array.from(v.slice(0, 2)).slice(1)).toEqual([Math.fround(Math.tanh(1))]);
  });
  it('leaves no tensor behind', () => {
    const x = tf.randomNormal([1003], 0, 1, 'float32', 4);
    const before = tf.memory().numTensors;
    for (let i = 0; i < 3; i++) tf.dispose(tf.tanh(x));
    expect(tf.memory().numTensors).toBe(before);
    x.dispose();
  });
});
