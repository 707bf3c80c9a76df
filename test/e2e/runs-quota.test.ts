/**
 * A full browser storage while the page records a run (Chromium, wasm, tiny settings): a first run is stored with
 * its checkpoint; a second run is stored up to step 1; then the origin's quota is set to what it already uses
 * (DevTools protocol `Storage.overrideQuotaForOrigin`), so IndexedDB refuses the next write with a real
 * QuotaExceededError. Step 2's write (with its checkpoint) fails: the banner says storage is full, what was kept and
 * that the checkpoint of step 2 was not stored; both runs stay in IndexedDB byte for byte as before, and training goes
 * on. With the quota back, the next write stores the run again up to step 3 (without the lost checkpoint) and the
 * banner goes.
 *
 * Why the test waits QUOTA_CACHE_MS after lowering the quota: Chromium's IndexedDB does not ask the quota manager on
 * every commit. Each database bucket keeps the space left from its last quota check and grants commits from that
 * figure, decayed linearly to zero over 30 s (content/browser/indexed_db/instance/bucket_context.h,
 * `kBucketSpaceCacheTimeLimit`). Here that figure is the disk's free space (tens of GB), so for up to 30 s after the
 * last check every write still fits whatever the override says. Past 30 s the cached figure is zero, the next
 * commit asks the quota manager, which applies the override, and the commit aborts with QuotaExceededError. Nothing
 * writes while the run is paused, so the last check is no later than the override. (navigator.storage.estimate()
 * does not show the override either: it reports usage plus a fixed figure; `Storage.getUsageAndQuota` shows it.)
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CDPSession, Page } from 'playwright-core';
import { ROOT, useE2E } from './harness';
import { phaseText, stepEvents, fileText, stepShown, stepTo, storedRuns, waitPhase, within } from './run-store-page';

const BASE_MODEL = (
  JSON.parse(fs.readFileSync(path.join(ROOT, 'public/base/household-easy.json'), 'utf8')) as { model: string }
).model;
/** 4 steps of one group of two, a checkpoint every 2, no evaluation. */
const LINK =
  `backend=wasm&model=${BASE_MODEL}&steps=4&tasksPerStep=1&groupSize=2` +
  '&miniBatches=2&evalEvery=0&checkpointEvery=2';
const FULL =
  'storage is full (QuotaExceededError): the run is kept up to step 1; the checkpoint of step 2 was not ' +
  'stored. Training goes on; delete runs or weights in the Runs view to free space.';

/** Chromium IndexedDB's cache of the space left (30 s, module comment) and a margin, in ms. */
const QUOTA_CACHE_MS = 32_000;

const { open } = useE2E({ startTimeoutMs: 600_000 });

const t0 = Date.now();
const mark = (what: string) => console.log(`quota e2e ${((Date.now() - t0) / 1000).toFixed(1)} s: ${what}`);

/** The quota manager's figures for `origin` (DevTools `Storage.getUsageAndQuota`; bytes), override included. */
async function quotaOf(
  cdp: CDPSession,
  origin: string,
): Promise<{ usage: number; quota: number; overrideActive: boolean }> {
  const r = await within(30_000, 'Storage.getUsageAndQuota', cdp.send('Storage.getUsageAndQuota', { origin }));
  return { usage: r.usage, quota: r.quota, overrideActive: r.overrideActive };
}

/** Each stored run's summary fields this test checks (store `runs`), oldest first. */
async function storedSummaries(
  page: Page,
): Promise<{ stepsDone: number; lastCheckpoint: number | null; files: Record<string, number> }[]> {
  return within(
    30_000,
    'reading the run summaries from IndexedDB',
    page.evaluate(async () => {
      const db = await new Promise<IDBDatabase>((res, rej) => {
        const r = indexedDB.open('opd-playground');
        r.onsuccess = () => res(r.result);
        r.onerror = () => rej(r.error);
      });
      const metas = await new Promise<
        { createdAt: number; stepsDone: number; lastCheckpoint: number | null; files: Record<string, number> }[]
      >((res, rej) => {
        const r = db.transaction('runs').objectStore('runs').getAll();
        r.onsuccess = () => res(r.result);
        r.onerror = () => rej(r.error);
      });
      db.close();
      return metas
        .sort((a, b) => a.createdAt - b.createdAt)
        .map((m) => ({ stepsDone: m.stepsDone, lastCheckpoint: m.lastCheckpoint, files: m.files }));
    }),
  );
}

