/**
 * Kernels of the KV-cached decoding step on tfjs' wasm backend (model/decode-wasm.ts): a preallocated key/value cache
 * in the backend's heap written in place, the attention products over it on the SIMD module of
 * `wasm/batch-matmul.ts`, and the element-wise chains of a block (bias + residual + LayerNorm, GELU's two halves)
 * as one kernel each. A decoding step of the `small` model drops from 412 kernel calls to 50, the head product
 * included (docs/experiments/speed.md).
 *
 * Same bits as the composed ops they replace (model/transformer.ts `decodeStep`, model/ops.ts): every element-wise
 * kernel runs the same float32 operations in the same order as tfjs' wasm kernels do (each `Math.fround(a ∘ b)` of
 * two float32 values is the correctly rounded float32 result, as the C++ kernels compute it; the sums of Mean run
 * in order from 0 and divide by the count), and the products call the same SIMD kernel as `bmmNT`/`bmm` with the
 * same sums. test/core/backend/wasm/decode.test.ts checks each kernel against the composed ops bit for bit.
 *
 * The cache: per layer, keys transposed kᵀ [B·h, hs, tMax] (so the scores q·kᵀ read contiguous rows of the SIMD
 * kernel's b operand) and values v [B·h, tMax, hs], allocated with the backend's malloc and freed by `dispose`.
 */
import * as tf from '../../tf';
import { heapOf, simdModuleOf, type WasmBackend } from './kernels';
import type { MatMulModule } from './batch-matmul';
import { registerKernels } from '../register';

const f = Math.fround;

/** Kernel names registered for the wasm backend. */
export const DECODE_KERNELS = {
  layerNorm: 'OpdRowLayerNorm',
  residualLayerNorm: 'OpdResidualLayerNorm',
  geluInner: 'OpdBiasGeluInner',
  geluOut: 'OpdGeluOut',
  scores: 'OpdCachedAttnScores',
  values: 'OpdCachedAttnValues',
} as const;

/** Caches alive, by id (kernel attributes carry the id). */
const caches = new Map<number, WasmKvCache>();
let nextId = 1;

/** Heap pointer (bytes) of a tensor's data on the wasm backend. */
function ptr(backend: WasmBackend, t: tf.TensorInfo): number {
  return backend.dataIdMap.get(t.dataId).memoryOffset;
}
/** A float32 view of the whole heap (taken after every allocation: growing the heap replaces its buffer). */
function heapF32(backend: WasmBackend): Float32Array {
  const mem = heapOf(backend);
  if (!mem) throw new Error("wasm decode kernels: the wasm backend's heap is not reachable");
  return new Float32Array(mem.buffer);
}
function moduleOf(backend: WasmBackend): MatMulModule {
  const mod = simdModuleOf(backend);
  if (!mod)
    throw new Error(
      "wasm decode kernels: the SIMD module is not active (call registerWasmKernels() before tf.setBackend('wasm'))",
    );
  return mod;
}

/**
 * KV cache of a decoding run in the wasm heap: for each of `layers` layers, kᵀ [B·h, hs, tMax] and v [B·h, tMax,
 * hs] float32, a q scratch [B·h, hs], and the key bias [B, tMax] float32 (0 for real keys, a large negative number for
 * padding), kept in JavaScript. Positions ≥ the current length are never read.
 */
export class WasmKvCache {
  /** Id carried by the kernels' attributes. */
  readonly id: number;
  /** Key bias [B, tMax] float32 (the caller writes it as positions are added). */
  readonly keyBias: Float32Array;
  readonly kT: number[] = [];
  readonly v: number[] = [];
  readonly q: number;
  private readonly backend: WasmBackend;
  private freed = false;

  /**
   * @param B rows, h heads, hs head size, tMax ≥ 1 positions, layers ≥ 1.
   * @throws Error when the active backend is not wasm with the SIMD module.
   */
  constructor(
    readonly B: number,
    readonly h: number,
    readonly hs: number,
    readonly tMax: number,
    readonly layers: number,
  ) {
    if (tf.getBackend() !== 'wasm') throw new Error(`WasmKvCache: the active backend is ${tf.getBackend()}, not wasm`);
    this.backend = tf.backend() as unknown as WasmBackend;
    moduleOf(this.backend);
    const bytes = B * h * hs * tMax * 4;
    for (let l = 0; l < layers; l++) {
      this.kT.push(this.backend.wasm._malloc(bytes));
      this.v.push(this.backend.wasm._malloc(bytes));
    }
    this.q = this.backend.wasm._malloc(B * h * hs * 4);
    this.keyBias = new Float32Array(B * tMax);
    this.id = nextId++;
    caches.set(this.id, this);
  }

