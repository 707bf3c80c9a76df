/**
 * Exp on wasm in JavaScript (src/core/backend/wasm/exp.ts) against the stock kernel (the C library's expf): the same
 * words for 2^20 float32 bit patterns drawn uniformly, for log-softmax-like inputs (≤ 0, as exp(x − max) sees
 * them), around the special-case thresholds (±88, the overflow and underflow limits) and on ±0, subnormals, ±∞;
 * NaN stays NaN; nothing is left behind.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '../../../../src/core/tf';
import { Rng } from '../../../../src/core/rng';
import { setWasmExpEnabled } from '../../../../src/core/backend/wasm/exp';
import { useBackend } from '../../../helpers/backend';

beforeAll(() => useBackend('wasm'));

const rng = new Rng(13);
/** exp's words with this kernel on or off (the stock kernel). */
function expWords(x: Float32Array, on: boolean): Uint32Array {
  const was = setWasmExpEnabled(on);
  try {
    let out = new Uint32Array(0);
    tf.tidy(() => {
      out = new Uint32Array((tf.exp(tf.tensor1d(x)).dataSync() as Float32Array).slice().buffer);
    });
    return out;
  } finally {
    setWasmExpEnabled(was);
  }
}
/** Inputs where the words differ, NaNs (any payload) counted equal. */
function mismatches(x: Float32Array, a: Uint32Array, b: Uint32Array): string[] {
  const fa = new Float32Array(a.slice().buffer),
    fb = new Float32Array(b.slice().buffer),
    out: string[] = [];
  for (let i = 0; i < x.length && out.length < 5; i++)
    if (a[i] !== b[i] && !(Number.isNaN(fa[i]) && Number.isNaN(fb[i]))) out.push(`exp(${x[i]}): ${fa[i]} vs ${fb[i]}`);
  return out;
}
const check = (x: Float32Array) => expect(mismatches(x, expWords(x, true), expWords(x, false))).toEqual([]);

describe('Exp on wasm in JavaScript', () => {
  it("gives the stock kernel's words on 2^20 uniformly drawn bit patterns", () => {
    check(
      new Float32Array(
        Uint32Array.from({ length: 1 << 20 }, () => ((rng.int(0x10000) << 16) | rng.int(0x10000)) >>> 0).buffer,
      ),
    );
  });
  it("gives the stock kernel's words on log-softmax-like inputs", () => {
    check(Float32Array.from({ length: 1 << 18 }, () => -Math.abs(8 * rng.normal())));
  });
  it('matches around the special-case thresholds and on special values', () => {
    const edges = [88, -88, 88.72283172607422, -103.972076416015625, 2 ** -25, 0.5, -0.5];
    const words: number[] = [];
    const b = new Float32Array(1),
      u = new Uint32Array(b.buffer);
    for (const e of edges) {
      b[0] = e;
      for (let d = -50; d <= 50; d++) words.push((u[0] + d) >>> 0);
    }
    const x = Float32Array.from([
      ...new Float32Array(Uint32Array.from(words).buffer),
      0,
      -0,
      1e-45,
      -1e-45,
      Infinity,
      -Infinity,
      -87.5,
      87.5,
      1,
    ]);
    check(x);
    const v = new Float32Array(expWords(Float32Array.from([NaN, 0, 1, -Infinity, Infinity]), true).buffer);
    expect(Number.isNaN(v[0])).toBe(true);
    expect(Array.from(v.slice(1))).toEqual([1, Math.fround(Math.E), 0, Infinity]);
  });
  it('leaves no tensor behind', () => {
    const x = tf.randomNormal([1001], 0, 1, 'float32', 4);
    const before = tf.memory().numTensors;
    for (let i = 0; i < 3; i++) tf.dispose(tf.exp(x));
    expect(tf.memory().numTensors).toBe(before);
    x.dispose();
  });
});
