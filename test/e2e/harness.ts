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
import { afterAll, beforeAll } from 'vitest';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/** Repository root. */
export const ROOT = resolve(import.meta.dirname, '../..');
const VITE = join(ROOT, 'node_modules/vite/bin/vite.js');

/**
 * Chromium flags. `--enable-unsafe-webgpu` alone exposes navigator.gpu (SwiftShader fallback adapter) on Linux.
 * `--disable-dev-shm-usage` keeps shared memory in /tmp: on a machine with a small /dev/shm Chromium's GPU process
 * otherwise runs out of it (Debian's launcher means to add the flag then, but its size check fails on some mounts).
 */
export const CHROMIUM_ARGS = [
  '--enable-unsafe-webgpu',
  '--disable-dev-shm-usage',
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

/**
 * Builds, serves and launches. Takes ~5–20 s. `minify: false` builds the page unminified (readable function names in
 * a profile or trace); default true, as `npm run build`.
 */
export async function startE2E(opts: { minify?: boolean } = {}): Promise<E2E> {
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
    await run([
      VITE,
      'build',
      '--outDir',
      outDir,
      '--emptyOutDir',
      '--logLevel',
      'warn',
      ...(opts.minify === false ? ['--minify', 'false'] : []),
    ]);
    const port = await freePort();
    server = spawn(
      process.execPath,
      [VITE, 'preview', '--outDir', outDir, '--port', String(port), '--strictPort', '--host', '127.0.0.1'],
      {
        cwd: ROOT,
        stdio: 'ignore',
      },
    );
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

/** A page opened by `E2ESuite.open`. */
export interface OpenedPage {
  page: Page;
  /**
   * The page's console errors (and warnings, with `warnings`) and uncaught errors, e.g. `error: …`, `pageerror: …`.
   */
  logs: string[];
}

/** Options of `E2ESuite.open`. */
export interface OpenOptions {
  /** Navigate this page (e.g. to reload a link in the same tab) instead of opening a new one. */
  page?: Page;
  /** Runs on the page before it navigates (e.g. `page.route(…)` to answer a request). */
  before?: (page: Page) => Promise<unknown>;
}

/** One test file's harness, from `useE2E`. */
export interface E2ESuite {
  /** The started harness (url and browser context). @throws Error when read before `beforeAll` started it. */
  readonly e2e: E2E;
  /** Opens the page at `#hash` (no leading `#`) and collects its console messages for failure messages. */
  open(hash: string, opts?: OpenOptions): Promise<OpenedPage>;
}

/**
 * The setup every browser test file shares: call once at the top level of a test file. Registers vitest's
 * `beforeAll` (startE2E: build, serve, launch Chromium; up to `startTimeoutMs`, default 180 000 ms) and `afterAll`
 * (close the browser and the server, within 30 000 ms), and returns `open(hash)`, which opens a new tab (or navigates
 * `opts.page`) at `<server>/#hash`, collecting console errors — and warnings with `warnings: true` — and page
 * errors in `logs`. Use `backend=wasm` in the hash unless the test is about WebGPU (SwiftShader here).
 *
 * ```ts
 * const { open } = useE2E();
 * it('trains', async () => {
 *   const { page, logs } = await open('backend=wasm&model=nano&steps=2');
 * });
 * ```
 */
export function useE2E(opts: { startTimeoutMs?: number; warnings?: boolean } = {}): E2ESuite {
  let e2e: E2E | null = null;
  beforeAll(async () => {
    e2e = await startE2E();
  }, opts.startTimeoutMs ?? 180_000);
  afterAll(async () => {
    await e2e?.close();
  }, 30_000);
  const started = (): E2E => {
    if (!e2e)
      throw new Error(
        'the e2e harness is not started: call useE2E() at the top level of the test file and use it inside tests',
      );
    return e2e;
  };
  return {
    get e2e() {
      return started();
    },
    async open(hash, o = {}) {
      const { url, context } = started();
      const page = o.page ?? (await context.newPage());
      const logs: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error' || (opts.warnings && m.type() === 'warning')) logs.push(`${m.type()}: ${m.text()}`);
      });
      page.on('pageerror', (err) => logs.push(`pageerror: ${err.message}`));
      await o.before?.(page);
      await page.goto(`${url}#${hash}`);
      return { page, logs };
    },
  };
}
