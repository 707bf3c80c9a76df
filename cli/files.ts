/** File helpers shared by the CLIs (Node only). */
import fs from 'node:fs';

/**
 * Write bytes or text atomically: to a temporary file next to `p`, then rename, so an interrupted run never leaves a
 * half-written file. @throws the fs error (the temporary file is removed).
 */
export function writeAtomic(p: string, data: Uint8Array | string): void {
  const tmp = `${p}.tmp-${process.pid}`;
  try {
    fs.writeFileSync(tmp, data);
    fs.renameSync(tmp, p);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
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
