/**
 * The decode kernels of src/core/backend/wasm/decode.ts against the composed tfjs ops they replace, bit for bit on
 * the wasm backend: LayerNorm (ops.ts composedLayerNorm), the residual add of an affine output plus LayerNorm, GELU's
 * halves around tf.tanh (ops.ts gelu), the cached attention scores and values against the concat + bmmNT + scale +
 * bias + softmax + bmm of transformer.ts (padding keys, a position past the prefill, several heads, ragged key
 * counts), and the cache's bookkeeping (prefill copy, freeing, errors).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '../../../../src/core/tf';
import { Rng } from '../../../../src/core/rng';
import { composedLayerNorm, gelu } from '../../../../src/core/model/ops';
import {
  DECODE_KERNELS,
  registerDecodeKernels,
  wasmDecodeAvailable,
  WasmKvCache,
} from '../../../../src/core/backend/wasm/decode';
import { useBackend } from '../../../helpers/backend';

beforeAll(async () => {
  await useBackend('wasm');
  registerDecodeKernels();
});

const rng = new Rng(33);
const randn = (shape: number[], s = 1, m = 0) =>
  tf.tensor(
    Float32Array.from({ length: shape.reduce((a, b) => a * b, 1) }, () => m + s * rng.normal()),
    shape,
  );
const bits = (t: tf.Tensor) => Array.from(new Uint32Array((t.dataSync() as Float32Array).slice().buffer));
const run = (name: string, inputs: Record<string, tf.Tensor>, attrs: Record<string, number> = {}) =>
  tf.engine().runKernel(name, inputs as unknown as tf.NamedTensorMap, attrs) as tf.Tensor | tf.Tensor[];

describe('wasm decode kernels', () => {
  it('are available on wasm with the SIMD module', () => {
    expect(wasmDecodeAvailable()).toBe(true);
  });

  it("LayerNorm and residual + LayerNorm give the composed ops' bits", () => {
    const before = tf.memory().numTensors;
    for (const [R, d] of [
      [32, 128],
      [5, 48],
      [3, 7],
    ])
      tf.tidy(() => {
        const x = randn([R, d], 3, 0.5),
          y = randn([R, d]),
          bias = randn([d], 0.1),
          g = randn([d], 0.1, 1),
          b = randn([d], 0.1);
        const ref = composedLayerNorm(x, g, b);
        const got = run(DECODE_KERNELS.layerNorm, { x, gamma: g, beta: b }) as tf.Tensor;
        expect(bits(got), `LayerNorm ${R}×${d}`).toEqual(bits(ref));
        const xr = tf.add(x, tf.add(y, bias)),
          lr = composedLayerNorm(xr, g, b);
        const [xo, lo] = run(DECODE_KERNELS.residualLayerNorm, { x, y, bias, gamma: g, beta: b }) as tf.Tensor[];
        expect(bits(xo)).toEqual(bits(xr));
        expect(bits(lo), `residual LayerNorm ${R}×${d}`).toEqual(bits(lr));
      });
    expect(tf.memory().numTensors).toBe(before);
  });

  it("GELU's halves around tf.tanh give ops.ts gelu's bits on bias-added rows", () => {
    const y = randn([32, 512], 2),
      bias = randn([512], 0.5);
    const ref = gelu(tf.add(y, bias));
    const [u, inner] = run(DECODE_KERNELS.geluInner, { y, bias }) as tf.Tensor[];
    const t = tf.tanh(inner);
    const got = run(DECODE_KERNELS.geluOut, { u, t }) as tf.Tensor;
    expect(bits(got)).toEqual(bits(ref));
    tf.dispose([y, bias, ref, u, inner, t, got]);
  });

  it("cached scores and values give transformer.ts' concat + bmmNT + softmax + bmm bits", () => {
    const before = tf.memory().numTensors;
    for (const [B, h, hs, T0, steps] of [
      [3, 2, 8, 5, 3],
      [2, 4, 32, 47, 3],
      [1, 1, 5, 1, 2],
    ]) {
      const d = h * hs,
        tMax = T0 + steps,
        scale = 1 / Math.sqrt(hs);
      // row b: b padded keys
      const kb = Float32Array.from({ length: B * T0 }, (_, i) => (i % T0 < ((i / T0) | 0) ? -1e9 : 0));
      let k = randn([B * h, T0, hs]) as tf.Tensor3D,
        v = randn([B * h, T0, hs]) as tf.Tensor3D;
      const c = new WasmKvCache(B, h, hs, tMax, 2);
      c.fill(1, k, v);
      for (let b = 0; b < B; b++) c.keyBias.set(kb.subarray(b * T0, (b + 1) * T0), b * tMax);
      for (let s = 0; s < steps; s++) {
        tf.engine().startScope();
        const t = T0 + s,
          Tk = t + 1;
        const qkv = randn([B, 3 * d]),
          bqkv = randn([3 * d], 0.1);
        const split = (j: number) =>
          tf.reshape(
            tf.transpose(
              tf.reshape(tf.add(tf.slice(qkv, [0, j * d], [B, d]), tf.slice(bqkv, [j * d], [d])), [B, 1, h, hs]),
              [0, 2, 1, 3],
            ),
            [B * h, 1, hs],
          ) as tf.Tensor3D;
        const q = split(0),
          kn = tf.keep(tf.concat([k, split(1)], 1) as tf.Tensor3D),
          vn = tf.keep(tf.concat([v, split(2)], 1) as tf.Tensor3D);
        tf.dispose([k, v]);
        [k, v] = [kn, vn];
        const keyBias = tf.tensor2d(
          Array.from({ length: B }, (_, b) => [...kb.subarray(b * T0, (b + 1) * T0), ...Array<number>(s + 1).fill(0)]),
          [B, Tk],
        );
        const refS = tf.add(
          tf.reshape(tf.mul(tf.matMul(q, k, false, true), scale), [B, h, 1, Tk]),
          tf.reshape(keyBias, [B, 1, 1, Tk]),
        );
        const refP = tf.softmax(refS);
        const refY = tf.reshape(tf.matMul(tf.reshape(refP, [B * h, 1, Tk]), v), [B, d]);
        const gotS = run(DECODE_KERNELS.scores, { qkv, bqkv }, { cache: c.id, layer: 1, t, scale }) as tf.Tensor;
        expect(gotS.shape).toEqual([B * h, Tk]);
        expect(bits(gotS), `scores B ${B} h ${h} hs ${hs} t ${t}`).toEqual(bits(refS));
        const gotY = run(DECODE_KERNELS.values, { probs: tf.softmax(gotS) }, { cache: c.id, layer: 1 }) as tf.Tensor;
        expect(bits(gotY), `values B ${B} h ${h} hs ${hs} t ${t}`).toEqual(bits(refY));
        tf.engine().endScope();
      }
      c.dispose();
      c.dispose(); // idempotent
      const z = tf.zeros([B * h, T0]);
      expect(() => run(DECODE_KERNELS.values, { probs: z }, { cache: c.id, layer: 1 })).toThrow(
        /KV cache \d+ is disposed/,
      );
      z.dispose();
      tf.dispose([k, v]);
    }
    expect(tf.memory().numTensors).toBe(before);
  });

  it('refuses a prefill cache of the wrong shape and a position past the cache', () => {
    const c = new WasmKvCache(2, 2, 4, 3, 1);
    const k = tf.zeros([4, 4, 4]) as tf.Tensor3D;
    expect(() => c.fill(0, k, k)).toThrow(/do not fit \[4, ≤ 3, 4\]/);
    const qkv = tf.zeros([2, 24]),
      bqkv = tf.zeros([24]);
    expect(() => run(DECODE_KERNELS.scores, { qkv, bqkv }, { cache: c.id, layer: 0, t: 3, scale: 1 })).toThrow(
      /position 3 is past the cache's 3/,
    );
    c.dispose();
    tf.dispose([k, qkv, bqkv]);
  });
});
