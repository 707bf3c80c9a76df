/**
 * Run packs on disk (Node): a `.opdrun` file (core/run-files/pack.ts: the run directory's files behind a JSON header,
 * what the page's Runs view exports) read with its size checked before it is read whole, a run directory packed, and a
 * pack unpacked into a new or empty directory. Problems are RunDirErrors naming the file (the CLIs exit 2); a failed
 * write leaves nothing behind: the pack is written through a temporary file renamed into place (`writeAtomic`), an
 * unpack into a temporary folder renamed into place, both removed on failure (and, when a process was killed
 * during the write, by the next write of that path: `removeStaleTemporaries`). `packFailureMessage` words a system
 * error of either (the file, what went wrong, what was kept, what to do).
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
import { removeStaleTemporaries, temporaryPath, writeAtomic } from './files';
import { checkpointMismatch } from '../src/core/run/resume-checks';
import { RUN_FILE } from '../src/core/run/record';
import { sha256 } from './from-run';
import { counted } from '../src/core/count-text';

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
  const st = fs.statSync(file, { throwIfNoEntry: false });
  if (!st)
    throw new RunDirError(
      `no run file at "${file}": give the path of a .opdrun file (the Runs view's Export, or npx tsx ` +
        `cli/pack.ts DIR FILE.opdrun)`,
    );
  if (st.isDirectory())
    throw new RunDirError(
      fs.existsSync(path.join(file, RUN_FILE))
        ? `"${file}" is a run directory, not a run file (.opdrun): give it where a run directory is expected, ` +
            `or pack it with npx tsx cli/pack.ts ${file} FILE.opdrun`
        : `"${file}" is a folder, not a run file (.opdrun)`,
    );
  const size = st.size;
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
 * @throws RunDirError when `out` cannot be a new pack file: a folder, a path in a folder that does not exist (or is a
 *   file), or a file that exists (unless `force`).
 */
function checkPackOutput(out: string, force: boolean): void {
  const st = fs.statSync(out, { throwIfNoEntry: false });
  if (st?.isDirectory() || /[/\\]$/.test(out))
    throw new RunDirError(`"${out}" is a folder; give a file path inside it, e.g. ${path.join(out, 'run.opdrun')}`);
  const folder = path.dirname(path.resolve(out));
  const fst = fs.statSync(folder, { throwIfNoEntry: false });
  if (!fst)
    throw new RunDirError(
      `the folder ${folder} of "${out}" does not exist; create it first (mkdir -p ${folder}), or give a path ` +
        `in an existing folder`,
    );
  if (!fst.isDirectory()) throw new RunDirError(`"${folder}" is a file, not a folder; give a path inside a folder`);
  if (st && !force)
    throw new RunDirError(
      `"${out}" exists (${counted(st.size, 'byte')}); it is left as it is: give another path, or pass --force to ` +
        `replace it`,
    );
}

/**
 * Pack run directory `dir` (its run-record files; others are left out) into `out`, validated by reading it back;
 * an existing `out` is replaced only with `force`.
 * @returns the pack's size in bytes. @throws RunDirError when `dir` is not a run directory, `out` cannot be a new
 *   pack file (checkPackOutput) or the pack is invalid; the fs error of a failed write (nothing is left behind).
 */
export function packDir(dir: string, out: string, force = false): number {
  if (!fs.existsSync(dir))
    throw new RunDirError(`no run directory at "${dir}": give a folder written by npm run train -- --run-dir DIR`);
  checkRunDir(dir);
  if (!fs.existsSync(path.join(dir, RUN_FILE)))
    throw new RunDirError(
      `"${dir}" is not a run directory (it holds no ${RUN_FILE}): give a folder written by npm run train -- ` +
        `--run-dir DIR`,
    );
  checkPackOutput(out, force);
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
  checkPackCheckpoints(file, u);
  if (fs.existsSync(dir) && (!fs.statSync(dir).isDirectory() || fs.readdirSync(dir).length))
    throw new RunDirError(`"${dir}" is not a new or empty folder; give a new one`);
  writeFolder(dir, u.files);
  return [...u.files.keys()];
}

/**
 * @throws RunDirError naming the first checkpoint file of the pack whose bytes differ from the sha256 its
 *   events.jsonl line records (a pack damaged inside a checkpoint, which its sizes cannot show).
 */
