/**
 * A run record packed into one file (`.opdrun`): the files of a run directory (core/run/record.ts — run.json,
 * events.jsonl, ckpt-<k>.safetensors, ckpt-<k>.state, val.json, and the page's trajectories.jsonl) behind a JSON
 * header, so that a run can be downloaded from the page, imported into another browser, read by `npm run compare`
 * and unpacked into a run directory (`npx tsx cli/pack.ts`). Pure: bytes in, bytes out.
 *
 * Layout: one line of UTF-8 JSON (the header, no newline inside), a `\n`, then the files' bytes back to back in the
 * header's order. Header: `{format: "opd-playground-run-pack", version: 1, recordVersion: 1, name: string (the
 * run's name), files: [{name, size (bytes)}], meta?: {string: string}}`. The file is exactly header + `\n` + the sum
 * of the sizes: a shorter one is truncated, a longer one has trailing bytes; both are refused.
 *
 * `unpackRun` checks, in this order, so that the first problem is the one named: the size limit (MAX_PACK_BYTES),
 * the header line, the format, the pack version (a newer one says so), the record version, the file names (only
 * run-directory names, no paths, no repeats), the sizes, then run.json (parseRunRecord: config fields, schema
 * version), events.jsonl (parseEvents, line numbers), val.json, trajectories.jsonl, the environment versions against
 * the caller's, and every checkpoint's model size against the run's config. Errors are `PackError`s.
 */
import { z } from 'zod';
import { decodeSafetensors } from '../model/io';
import {
  EVENTS_FILE,
  RECORD_VERSION,
  RUN_FILE,
  RecordError,
  VAL_FILE,
  parseEvents,
  parseRunRecord,
  parseValRecord,
  type RecordEvent,
  type RunRecord,
  type ValRecord,
} from '../run/record';
import { TRAJECTORIES_FILE, parseTrajectoryLines, type TrajectoryRecord } from './trajectories';
import { counted } from '../count-text';

/** `format` of a pack header. */
export const PACK_FORMAT = 'opd-playground-run-pack';
/** Pack version this code writes and reads. */
export const PACK_VERSION = 1;
/** The largest pack this code reads (bytes): 200 MB. Callers check a file's size against it before reading it. */
export const MAX_PACK_BYTES = 200 * 1024 * 1024;
/** The longest header line (bytes). */
export const MAX_PACK_HEADER_BYTES = 1024 * 1024;
/** File-name extension of a pack. */
export const PACK_EXTENSION = '.opdrun';
/** Names a pack may hold: the files of a run directory. */
export const PACK_FILE_RE =
  /^(run\.json|events\.jsonl|val\.json|trajectories\.jsonl|ckpt-\d+\.safetensors|ckpt-\d+\.state)$/;

/** A pack that cannot be read: its message names what is wrong and what to do. */
export class PackError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PackError';
  }
}

const HeaderSchema = z.object({
  format: z.literal(PACK_FORMAT),
  version: z.literal(PACK_VERSION),
  recordVersion: z.literal(RECORD_VERSION),
  name: z.string().max(200),
  files: z.array(z.object({ name: z.string(), size: z.number().int().nonnegative() })),
  meta: z.record(z.string(), z.string()).optional(),
});
/** The header line of a pack (module comment). */
export type PackHeader = z.infer<typeof HeaderSchema>;

/** A run as files: name → bytes (text files as UTF-8). */
export type RunFiles = ReadonlyMap<string, Uint8Array>;

const enc = new TextEncoder();
const MB = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;

/**
 * Pack a run's files into one file (module comment). Files are written in the order: run.json, events.jsonl,
 * val.json, trajectories.jsonl, then checkpoints by step (policy before state).
 * @param meta extra strings kept in the header (e.g. how the run started in the page); no secrets.
 * @throws PackError when run.json is missing, a name is not a run-directory file name, or the pack would exceed
 *   MAX_PACK_BYTES.
 */
