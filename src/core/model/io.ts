/**
 * Weights file format: safetensors (https://huggingface.co/docs/safetensors): 8-byte little-endian header length
 * N, N bytes of JSON header `{name: {dtype: "F32", shape, data_offsets: [begin, end]}, __metadata__: {…}}`, then
 * the raw little-endian float32 data. The same bytes are written to a file in Node and to IndexedDB in the
 * browser, and Python's `safetensors` library reads them. Metadata (all strings, as the format requires):
 * `format: "opd-playground"`, `modelSize`, `vocabSize`, `vocabHash`, `envVersions` (JSON), plus caller fields.
 *
 * A weights file is untrusted input (a download, an upload, a path on the command line): `decodeSafetensors`
 * checks the header field by field (zod) and throws an Error naming the tensor, the broken rule and the fix
 * before any value is read; keys are looked up as own properties only, so `__proto__` or `constructor` are
 * ordinary names there.
 */
import { z } from 'zod';
import type { ModelConfig } from './config';
import { MODEL_PRESETS, modelConfig } from './config';
import { paramShapes } from './params';
import { ENV_NAMES } from '../envs/registry';
import { counted } from '../count-text';

/** Metadata stored with weights (strings only). */
export type WeightsMeta = Record<string, string>;

/** One tensor to write: name, shape, float32 values. */
export interface NamedF32 {
  name: string;
  shape: number[];
  data: Float32Array;
}

/**
 * Serialise named float32 tensors and string metadata as safetensors bytes (header padded so the data is 8-byte
 * aligned; tensors in the given order). Weights files and resumable state files both use it.
 * @throws Error when a tensor's value count does not match its shape.
 */
export function encodeTensors(tensors: readonly NamedF32[], meta: Record<string, string>): Uint8Array {
  const header: Record<string, unknown> = { __metadata__: meta };
  let off = 0;
  for (const t of tensors) {
    const n = t.shape.reduce((a, b) => a * b, 1);
    if (n !== t.data.length)
      throw new Error(`encodeTensors: ${t.name} has ${counted(t.data.length, 'value')} for shape [${t.shape}]`);
    header[t.name] = { dtype: 'F32', shape: t.shape, data_offsets: [off, off + 4 * n] };
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
  for (const t of tensors) {
    for (let i = 0; i < t.data.length; i++) dv.setFloat32(p + 4 * i, t.data[i], true);
    p += 4 * t.data.length;
  }
  return out;
}

/**
 * Serialise parameter values (name → float32 data) in `paramShapes(cfg)` order. @throws Error on a missing or
 * mis-sized value.
 */
export function encodeSafetensors(cfg: ModelConfig, values: Map<string, Float32Array>, meta: WeightsMeta): Uint8Array {
  const tensors = paramShapes(cfg).map(([name, shape]) => {
    const v = values.get(name);
    const n = shape.reduce((a, b) => a * b, 1);
    if (!v || v.length !== n)
      throw new Error(`encodeSafetensors: ${name} needs ${counted(n, 'value')}, got ${v?.length ?? 'none'}`);
    return { name, shape, data: v };
  });
  return encodeTensors(tensors, meta);
}

/** Parsed weights file. */
export interface DecodedWeights {
  meta: WeightsMeta;
  values: Map<string, Float32Array>;
  shapes: Map<string, number[]>;
}

/** Tensor dtypes the loader reads, with their size in bytes. */
export const SUPPORTED_DTYPES: Readonly<Record<string, number>> = Object.freeze({ F32: 4 });
const DTYPE_NAMES = Object.keys(SUPPORTED_DTYPES).join(', ');
/** Largest header accepted (the safetensors reference implementation's limit). */
export const MAX_HEADER_BYTES = 100_000_000;

const CORRUPT = 'the file is corrupt — re-save it with train --save';
const NOT_SAFETENSORS = 'the file is corrupt or not safetensors — re-save it with train --save';

const SafeNat = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);
const TensorSchema = z.object({
  dtype: z.string(),
  shape: z.array(SafeNat),
  data_offsets: z.tuple([SafeNat, SafeNat]),
});
const MetaSchema = z.record(z.string(), z.string());

/** A value for an error message: JSON, cut to 80 characters. */
function show(v: unknown): string {
  let s: string;
  try {
    s = JSON.stringify(v) ?? String(v);
  } catch {
    s = String(v);
  }
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}

