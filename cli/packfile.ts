/**
 * Run packs on disk (Node): a `.opdrun` file (core/run-files/pack.ts: the run directory's files behind a JSON header,
 * what the page's Runs view exports) read with its size checked before it is read whole, a run directory packed, and a
 * pack unpacked into a new or empty directory. Problems are RunDirErrors naming the file (the CLIs exit 2).
 */
import fs from 'node:fs';
import path from 'node:path';
import { ENV_NAMES, getEnvSpec } from '../src/core/envs/registry';
import {
  MAX_PACK_BYTES,
  PACK_FILE_RE,
  PackError,
  isRunPack,
  packRun,
  unpackRun,
  type UnpackedRun,
} from '../src/core/run-files/pack';
import { RunDirError, checkRunDir, isRunFile, runDirFileMessage } from './rundir';
import { writeAtomic } from './files';

/** Environment name → version of this code. */
function envVersions(): Record<string, string> {
  return Object.fromEntries(ENV_NAMES.map((n) => [n, getEnvSpec(n).version]));
}

/** True when `p` is an existing file (not a folder). */
export function isFile(p: string): boolean {
  return fs.statSync(p, { throwIfNoEntry: false })?.isFile() ?? false;
}

/**
 * Read and validate a `.opdrun` file (unpackRun: format, versions, environment versions, model size, every record
 * file). @throws RunDirError when it is over MAX_PACK_BYTES (checked before reading), unreadable or invalid; a file
 * of a run directory (run.json …) that is no run file is named as such, with `fix` of its folder (runDirFileMessage;
 * by default, to pass the folder).
 */
export function readPackFile(file: string, fix?: (dir: string) => string): UnpackedRun {
  const size = fs.statSync(file).size;
  const member = () => (isRunFile(file) ? null : runDirFileMessage(file, 'a run file (.opdrun)', fix));
  if (size > MAX_PACK_BYTES)
    throw new RunDirError(
      member() ??
        `${file}: the file is ${(size / 1048576).toFixed(1)} MB; ` +
          `the most a run file may be is ${MAX_PACK_BYTES / 1048576} MB`,
    );
  try {
    return unpackRun(new Uint8Array(fs.readFileSync(file)), { envVersions: envVersions() });
  } catch (e) {
    if (e instanceof PackError) throw new RunDirError(member() ?? `${file}: ${e.message}`);
    throw e;
  }
}

/**
 * Pack run directory `dir` (its run-record files; others are left out) into `out`, validated by reading it back.
 * @returns the pack's size in bytes. @throws RunDirError when `dir` is not a run directory or the pack is invalid.
 */
export function packDir(dir: string, out: string): number {
  checkRunDir(dir);
  const files = new Map<string, Uint8Array>();
  for (const f of fs.readdirSync(dir).sort())
    if (PACK_FILE_RE.test(f)) files.set(f, new Uint8Array(fs.readFileSync(path.join(dir, f))));
  let bytes: Uint8Array;
  try {
    bytes = packRun(path.basename(path.resolve(dir)), files);
    unpackRun(bytes, { envVersions: envVersions() });
  } catch (e) {
    if (e instanceof PackError) throw new RunDirError(`${dir}: ${e.message}`);
    throw e;
  }
  writeAtomic(out, bytes);
  return bytes.length;
}

/**
 * Unpack a `.opdrun` file into `dir` (created; it must be new or empty), as a run directory `train --resume`,
 * `coverage` and `compare` read. @returns the file names written. @throws RunDirError on an invalid pack or a
 * non-empty `dir`.
 */
export function unpackToDir(file: string, dir: string): string[] {
  // A run directory's own file (run.json …): its folder is unpacked already.
  const u = readPackFile(
    file,
    (d) =>
      `its folder ${d} is a run directory already: give it where a run directory is expected, or pack it ` +
      `with npx tsx cli/pack.ts ${d} FILE.opdrun`,
  );
  if (fs.existsSync(dir) && (!fs.statSync(dir).isDirectory() || fs.readdirSync(dir).length))
    throw new RunDirError(`"${dir}" is not a new or empty folder; give a new one`);
  fs.mkdirSync(dir, { recursive: true });
  for (const [name, data] of u.files) writeAtomic(path.join(dir, name), data);
  return [...u.files.keys()];
}

/**
 * The message for a run file (`.opdrun`, recognised by its first bytes: `isRunPack`) given to `flag` where a weights
 * file is expected (`train --init`, `eval --policy`): what the file is, whether it is whole (else the pack's own
 * problem, e.g. truncated, and to export or pack it again), and how to use it: unpack it with cli/pack.ts, then
 * `train --resume DIR` to continue the run or `flag DIR/ckpt-<k>.safetensors` to start from one of its checkpoints.
 * Null when `bytes` are no run file.
 */
export function runFileAsWeights(file: string, bytes: Uint8Array, flag: string): string | null {
  if (!isRunPack(bytes)) return null;
  let problem = '';
  try {
    unpackRun(bytes, { envVersions: envVersions() });
  } catch (e) {
    if (!(e instanceof PackError)) throw e;
    problem = e.message;
  }
  const what = `${flag} ${file}: this is a run file (.opdrun, a packed run record), not a weights file`;
  const use =
    `unpack it (npx tsx cli/pack.ts --unpack ${file} DIR), then continue the run with npm run ` +
    `train -- --resume DIR, or start from one of its checkpoints with ${flag} ` +
    `DIR/ckpt-<k>.safetensors`;
  return problem ? `${what}, and it is damaged: ${problem}. Once it is whole, ${use}` : `${what}. To use it, ${use}`;
}
