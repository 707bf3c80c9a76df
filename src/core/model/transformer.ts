/**
 * Decoder-only transformer forward passes (the GPT-2 layout, Radford et al. 2019): token + position embedding,
 * pre-LayerNorm blocks with causal multi-head attention and a GELU MLP, final LayerNorm, output head tied to `wte`.
 *
 * Shapes: B sequences, T positions, d width, h heads, hs = d/h head size, V vocabulary.
 * Attention bias: additive float32, 0 where attending is allowed and −1e9 where not (causal and padding).
 */
import * as tf from '../tf';
import type { ModelConfig } from './config';
import type { Params } from './params';
import {
  attentionMask,
  attentionSoftmax,
  bmm,
  bmmNT,
  gatherRows,
  gelu,
  layerNorm,
  linear,
  matmul,
  type AttentionMask,
} from './ops';

/** Large negative additive bias for masked positions (finite, so 0·bias stays 0 and no NaN appears). */
export const NEG = -1e9;

/**
 * Key/value cache of one layer: k [B·h, Tc, hs], v [B·h, Tc, hs]. Keys are kept untransposed: the scores q·kᵀ
 * (`bmmNT`) then read q and k contiguously along hs, the fastest order of wasm's batched matMul loop.
 */
export type LayerCache = {
  k: tf.Tensor3D;
  v: tf.Tensor3D;
};

/** [B,T,d] → [B·h, T, hs] */
function splitHeads(x: tf.Tensor, B: number, T: number, h: number, hs: number): tf.Tensor3D {
  return tf.reshape(tf.transpose(tf.reshape(x, [B, T, h, hs]), [0, 2, 1, 3]), [B * h, T, hs]);
}
/** [B·h, T, hs] → [B, T, d] */
function mergeHeads(x: tf.Tensor, B: number, T: number, h: number, hs: number): tf.Tensor {
  return tf.reshape(tf.transpose(tf.reshape(x, [B, h, T, hs]), [0, 2, 1, 3]), [B, T, h * hs]);
}

/** Token + position embeddings: ids [B,T] int32, pos [B,T] int32 → [B,T,d]. */
function embed(p: Params, ids: tf.Tensor2D, pos: tf.Tensor2D): tf.Tensor {
  const [B, T] = ids.shape;
  const te = gatherRows(p.wte as tf.Tensor2D, tf.reshape(ids, [-1]) as tf.Tensor1D);
  const pe = gatherRows(p.wpe as tf.Tensor2D, tf.reshape(pos, [-1]) as tf.Tensor1D);
  return tf.reshape(tf.add(te, pe), [B, T, -1]);
}

/**
 * One block. x [B,T,d]; mask: the additive bias [B,1,Tq,Tk] or the key bias for the fused webgpu softmax
 * (ops.ts `attentionMask`); `past` (decode) holds earlier keys/values.
 * Returns the new x and this block's full K/V (for caching).
 */
function block(
  p: Params,
  i: number,
  cfg: ModelConfig,
  x: tf.Tensor,
  mask: AttentionMask,
  past?: LayerCache,
): { x: tf.Tensor; cache: LayerCache } {
  const [B, T, d] = x.shape;
  const h = cfg.nHeads,
    hs = d / h;
  const a = layerNorm(x, p[`h${i}.ln1.g`], p[`h${i}.ln1.b`]);
  // Three [d,d] projections sliced from wqkv instead of one [d,3d] projection and a split of the activation:
  // slicing the small weight is cheap, while SplitV on a [B,T,3d] activation is slow on wasm.
  const w = p[`h${i}.attn.wqkv`],
    bqkv = p[`h${i}.attn.bqkv`];
  const proj = (j: number) => linear(a, tf.slice(w, [0, j * d], [d, d]) as tf.Tensor2D, tf.slice(bqkv, [j * d], [d]));
  const qh = splitHeads(proj(0), B, T, h, hs); // [B·h,T,hs]
  let kh = splitHeads(proj(1), B, T, h, hs); // [B·h,T,hs]
  let vh = splitHeads(proj(2), B, T, h, hs); // [B·h,T,hs]
  if (past) {
    kh = tf.concat([past.k, kh], 1);
    vh = tf.concat([past.v, vh], 1);
  }
  const att = attentionSoftmax(bmmNT(qh, kh), 1 / Math.sqrt(hs), B, h, mask); // [B·h,T,Tk]
  const y = mergeHeads(bmm(att, vh), B, T, h, hs); // [B,T,d]
  x = tf.add(x, linear(y, p[`h${i}.attn.wo`] as tf.Tensor2D, p[`h${i}.attn.bo`]));
  const m = layerNorm(x, p[`h${i}.ln2.g`], p[`h${i}.ln2.b`]);
  const f = gelu(linear(m, p[`h${i}.mlp.wfc`] as tf.Tensor2D, p[`h${i}.mlp.bfc`]));
  x = tf.add(x, linear(f, p[`h${i}.mlp.wproj`] as tf.Tensor2D, p[`h${i}.mlp.bproj`]));
  return { x, cache: { k: kh, v: vh } };
}

