/**
 * One writer per run directory (Node): `train --run-dir` and `train --resume` hold DIR/train.lock while they write.
 * The lock file is created atomically (`fs.openSync` with 'wx': it fails when the file exists) and holds its owner
 * as JSON (pid, host, start time, command); it is removed when the process exits (normally, on an error, or on
 * SIGINT/SIGTERM). A lock left by a crash on this host (its pid no longer runs) is taken over with a note; one of
 * another host is refused naming that host (this host cannot tell whether it still runs); `force` breaks any lock
 * with a warning. Temporary files of an interrupted atomic write (cli/files.ts `writeAtomic`, `*.tmp-<pid>`) of a
 * writer that no longer runs are removed once the lock is held.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The lock file's name in a run directory. */
export const LOCK_FILE = 'train.lock';

/** Who holds a run directory: what the lock file records. */
export interface LockHolder {
  pid: number;
  host: string;
  /** When the holder took the lock (ISO time). */
  since: string;
  command: string;
}

/** A run directory held by another writer; the message names the directory, the holder and the fix. */
export class RunLockError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RunLockError';
  }
}

/** A lock this process holds. */
export interface RunLock {
  file: string;
  /** Notes and warnings to print (a stale lock taken over, a lock broken with --force, temporary files removed). */
  notes: string[];
  /** Remove the lock file if it is still this process's (idempotent; also done at exit). */
  release(): void;
}

/** Whether process `pid` runs on this host (EPERM: it runs under another user). */
export function pidAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The lock file's holder; null when there is no lock file; 'unreadable' when it holds no valid record. */
export function readLock(dir: string): LockHolder | null | 'unreadable' {
  let text: string;
  try {
    text = fs.readFileSync(path.join(dir, LOCK_FILE), 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    return 'unreadable';
  }
  try {
    const o = JSON.parse(text) as Partial<LockHolder>;
    if (Number.isInteger(o.pid) && typeof o.host === 'string' && typeof o.since === 'string')
      return { pid: o.pid!, host: o.host, since: o.since, command: typeof o.command === 'string' ? o.command : '' };
  } catch {
    // not JSON: unreadable
  }
  return 'unreadable';
}

/** "pid 123 on host h since 2026-01-01T00:00:00.000Z" (and its command). */
export function describeHolder(h: LockHolder): string {
  return `pid ${h.pid} on host ${h.host} since ${h.since}${h.command ? ` (${h.command})` : ''}`;
}

/** Whether a holder is a writer that still runs, as far as this host can tell ('unknown' for another host). */
function holderState(h: LockHolder): 'alive' | 'dead' | 'unknown' {
  if (h.host !== os.hostname()) return 'unknown';
  return h.pid !== process.pid && pidAlive(h.pid) ? 'alive' : 'dead';
}

/**
 * The refusal for a run directory whose lock is held (a live holder on this host, a holder on another host, or an
 * unreadable lock file); null when there is no lock or its holder no longer runs.
 */
export function lockedMessage(dir: string): string | null {
  const h = readLock(dir);
  const file = path.join(dir, LOCK_FILE);
  if (h === null) return null;
  if (h === 'unreadable')
    return (
      `${dir} is locked (${file} holds no readable owner); if no train writes this run, remove ${file} or ` +
      `pass --force`
    );
  const state = holderState(h);
  if (state === 'dead') return null;
  if (state === 'alive')
    return (
      `${dir} is being written by another train: ${describeHolder(h)}; a run directory has one writer at a ` +
      `time: wait for it to end (or stop it: kill ${h.pid}), then run this again`
    );
  return (
    `${dir} is locked by train ${describeHolder(h)}, another host, whose process this host cannot check; if ` +
    `that run has ended, pass --force to break the lock (or remove ${file})`
  );
}

/** Create the lock file with `me` in it; false when it exists. @throws other fs errors. */
function tryCreate(file: string, me: LockHolder): boolean {
  let fd: number;
  try {
    fd = fs.openSync(file, 'wx');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
  try {
    fs.writeSync(fd, JSON.stringify(me) + '\n');
  } finally {
    fs.closeSync(fd);
  }
  return true;
}

/**
 * Move an old lock file aside when it still holds `oldText` (so two writers taking over one stale lock do not both
 * win: the second finds the first's fresh lock and puts it back).
 */
function removeOld(file: string, oldText: string): void {
  const aside = `${file}.old-${process.pid}`;
  try {
    fs.renameSync(file, aside);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw e;
  }
  if (fs.readFileSync(aside, 'utf8') !== oldText)
    try {
      fs.linkSync(aside, file); // another writer's fresh lock: put it back (fails if a newer one is there)
    } catch {
      // a newer lock is in place
    }
  fs.rmSync(aside, { force: true });
}

/** The text of the lock file, or null when it is gone. */
function lockText(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/** Remove `*.tmp-<pid>` files (interrupted atomic writes) of writers that no longer run; their names. */
function removeTemporaries(dir: string): string[] {
  const gone: string[] = [];
  for (const f of fs.readdirSync(dir)) {
    const m = /\.tmp-(\d+)$/.exec(f);
    if (!m || pidAlive(Number(m[1]))) continue;
    fs.rmSync(path.join(dir, f), { force: true });
    gone.push(f);
  }
  return gone;
}

/**
 * Take the lock of run directory `dir` for `command`. A stale lock (this host, pid gone) is taken over with a note;
 * with `force` a held one is broken with a warning. The lock is released at exit and on SIGINT/SIGTERM.
 * @throws RunLockError when another writer holds it (the message names the directory, the holder and the fix).
 */
export function acquireRunLock(dir: string, opts: { force: boolean; command: string }): RunLock {
  const file = path.join(dir, LOCK_FILE);
  const me: LockHolder = {
    pid: process.pid,
    host: os.hostname(),
    since: new Date().toISOString(),
    command: opts.command,
  };
  const notes: string[] = [];
  for (let attempt = 0; !tryCreate(file, me); attempt++) {
    const old = lockText(file);
    if (old === null) continue; // released meanwhile
    const refusal = lockedMessage(dir);
    const h = readLock(dir);
    const who = h && h !== 'unreadable' ? describeHolder(h) : `an unreadable owner (${file})`;
    if (refusal !== null && !opts.force) throw new RunLockError(refusal);
    if (attempt >= 3) throw new RunLockError(`${dir}: the lock ${file} keeps changing; another train takes it`);
    notes.push(
      refusal === null
        ? `note: ${dir} was locked by ${who}, which no longer runs (a crash or kill); the lock is taken over`
        : `warning: --force breaks the lock of ${dir} held by ${who}; if that run still writes, both write ` +
            `the same files and the run record is corrupted`,
    );
    removeOld(file, old);
  }
  const gone = removeTemporaries(dir);
  if (gone.length) notes.push(`note: removed temporary files of an interrupted write in ${dir}: ${gone.join(', ')}`);
  return { file, notes, release: holdUntilExit(file, JSON.stringify(me) + '\n') };
}

/** Release the lock file (still holding `mine`) at exit and on SIGINT/SIGTERM; returns the release function. */
function holdUntilExit(file: string, mine: string): () => void {
  let held = true;
  const release = () => {
    if (!held) return;
    held = false;
    process.off('exit', release);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    if (lockText(file) === mine) fs.rmSync(file, { force: true });
  };
  // Released, then the signal raised again with the default action, so the exit status says which signal it was.
  const onSignal = (sig: NodeJS.Signals) => {
    release();
    process.kill(process.pid, sig);
  };
  process.on('exit', release);
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return release;
}
