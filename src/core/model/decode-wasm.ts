/**
 * The KV-cached decoding step on tfjs' wasm backend with the kernels of backend/wasm/decode.ts: the same numbers as
 * model/transformer.ts `decodeStep` to the bit, in 50 kernel calls per step for the `small` model (the head product
 * included) instead of 412.
 *
 * Per step: the token + position embedding is summed on the CPU from copies of wte and wpe (float32 adds, as tfjs'
 * Add) and uploaded once; per block, LayerNorm (fused with the previous residual add), one [d, 3d] projection
 * (XNNPACK computes each output column as the three sliced [d, d] products do), the cached attention scores, tfjs'
 * Softmax, the cached attention values, the output projection, the MLP's two products around tfjs' Tanh. Keys and
 * values are written in place into a preallocated cache instead of concatenated at every token.
 */
import * as tf from '../tf';
import { DECODE_KERNELS, registerDecodeKernels, wasmDecodeAvailable, WasmKvCache } from '../backend/wasm/decode';
import type { ModelConfig } from './config';
import type { Params } from './params';
import type { LayerCache } from './transformer';

let enabled = true;

/**
 * Switch the fused wasm decoding step off (false: `sampleResponses` runs transformer.ts `decodeStep` on every
 * backend) or back on; for comparing the two in one process (tests, `npm run bench -- --wasm-decode`). Returns the
 * previous setting.
 */
export function setWasmDecodeEnabled(on: boolean): boolean {
  const was = enabled;
  enabled = on;
  return was;
}

/** Whether `sampleResponses` will use `WasmDecoder`: switched on, the wasm backend active with its SIMD module. */
export function wasmDecodeUsable(): boolean {
  return enabled && wasmDecodeAvailable();
}

const run = (name: string, inputs: Record<string, tf.Tensor>, attrs: Record<string, number> = {}) =>
  tf.engine().runKernel(name, inputs as unknown as tf.NamedTensorMap, attrs) as tf.Tensor | tf.Tensor[];

/**
 * Decoding state of one `sampleResponses` call on wasm: the KV cache in the heap and CPU copies of the embeddings.
 * Dispose it (frees the cache) when done.
 */
export class WasmDecoder {
  private readonly cache: WasmKvCache;
  private readonly d: number;

  /**
   * @param wte [V, d] and wpe [S, d] float32 values of the embeddings (read once by the caller).
   * @param prefill the prefill pass's caches (k, v [B·h, T0, hs] per layer), copied to positions 0…T0−1.
   * @param keyBias [B, T0] float32: the prefill's key bias (0 real, NEG padding); later positions get 0.
   * @param tMax positions the cache holds (T0 + the response tokens).
   * @throws Error off wasm or without the SIMD module.
   */
  constructor(
    private readonly p: Params,
    private readonly cfg: ModelConfig,
    readonly B: number,
    tMax: number,
    private readonly wte: Float32Array,
    private readonly wpe: Float32Array,
    prefill: LayerCache[],
    keyBias: Float32Array,
  ) {
    registerDecodeKernels();
    const h = cfg.nHeads,
      d = cfg.dModel;
    this.d = d;
    this.cache = new WasmKvCache(B, h, d / h, tMax, cfg.nLayers);
    const T0 = prefill[0].k.shape[1];
    for (let b = 0; b < B; b++) this.cache.keyBias.set(keyBias.subarray(b * T0, (b + 1) * T0), b * tMax);
    prefill.forEach((c, i) => this.cache.fill(i, c.k, c.v));
  }

  /**
   * One decoding step: ids [B] at positions pos [B], the new keys/values written at cache position t (the caller
   * steps t by one from T0). Returns the final-LayerNorm hidden states [B, d] float32 (the caller disposes them).
   */
  step(ids: Int32Array, pos: Int32Array, t: number): tf.Tensor2D {
    const { p, cfg, B, d, wte, wpe } = this;
    const x0 = new Float32Array(B * d);
    for (let b = 0; b < B; b++) {
      const te = ids[b] * d,
        pe = pos[b] * d;
      for (let j = 0; j < d; j++) x0[b * d + j] = Math.fround(wte[te + j] + wpe[pe + j]);
    }
    const scale = 1 / Math.sqrt(d / cfg.nHeads),
      id = this.cache.id;
    return tf.tidy(() => {
      let x: tf.Tensor = tf.tensor2d(x0, [B, d]);
      let a = run(DECODE_KERNELS.layerNorm, { x, gamma: p['h0.ln1.g'], beta: p['h0.ln1.b'] }) as tf.Tensor;
      for (let i = 0; i < cfg.nLayers; i++) {
        const qkv = tf.matMul(a as tf.Tensor2D, p[`h${i}.attn.wqkv`] as tf.Tensor2D);
        const s = run(
          DECODE_KERNELS.scores,
          { qkv, bqkv: p[`h${i}.attn.bqkv`] },
          { cache: id, layer: i, t, scale },
        ) as tf.Tensor;
        const y = run(DECODE_KERNELS.values, { probs: tf.softmax(s) }, { cache: id, layer: i }) as tf.Tensor2D;
        const o = tf.matMul(y, p[`h${i}.attn.wo`] as tf.Tensor2D);
        [x, a] = run(DECODE_KERNELS.residualLayerNorm, {
          x,
          y: o,
          bias: p[`h${i}.attn.bo`],
          gamma: p[`h${i}.ln2.g`],
          beta: p[`h${i}.ln2.b`],
        }) as tf.Tensor[];
        const fc = tf.matMul(a as tf.Tensor2D, p[`h${i}.mlp.wfc`] as tf.Tensor2D);
        const [u, inner] = run(DECODE_KERNELS.geluInner, { y: fc, bias: p[`h${i}.mlp.bfc`] }) as tf.Tensor[];
        const g = run(DECODE_KERNELS.geluOut, { u, t: tf.tanh(inner) }) as tf.Tensor2D;
        const m = tf.matMul(g, p[`h${i}.mlp.wproj`] as tf.Tensor2D);
        const ln = i + 1 < cfg.nLayers ? `h${i + 1}.ln1` : 'lnf';
        [x, a] = run(DECODE_KERNELS.residualLayerNorm, {
          x,
          y: m,
          bias: p[`h${i}.mlp.bproj`],
          gamma: p[`${ln}.g`],
          beta: p[`${ln}.b`],
        }) as tf.Tensor[];
      }
      return a as tf.Tensor2D;
    });
  }

  /** Free the cache (idempotent). */
  dispose(): void {
    this.cache.dispose();
  }
}
