/**
 * Browser end-to-end test of the two mouse routes into the rollout explorer (wasm, tiny settings in the link): two
 * steps trained with Step; a click on the reward chart's plot near its right edge opens step 2 in the Explorer view
 * (uPlot's cursor snaps to the nearest step), one near its left edge step 1; the step slider moves between the kept
 * steps and the group table follows.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ROOT, useE2E } from './harness';

/** The shipped base policy's model size (household/easy), so the run can start from it. */
const BASE_MODEL = (
  JSON.parse(readFileSync(join(ROOT, 'public/base/household-easy.json'), 'utf8')) as { model: string }
).model;
/** Two groups of two per step, no evaluation: about a second per update on wasm. */
const TINY = `backend=wasm&model=${BASE_MODEL}&steps=6&tasksPerStep=2&groupSize=2&miniBatches=2&evalEvery=0`;

const { open } = useE2E({ startTimeoutMs: 600_000 });

const stepShown = async (page: Page) =>
  Number(/step (\d+)/.exec((await page.getByTestId('step-counter').textContent()) ?? '')?.[1] ?? NaN);
const phaseText = async (page: Page) => ((await page.getByTestId('run-phase').textContent()) ?? '').trim();

/** Presses Step and waits until step `n` is shown and the run is paused again. */
async function stepTo(page: Page, n: number): Promise<void> {
  await page.getByTestId('step-button').click();
  await expect
    .poll(async () => ((await page.getByTestId('error-banner').count()) ? -1 : stepShown(page)), {
      timeout: 180_000,
      interval: 250,
    })
    .toBe(n);
  await expect.poll(() => phaseText(page), { timeout: 60_000 }).toBe('paused');
}

/** Clicks the reward chart's plot at `fx` of its width (half its height). */
async function clickReward(page: Page, fx: number): Promise<void> {
  await page.getByRole('button', { name: 'Train', exact: true }).click();
  const over = page.locator('figure:has([data-testid="chart-table-reward"]) .u-over');
  const box = (await over.boundingBox())!;
  await over.click({ position: { x: Math.round(box.width * fx), y: Math.round(box.height / 2) } });
}

describe('explorer: chart click and step slider (wasm)', () => {
  it('a click on a chart point opens its step; the slider moves between steps', async () => {
    const { page, logs } = await open(TINY);
    await expect.poll(() => phaseText(page), { timeout: 120_000 }).toBe('ready');
    await stepTo(page, 1);
    await stepTo(page, 2);

    await clickReward(page, 0.97);
    await expect.poll(async () => page.getByTestId('explorer-step').textContent(), { timeout: 30_000 }).toBe('2');
    expect(await page.getByRole('button', { name: 'Explorer', exact: true }).getAttribute('aria-pressed')).toBe('true');
    await clickReward(page, 0.03);
    await expect.poll(async () => page.getByTestId('explorer-step').textContent(), { timeout: 30_000 }).toBe('1');

    const slider = page.getByTestId('explorer-step-slider');
    expect(await slider.getAttribute('max')).toBe('1'); // steps 1 and 2 kept
    await slider.fill('1');
    await expect.poll(async () => page.getByTestId('explorer-step').textContent(), { timeout: 30_000 }).toBe('2');
    expect(await page.getByTestId('explorer-group-table').locator('tbody tr').count()).toBe(2); // G = 2 trajectories
    await slider.fill('0');
    await expect.poll(async () => page.getByTestId('explorer-step').textContent(), { timeout: 30_000 }).toBe('1');
    expect(logs.filter((l) => l.startsWith('pageerror'))).toEqual([]);
    await page.close();
  }, 600_000);
});