describe('a storage-full write while recording a run', () => {
  it('shows what was kept; stored runs stay intact; the next write with room stores the run again', async () => {
    const { page, logs } = await open(LINK);
    page.setDefaultTimeout(60_000); // an action on a missing element fails instead of waiting for the test's timeout
    await waitPhase(page, 'ready', logs, 120_000);
    // Run A: two steps, its checkpoint of step 2 stored.
    await stepTo(page, 1, logs);
    await stepTo(page, 2, logs);
    await expect.poll(async () => (await storedRuns(page))[0]?.lastCheckpoint, { timeout: 60_000 }).toBe(2);
    mark('run A stored');
    // Run B: after Reset, one step, stored up to step 1.
    await page.getByTestId('reset-button').click();
    await expect
      .poll(async () => `${await phaseText(page)} ${await stepShown(page)}`, { timeout: 60_000 })
      .toBe('ready 0');
    await stepTo(page, 1, logs);
    await expect
      .poll(
        async () => {
          const runs = await storedRuns(page);
          return runs.length === 2 && stepEvents(fileText(runs[1], 'events.jsonl')).length === 1;
        },
        { timeout: 60_000 },
      )
      .toBe(true);
    mark('run B stored up to step 1');
    const before = await storedRuns(page);
    expect(before.map((r) => r.lastCheckpoint)).toEqual([2, null]);

    const summariesBefore = await storedSummaries(page);
    expect(summariesBefore.map((r) => [r.stepsDone, r.lastCheckpoint])).toEqual([
      [2, 2],
      [1, null],
    ]);

    // Storage full: the quota is what the origin already uses (the quota manager's own figure).
    const origin = new URL(page.url()).origin;
    const cdp = await page.context().newCDPSession(page);
    const { usage: used } = await quotaOf(cdp, origin);
    await within(
      30_000,
      'Storage.overrideQuotaForOrigin',
      cdp.send('Storage.overrideQuotaForOrigin', { origin, quotaSize: used }),
    );
    expect(await quotaOf(cdp, origin)).toEqual({ usage: used, quota: used, overrideActive: true });
    mark(`quota set to ${used} bytes`);
    await new Promise((r) => setTimeout(r, QUOTA_CACHE_MS)); // IndexedDB's cached space left runs out (module comment)
    await stepTo(page, 2, logs);
    mark('step 2 done');
    const banner = page.getByTestId('runs-storage-error');
    await expect.poll(async () => ((await banner.count()) ? banner.textContent() : ''), { timeout: 60_000 }).toBe(FULL);
    expect(await banner.getAttribute('role')).toBe('alert');
    expect(await storedRuns(page)).toEqual(before); // nothing of the failed writes, and run A untouched, byte for byte
    expect(await storedSummaries(page)).toEqual(summariesBefore);
    await page.getByRole('button', { name: 'Runs' }).click();
    expect(await page.getByTestId('runs-error').textContent()).toBe(FULL);
    mark('banner checked');

    // Training went on: step 3 runs while storage is still full. With the quota back, the next write (the pause after
    // step 3) stores the run up to step 3, without the checkpoint that did not fit, and the banner goes.
    await within(30_000, 'Storage.overrideQuotaForOrigin', cdp.send('Storage.overrideQuotaForOrigin', { origin }));
    expect((await quotaOf(cdp, origin)).overrideActive).toBe(false);
    await page.getByRole('button', { name: 'Train', exact: true }).click();
    await stepTo(page, 3, logs);
    await expect.poll(async () => banner.count(), { timeout: 60_000 }).toBe(0);
    const after = await storedRuns(page);
    expect(after).toHaveLength(2);
    expect(after[0]).toEqual(before[0]);
    const events = fileText(after[1], 'events.jsonl');
    expect(events.startsWith(fileText(before[1], 'events.jsonl'))).toBe(true); // the kept record, continued
    expect(stepEvents(events).map((e) => e.step)).toEqual([1, 2, 3]);
    expect(Object.keys(after[1].files).filter((f) => f.startsWith('ckpt-'))).toEqual([]);
    expect((await storedSummaries(page)).map((r) => [r.stepsDone, r.lastCheckpoint])).toEqual([
      [2, 2],
      [3, null],
    ]);
    expect(logs.filter((l) => l.startsWith('pageerror'))).toEqual([]);
    await page.close();
  }, 900_000);
});