  /**
   * Copy a prefill pass's cache of layer `layer` (k, v [B·h, T, hs] float32, model/transformer.ts LayerCache) into
   * positions 0…T−1. @throws Error on other shapes.
   */
  fill(layer: number, k: tf.Tensor3D, v: tf.Tensor3D): void {
    const [BH, T, hs] = k.shape;
    if (BH !== this.B * this.h || hs !== this.hs || T > this.tMax || v.shape.join() !== k.shape.join())
      throw new Error(
        `WasmKvCache.fill: k ${k.shape} / v ${v.shape} do not fit [${this.B * this.h}, ≤ ${this.tMax}, ${this.hs}]`,
      );
    const H = heapF32(this.backend),
      tm = this.tMax;
    const pk = ptr(this.backend, k) >>> 2,
      pv = ptr(this.backend, v) >>> 2,
      kT = this.kT[layer] >>> 2,
      vc = this.v[layer] >>> 2;
    for (let bt = 0; bt < BH; bt++)
      for (let t = 0; t < T; t++) {
        const src = (bt * T + t) * hs;
        for (let j = 0; j < hs; j++) H[kT + (bt * hs + j) * tm + t] = H[pk + src + j];
        H.set(H.subarray(pv + src, pv + src + hs), vc + (bt * tm + t) * hs);
      }
  }

  /** Free the heap buffers (idempotent). */
  dispose(): void {
    if (this.freed) return;
    this.freed = true;
    caches.delete(this.id);
    for (const p of [...this.kT, ...this.v, this.q]) this.backend.wasm._free(p);
  }
}

function cacheOf(id: number): WasmKvCache {
  const c = caches.get(id);
  if (!c) throw new Error(`wasm decode kernels: KV cache ${id} is disposed or unknown`);
  return c;
}

interface Args<I extends string> {
  inputs: Record<I, tf.TensorInfo>;
  backend: WasmBackend;
  attrs: Record<string, number>;
}

/** LayerNorm of row r of x (at heap index px) into out (index po), as model/ops.ts composedLayerNorm on wasm. */
function layerNormRow(H: Float32Array, px: number, po: number, pg: number, pb: number, d: number): void {
  let s = 0;
  for (let j = 0; j < d; j++) s = f(s + H[px + j]);
  const mean = f(s / d);
  let s2 = 0;
  for (let j = 0; j < d; j++) {
    const c = f(H[px + j] - mean);
    s2 = f(s2 + f(c * c));
  }
  const r = f(1 / f(Math.sqrt(f(f(s2 / d) + EPS))));
  for (let j = 0; j < d; j++) H[po + j] = f(f(f(f(H[px + j] - mean) * r) * H[pg + j]) + H[pb + j]);
}
const EPS = f(1e-5);
const GELU_C = f(Math.sqrt(2 / Math.PI)),
  GELU_A = f(0.044715);

/** x [R, d], gamma, beta [d] → LayerNorm(x) [R, d]. */
function rowLayerNorm({ inputs: { x, gamma, beta }, backend }: Args<'x' | 'gamma' | 'beta'>): tf.TensorInfo {
  const d = x.shape[x.shape.length - 1],
    R = tf.util.sizeFromShape(x.shape) / d;
  const out = backend.makeOutput(x.shape, 'float32');
  const H = heapF32(backend);
  const px = ptr(backend, x) >>> 2,
    po = ptr(backend, out) >>> 2,
    pg = ptr(backend, gamma) >>> 2,
    pb = ptr(backend, beta) >>> 2;
  for (let r = 0; r < R; r++) layerNormRow(H, px + r * d, po + r * d, pg, pb, d);
  return out;
}

/** x, y [R, d], bias, gamma, beta [d] → [x + (y + bias), LayerNorm(x + (y + bias))] (a block's residual add). */
function residualLayerNorm({
  inputs: { x, y, bias, gamma, beta },
  backend,
}: Args<'x' | 'y' | 'bias' | 'gamma' | 'beta'>): tf.TensorInfo[] {
  const d = x.shape[x.shape.length - 1],
    R = tf.util.sizeFromShape(x.shape) / d;
  const xo = backend.makeOutput(x.shape, 'float32'),
    out = backend.makeOutput(x.shape, 'float32');
  const H = heapF32(backend);
  const px = ptr(backend, x) >>> 2,
    py = ptr(backend, y) >>> 2,
    pbias = ptr(backend, bias) >>> 2,
    pxo = ptr(backend, xo) >>> 2;
  for (let i = 0; i < R * d; i++) H[pxo + i] = f(H[px + i] + f(H[py + i] + H[pbias + (i % d)]));
  const po = ptr(backend, out) >>> 2,
    pg = ptr(backend, gamma) >>> 2,
    pb = ptr(backend, beta) >>> 2;
  for (let r = 0; r < R; r++) layerNormRow(H, pxo + r * d, po + r * d, pg, pb, d);
  return [xo, out];
}

/** y [R, n], bias [n] → [u = y + bias, √(2/π)·(u + 0.044715·u·u·u)] (model/ops.ts gelu before its tanh). */
function geluInner({ inputs: { y, bias }, backend }: Args<'y' | 'bias'>): tf.TensorInfo[] {
  const n = y.shape[y.shape.length - 1],
    size = tf.util.sizeFromShape(y.shape);
  const u = backend.makeOutput(y.shape, 'float32'),
    inner = backend.makeOutput(y.shape, 'float32');
  const H = heapF32(backend);
  const py = ptr(backend, y) >>> 2,
    pb = ptr(backend, bias) >>> 2,
    pu = ptr(backend, u) >>> 2,
    pi = ptr(backend, inner) >>> 2;
  for (let i = 0; i < size; i++) {
    const a = f(H[py + i] + H[pb + (i % n)]);
    H[pu + i] = a;
    H[pi + i] = f(f(a + f(f(f(a * a) * a) * GELU_A)) * GELU_C);
  }
  return [u, inner];
}

