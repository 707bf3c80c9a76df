/**
 * Messages for a path given where a weights file (.safetensors) is expected (`train --init`), for the cases the
 * weights loader cannot word for a user: a folder, and a file that is no safetensors at all (JSON, text), named as
 * such before the loader's technical detail.
 */
import fs from 'node:fs';
import { decodeSafetensors } from '../src/core/model/io';

/**
 * The message for `file` given to `flag` when it is not a file: a folder (say which, and to give a .safetensors file
 * in it, e.g. a run directory's `ckpt-<k>.safetensors`) or nothing at all. Null when `file` is a file.
 */
export function notAWeightsFile(file: string, flag: string): string | null {
  if (!fs.existsSync(file)) return `${flag}: no weights file at "${file}" (a .safetensors file written by --save)`;
  if (fs.statSync(file).isFile()) return null;
  return `${flag}: "${file}" is a directory, not a weights file; give the path of a .safetensors file, e.g. one written by --save, or a run directory's checkpoint ${flag} ${file.replace(/\/+$/, '')}/ckpt-<k>.safetensors (to continue that run, use --resume ${file})`;
}

/**
 * The message for `bytes` (read from `file`, given to `flag`) that are no safetensors file at all: too short for
 * the 8-byte header length, or a header length (the first 8 bytes, little-endian; safetensors format) that does not
 * fit the file. It says what the file looks like: JSON (first non-space character `{` or `[`), text (printable
 * UTF-8), or binary; then the loader's own message (decodeSafetensors). Null for bytes whose header length fits
 * (the loader's later checks word those).
 */
export function notSafetensors(file: string, bytes: Uint8Array, flag: string): string | null {
  if (bytes.length >= 8) {
    const n = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getBigUint64(0, true);
    if (n >= 2n && n <= BigInt(bytes.length - 8)) return null;
  }
  let detail = '';
  try {
    decodeSafetensors(bytes);
  } catch (e) {
    detail = ` (${(e as Error).message})`;
  }
  const head = new TextDecoder('utf-8', { fatal: false }).decode(bytes.subarray(0, 256)).replace(/^\uFEFF/, '').trimStart();
  const first = head[0] ?? '';
  const looks = bytes.length === 0
    ? 'it is empty'
    : first === '{' || first === '['
      ? `it starts with "${first}": it looks like JSON`
      : /^[\x20-\x7e\t\r\n]+$/.test(head.slice(0, 64))
        ? 'it looks like text'
        : `its first 8 bytes are no safetensors header length`;
  return `${flag} ${file}: not a safetensors weights file (${looks}); give a .safetensors file written by train --save, or a run directory's ckpt-<k>.safetensors${detail}`;
}