export function packRun(name: string, files: RunFiles, meta?: Record<string, string>): Uint8Array {
  if (!files.has(RUN_FILE)) throw new PackError(`a run pack needs ${RUN_FILE}; the run has none`);
  for (const n of files.keys())
    if (!PACK_FILE_RE.test(n))
      throw new PackError(
        `"${n}" is not a run-directory file (run.json, events.jsonl, val.json, trajectories.jsonl, ` +
          `ckpt-<k>.safetensors, ckpt-<k>.state)`,
      );
  const order = (n: string): [number, number, number] => {
    const fixed = [RUN_FILE, EVENTS_FILE, VAL_FILE, TRAJECTORIES_FILE].indexOf(n);
    if (fixed >= 0) return [0, fixed, 0];
    const m = /^ckpt-(\d+)\.(safetensors|state)$/.exec(n)!;
    return [1, Number(m[1]), m[2] === 'state' ? 1 : 0];
  };
  const names = [...files.keys()].sort((a, b) => {
    const x = order(a),
      y = order(b);
    return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
  });
  const header: PackHeader = {
    format: PACK_FORMAT,
    version: PACK_VERSION,
    recordVersion: RECORD_VERSION,
    name: name.slice(0, 200),
    files: names.map((n) => ({ name: n, size: files.get(n)!.length })),
    ...(meta ? { meta: { ...meta } } : {}),
  };
  const head = enc.encode(JSON.stringify(header) + '\n');
  const total = head.length + header.files.reduce((a, f) => a + f.size, 0);
  if (total > MAX_PACK_BYTES)
    throw new PackError(
      `the run packs to ${MB(total)}, over the ${MB(MAX_PACK_BYTES)} limit; delete some of its checkpoints first`,
    );
  const out = new Uint8Array(total);
  out.set(head, 0);
  let at = head.length;
  for (const n of names) {
    out.set(files.get(n)!, at);
    at += files.get(n)!.length;
  }
  return out;
}

/** What `unpackRun` checks the run against. */
export interface UnpackExpect {
  /** The environment versions of this code (env name → version); a run made with another version is refused. */
  envVersions?: Record<string, string>;
  /** Largest pack accepted (bytes); default MAX_PACK_BYTES. */
  maxBytes?: number;
}

/** A pack read back and validated. Files are views into the pack's bytes. */
export interface UnpackedRun {
  header: PackHeader;
  files: Map<string, Uint8Array>;
  run: RunRecord;
  events: RecordEvent[];
  val: ValRecord | null;
  trajectories: TrajectoryRecord[];
  /** Steps of the checkpoints whose policy and state files are both in the pack, ascending. */
  checkpoints: number[];
}

/** The first bytes of every pack `packRun` writes: the header's opening and its `format` field. */
const PACK_MAGIC = enc.encode(`{"format":${JSON.stringify(PACK_FORMAT)}`);

/**
 * True when `bytes` start as every pack `packRun` writes does (`{"format":"opd-playground-run-pack"`), whether or not
 * the rest is whole: a run file given where another kind of file (weights) is expected can then be named as one, a
 * truncated one included. Reads at most the first 35 bytes.
 */
export function isRunPack(bytes: Uint8Array): boolean {
  return bytes.length >= PACK_MAGIC.length && PACK_MAGIC.every((b, i) => bytes[i] === b);
}

/** Reads the header line of a pack. @throws PackError (not a pack, a newer version, a bad field). */
export function readPackHeader(bytes: Uint8Array): { header: PackHeader; bodyAt: number } {
  const limit = Math.min(bytes.length, MAX_PACK_HEADER_BYTES);
  const nl = bytes.subarray(0, limit).indexOf(0x0a);
  const notPack =
    `not an OPD Playground run file (${PACK_EXTENSION}, written by the Runs view's Export ` + `or cli/pack.ts)`;
  if (nl < 0) {
    if (bytes.length === 0) throw new PackError(`the file is empty: ${notPack}`);
    // A run file cut inside its header line starts as one: say so, rather than "not a run file".
    if (isRunPack(bytes))
      throw new PackError(
        `no header line: the file is truncated inside its header (its ${counted(bytes.length, 'byte')} end before ` +
          `the header line does; an interrupted download or copy?); export the run again`,
      );
    throw new PackError(
      bytes.length < MAX_PACK_HEADER_BYTES
        ? `no header line (no line break in its ${counted(bytes.length, 'byte')}): ${notPack}`
        : `no header line in the first ${MB(limit)}: ${notPack}`,
    );
  }
  let raw: unknown;
  try {
    raw = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, nl)));
  } catch {
    throw new PackError(`the header line is not JSON: ${notPack}`);
  }
  const o = (typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? raw : {}) as Record<string, unknown>;
  const field = (k: string) => (Object.hasOwn(o, k) ? o[k] : undefined);
  const format = field('format');
  if (format === undefined)
    throw new PackError(
      `the header line has no "format" field (a run file's first line holds "format": "${PACK_FORMAT}"): ${notPack}`,
    );
  if (format !== PACK_FORMAT)
    throw new PackError(`format is ${JSON.stringify(format)}, not "${PACK_FORMAT}": ${notPack}`);
  const v = field('version');
  if (typeof v === 'number' && v > PACK_VERSION)
    throw new PackError(
      `made by a newer version of OPD Playground (pack version ${v}; this one reads version ${PACK_VERSION}); ` +
        `update it to read this file`,
    );
  const rv = field('recordVersion');
  if (typeof rv === 'number' && rv > RECORD_VERSION)
    throw new PackError(
      `holds a newer run record (record version ${rv}; this one reads version ${RECORD_VERSION}); update ` +
        `OPD Playground to read this file`,
    );
  const r = HeaderSchema.safeParse(raw);
  if (!r.success) {
    const i = r.error.issues[0];
    throw new PackError(
      `header field ${i.path.join('.') || '(top level)'}: ${i.message} (a ${PACK_FORMAT} version ${PACK_VERSION} ` +
        `header expected)`,
    );
  }
  return { header: r.data, bodyAt: nl + 1 };
}

