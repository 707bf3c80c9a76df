/**
 * E2E harness: builds the page with Vite into a temp folder, serves it with `vite preview` (COOP/COEP on) on a
 * free port, and launches the system Chromium headless with WebGPU enabled (SwiftShader, a CPU emulation, on
 * machines without a GPU). Child processes are started and stopped by pid.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

/** Repository root. */
export const ROOT = resolve(import.meta.dirname, '../..');
const VITE = join(ROOT, 'node_modules/vite/bin/vite.js');

/** Chromium flags. `--enable-unsafe-webgpu` alone exposes navigator.gpu (SwiftShader fallback adapter) on Linux. */
export const CHROMIUM_ARGS = [
  '--enable-unsafe-webgpu',
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.once('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => res(port));
    });
  });
}

/** Runs a command to completion; rejects with its output on a non-zero exit. */
function run(args: string[]): Promise<void> {
  return new Promise((res, rej) => {
    const p = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (out += d));
    p.on('error', rej);
    p.on('exit', (code) => (code === 0 ? res() : rej(new Error(`${args.join(' ')} exited ${code}:\n${out}`))));
  });
}

/** Waits until `url` answers 200, polling every 200 ms, up to `timeoutMs`. */
async function waitForHttp(url: string, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not up yet
    }
    if (Date.now() > end) throw new Error(`${url} did not answer within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** A built-and-served page and a browser pointed at it. */
export interface E2E {
  /** Base URL of the preview server, e.g. `http://127.0.0.1:43123/`. */
  url: string;
  context: BrowserContext;
  /** Closes the browser, stops the server, deletes the temp folders. Safe to call twice. */
  close(): Promise<void>;
}

/** Builds, serves and launches. Takes ~5–20 s. */
export async function startE2E(): Promise<E2E> {
  const work = mkdtempSync(join(tmpdir(), 'opd-e2e-'));
  const outDir = join(work, 'dist');
  let server: ChildProcess | null = null;
  let context: BrowserContext | null = null;
  const close = async () => {
    await context?.close().catch(() => undefined);
    context = null;
    if (server?.pid && server.exitCode === null) server.kill('SIGTERM');
    server = null;
    rmSync(work, { recursive: true, force: true });
  };
  try {
    await run([VITE, 'build', '--outDir', outDir, '--emptyOutDir', '--logLevel', 'warn']);
    const port = await freePort();
    server = spawn(process.execPath, [VITE, 'preview', '--outDir', outDir, '--port', String(port), '--strictPort', '--host', '127.0.0.1'], {
      cwd: ROOT,
      stdio: 'ignore',
    });
    const url = `http://127.0.0.1:${port}/`;
    await waitForHttp(url, 30_000);
    context = await chromium.launchPersistentContext(join(work, 'profile'), {
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1440, height: 900 },
    });
    return { url, context, close };
  } catch (e) {
    await close();
    throw e;
  }
}
