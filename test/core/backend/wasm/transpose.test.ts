/**
 * The SIMD transpose of src/core/backend/wasm/transpose.ts against `swapCopy` (wasm/copy-kernels.ts) word for word:
 * the training step's shapes (sides of 4096, 1024, 512, 128, several column tiles), small and batched planes, a
 * column count that leaves a partial tile, NaN payloads and signed zeros; sides that are not multiples of 4 left to
 * `swapCopy`; and the Transpose kernel with the SIMD path on and off giving the same words with no tensor left behind.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '../../../../src/core/tf';
import { Rng } from '../../../../src/core/rng';
import { setWasmSimdTransposeEnabled, swapCopy } from '../../../../src/core/backend/wasm/copy-kernels';
import { simdSwapCopy } from '../../../../src/core/backend/wasm/transpose';
import { useBackend } from '../../../helpers/backend';

beforeAll(() => useBackend('wasm'));

const rng = new Rng(11);

/** Index of the first word where a and b differ (-1: none), so a failure reports a place, not two 2M-word arrays. */
function firstDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) return Math.min(a.length, b.length);
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return i;
  return -1;
}

describe('simdSwapCopy', () => {
  // A private memory: src at byte 64 (16-byte aligned) or 68 (not), dst after it.
  const cases: [number, number, number, number][] = [
    [1, 4, 4, 64],
    [1, 8, 12, 64],
    [3, 4, 8, 68],
    [1, 4096, 128, 64],
    [1, 128, 4096, 68],
    [2, 64, 132, 64],
    [1, 512, 4096, 64],
    [32, 128, 128, 64],
    [1, 4, 68, 68],
  ];
  for (const [batch, R, C, at] of cases)
    it(`copies [${batch}, ${R}, ${C}] → [${batch}, ${C}, ${R}] as swapCopy does (src at byte ${at})`, () => {
      const n = batch * R * C;
      const mem = new WebAssembly.Memory({ initial: Math.ceil((at + 8 * n + 64) / 65536) });
      const words = new Uint32Array(mem.buffer);
      const src = at,
        dst = at + 4 * n + 16;
      for (let i = 0; i < n; i++) words[src / 4 + i] = rng.int(0x100000000);
      // NaN payloads, signed zeros, infinities in the first words
      const special = [0x7fc00001, 0xffc12345, 0x7f800001, 0x80000000, 0x00000000, 0x7f800000, 0xff800000, 0x00000001];
      special.slice(0, n).forEach((w, i) => (words[src / 4 + i] = w));
      const want = new Int32Array(new ArrayBuffer(4 * 2 * n + 64));
      want.set(new Int32Array(mem.buffer, src, n), 0);
      swapCopy(want, 0, n, { batch, R, C });
      expect(simdSwapCopy(mem, src, dst, { batch, R, C })).toBe(true);
      expect(firstDiff(new Int32Array(mem.buffer, dst, n), want.subarray(n, 2 * n))).toBe(-1);
      // the source is unchanged and nothing is written past the output
      expect(firstDiff(new Int32Array(mem.buffer, src, n), want.subarray(0, n))).toBe(-1);
      expect(words[dst / 4 + n]).toBe(0);
    });

  it('declines sides that are not multiples of 4 (nothing written)', () => {
    const mem = new WebAssembly.Memory({ initial: 1 });
    const words = new Uint32Array(mem.buffer);
    words.fill(7, 0, 64);
    expect(simdSwapCopy(mem, 0, 512, { batch: 1, R: 6, C: 4 })).toBe(false);
    expect(simdSwapCopy(mem, 0, 512, { batch: 1, R: 4, C: 5 })).toBe(false);
    expect(words[128]).toBe(0);
  });
});

describe('Transpose on wasm with the SIMD path on and off', () => {
  it("gives the same words for the training step's transposes, ragged ones included, with no tensor left", () => {
    const before = tf.memory().numTensors;
    for (const shape of [
      [4096, 128],
      [4096, 1024],
      [128, 512],
      [6, 5],
      [3, 8, 12],
    ]) {
      const x = tf.tensor(
        Float32Array.from({ length: shape.reduce((a, b) => a * b, 1) }, () => rng.normal()),
        shape,
      );
      const perm = shape.length === 2 ? [1, 0] : [0, 2, 1];
      const was = setWasmSimdTransposeEnabled(false);
      const a = tf.transpose(x, perm);
      setWasmSimdTransposeEnabled(true);
      const b = tf.transpose(x, perm);
      setWasmSimdTransposeEnabled(was);
      expect(b.shape).toEqual(a.shape);
      expect(
        firstDiff(
          new Uint32Array((b.dataSync() as Float32Array).slice().buffer),
          new Uint32Array((a.dataSync() as Float32Array).slice().buffer),
        ),
      ).toBe(-1);
      tf.dispose([x, a, b]);
    }
    expect(tf.memory().numTensors).toBe(before);
  });
});
