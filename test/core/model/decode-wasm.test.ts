/**
 * `sampleResponses` with the fused wasm decoding step (src/core/model/decode-wasm.ts) against the composed one
 * (transformer.ts decodeStep, `setWasmDecodeEnabled(false)`): the same tokens, allowed sets, log-probs and entropies
 * to the bit, on left-padded prompts of different lengths, a constrained row, <eos> stops, several temperatures and
 * two model sizes; no tensor and no cache left behind across calls; a `WasmDecoder` step's hidden states equal
 * decodeStep's.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import * as tf from '../../../src/core/tf';
import { Rng } from '../../../src/core/rng';
import { modelConfig } from '../../../src/core/model/config';
import { initValues, makeVariables } from '../../../src/core/model/params';
import { sampleResponses, type SampleOptions } from '../../../src/core/model/sample';
import { freeMaskRow } from '../../../src/core/model/scoring';
import { setWasmDecodeEnabled, WasmDecoder, wasmDecodeUsable } from '../../../src/core/model/decode-wasm';
import { decodeStep, forward, NEG } from '../../../src/core/model/transformer';
import { useBackend } from '../../helpers/backend';

beforeAll(() => useBackend('wasm'));
afterEach(() => {
  setWasmDecodeEnabled(true);
});

const V = 120;
const free = freeMaskRow(V, 16, 2);
const bits = (xs: number[]) =>
  xs.map((x) => {
    const b = new Float64Array([x]);
    return Array.from(new Uint32Array(b.buffer)).join(':');
  });

/** Sample twice from the same seed, composed then fused; returns both. */
async function both(size: 'nano' | 'small', prompts: number[][], o: Omit<SampleOptions, 'rng'>, seed: number) {
  const cfg = modelConfig(size, V);
  const p = makeVariables(cfg, initValues(cfg, new Rng(seed)));
  setWasmDecodeEnabled(false);
  const ops = await sampleResponses(p, cfg, prompts, { ...o, rng: new Rng(seed + 1) });
  setWasmDecodeEnabled(true);
  expect(wasmDecodeUsable()).toBe(true);
  const before = tf.memory().numTensors;
  const fused = await sampleResponses(p, cfg, prompts, { ...o, rng: new Rng(seed + 1) });
  const again = await sampleResponses(p, cfg, prompts, { ...o, rng: new Rng(seed + 1) });
  expect(tf.memory().numTensors).toBe(before);
  tf.dispose(Object.values(p));
  return { ops, fused, again };
}

describe('fused wasm decoding step', () => {
  it(
    'samples the same tokens, log-probs and entropies as the composed step (nano, padded prompts, a ' +
      'constrained row)',
    async () => {
      const prompts = [[1, 5, 6], [1, 7, 8, 9, 10, 11, 12, 13], [4], [30, 31, 32, 33, 34]];
      const allowed = (i: number, pre: readonly number[]) =>
        i === 1 && pre.length % 2 === 1 ? new Int32Array([2, 33, 44, 90]) : null;
      for (const temperature of [1, 0.7]) {
        const { ops, fused, again } = await both(
          'nano',
          prompts,
          { temperature, maxTokens: 12, eos: 2, freeRow: free, allowed },
          4,
        );
        expect(fused.map((r) => r.tokens)).toEqual(ops.map((r) => r.tokens));
        expect(fused.map((r) => r.allowed)).toEqual(ops.map((r) => r.allowed));
        expect(fused.map((r) => bits(r.sampleLogp))).toEqual(ops.map((r) => bits(r.sampleLogp)));
        expect(fused.map((r) => bits(r.sampleEntropy))).toEqual(ops.map((r) => bits(r.sampleEntropy)));
        expect(again).toEqual(fused);
        expect(ops.flatMap((r) => r.tokens).length).toBeGreaterThan(12);
      }
    },
  );

  it('samples the same bits on small (4 heads of 32) with rows stopping at <eos> at different steps', async () => {
    const prompts = Array.from({ length: 6 }, (_, i) =>
      Array.from({ length: 3 + 2 * i }, (_, t) => 16 + ((i * 7 + t * 3) % 100)),
    );
    // Row i may only say <eos> (20) after i + 2 tokens, so the rows stop at different steps (row 5 runs to the cut).
    const allowed = (i: number, pre: readonly number[]) => (pre.length === i + 2 ? Int32Array.from([20]) : null);
    const { ops, fused } = await both(
      'small',
      prompts,
      { temperature: 1, maxTokens: 7, eos: 20, freeRow: freeMaskRow(V, 16, 20), allowed },
      8,
    );
    expect(ops.map((r) => r.tokens.length)).toEqual([3, 4, 5, 6, 7, 7]);
    expect(JSON.stringify(fused)).toBe(JSON.stringify(ops));
  });

  it("a decoder step's hidden states are decodeStep's bits", async () => {
    const cfg = modelConfig('nano', V);
    const p = makeVariables(cfg, initValues(cfg, new Rng(12)));
    const B = 2,
      T0 = 4;
    const ids = tf.tensor2d(
        [
          [0, 5, 6, 7],
          [8, 9, 10, 11],
        ],
        [B, T0],
        'int32',
      ),
      pos = tf.tensor2d(
        [
          [0, 0, 1, 2],
          [0, 1, 2, 3],
        ],
        [B, T0],
        'int32',
      );
    const kb = [NEG, 0, 0, 0, 0, 0, 0, 0];
    const pre = forward(p, cfg, ids, pos, tf.tensor2d(kb, [B, T0]), true);
    const dec = new WasmDecoder(
      p,
      cfg,
      B,
      T0 + 1,
      (await p.wte.data()) as Float32Array,
      (await p.wpe.data()) as Float32Array,
      pre.cache,
      Float32Array.from(kb),
    );
    const got = dec.step(Int32Array.from([12, 13]), Int32Array.from([3, 4]), T0);
    const ref = decodeStep(
      p,
      cfg,
      tf.tensor2d([[12], [13]], [B, 1], 'int32'),
      tf.tensor2d([[3], [4]], [B, 1], 'int32'),
      tf.tensor2d([...kb.slice(0, 4), 0, ...kb.slice(4), 0], [B, T0 + 1]),
      pre.cache,
    );
    expect(Array.from(new Uint32Array((got.dataSync() as Float32Array).slice().buffer))).toEqual(
      Array.from(new Uint32Array((ref.hidden.dataSync() as Float32Array).slice().buffer)),
    );
    expect(() => dec.step(Int32Array.from([12, 13]), Int32Array.from([4, 5]), T0 + 1)).toThrow(
      /position 5 is past the cache's 5/,
    );
    dec.dispose();
    tf.dispose([
      ids,
      pos,
      pre.hidden,
      got,
      ref.hidden,
      ...pre.cache.flatMap((c) => [c.k, c.v]),
      ...ref.cache.flatMap((c) => [c.k, c.v]),
      ...Object.values(p),
    ]);
  });
});