/**
 * Read and validate a pack (module comment for the order of the checks).
 * @throws PackError naming the problem: over the size limit, not a pack, a newer version, truncated or trailing
 *   bytes, a bad file name, a corrupt record file (file, line and field), another environment version, or a
 *   checkpoint of another model size than the run's config.
 */
export function unpackRun(bytes: Uint8Array, expect: UnpackExpect = {}): UnpackedRun {
  const max = expect.maxBytes ?? MAX_PACK_BYTES;
  if (bytes.length > max)
    throw new PackError(`the file is ${MB(bytes.length)}; the most a run file may be is ${MB(max)}`);
  const { header, bodyAt } = readPackHeader(bytes);
  const files = new Map<string, Uint8Array>();
  let at = bodyAt;
  const listed = header.files.reduce((a, f) => a + f.size, 0);
  const body = bytes.length - bodyAt;
  if (body < listed)
    throw new PackError(
      `the file is truncated: its header lists ${counted(listed, 'byte')} of files but ${body} follow (an ` +
        `interrupted download or copy?); export the run again`,
    );
  if (body > listed)
    throw new PackError(
      `${counted(body - listed, 'byte')} after the last file (the header lists ${listed}); the file is corrupt or ` +
        `two files were joined`,
    );
  for (const f of header.files) {
    if (!PACK_FILE_RE.test(f.name))
      throw new PackError(
        `header lists "${f.name}", which is not a run-directory file (run.json, events.jsonl, val.json, ` +
          `trajectories.jsonl, ckpt-<k>.safetensors, ckpt-<k>.state)`,
      );
    if (files.has(f.name)) throw new PackError(`header lists "${f.name}" twice`);
    files.set(f.name, bytes.subarray(at, at + f.size));
    at += f.size;
  }
  const text = (n: string) => (files.has(n) ? new TextDecoder().decode(files.get(n)) : null);
  const runText = text(RUN_FILE);
  if (runText === null) throw new PackError(`the pack holds no ${RUN_FILE}`);
  let run: RunRecord, events: RecordEvent[], val: ValRecord | null, trajectories: TrajectoryRecord[];
  try {
    run = parseRunRecord(runText);
    events = parseEvents(text(EVENTS_FILE) ?? '');
    const v = text(VAL_FILE);
    val = v === null ? null : parseValRecord(v);
    trajectories = parseTrajectoryLines(text(TRAJECTORIES_FILE) ?? '');
  } catch (e) {
    if (e instanceof RecordError) throw new PackError(`corrupt run record: ${e.problem}`); // the pack is the copy
    throw e;
  }
  for (const [env, version] of Object.entries(run.envVersions)) {
    const here = expect.envVersions && Object.hasOwn(expect.envVersions, env) ? expect.envVersions[env] : undefined;
    if (here !== undefined && here !== version)
      throw new PackError(
        `the run was made with environment version ${version}; this is ${here}, whose tasks differ, so ` +
          `its checkpoints and results do not apply here`,
      );
  }
  const checkpoints: number[] = [];
  for (const [n, b] of files) {
    const m = /^ckpt-(\d+)\.safetensors$/.exec(n);
    if (!m) continue;
    let size: string | undefined;
    try {
      const meta = decodeSafetensors(b).meta;
      size = Object.hasOwn(meta, 'modelSize') ? meta.modelSize : undefined;
    } catch (e) {
      throw new PackError(`${n}: ${(e as Error).message}`);
    }
    if (size !== run.config.model)
      throw new PackError(
        `${n} is model size ${size ?? '(none)'} but the run's config says ${run.config.model}; the file ` +
          `is corrupt or was edited`,
      );
    if (files.has(`ckpt-${m[1]}.state`)) checkpoints.push(Number(m[1]));
  }
  checkpoints.sort((a, b) => a - b);
  return { header, files, run, events, val, trajectories, checkpoints };
}

/** UTF-8 bytes of a text file, for `packRun`. */
export function textFile(text: string): Uint8Array {
  return enc.encode(text);
}