/** Is `v` a plain JSON object (not null, not an array)? */
function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Own property `k` of `o` (never an inherited one such as `constructor`). */
function own(o: Record<string, unknown>, k: string): unknown {
  return Object.hasOwn(o, k) ? o[k] : undefined;
}

/** Check one tensor entry's fields; returns its dtype size, shape and offsets. */
function checkTensor(name: string, e: unknown, dataLen: number): { shape: number[]; begin: number; end: number } {
  const where = `weights file: tensor ${JSON.stringify(name)}`;
  if (!isObject(e))
    throw new Error(`${where}: entry must be an object {dtype, shape, data_offsets}, got ${show(e)}; ${CORRUPT}`);
  for (const k of ['dtype', 'shape', 'data_offsets'])
    if (!Object.hasOwn(e, k))
      throw new Error(`${where}: missing ${k} (each tensor needs dtype, shape and data_offsets); ${CORRUPT}`);
  const r = TensorSchema.safeParse({ dtype: e.dtype, shape: e.shape, data_offsets: e.data_offsets });
  if (!r.success) {
    const field = r.error.issues[0].path[0];
    if (field === 'dtype')
      throw new Error(
        `${where}: dtype ${show(e.dtype)} must be a string naming a supported dtype (supported: ${DTYPE_NAMES}); ` +
          `${CORRUPT}`,
      );
    if (field === 'shape')
      throw new Error(`${where}: shape ${show(e.shape)} must be an array of non-negative integers; ${CORRUPT}`);
    throw new Error(
      `${where}: data_offsets ${show(e.data_offsets)} must be [begin, end], non-negative integers inside ` +
        `the data section (0..${dataLen} bytes); ${CORRUPT}`,
    );
  }
  const {
    dtype,
    shape,
    data_offsets: [begin, end],
  } = r.data;
  if (!Object.hasOwn(SUPPORTED_DTYPES, dtype))
    throw new Error(
      `${where}: dtype ${JSON.stringify(dtype)} is not supported (supported: ${DTYPE_NAMES}); convert the ` +
        `tensor to F32 or re-save it with train --save`,
    );
  if (begin > end || end > dataLen)
    throw new Error(
      `${where}: data_offsets [${begin}, ${end}] must have begin ≤ end ≤ the data section's length (${dataLen} ` +
        `bytes); ${CORRUPT}`,
    );
  const count = shape.reduce((a, c) => a * c, 1);
  const want = count * SUPPORTED_DTYPES[dtype];
  if (end - begin !== want)
    throw new Error(
      `${where}: data_offsets [${begin}, ${end}] hold ${counted(end - begin, 'byte')}, but shape [${shape}] of ` +
        `${dtype} needs ${Number.isSafeInteger(want) ? counted(want, 'byte') : 'more than 2^53 bytes'}; ${CORRUPT}`,
    );
  return { shape, begin, end };
}

/** Check `__metadata__`: an object of string values. */
function checkMeta(raw: unknown): WeightsMeta {
  if (raw === undefined) return {};
  if (!isObject(raw))
    throw new Error(`weights file: __metadata__ must be an object of string values, got ${show(raw)}; ${CORRUPT}`);
  const r = MetaSchema.safeParse(raw);
  if (!r.success) {
    // Name the first non-string value (own keys only, in file order).
    const bad = Object.keys(raw).find((k) => typeof raw[k] !== 'string');
    const key = JSON.stringify(bad ?? String(r.error.issues[0].path[0]));
    throw new Error(
      `weights file: __metadata__ ${key} is ${show(bad === undefined ? undefined : raw[bad])}; ` +
        `metadata values must be strings; ${CORRUPT}`,
    );
  }
  return raw as WeightsMeta; // the parsed object itself: own keys only, `__proto__` included as a plain key
}

/** The error for a model size this code does not know (any string, `constructor` and `__proto__` included). */
function unknownSize(size: string): Error {
  return new Error(
    `weights file: unknown model size ${JSON.stringify(size)} (known: ${Object.keys(MODEL_PRESETS).join(', ')}); ` +
      `the weights are from another version — use weights written by this version's train --save`,
  );
}

