/**
 * Reading and writing a run directory (the format is documented in src/core/run/record.ts) in Node: the events log
 * appended line by line, files written atomically, every file read validated. Errors a user can fix (no such
 * directory, a missing or corrupt file) are `RunDirError`s whose message names the file and what is wrong; the CLIs
 * print them and exit 2.
 */
import fs from 'node:fs';
import path from 'node:path';
import {
  CHECKPOINT_RE,
  EVENTS_FILE,
  RUN_FILE,
  VAL_FILE,
  RecordError,
  checkpointFile,
  parseEvents,
  parseRunRecord,
  parseValRecord,
  stateFile,
  type RecordEvent,
  type RunRecord,
  type ValRecord,
} from '../src/core/run/record';
import { writeAtomic } from './files';
import { cutEventsText } from '../src/core/run-files/cut';
import { isRunPack } from '../src/core/run-files/pack';

/** A run directory problem the user can fix; CLIs exit 2 with its message. */
export class RunDirError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RunDirError';
  }
}

/**
 * @throws RunDirError when `dir` does not exist or is not a folder: one of a run directory's own files
 *   (run.json …) is named as such with its folder to pass (runDirFileMessage), a run file (.opdrun) with the
 *   command that unpacks it.
 */
export function checkRunDir(dir: string): void {
  if (!fs.existsSync(dir)) throw new RunDirError(`no run directory at "${dir}"`);
  if (fs.statSync(dir).isDirectory()) return;
  const unpack =
    `; it is a run file (.opdrun): unpack it first (npx tsx cli/pack.ts --unpack ${dir} DIR), ` + `then give DIR`;
  throw new RunDirError(
    runDirFileMessage(dir, 'the run directory') ??
      `"${dir}" is a file, not a run directory${isRunFile(dir) ? unpack : ''}`,
  );
}

/**
 * The message for `file`, one of a run directory's own files by its name (run.json, events.jsonl, val.json,
 * ckpt-<k>.safetensors, ckpt-<k>.state; src/core/run/record.ts), given where something else is expected
 * (`expected`: "the run directory", "a run file (.opdrun)", "a weights file"): what it is, then `fix` of the folder
 * holding it (as given; `.` for a bare name), by default to pass that folder. E.g. `"runs/a/run.json" is the run
 * directory's run.json, not the run directory; pass its folder runs/a`. Null for any other name.
 * Used by every command that takes a run directory or a run file (compare, coverage, pack, train --resume and
 * --from-run) and by the weights flags (cli/weightsfile.ts).
 */
export function runDirFileMessage(
  file: string,
  expected: string,
  fix = (dir: string) => `pass its folder ${dir}`,
): string | null {
  const name = path.basename(file);
  const member =
    name === RUN_FILE ||
    name === EVENTS_FILE ||
    name === VAL_FILE ||
    CHECKPOINT_RE.test(name) ||
    /^ckpt-\d+\.state$/.test(name);
  return member ? `"${file}" is the run directory's ${name}, not ${expected}; ${fix(path.dirname(file))}` : null;
}

/** Whether the file at `file` is a run file (.opdrun): by its first bytes (isRunPack), else by its name. */
export function isRunFile(file: string): boolean {
  const head = new Uint8Array(64);
  const fd = fs.openSync(file, 'r');
  try {
    const n = fs.readSync(fd, head, 0, head.length, 0);
    return isRunPack(head.subarray(0, n)) || file.endsWith('.opdrun');
  } finally {
    fs.closeSync(fd);
  }
}

/** Read a file of the run directory as text, or null when it does not exist. */
function readText(dir: string, name: string): string | null {
  const p = path.join(dir, name);
  return fs.existsSync(p) ? fs.readFileSync(p, 'utf8') : null;
}

/** Wrap RecordErrors as RunDirErrors with the directory in the message. */
function inDir<T>(dir: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof RecordError) throw new RunDirError(`${dir}: ${e.message}`);
    throw e;
  }
}

/** run.json of a run directory, validated. @throws RunDirError when missing or invalid. */
export function readRun(dir: string): RunRecord {
  checkRunDir(dir);
  const t = readText(dir, RUN_FILE);
  if (t === null) throw new RunDirError(`${dir}: no ${RUN_FILE} (not a run directory written by train --run-dir)`);
  return inDir(dir, () => parseRunRecord(t));
}

/** events.jsonl of a run directory, validated line by line (empty when missing). @throws RunDirError on a bad line. */
export function readEvents(dir: string): RecordEvent[] {
  const t = readText(dir, EVENTS_FILE);
  return t === null ? [] : inDir(dir, () => parseEvents(t));
}

/** val.json of a run directory, validated, or null when the run has none. @throws RunDirError when invalid. */
export function readVal(dir: string): ValRecord | null {
  const t = readText(dir, VAL_FILE);
  return t === null ? null : inDir(dir, () => parseValRecord(t));
}

/** Write val.json atomically. */
export function writeVal(dir: string, v: ValRecord): void {
  writeAtomic(path.join(dir, VAL_FILE), JSON.stringify(v) + '\n');
}

/** Write run.json atomically. */
export function writeRun(dir: string, r: RunRecord): void {
  writeAtomic(path.join(dir, RUN_FILE), JSON.stringify(r, null, 2) + '\n');
}

