/**
 * Shared steps of the stored-run browser tests (run export, trajectory export, storage-full writes): the page's
 * phase and step counter, pressing Step, reading every stored run straight from IndexedDB (database
 * `opd-playground`, src/worker/persist.ts), and step events without their wall times.
 */
import { expect } from 'vitest';
import type { Page } from 'playwright-core';

/** One stored run as read from IndexedDB: its summary fields and its files' bytes. */
export interface StoredRunBytes {
  id: string;
  name: string;
  done: boolean;
  createdAt: number;
  lastCheckpoint: number | null;
  /** File name → the file's bytes, base64 (a string crosses from the page far faster than an array of numbers). */
  files: Record<string, string>;
}

/** `p`, or an Error naming `what` after `ms` milliseconds (for calls that have no timeout of their own). */
export function within<T>(ms: number, what: string, p: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>(
    (_, rej) => (timer = setTimeout(() => rej(new Error(`${what}: no answer within ${ms} ms`)), ms)),
  );
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/** Every stored run (oldest first) with every file's bytes, read straight from IndexedDB (within 30 s). */
export async function storedRuns(page: Page): Promise<StoredRunBytes[]> {
  return within(
    30_000,
    'reading the stored runs from IndexedDB',
    page.evaluate(async () => {
      const db = await new Promise<IDBDatabase>((res, rej) => {
        const r = indexedDB.open('opd-playground');
        r.onsuccess = () => res(r.result);
        r.onerror = () => rej(r.error);
      });
      const all = <T>(store: string) =>
        new Promise<T[]>((res, rej) => {
          if (!db.objectStoreNames.contains(store)) return res([]);
          const r = db.transaction(store).objectStore(store).getAll();
          r.onsuccess = () => res(r.result as T[]);
          r.onerror = () => rej(r.error);
        });
      const metas = await all<{
        id: string;
        name: string;
        done: boolean;
        createdAt: number;
        lastCheckpoint: number | null;
      }>('runs');
      const files = await all<{ runId: string; name: string; data: Uint8Array }>('runFiles');
      db.close();
      const b64 = (d: Uint8Array) => {
        let bin = '';
        for (let i = 0; i < d.length; i += 0x8000) bin += String.fromCharCode(...d.subarray(i, i + 0x8000));
        return btoa(bin);
      };
      return metas
        .sort((a, b) => a.createdAt - b.createdAt)
        .map((m) => ({
          id: m.id,
          name: m.name,
          done: m.done,
          createdAt: m.createdAt,
          lastCheckpoint: m.lastCheckpoint,
          files: Object.fromEntries(files.filter((f) => f.runId === m.id).map((f) => [f.name, b64(f.data)])),
        }));
    }),
  );
}

/** A stored text file's content (UTF-8). */
export function fileText(run: StoredRunBytes, name: string): string {
  return fileBytes(run, name).toString('utf8');
}

/** A stored file's bytes (empty when the run has no such file). */
export function fileBytes(run: StoredRunBytes, name: string): Buffer {
  return Buffer.from(run.files[name] ?? '', 'base64');
}

/** Wall-time fields of a step event: they differ between identical runs. */
const WALL_FIELDS = ['stepMs', 'elapsedMs', 'tokensPerSecond', 'phaseMs'];

/** The step events of an events.jsonl text (or of JSON lines printed by `train --json`), without wall times. */
export function stepEvents(text: string): Record<string, unknown>[] {
  return text
    .trim()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((e) => e.event === 'step')
    .map((e) => Object.fromEntries(Object.entries(e).filter(([k]) => !WALL_FIELDS.includes(k))));
}

/** The step counter's number (`step N`). */
export async function stepShown(page: Page): Promise<number> {
  return Number(/step (\d+)/.exec((await page.getByTestId('step-counter').textContent()) ?? '')?.[1] ?? NaN);
}

/** The run phase as shown (`ready`, `paused`, `done` …). */
export async function phaseText(page: Page): Promise<string> {
  return ((await page.getByTestId('run-phase').textContent()) ?? '').trim();
}

/** Waits for the phase to read `want` (up to `timeout` ms), failing with the error banner and the console. */
export async function waitPhase(page: Page, want: string, logs: string[], timeout = 180_000): Promise<void> {
  try {
    await expect.poll(() => phaseText(page), { timeout, interval: 250 }).toBe(want);
  } catch (e) {
    const banner = page.getByTestId('error-banner');
    throw new Error(
      `phase "${want}" not reached; banner: ${(await banner.count()) ? await banner.textContent() : '—'}; ` +
        `console:\n${logs.join('\n')}\n${e}`,
      { cause: e },
    );
  }
}

/** Presses Step and waits until step `n` is shown and the run is paused again. */
export async function stepTo(page: Page, n: number, logs: string[]): Promise<void> {
  await page.getByTestId('step-button').click();
  try {
    await expect
      .poll(async () => ((await page.getByTestId('error-banner').count()) ? -1 : stepShown(page)), {
        timeout: 240_000,
        interval: 250,
      })
      .toBe(n);
  } catch (e) {
    throw new Error(
      `step ${n} not reached; banner: ${await page
        .getByTestId('error-banner')
        .textContent()
        .catch(() => '')}\n${logs.join('\n')}\n${e}`,
      { cause: e },
    );
  }
  await waitPhase(page, 'paused', logs, 60_000);
}
