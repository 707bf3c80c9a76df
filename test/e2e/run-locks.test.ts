/**
 * Browser end-to-end test of one stored run trained by one tab at a time (src/worker/run-locks.ts: a Web Locks lock
 * per stored run, held by the tab's worker while it trains the run): two tabs of the same browser (one context), wasm,
 * tiny settings. Tab A trains a stored run; tab B's Runs view lists it as training in another tab, with Resume and
 * Delete off and saying why. A pauses: after a Refresh B may resume it and trains it; A's Runs view now lists it as
 * B's, and A's Resume (Start) is refused saying so. B stops the run (it is finished there); A resumes it from the Runs
 * view and trains it. The stored record is one run with both continuations in it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ROOT, useE2E } from './harness';
import { stepShown, storedRuns } from './run-store-page';

const BASE_MODEL = (
  JSON.parse(readFileSync(join(ROOT, 'public/base/household-easy.json'), 'utf8')) as { model: string }
).model;
/**
 * 1 000 steps of B 2 × G 2 (about a second each on wasm), a checkpoint every 2, no evaluation: no tab reaches the last
 * step while the test runs (with 40 steps a fast machine finished the run before the last Pause), a checkpoint soon.
 */
const LINK =
  `backend=wasm&model=${BASE_MODEL}&steps=1000&tasksPerStep=2&groupSize=2` +
  '&miniBatches=2&evalEvery=0&checkpointEvery=2';
const ELSEWHERE = 'training in another tab: Resume and Delete are off until it pauses or closes there';

const { open } = useE2E();

/** The phase as the page holds it (data-phase of the progress line: ready, running, paused, done, error …). */
const phase = (page: Page) => page.getByTestId('run-phase').getAttribute('data-phase');

/** Waits for phase `want`, failing with the page's error banner and console. */
async function waitPhase(page: Page, want: string, logs: string[], timeout = 240_000): Promise<void> {
  try {
    await expect.poll(() => phase(page), { timeout, interval: 200 }).toBe(want);
  } catch (e) {
    const banner = page.getByTestId('error-banner');
    const text = (await banner.count()) ? await banner.textContent() : '—';
    throw new Error(`phase "${want}" not reached; banner: ${text}; console:\n${logs.join('\n')}\n${e}`, { cause: e });
  }
}

/** Opens the Runs view and refreshes its list until its one row offers Resume (a checkpoint is stored). */
async function runsRow(page: Page) {
  await page.getByRole('button', { name: 'Runs', exact: true }).click();
  const row = page.getByTestId('run-row');
  await expect
    .poll(
      async () => {
        await page.getByRole('button', { name: 'Refresh' }).click();
        return (await row.count()) === 1 && (await row.getByTestId('run-resume').count()) === 1;
      },
      { timeout: 60_000, interval: 500 },
    )
    .toBe(true);
  return row;
}

/** Refreshes the Runs list and says whether the row shows the run as training in another tab. */
async function shownElsewhere(page: Page): Promise<boolean> {
  await page.getByRole('button', { name: 'Refresh' }).click();
  await page.waitForTimeout(300);
  return (await page.getByTestId('run-row').getByTestId('run-elsewhere').count()) === 1;
}

describe('a stored run in two tabs', () => {
  it('the other tab shows it training elsewhere (Resume, Delete off); after a pause or stop it resumes', async () => {
    const a = await open(LINK);
    await expect.poll(() => a.page.getByTestId('start-button').isEnabled(), { timeout: 120_000 }).toBe(true);
    await a.page.getByTestId('start-button').click();
    await expect.poll(() => stepShown(a.page), { timeout: 240_000, interval: 250 }).toBeGreaterThanOrEqual(3);

    // Tab B, same browser: A's run is listed as training in another tab; Resume and Delete are off and say why.
    const b = await open(LINK);
    await expect.poll(() => b.page.getByTestId('start-button').isEnabled(), { timeout: 120_000 }).toBe(true);
    const rowB = await runsRow(b.page);
    await expect.poll(() => shownElsewhere(b.page), { timeout: 30_000 }).toBe(true);
    expect(await rowB.getByTestId('run-elsewhere').textContent()).toBe(ELSEWHERE);
    expect(await rowB.getByTestId('run-resume').isDisabled()).toBe(true);
    expect(await rowB.getByTestId('run-resume').getAttribute('title')).toBe('training in another tab');
    expect(await rowB.getByTestId('run-delete').isDisabled()).toBe(true);
    expect(await rowB.getByTestId('run-delete').getAttribute('title')).toBe('training in another tab');
    expect(await phase(a.page)).toBe('running');

    // A pauses: the lock goes with the call; B may resume the run and trains it.
    await a.page.getByTestId('pause-button').click();
    await waitPhase(a.page, 'paused', a.logs);
    await expect.poll(() => shownElsewhere(b.page), { timeout: 30_000 }).toBe(false);
    expect(await rowB.getByTestId('run-resume').isEnabled()).toBe(true);
    expect(await rowB.getByTestId('run-delete').isEnabled()).toBe(true);
    await rowB.getByTestId('run-resume').click();
    await waitPhase(b.page, 'running', b.logs, 60_000);
    const from = await stepShown(b.page);
    await expect.poll(() => stepShown(b.page), { timeout: 240_000, interval: 250 }).toBeGreaterThan(from);

    // A now sees the run as B's, and its Resume of its paused copy is refused, saying why.
    const rowA = await runsRow(a.page);
    await expect.poll(() => shownElsewhere(a.page), { timeout: 30_000 }).toBe(true);
    expect(await rowA.getByTestId('run-resume').isDisabled()).toBe(true);
    await a.page.getByTestId('start-button').click();
    await waitPhase(a.page, 'error', a.logs, 30_000);
    expect(await a.page.getByTestId('error-banner').textContent()).toMatch(
      new RegExp(
        '^training: cannot continue run ".+": it is training in another tab of this browser ' +
          '\\(one tab trains a run at a time\\); pause or close it there first$',
      ),
    );

    // B stops the run (ended there, kept); A resumes it from the Runs view and trains it on.
    await b.page.getByTestId('stop-button').click();
    await waitPhase(b.page, 'done', b.logs, 60_000);
    const stoppedAt = await stepShown(b.page);
    await expect.poll(() => shownElsewhere(a.page), { timeout: 30_000 }).toBe(false);
    expect(await rowA.getByTestId('run-state').textContent()).toMatch(
      new RegExp(`^stopped at step ${stoppedAt}; checkpoint at step \\d+`),
    );
    expect(await rowA.getByTestId('run-resume').isEnabled()).toBe(true);
    await rowA.getByTestId('run-resume').click();
    await waitPhase(a.page, 'running', a.logs, 60_000);
    const resumedAt = await stepShown(a.page);
    await expect.poll(() => stepShown(a.page), { timeout: 240_000, interval: 250 }).toBeGreaterThan(resumedAt);
    await expect.poll(() => shownElsewhere(b.page), { timeout: 30_000 }).toBe(true);
    expect(await phase(a.page)).toBe('running');
    await a.page.getByTestId('pause-button').click();
    await waitPhase(a.page, 'paused', a.logs);

    // One stored run: A's start, then B's and A's continuations, each from a checkpoint.
    const runs = await storedRuns(a.page);
    expect(runs).toHaveLength(1);
    const starts = Buffer.from(runs[0].files['events.jsonl'], 'base64')
      .toString('utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { event: string; resumedFrom?: number })
      .filter((e) => e.event === 'start');
    expect(starts.map((e) => typeof e.resumedFrom)).toEqual(['undefined', 'number', 'number']);
  }, 900_000);
});
