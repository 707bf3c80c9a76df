/**
 * Browser end-to-end test of the backend probe and the Bench view: `auto` times a short probe on every backend that
 * works (WebGPU and WebGL are SwiftShader here, skipped as software adapters), picks the fastest, says why and with
 * how many wasm threads in the badge, remembers the choice for the next visit and probes again when the stored
 * record is corrupted; the Bench view runs `npm run bench`'s workloads at the quick size on wasm and shows positive
 * rates in its table and its one-line result.
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useE2E } from './harness';

const { open } = useE2E();

/** The badge's text once the worker has chosen a backend. */
async function badgeText(page: Page): Promise<string> {
  const badge = page.getByTestId('backend-badge');
  await expect
    .poll(async () => (await badge.textContent()) ?? '', { timeout: 90_000 })
    .toMatch(/^\s*(webgpu|webgl|wasm|cpu)/);
  return ((await badge.textContent()) ?? '').replace(/\s+/g, ' ').trim();
}

/** The badge popover's text (it is in the DOM while closed). */
const details = (page: Page) =>
  page.evaluate(() =>
    (document.querySelector('[data-testid="backend-details"]')?.textContent ?? '').replace(/\s+/g, ' '),
  );

/**
 * Runs one stage of a test within `ms`, or fails naming the stage and what the badge and its popover said then (a
 * page call such as `page.evaluate` has no time limit of its own).
 */
async function stage<T>(page: Page, name: string, ms: number, fn: () => Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, rej) => {
    timer = setTimeout(() => rej(new Error(`stage "${name}" did not finish within ${ms / 1000} s`)), ms);
  });
  try {
    return await Promise.race([fn(), late]);
  } catch (e) {
    const badge = await Promise.race([
      page
        .getByTestId('backend-badge')
        .textContent({ timeout: 5_000 })
        .catch(() => '(unreadable)'),
      new Promise<string>((r) => setTimeout(() => r('(no answer)'), 5_000)),
    ]);
    throw new Error(`${name}: ${e instanceof Error ? e.message : String(e)}; badge then: ${badge}`, { cause: e });
  } finally {
    clearTimeout(timer);
  }
}

