/**
 * Weights file format: safetensors (https://huggingface.co/docs/safetensors): 8-byte little-endian header length
 * N, N bytes of JSON header `{name: {dtype: "F32", shape, data_offsets: [begin, end]}, __metadata__: {…}}`, then
 * the raw little-endian float32 data. The same bytes are written to a file in Node and to IndexedDB in the
 * browser, and Python's `safetensors` library reads them. Metadata (all strings, as the format requires):
 * `format: "opd-playground"`, `modelSize`, `vocabSize`, `vocabHash`, `envVersions` (JSON), plus caller fields.
 */
import type { ModelConfig } from './config';
import { modelConfig } from './config';
import { paramShapes } from './params';

/** Metadata stored with weights (strings only). */
export type WeightsMeta = Record<string, string>;

/** Serialise parameter values (name → float32 data) in `paramShapes(cfg)` order. @throws Error on a missing or mis-sized value. */
export function encodeSafetensors(cfg: ModelConfig, values: Map<string, Float32Array>, meta: WeightsMeta): Uint8Array {
  const header: Record<string, unknown> = { __metadata__: meta };
  let off = 0;
  const shapes = paramShapes(cfg);
  for (const [name, shape] of shapes) {
    const v = values.get(name);
    const n = shape.reduce((a, b) => a * b, 1);
    if (!v || v.length !== n) throw new Error(`encodeSafetensors: ${name} needs ${n} values, got ${v?.length ?? 'none'}`);
    header[name] = { dtype: 'F32', shape, data_offsets: [off, off + 4 * n] };
    off += 4 * n;
  }
  let json = JSON.stringify(header);
  while ((8 + new TextEncoder().encode(json).length) % 8) json += ' '; // align data to 8 bytes
  const h = new TextEncoder().encode(json);
  const out = new Uint8Array(8 + h.length + off);
  const dv = new DataView(out.buffer);
  dv.setBigUint64(0, BigInt(h.length), true);
  out.set(h, 8);
  let p = 8 + h.length;
  for (const [name] of shapes) {
    const v = values.get(name)!;
    for (let i = 0; i < v.length; i++) dv.setFloat32(p + 4 * i, v[i], true);
    p += 4 * v.length;
  }
  return out;
}

/** Parsed weights file. */
export interface DecodedWeights {
  meta: WeightsMeta;
  values: Map<string, Float32Array>;
  shapes: Map<string, number[]>;
}

/**
 * Parse safetensors bytes (F32 tensors only).
 * @throws Error naming what is wrong: too short, bad header length or JSON, a dtype other than F32, data offsets
 *   outside the file.
 */
export function decodeSafetensors(bytes: Uint8Array): DecodedWeights {
  if (bytes.length < 8) throw new Error(`weights file is ${bytes.length} bytes: too short to be safetensors`);
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = Number(dv.getBigUint64(0, true));
  if (n <= 0 || 8 + n > bytes.length) throw new Error(`weights file: header length ${n} does not fit in ${bytes.length} bytes (corrupt or not safetensors)`);
  let header: Record<string, { dtype: string; shape: number[]; data_offsets: [number, number] } | WeightsMeta>;
  try {
    header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n)));
  } catch {
    throw new Error('weights file: header is not valid JSON (corrupt or not safetensors)');
  }
  const meta = (header.__metadata__ ?? {}) as WeightsMeta;
  const values = new Map<string, Float32Array>(), shapes = new Map<string, number[]>();
  const base = 8 + n;
  for (const [name, e] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    const t = e as { dtype: string; shape: number[]; data_offsets: [number, number] };
    if (t.dtype !== 'F32') throw new Error(`weights file: tensor ${name} has dtype ${t.dtype}; only F32 is supported`);
    const [b, end] = t.data_offsets;
    const count = t.shape.reduce((a, c) => a * c, 1);
    if (end - b !== 4 * count || base + end > bytes.length) throw new Error(`weights file: tensor ${name} data [${b}, ${end}) does not match shape [${t.shape}] or runs past the end`);
    const v = new Float32Array(count);
    for (let i = 0; i < count; i++) v[i] = dv.getFloat32(base + b + 4 * i, true);
    values.set(name, v);
    shapes.set(name, t.shape);
  }
  return { meta, values, shapes };
}

/**
 * Check decoded weights against what the code expects (size, vocabulary) and return the model config.
 * @throws Error naming the mismatch (model size, vocabulary hash, a tensor's shape) and how to fix it.
 */
export function checkWeights(w: DecodedWeights, expect: { vocabSize: number; vocabHash: string }): ModelConfig {
  const size = w.meta.modelSize;
  if (!size) throw new Error('weights file: metadata has no modelSize; was it written by opd-playground?');
  const cfg = modelConfig(size, expect.vocabSize);
  if (w.meta.vocabHash && w.meta.vocabHash !== expect.vocabHash)
    throw new Error(`weights file: vocabulary hash ${w.meta.vocabHash} differs from this code's ${expect.vocabHash}; retrain or regenerate the weights with this version`);
  for (const [name, shape] of paramShapes(cfg)) {
    const got = w.shapes.get(name);
    if (!got) throw new Error(`weights file: missing tensor ${name} [${shape}]`);
    if (got.join(',') !== shape.join(',')) throw new Error(`weights file: tensor ${name} has shape [${got}], expected [${shape}] for model ${size} with vocabulary ${expect.vocabSize}`);
  }
  return cfg;
}