/** Check the metadata values that name a model size or an environment against what this code knows. */
function checkMetaNames(meta: WeightsMeta): void {
  const size = own(meta, 'modelSize');
  if (typeof size === 'string' && !Object.hasOwn(MODEL_PRESETS, size)) throw unknownSize(size);
  const unknownEnv = (env: string, field: string) =>
    new Error(
      `weights file: metadata ${field}: unknown env ${JSON.stringify(env)} (known: ${ENV_NAMES.join(', ')}); ` +
        `the weights are from another version — use weights written by this version's train --save`,
    );
  const env = own(meta, 'env');
  if (typeof env === 'string' && !ENV_NAMES.includes(env)) throw unknownEnv(env, 'env');
  const versions = own(meta, 'envVersions');
  if (typeof versions === 'string') {
    let v: unknown;
    try {
      v = JSON.parse(versions);
    } catch {
      v = undefined;
    }
    if (!isObject(v) || !MetaSchema.safeParse(v).success)
      throw new Error(
        `weights file: metadata envVersions ${show(versions)} must be a JSON object {env name: version ` +
          `string}; ${CORRUPT}`,
      );
    for (const k of Object.keys(v)) if (!ENV_NAMES.includes(k)) throw unknownEnv(k, 'envVersions');
  }
}

/**
 * Parse safetensors bytes (F32 tensors only).
 * @throws Error naming what is wrong and how to fix it: too short; a header length that does not fit the file;
 *   a header that is not a JSON object; for a tensor (named): a missing or malformed dtype, shape or data_offsets,
 *   an unsupported dtype, offsets outside the data section or reversed, a byte length that does not match
 *   shape × dtype size, an overlap with another tensor, bytes between tensors that belong to none (e.g. a name
 *   given twice in the header); `__metadata__` that is not an object of strings; a
 *   metadata model size or env name this code does not know.
 */
export function decodeSafetensors(bytes: Uint8Array): DecodedWeights {
  // The smallest safetensors file: the 8-byte header length and the header `{}`.
  if (bytes.length < 10)
    throw new Error(
      `weights file is ${counted(bytes.length, 'byte')}: too short to be safetensors; ${NOT_SAFETENSORS}`,
    );
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n64 = dv.getBigUint64(0, true);
  if (n64 < 2n || n64 > BigInt(bytes.length - 8) || n64 > BigInt(MAX_HEADER_BYTES))
    throw new Error(
      `weights file: header length ${n64} (the first 8 bytes, little-endian) ` +
        `must be 2..${Math.min(bytes.length - 8, MAX_HEADER_BYTES)} ` +
        `to fit in the file's ${bytes.length} bytes; ${NOT_SAFETENSORS}`,
    );
  const n = Number(n64);
  let header: unknown;
  try {
    header = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(8, 8 + n)));
  } catch {
    throw new Error(`weights file: header is not valid UTF-8 JSON; ${NOT_SAFETENSORS}`);
  }
  if (!isObject(header))
    throw new Error(
      `weights file: header must be a JSON object {tensor name: {dtype, shape, data_offsets}, ` +
        `__metadata__?: {…}}, got ${Array.isArray(header) ? 'an array' : show(header)}; ${NOT_SAFETENSORS}`,
    );
  const meta = checkMeta(own(header, '__metadata__'));
  const base = 8 + n,
    dataLen = bytes.length - base;
  const ranges: { name: string; shape: number[]; begin: number; end: number }[] = [];
  for (const name of Object.keys(header)) {
    if (name === '__metadata__') continue;
    ranges.push({ name, ...checkTensor(name, header[name], dataLen) });
  }
  const sorted = ranges.filter((t) => t.end > t.begin).sort((a, b) => a.begin - b.begin || a.end - b.end);
  for (let i = 1; i < sorted.length; i++) {
    const a = sorted[i - 1],
      b = sorted[i];
    if (b.begin < a.end)
      throw new Error(
        `weights file: tensor ${JSON.stringify(b.name)}: data_offsets [${b.begin}, ${b.end}] overlap ` +
          `tensor ${JSON.stringify(a.name)}'s [${a.begin}, ${a.end}] (tensors must not share bytes); ${CORRUPT}`,
      );
  }
  // The tensors tile the data section with no gap (the safetensors library's rule). A gap is most often a tensor
  // name written twice in the header: JSON keeps only the last entry, and the first one's bytes belong to nobody.
  for (let i = 0, at = 0; i < sorted.length; at = sorted[i++].end) {
    if (sorted[i].begin > at)
      throw new Error(
        `weights file: bytes ${at}..${sorted[i].begin} of the data section belong to no tensor (a tensor ` +
          `name given twice in the header keeps only its last entry); ${CORRUPT}`,
      );
  }
  // Every byte of the data section belongs to a tensor: trailing bytes mean a cut or concatenated file (the
  // safetensors library refuses them too).
  const used = ranges.reduce((m, t) => Math.max(m, t.end), 0);
  if (used !== dataLen)
    throw new Error(
      `weights file: ${counted(dataLen - used, 'byte')} after the last tensor (data section ` +
        `${counted(dataLen, 'byte')}, tensors end at ${used}); ${CORRUPT}`,
    );
  checkMetaNames(meta);
  const values = new Map<string, Float32Array>(),
    shapes = new Map<string, number[]>();
  for (const t of ranges) {
    const count = (t.end - t.begin) / 4;
    const v = new Float32Array(count);
    for (let i = 0; i < count; i++) v[i] = dv.getFloat32(base + t.begin + 4 * i, true);
    values.set(t.name, v);
    shapes.set(t.name, t.shape);
  }
  return { meta, values, shapes };
}

