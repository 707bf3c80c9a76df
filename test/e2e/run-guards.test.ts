/**
 * Browser end-to-end test of the run's guards (wasm, tiny settings in the link).
 *
 * A link opened in the tab mid-run (the hash changes) does not reload the page: a notice asks, the run trains on and
 * keeps its steps, and Keep the run restores the run's own link. Then a storm of clicks on Start / Pause / Step / Reset
 * (each through the DOM, a disabled button ignoring it) settles within 2 s of the last click: the phase is ready,
 * paused, running or done with Pausing… cleared, and the buttons agree with it (Pause enabled exactly while running).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ROOT, useE2E } from './harness';

const BASE_MODEL = (
  JSON.parse(readFileSync(join(ROOT, 'public/base/household-easy.json'), 'utf8')) as { model: string }
).model;
/** 40 steps of B 2 × G 2, a checkpoint every 2, no evaluation. */
const LINK =
  `backend=wasm&model=${BASE_MODEL}&steps=40&tasksPerStep=2&groupSize=2` +
  '&miniBatches=2&evalEvery=0&checkpointEvery=2';

const { open } = useE2E();

const stepShown = async (page: Page) =>
  Number(/step (\d+)/.exec((await page.getByTestId('step-counter').textContent()) ?? '')?.[1] ?? NaN);

/** The phase and button states as the page shows them. */
const shown = (page: Page) =>
  page.evaluate(() => {
    const el = document.querySelector('[data-testid="run-phase"]')!;
    const off = (id: string) => (document.querySelector(`[data-testid="${id}"]`) as HTMLButtonElement).disabled;
    return {
      phase: el.getAttribute('data-phase'),
      pausing: el.getAttribute('data-pausing'),
      start: !off('start-button'),
      pause: !off('pause-button'),
    };
  });

describe('run guards in Chromium', () => {
  it('a hash change mid-run asks instead of reloading; a click storm settles within 2 s', async () => {
    const { page, logs } = await open(LINK);
    await expect.poll(() => page.getByTestId('start-button').isEnabled(), { timeout: 120_000 }).toBe(true);
    await page.getByTestId('start-button').click();
    await expect.poll(() => stepShown(page), { timeout: 240_000, interval: 200 }).toBeGreaterThanOrEqual(1);
    const before = await stepShown(page);
    await page.evaluate(() => {
      (window as unknown as { mark: number }).mark = 1;
      location.hash = '#backend=wasm&steps=5';
    });
    await expect.poll(() => page.getByTestId('confirm-link').isVisible(), { timeout: 5000 }).toBe(true);
    await page.waitForTimeout(1500);
    expect(await page.evaluate(() => (window as unknown as { mark?: number }).mark)).toBe(1); // not reloaded
    expect(await stepShown(page)).toBeGreaterThanOrEqual(before);
    await page.getByTestId('confirm-link-keep').click();
    expect(await page.evaluate(() => location.hash)).toContain('steps=40');
    await expect.poll(() => stepShown(page), { timeout: 60_000, interval: 200 }).toBeGreaterThan(before);

    const order = ['start', 'pause', 'step', 'reset', 'start', 'pause', 'pause', 'step', 'reset', 'start', 'pause'];
    await page.evaluate(async (ids) => {
      for (let round = 0; round < 3; round++)
        for (const id of ids) {
          (document.querySelector(`[data-testid="${id}-button"]`) as HTMLButtonElement).click();
          await new Promise((r) => setTimeout(r, 30));
        }
    }, order);
    const last = Date.now();
    let s = await shown(page);
    while (Date.now() - last < 2000) {
      s = await shown(page);
      if (s.pausing === 'false' && ['ready', 'paused', 'running', 'done'].includes(s.phase ?? '')) break;
      await page.waitForTimeout(50);
    }
    expect(s, logs.join('\n')).toMatchObject({ pausing: 'false' });
    expect(['ready', 'paused', 'running', 'done']).toContain(s.phase);
    expect(s.pause).toBe(s.phase === 'running');
    if (s.phase !== 'running') expect(s.start).toBe(true);
  }, 420_000);
});