describe('backend probe and Bench view in Chromium', () => {
  it(
    'auto probes, picks wasm with its thread count, says why, remembers it, and probes again after a ' +
      'corrupted record',
    async () => {
      const { page, logs } = await open('model=nano&steps=1');
      const text = await stage(page, 'first probe', 100_000, () => badgeText(page));
      const cores = await page.evaluate(() => navigator.hardwareConcurrency);
      const isolated = await page.evaluate(() => crossOriginIsolated);
      expect(isolated).toBe(true);
      const threads = Math.min(8, cores);
      console.log(`badge (probe): ${text}\npopover: ${await details(page)}`);
      expect(text).toMatch(new RegExp(`^wasm · ${threads} threads? · fastest\\b`));
      expect(await details(page)).toMatch(new RegExp(`Adapter: WebAssembly · SIMD · ${threads} threads?`));
      // On loaded cores a probe can run out of its time before one timed step: its figure is then a lower bound ('>'),
      // and one stopped after fewer timed steps says so.
      expect(await details(page)).toMatch(
        /Chosen: fastest of wasm >?\d+ ms( \(stopped early\))?, cpu >?\d+ ms( \(stopped early\))? per probe step/,
      );
      expect(await details(page)).toMatch(
        new RegExp(
          'webgpu: software adapter \\(.+\\): a CPU emulation, about 60× slower than wasm; ' +
            'choose webgpu in Settings to use it anyway',
        ),
      );

      // The next visit uses the remembered choice without probing.
      const again = await stage(page, 'reload with the remembered choice', 100_000, async () => {
        await page.reload();
        return badgeText(page);
      });
      console.log(`badge (remembered): ${again}`);
      expect(again).toMatch(/^wasm · \d+ threads? · fastest \(remembered\)/);
      expect(await details(page)).toMatch(/Chosen: remembered: fastest of wasm >?\d+ ms/);

      // A corrupted record is not a crash: the worker probes again and says why.
      // Every way this write can stall rejects with what happened (page.evaluate itself has no timeout).
      await stage(page, 'write a corrupted record', 70_000, () =>
        page.evaluate(
          () =>
            new Promise<void>((res, rej) => {
              const timer = setTimeout(
                () => rej(new Error('writing the corrupted record did not finish within 60 s')),
                60_000,
              );
              const fail = (e: unknown) => {
                clearTimeout(timer);
                rej(e);
              };
              const req = indexedDB.open('opd-backend-choice', 1);
              req.onupgradeneeded = () =>
                fail(new Error('opd-backend-choice did not exist: the worker never stored its choice'));
              req.onblocked = () => fail(new Error('opening opd-backend-choice was blocked by another connection'));
              req.onsuccess = () => {
                try {
                  const tx = req.result.transaction('choice', 'readwrite');
                  tx.objectStore('choice').put({ version: 1, key: 'x', choice: 'tpu', timings: 'fast' }, 'auto');
                  tx.oncomplete = () => {
                    clearTimeout(timer);
                    req.result.close();
                    res();
                  };
                  tx.onerror = () => fail(tx.error);
                  tx.onabort = () => fail(tx.error ?? new Error('the write transaction was aborted'));
                } catch (e) {
                  fail(e);
                }
              };
              req.onerror = () => fail(req.error);
            }),
        ),
      );
      const reprobed = await stage(page, 'reload after the corrupted record', 100_000, async () => {
        await page.reload();
        return badgeText(page);
      });
      const probedAgain = /^wasm · \d+ threads? · fastest ⚠$|^wasm · \d+ threads? · fastest\b(?! \(remembered\))/;
      expect(reprobed).toMatch(probedAgain);
      expect(await details(page)).toMatch(/remembered choice unreadable \(choice: .+\), so probed again/);

      // "Probe again" forgets the choice and reloads: a fresh probe.
      const fresh = await stage(page, 'Probe again', 100_000, async () => {
        await page.getByTestId('backend-badge').click();
        await page.getByTestId('backend-reprobe').click();
        await page.waitForLoadState('load');
        return badgeText(page);
      });
      expect(fresh).not.toMatch(/remembered/);
      expect(logs.filter((l) => l.startsWith('pageerror'))).toEqual([]);
      await page.close();
    },
    480_000,
  );

  it(
    'the Bench view runs the quick benchmark on wasm and shows positive rates in its table and one-line ' + 'result',
    async () => {
      const { page, logs } = await open(
        'backend=wasm&model=nano&init=scratch&steps=2&tasksPerStep=1&groupSize=2&miniBatches=2&evalEvery=0',
      );
      expect(await badgeText(page)).toMatch(/^wasm · \d+ threads? · forced/);
      await page.getByRole('button', { name: 'Bench', exact: true }).click();
      await page.getByTestId('bench-size-quick').check();
      await page.getByTestId('bench-backend-webgpu').uncheck();
      await page.getByTestId('bench-backend-webgl').uncheck();
      await page.getByTestId('bench-backend-wasm').check();
      await page.getByTestId('bench-run').click();
      await page.getByTestId('bench-line').waitFor({ timeout: 240_000 });
      expect(await page.getByTestId('bench-error').count()).toBe(0);
      const cell = async (id: string) => (await page.getByTestId(id).textContent())?.trim() ?? '';
      const train = await cell('bench-train-wasm'),
        sample = await cell('bench-sample-wasm'),
        matmul = await cell('bench-matmul-wasm');
      const line = await cell('bench-line');
      console.log(`bench line: ${line}`);
      for (const v of [train, sample, matmul]) {
        expect(Number.isFinite(Number(v)) && Number(v) > 0, v).toBe(true);
      }
      expect(line).toContain(`wasm [WebAssembly · SIMD · `);
      expect(line).toContain(`train ${train} tok/s, sample ${sample} tok/s, matmul ${matmul} GFLOP/s`);
      const json = JSON.parse((await page.getByTestId('bench-json').textContent()) ?? '{}') as {
        results: { backend: string; ok: boolean; result: Record<string, number> }[];
        restored: string;
      };
      expect(json.restored).toBe('wasm');
      expect(json.results.map((r) => [r.backend, r.ok])).toEqual([['wasm', true]]);
      for (const k of ['trainTokensPerSecond', 'sampleTokensPerSecond', 'matmulGflops'])
        expect(json.results[0].result[k]).toBeGreaterThan(0);
      // The worker is back on wasm and can still train: Step runs one update.
      await page.getByRole('button', { name: 'Train', exact: true }).click();
      expect(await badgeText(page)).toMatch(/^wasm/);
      await expect.poll(async () => page.getByTestId('step-button').isEnabled(), { timeout: 30_000 }).toBe(true);
      await page.getByTestId('step-button').click();
      await expect
        .poll(async () => (await page.getByTestId('step-counter').textContent()) ?? '', { timeout: 120_000 })
        .toMatch(/step 1\b/);
      expect(await page.getByTestId('error-banner').count()).toBe(0);
      expect(logs.filter((l) => l.startsWith('pageerror'))).toEqual([]);
      await page.close();
    },
    300_000,
  );
});
