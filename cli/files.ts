/** File helpers shared by the CLIs (Node only). */
import fs from 'node:fs';

/**
 * Write bytes or text atomically: to a temporary file next to `p`, then rename, so an interrupted run never leaves a
 * half-written file. @throws the fs error (the temporary file is removed; one left by a killed process is removed
 * when the next writer takes the run directory's lock, cli/runlock.ts).
 */
export function writeAtomic(p: string, data: Uint8Array | string): void {
  const tmp = `${p}.tmp-${process.pid}`;
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