function checkPackCheckpoints(file: string, u: UnpackedRun): void {
  for (const step of u.checkpoints) {
    const bad = checkpointMismatch(u.events, step, {
      weights: sha256(u.files.get(`ckpt-${step}.safetensors`)!),
      state: sha256(u.files.get(`ckpt-${step}.state`)!),
    });
    if (bad)
      throw new RunDirError(
        `${file}: its ${bad.file} differs from the checkpoint the run wrote (sha256 ${bad.actual.slice(0, 12)}…, ` +
          `its events.jsonl records ${bad.recorded.slice(0, 12)}…): the file is corrupt; export or pack the run ` +
          `again`,
      );
  }
}

/**
 * Write `files` as the folder `dir` (new, or empty) at once: into a temporary folder beside it, renamed to `dir` when
 * every file is written. On a failure the temporary folder and any parent folder made for it are removed, and an
 * empty `dir` that was there stays. @throws the fs error.
 */
function writeFolder(dir: string, files: ReadonlyMap<string, Uint8Array>): void {
  removeStaleTemporaries(dir);
  const made = fs.mkdirSync(path.dirname(path.resolve(dir)), { recursive: true });
  const tmp = temporaryPath(path.resolve(dir));
  try {
    fs.mkdirSync(tmp);
    for (const [name, data] of files) fs.writeFileSync(path.join(tmp, name), data);
    if (fs.existsSync(dir)) fs.rmdirSync(dir); // empty (checked): the folder takes its place
    fs.renameSync(tmp, dir);
  } catch (e) {
    for (const p of made ? [tmp, made] : [tmp])
      try {
        fs.rmSync(p, { recursive: true, force: true });
      } catch {
        // the write's own error is the one to report
      }
    throw e;
  }
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

/** A file-system error code in words, and what to do about it at `where` (the folder written or the file read). */
function fsErrorWords(code: string, where: string, writing: boolean): [string, string] {
  const words: Record<string, [string, string]> = {
    ENOSPC: ['the disk is full', `free space on the disk of ${where}, or give a path on another disk`],
    EDQUOT: ['the disk quota is used up', `free space within your quota, or give a path on another disk`],
    EROFS: ['the file system is read-only', `give a path on a writable disk`],
    EACCES: [
      'permission denied',
      writing ? `give a path in a folder you can write, or make ${where} writable` : `make ${where} readable`,
    ],
    EPERM: ['operation not permitted', writing ? `give a path in a folder you can write` : `make ${where} readable`],
    ENOENT: ['the file or its folder is gone (removed meanwhile?)', `check ${where} and run the command again`],
    ENOTDIR: ['a part of the path is a file, not a folder', `give a path whose folders are folders`],
    EISDIR: ['it is a folder', `give a file path`],
    EIO: ['an I/O error of the disk', `check the disk`],
    ENAMETOOLONG: ['the file name is too long for the file system', 'give a shorter file name'],
  };
  return Object.hasOwn(words, code)
    ? words[code]
    : [`system error ${code}`, 'check the path and the disk, then run the command again'];
}

/**
 * The message of a system error (an fs error with a `code`) of `pack` or `unpack` from `input` to `output`: the file
 * (without its temporary suffix), what went wrong, what was kept (nothing written: `output` as it was, `input`
 * unchanged) and what to do. Null for an error that is no system error.
 */
export function packFailureMessage(e: unknown, op: 'pack' | 'unpack', input: string, output: string): string | null {
  const err = e as NodeJS.ErrnoException | null;
  const code = err?.code;
  if (typeof code !== 'string' || !/^E[A-Z]+$/.test(code)) return null;
  const file = (typeof err?.path === 'string' ? err.path : output).replace(/\.tmp-\d+(?=[/\\]|$)/g, '');
  const within = (p: string, root: string) =>
    path.resolve(p) === path.resolve(root) || path.resolve(p).startsWith(path.resolve(root) + path.sep);
  const reading = within(file, input) && !within(file, output);
  const where = reading ? file : path.dirname(path.resolve(output));
  const [what, fix] = fsErrorWords(code, where, !reading);
  const kept =
    op === 'pack'
      ? `nothing was written (${output} is as it was; the run directory ${input} is unchanged)`
      : `nothing was unpacked (${output} is as it was; ${input} is unchanged)`;
  return `cannot ${reading ? 'read' : 'write'} ${file}: ${what} (${code}); ${kept}; ${fix}`;
}
