/**
 * One writer per run directory (Node): `train --run-dir` and `train --resume` hold DIR/train.lock while they write.
 * The lock file is created atomically (`fs.openSync` with 'wx': it fails when the file exists) and holds its owner
 * as JSON (pid, host, start time, command); it is removed when the process exits (normally, on an error, or on
 * SIGINT/SIGTERM). A lock left by a crash on this host (its pid no longer runs) is taken over with a note; one of
 * another host is refused naming that host (this host cannot tell whether it still runs); `force` breaks any lock
 * with a warning. Temporary files of an interrupted atomic write (cli/files.ts `writeAtomic`, `*.tmp-<pid>`) of a
 * writer that no longer runs are removed once the lock is held.
 *
 * A lock broken with `force` while its holder still runs: the holder checks before each write that the lock file
 * still holds its own record (`assertOwnLock`, called by the run recorder before every append, checkpoint and
 * run.json/val.json write) and stops with a RunLockError naming the new holder, writing nothing more; at exit a
 * process removes the lock file only while it holds its own record, so the forced-out writer never removes the new
 * holder's lock.
 */
import { randomUUID } from 'node:crypto';
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
  /** A random id of this taking of the lock (two takings by one pid differ); absent in older lock files. */
  id?: string;
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
  /** True while the lock file holds this process's record (not broken with --force, not removed). */
  owned(): boolean;
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

/** The locks this process took, by resolved run directory (`assertOwnLock` checks them). */
const taken = new Map<string, RunLock>();

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
    id: randomUUID(),
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
        : `warning: --force breaks the lock of ${dir} held by ${who}; if that train still runs, it stops at ` +
            `its next write of the run (it checks the lock before each one) and this train writes the record`,
    );
    removeOld(file, old);
  }
  const gone = removeTemporaries(dir);
  if (gone.length) notes.push(`note: removed temporary files of an interrupted write in ${dir}: ${gone.join(', ')}`);
  const mine = JSON.stringify(me) + '\n';
  const lock: RunLock = { file, notes, release: holdUntilExit(file, mine), owned: () => lockText(file) === mine };
  taken.set(path.resolve(dir), lock);
  return lock;
}

/**
 * Check, before a write of run directory `dir`, that this process still holds the lock it took: a no-op when it
 * took none there (a recorder used without a lock) or still holds it.
 * @throws RunLockError naming the directory, who holds the lock now (or that it is gone) and that this process
 *   stops writing, when another train broke it with --force (or the lock file was removed).
 */
export function assertOwnLock(dir: string): void {
  const lock = taken.get(path.resolve(dir));
  if (!lock || lock.owned()) return;
  const h = readLock(dir);
  const stop = `${dir} is no longer this train's to write: `;
  const here = `this train (pid ${process.pid}) stops here and writes nothing more`;
  if (h !== null && h !== 'unreadable')
    throw new RunLockError(
      `${stop}another train took the lock with --force: ${describeHolder(h)}; ${here}: the run record is that ` +
        `train's from its resume on (see it with npm run compare -- ${dir} once it ends)`,
    );
  const lost =
    h === null
      ? `the lock ${lock.file} is gone (removed by hand, or by a train that broke it with --force and has ended)`
      : `the lock ${lock.file} holds another, unreadable owner`;
  throw new RunLockError(
    `${stop}${lost}; ${here}; once no train writes ${dir}, continue it with npm run train -- --resume ${dir}`,
  );
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