/** u, t = tanh(inner) → 0.5·u·(1 + t) (model/ops.ts gelu after its tanh). */
function geluOut({ inputs: { u, t }, backend }: Args<'u' | 't'>): tf.TensorInfo {
  const size = tf.util.sizeFromShape(u.shape);
  const out = backend.makeOutput(u.shape, 'float32');
  const H = heapF32(backend);
  const pu = ptr(backend, u) >>> 2,
    pt = ptr(backend, t) >>> 2,
    po = ptr(backend, out) >>> 2;
  for (let i = 0; i < size; i++) H[po + i] = f(f(H[pu + i] * 0.5) * f(H[pt + i] + 1));
  return out;
}

/**
 * qkv [B, 3d] (the fused projection before its bias), bqkv [3d]; attrs cache, layer, t (the new position), scale →
 * scores [B·h, t + 1] = (q·kᵀ)·scale + keyBias, after writing k and v at position t of the layer's cache.
 */
function cachedScores({ inputs: { qkv, bqkv }, backend, attrs }: Args<'qkv' | 'bqkv'>): tf.TensorInfo {
  const c = cacheOf(attrs.cache),
    { B, h, hs, tMax } = c,
    layer = attrs.layer,
    t = attrs.t,
    d = h * hs,
    Tk = t + 1;
  if (t >= tMax) throw new Error(`wasm decode: position ${t} is past the cache's ${tMax}`);
  const out = backend.makeOutput([B * h, Tk], 'float32');
  const H = heapF32(backend);
  const pq = ptr(backend, qkv) >>> 2,
    pb = ptr(backend, bqkv) >>> 2,
    q = c.q >>> 2,
    kT = c.kT[layer] >>> 2,
    vc = c.v[layer] >>> 2;
  for (let b = 0; b < B; b++) {
    const row = pq + b * 3 * d;
    for (let i = 0; i < d; i++) {
      const bt = b * h + Math.floor(i / hs),
        j = i % hs;
      H[q + b * d + i] = f(H[row + i] + H[pb + i]);
      H[kT + (bt * hs + j) * tMax + t] = f(H[row + d + i] + H[pb + d + i]);
      H[vc + (bt * tMax + t) * hs + j] = f(H[row + 2 * d + i] + H[pb + 2 * d + i]);
    }
  }
  const po = ptr(backend, out);
  moduleOf(backend).mmb(c.q, c.kT[layer], po, B * h, 1, Tk, hs, hs * 4, hs * 4, 4, hs * tMax * 4, tMax * 4);
  const H2 = heapF32(backend),
    o = po >>> 2,
    scale = f(attrs.scale),
    kb = c.keyBias;
  for (let bt = 0; bt < B * h; bt++) {
    const kbRow = Math.floor(bt / h) * tMax,
      oRow = o + bt * Tk;
    for (let j = 0; j < Tk; j++) H2[oRow + j] = f(f(H2[oRow + j] * scale) + kb[kbRow + j]);
  }
  return out;
}

/** probs [B·h, Tk]; attrs cache, layer → probs·v [B, d] (heads merged: [B·h, hs] is [B, h·hs] in memory). */
function cachedValues({ inputs: { probs }, backend, attrs }: Args<'probs'>): tf.TensorInfo {
  const c = cacheOf(attrs.cache),
    { B, h, hs, tMax } = c,
    Tk = probs.shape[1];
  const out = backend.makeOutput([B, h * hs], 'float32');
  moduleOf(backend).mm(
    ptr(backend, probs),
    c.v[attrs.layer],
    ptr(backend, out),
    B * h,
    1,
    hs,
    Tk,
    Tk * 4,
    Tk * 4,
    4,
    tMax * hs * 4,
  );
  return out;
}

let registered = false;
/** Register the decode kernels for the wasm backend (idempotent; no set-up, so any time). */
export function registerDecodeKernels(): void {
  if (registered) return;
  registered = true;
  registerKernels('wasm', {
    [DECODE_KERNELS.layerNorm]: rowLayerNorm,
    [DECODE_KERNELS.residualLayerNorm]: residualLayerNorm,
    [DECODE_KERNELS.geluInner]: geluInner,
    [DECODE_KERNELS.geluOut]: geluOut,
    [DECODE_KERNELS.scores]: cachedScores,
    [DECODE_KERNELS.values]: cachedValues,
  });
}

/** Whether the decode kernels can run: the active backend is wasm and its SIMD module started. */
export function wasmDecodeAvailable(): boolean {
  return tf.getBackend() === 'wasm' && !!simdModuleOf(tf.backend());
}
