/** File helpers shared by the CLIs (Node only). */
import fs from 'node:fs';
import path from 'node:path';
import { pidAlive } from './runlock';

/** The temporary path this process writes `p` through (`writeAtomic`, cli/packfile.ts `unpackToDir`). */
export function temporaryPath(p: string): string {
  return `${p}.tmp-${process.pid}`;
}

/**
 * Remove what interrupted writes of `p` left beside it: `<name of p>.tmp-<pid>` files or folders of a process that
 * no longer runs (killed during `writeAtomic`, or during an unpack). Those of running processes, every other file and
 * any that cannot be removed are left alone. @returns the paths removed.
 */
export function removeStaleTemporaries(p: string): string[] {
  const dir = path.dirname(path.resolve(p));
  const prefix = `${path.basename(path.resolve(p))}.tmp-`;
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return []; // no folder yet: nothing left behind
  }
  const gone: string[] = [];
  for (const n of names) {
    if (!n.startsWith(prefix) || !/^\d+$/.test(n.slice(prefix.length))) continue;
    if (pidAlive(Number(n.slice(prefix.length)))) continue;
    try {
      fs.rmSync(path.join(dir, n), { recursive: true, force: true });
      gone.push(path.join(dir, n));
    } catch {
      // left for a later write; the write itself goes on
    }
  }
  return gone;
}

/**
 * Write bytes or text atomically: to a temporary file next to `p` (`temporaryPath`), then rename, so an interrupted
 * run never leaves a half-written file. Temporary files of `p` left by a process killed during such a write are
 * removed first (`removeStaleTemporaries`). @throws the fs error (the temporary file is removed; one left by a killed
 * process is removed by the next write of `p`, and in a run directory when the next writer takes its lock,
 * cli/runlock.ts).
 */
export function writeAtomic(p: string, data: Uint8Array | string): void {
  removeStaleTemporaries(p);
  const tmp = temporaryPath(p);
  try {
    fs.writeFileSync(tmp, data);
    fs.renameSync(tmp, p);
  } catch (e) {
    try {
      fs.rmSync(tmp, { force: true });
    } catch {
      // the write's own error is the one to report
    }
    throw e;
  }
}

/** Exit quietly when stdout's reader goes away (`npm run play -- … | head`) instead of printing an EPIPE stack. */
export function exitOnClosedStdout(): void {
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(0);
    throw e;
  });
}