/** Causal additive bias [1,1,T,T]: 0 on and below the diagonal, NEG above. */
export function causalBias(T: number): tf.Tensor4D {
  const m = new Float32Array(T * T);
  for (let r = 0; r < T; r++) for (let c = r + 1; c < T; c++) m[r * T + c] = NEG;
  return tf.tensor4d(m, [1, 1, T, T]);
}

/**
 * Full causal forward: ids [B,T] int32, pos [B,T] int32, keyBias [B,T] float32 (0 for real tokens, NEG for
 * left padding; omit for right-padded batches, where causality already hides the tail).
 * Returns final-LayerNorm hidden states [B,T,d] float32 and, if asked, every layer's K/V cache.
 */
export function forward(
  p: Params,
  cfg: ModelConfig,
  ids: tf.Tensor2D,
  pos: tf.Tensor2D,
  keyBias?: tf.Tensor2D,
  withCache = false,
): { hidden: tf.Tensor3D; cache: LayerCache[] } {
  const [B, T] = ids.shape;
  if (T > cfg.maxSeq) throw new Error(`forward: sequence length ${T} exceeds maxSeq ${cfg.maxSeq}`);
  const mask = attentionMask(
    B * cfg.nHeads * T,
    () => (keyBias ? tf.add(causalBias(T), tf.reshape(keyBias, [B, 1, 1, T])) : causalBias(T)),
    keyBias,
  );
  let x = embed(p, ids, pos);
  const cache: LayerCache[] = [];
  for (let i = 0; i < cfg.nLayers; i++) {
    const r = block(p, i, cfg, x, mask);
    x = r.x;
    if (withCache) cache.push(r.cache);
  }
  return { hidden: layerNorm(x, p['lnf.g'], p['lnf.b']) as tf.Tensor3D, cache };
}

/**
 * One KV-cached decoding step: ids [B,1] int32 at positions pos [B,1]; keyBias [B,Tc+1] covers the cache plus
 * the new token. Returns hidden [B,1,d] and the extended caches (the caller disposes the old ones).
 */
export function decodeStep(
  p: Params,
  cfg: ModelConfig,
  ids: tf.Tensor2D,
  pos: tf.Tensor2D,
  keyBias: tf.Tensor2D,
  past: LayerCache[],
): { hidden: tf.Tensor3D; cache: LayerCache[] } {
  const [B] = ids.shape;
  const Tk = keyBias.shape[1];
  const mask = attentionMask(B * cfg.nHeads, () => tf.reshape(keyBias, [B, 1, 1, Tk]), keyBias);
  let x = embed(p, ids, pos);
  const cache: LayerCache[] = [];
  for (let i = 0; i < cfg.nLayers; i++) {
    const r = block(p, i, cfg, x, mask, past[i]);
    x = r.x;
    cache.push(r.cache);
  }
  return { hidden: layerNorm(x, p['lnf.g'], p['lnf.b']) as tf.Tensor3D, cache };
}

/** Tied output head: hidden [M,d] → logits [M,V] float32 = hidden · wteᵀ. */
export function logits(p: Params, hidden: tf.Tensor2D): tf.Tensor2D {
  return matmul(hidden, tf.transpose(p.wte) as tf.Tensor2D);
}