/** Steps of the checkpoints whose policy and state files are both in `dir`, ascending. */
export function listCheckpoints(dir: string): number[] {
  return fs
    .readdirSync(dir)
    .flatMap((f) => {
      const m = CHECKPOINT_RE.exec(f);
      return m && fs.existsSync(path.join(dir, stateFile(Number(m[1])))) ? [Number(m[1])] : [];
    })
    .sort((a, b) => a - b);
}

/** Write a checkpoint's two files atomically (policy, then state) and return their names. */
export function writeCheckpoint(
  dir: string,
  step: number,
  weights: Uint8Array,
  state: Uint8Array,
): { file: string; stateFile: string } {
  writeAtomic(path.join(dir, checkpointFile(step)), weights);
  writeAtomic(path.join(dir, stateFile(step)), state);
  return { file: checkpointFile(step), stateFile: stateFile(step) };
}

/** Writes `buffer` at the end of the file open as `fd`; returns the bytes written (fs.writeSync's contract). */
export type AppendWriter = (fd: number, buffer: Uint8Array) => number;

/**
 * events.jsonl opened for appending: each line is written at once and checked whole; `sync` flushes it to disk.
 * A short write (a full disk) is cut back to the last whole line and thrown as an Error naming the file.
 */
export class EventLog {
  private fd: number;
  /** The file's size after the last whole line. */
  private size: number;
  readonly file: string;

  /** Open (create) DIR/events.jsonl for appending; `write` is the seam tests use to simulate a short write. */
  constructor(
    dir: string,
    private readonly write: AppendWriter = (fd, b) => fs.writeSync(fd, b),
  ) {
    this.file = path.join(dir, EVENTS_FILE);
    this.fd = fs.openSync(this.file, 'a');
    this.size = fs.fstatSync(this.fd).size;
  }

  /** Append one event as a JSON line. @throws Error naming the file when fewer bytes than the line's are written. */
  append(e: object): void {
    const bytes = Buffer.from(JSON.stringify(e) + '\n');
    const n = this.write(this.fd, bytes);
    if (n === bytes.length) {
      this.size += n;
      return;
    }
    try {
      fs.ftruncateSync(this.fd, this.size); // no cut line left behind
    } catch {
      // the file keeps a cut last line, which --resume cuts away (cutEventsAt) or names
    }
    throw Object.assign(
      new Error(
        `${this.file}: only ${n} of the line's ${bytes.length} bytes were written (the disk is full?); the ` +
          `cut line is removed`,
      ),
      { code: 'ENOSPC', path: this.file },
    );
  }

  /** Flush to disk (after a checkpoint). */
  sync(): void {
    fs.fsyncSync(this.fd);
  }

  /** Close the file. */
  close(): void {
    fs.closeSync(this.fd);
  }
}

/** What a file-system error code means, and what to do about it. */
const WRITE_ERRORS: Record<string, [string, string]> = {
  ENOSPC: ['the disk is full', 'free space on the disk'],
  EDQUOT: ['the disk quota is used up', 'free space within your quota'],
  EROFS: ['the file system is read-only', 'make it writable (or copy the run folder to a writable disk)'],
  EACCES: ['permission denied', 'make the run folder writable'],
  EPERM: ['operation not permitted', 'make the run folder writable'],
  ENOENT: ['the file or its folder is gone (removed, or the disk unmounted?)', 'restore the run folder'],
  EIO: ['an I/O error of the disk', 'check the disk'],
};

/**
 * The message of a failed write of `file` in run directory `dir`: the file, what went wrong (the errno code in
 * words), what was kept (the checkpoint of step `kept`, or nothing to continue) and what to do (continue with
 * `--resume`, or start again with `command`). Null for an error that is no file-system error.
 */
export function writeFailureMessage(
  dir: string,
  file: string,
  e: unknown,
  kept: number | null,
  command: string,
): string | null {
  const code = (e as NodeJS.ErrnoException | null)?.code;
  if (typeof code !== 'string' || !/^E[A-Z]+$/.test(code)) return null;
  const [what, fix] = WRITE_ERRORS[code] ?? [(e as Error).message, 'fix the file system'];
  const keptText =
    kept !== null
      ? `the run is kept up to its checkpoint of step ${kept} (${checkpointFile(kept)}, ${stateFile(kept)}); ` +
        `${fix}, then continue it with npm run train -- --resume ${dir} (the steps after it are redone)`
      : `the run had no checkpoint yet, so there is nothing to continue; ${fix}, then start it again: ` +
        `rm -r ${dir} && ${command}`;
  return `cannot write ${file}: ${what} (${code}); ${keptText}`;
}

/**
 * Cut events.jsonl back to the checkpoint after step k: drops every line from the first one that belongs to a later
 * step (a step, eval, validation or checkpoint event of step > k) or is a `done` event, and adds the checkpoint line
 * when the interrupted run wrote its files but not its line. Rewritten atomically; returns the lines dropped.
 * @throws RunDirError when a line is corrupt (nothing is rewritten then).
 */
export function cutEventsAt(dir: string, k: number): number {
  const p = path.join(dir, EVENTS_FILE);
  const text = fs.existsSync(p) ? fs.readFileSync(p, 'utf8') : '';
  const cut = inDir(dir, () => cutEventsText(text, k)); // validates every line first
  writeAtomic(p, cut.text);
  return cut.dropped;
}