/**
 * For a vocabulary mismatch: the environments a weights file was made on (metadata `envVersions`), as the fix —
 * each environment has its own vocabulary, so weights of another one fit only it. Null when the file names none.
 */
function madeOnEnvs(meta: Readonly<Record<string, string>>): string | null {
  const raw = own(meta, 'envVersions');
  let made: unknown;
  try {
    made = typeof raw === 'string' ? JSON.parse(raw) : null;
  } catch {
    return null;
  }
  if (!made || typeof made !== 'object' || Array.isArray(made)) return null;
  const envs = Object.keys(made).map((e) => e.slice(0, 40));
  if (envs.length === 0) return null;
  return (
    `these weights were made on the ${envs.join(', ')} environment (each environment has its own ` +
    `vocabulary): use them with ${envs.join(' or ')}, or retrain them with this version`
  );
}

/**
 * Check decoded weights against what the code expects (size, vocabulary) and return the model config.
 * @throws Error naming the mismatch (model size, vocabulary hash, a tensor's shape, a tensor the model does not
 *   have) and how to fix it.
 */
export function checkWeights(w: DecodedWeights, expect: { vocabSize: number; vocabHash: string }): ModelConfig {
  const size = own(w.meta, 'modelSize');
  if (typeof size !== 'string' || !size)
    throw new Error('weights file: metadata has no modelSize; was it written by opd-playground?');
  if (!Object.hasOwn(MODEL_PRESETS, size)) throw unknownSize(size);
  const cfg = modelConfig(size, expect.vocabSize);
  const format = own(w.meta, 'format');
  if (format !== undefined && format !== 'opd-playground')
    throw new Error(
      `weights file: metadata format ${JSON.stringify(String(format).slice(0, 40))} is not ` +
        `"opd-playground"; use weights written by train --save or downloaded from the page`,
    );
  const vs = own(w.meta, 'vocabSize');
  if (vs !== undefined && vs !== String(expect.vocabSize))
    throw new Error(
      `weights file: metadata vocabSize ${JSON.stringify(String(vs).slice(0, 40))} differs from this ` +
        `code's vocabulary of ${expect.vocabSize} tokens; ` +
        (madeOnEnvs(w.meta) ?? 'retrain or regenerate the weights with this version'),
    );
  const hash = own(w.meta, 'vocabHash');
  if (hash && hash !== expect.vocabHash)
    throw new Error(
      `weights file: vocabulary hash ${hash} differs from this code's ${expect.vocabHash}; retrain or ` +
        `regenerate the weights with this version`,
    );
  const shapes = paramShapes(cfg);
  for (const [name, shape] of shapes) {
    const got = w.shapes.get(name);
    if (!got) throw new Error(`weights file: missing tensor ${name} [${shape}]`);
    if (got.join(',') !== shape.join(','))
      throw new Error(
        `weights file: tensor ${name} has shape [${got}], expected [${shape}] for model ${size} with ` +
          `vocabulary ${expect.vocabSize}`,
      );
  }
  const known = new Set(shapes.map(([name]) => name));
  for (const name of w.shapes.keys())
    if (!known.has(name))
      throw new Error(
        `weights file: tensor ${JSON.stringify(name)} is not a parameter of model ${size}; the file is ` +
          `not from this version — use weights written by this version's train --save`,
      );
  return cfg;
}
