/**
 * Messages for a path given where a weights file (.safetensors) is expected (`train --init`, `eval --policy`,
 * `pretrain --init`), for the cases the weights loader cannot word for a user: no file, a folder, and a file that is
 * no safetensors at all (JSON, text), named as such, with what the flag takes, before the loader's technical detail.
 */
import fs from 'node:fs';
import path from 'node:path';
import { decodeSafetensors } from '../src/core/model/io';
import { CHECKPOINT_RE } from '../src/core/run/record';
import { didYouMean } from './args';
import { runDirFileMessage } from './rundir';

/**
 * What a weights flag takes besides a path, for its messages: `others`, the words it also accepts (train --init:
 * base, scratch; eval --policy: expert, random, base), and `resume`, true for train's --init, where a run directory
 * given is more likely a run to continue with `--resume DIR`.
 */
export interface WeightsFlagOptions {
  others?: readonly string[];
  resume?: boolean;
}

/** `a`, `a or b`, `a, b or c`. */
function orList(xs: readonly string[]): string {
  return xs.length <= 1 ? xs.join('') : `${xs.slice(0, -1).join(', ')} or ${xs[xs.length - 1]}`;
}

/** What a weights flag accepts, in words: its other words, then a .safetensors file and how to get one. */
function accepts(others: readonly string[]): string {
  return orList([...others, 'a .safetensors file written by train --save']);
}

/**
 * The message for `file` given to `flag` when it is not a file: nothing at all (what the flag accepts, and the word
 * it most likely meant when `file` is near one of `others`: `--policy expret` → expert), or a folder (say which, and
 * to give a .safetensors file in it, e.g. a run directory's `ckpt-<k>.safetensors`; with `resume`, that
 * `--resume DIR` continues the run). Null when `file` is a file.
 */
export function notAWeightsFile(file: string, flag: string, opts: WeightsFlagOptions = {}): string | null {
  const others = opts.others ?? [];
  if (!fs.existsSync(file))
    return `${flag}: no weights file at "${file}" (${accepts(others)})${didYouMean(file, others)}`;
  if (fs.statSync(file).isFile()) return null;
  const dir = file.replace(/\/+$/, '');
  const resume = opts.resume ? ` (to continue that run, use --resume ${file})` : '';
  return (
    `${flag}: "${file}" is a directory, not a weights file; give the path of a .safetensors file, ` +
    `e.g. one written by train --save, or a run directory's checkpoint ${flag} ${dir}/ckpt-<k>.safetensors${resume}`
  );
}

/**
 * The message for `bytes` (read from `file`, given to `flag`) that are no safetensors file at all: too short for
 * the 8-byte header length, or a header length (the first 8 bytes, little-endian; safetensors format) that does not
 * fit the file. One of a run directory's own files (run.json …) is named as such, with its checkpoints to give
 * (runDirFileMessage). Otherwise it says what the file looks like: JSON (first non-space character `{` or `[`), text
 * (printable UTF-8), or binary; then what the flag takes (a .safetensors file, a run directory's checkpoint,
 * `opts.others`) and the loader's own message (decodeSafetensors). Null for bytes whose header length fits (the
 * loader's later checks word those).
 */
export function notSafetensors(
  file: string,
  bytes: Uint8Array,
  flag: string,
  opts: WeightsFlagOptions = {},
): string | null {
  if (bytes.length >= 8) {
    const n = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getBigUint64(0, true);
    if (n >= 2n && n <= BigInt(bytes.length - 8)) return null;
    // A header length followed by the header's `{`, but longer than the file: a safetensors file cut short.
    if (n >= 2n && n < 2n ** 32n && bytes[8] === 0x7b)
      return (
        `${flag} ${file}: the weights file is cut short: its header alone is ${n} bytes, but only ` +
        `${bytes.length - 8} follow (an interrupted write or copy?); give another weights file` +
        (CHECKPOINT_RE.test(path.basename(file)) ? ', e.g. another checkpoint of the run' : '')
      );
  }
  // One of a run directory's own files (run.json, events.jsonl …): its checkpoints are the weights to give. A
  // checkpoint's own weights that are no safetensors at all are damaged, and read as any other file below.
  const member = CHECKPOINT_RE.test(path.basename(file))
    ? null
    : runDirFileMessage(
        file,
        'a weights file',
        (dir) =>
          `give one of its checkpoints, ${flag} ${dir}/ckpt-<k>.safetensors` +
          (opts.resume ? ` (to continue that run, use --resume ${dir})` : ''),
      );
  if (member) return `${flag}: ${member}`;
  let detail = '';
  try {
    decodeSafetensors(bytes);
  } catch (e) {
    detail = ` (${(e as Error).message})`;
  }
  const head = new TextDecoder('utf-8', { fatal: false })
    .decode(bytes.subarray(0, 256))
    .replace(/^\uFEFF/, '')
    .trimStart();
  const first = head[0] ?? '';
  const looks =
    bytes.length === 0
      ? 'it is empty'
      : first === '{' || first === '['
        ? `it starts with "${first}": it looks like JSON`
        : /^[\x20-\x7e\t\r\n]+$/.test(head.slice(0, 64))
          ? 'it looks like text'
          : `its first 8 bytes are no safetensors header length`;
  const others = opts.others?.length ? `; ${flag} also takes ${orList(opts.others)}` : '';
  return (
    `${flag} ${file}: not a safetensors weights file (${looks}); give a .safetensors file written by ` +
    `train --save, or a run directory's ckpt-<k>.safetensors${detail}${others}`
  );
}

/**
 * The message for weights made on environments that do not include `env` (their metadata `envVersions`, written by
 * train, pretrain and the page), which the loader can only word as a vocabulary mismatch: each environment has its
 * own vocabulary, so weights fit only the environment they were made on. Names both and the `--env` to pass. Null
 * when the weights name `env`, name none, or cannot be decoded (the loader's message says why).
 */
export function otherEnvWeights(bytes: Uint8Array, env: string): string | null {
  let made: unknown;
  try {
    const { meta } = decodeSafetensors(bytes);
    made = Object.hasOwn(meta, 'envVersions') ? JSON.parse(meta.envVersions) : null;
  } catch {
    return null;
  }
  if (!made || typeof made !== 'object' || Array.isArray(made)) return null;
  const envs = Object.keys(made).map((e) => e.slice(0, 40));
  if (envs.length === 0 || envs.includes(env)) return null;
  return (
    `these weights were made on the ${orList(envs)} environment, not ${env} (each environment has its own ` +
    `vocabulary, so weights fit only the one they were made on): use them with --env ${orList(envs)}, or give ` +
    `weights made on ${env}`
  );
}
