/**
 * Browser end-to-end test of a run a non-finite value stops (core/train/finite.ts; wasm, settings that diverge:
 * learning rate 1, KL weight 10, no gradient clipping): the page shows the error; the stored run's events.jsonl ends
 * with the trainer's `error` line, its message the one shown; after a reload the page does not offer it as a run the
 * reload interrupted, and the Runs view says it was stopped by an error, with the message (and, as step 1 diverged
 * before any checkpoint, why it cannot resume).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, useE2E } from './harness';
import { storedRuns } from './run-store-page';

const BASE_MODEL = (
  JSON.parse(readFileSync(join(ROOT, 'public/base/household-easy.json'), 'utf8')) as { model: string }
).model;
const LINK =
  `backend=wasm&model=${BASE_MODEL}&steps=6&learningRate=1&klBeta=10&maxGradNorm=0` + '&evalEvery=0&checkpointEvery=1';

const { open } = useE2E();

describe('a diverged run in Chromium', () => {
  it('stores the error line; after a reload the Runs view says why the run stopped', async () => {
    const { page, logs } = await open(LINK);
    await expect.poll(() => page.getByTestId('start-button').isEnabled(), { timeout: 120_000 }).toBe(true);
    await page.getByTestId('start-button').click();
    await expect
      .poll(() => page.getByTestId('run-phase').getAttribute('data-phase'), { timeout: 240_000, interval: 250 })
      .toMatch(/^(error|done)$/);
    expect(await page.getByTestId('run-phase').getAttribute('data-phase'), logs.join('\n')).toBe('error');
    const shown = (await page.getByTestId('error-banner').textContent()) ?? '';
    const m = /^training: (step (\d+): the (loss|gradient norm|weights) is (NaN|-?Infinity); the run stopped.*)$/.exec(
      shown,
    );
    expect(m, shown).not.toBeNull();
    const [, message, step] = m!;

    const [run] = await storedRuns(page);
    const lines = Buffer.from(run.files['events.jsonl'], 'base64').toString('utf8').trim().split('\n');
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ event: 'error', step: Number(step), message });

    await page.reload();
    await page.getByRole('button', { name: 'Runs', exact: true }).click();
    const state = page.getByTestId('run-row').getByTestId('run-state');
    await expect.poll(() => state.count(), { timeout: 60_000 }).toBe(1);
    // Step 1 diverged here (measured on wasm): no checkpoint was stored, so it cannot resume, and the view says why.
    expect(step).toBe('1');
    expect(((await state.textContent()) ?? '').replace(/\s+/g, ' ').trim()).toBe(
      `stopped by an error: ${message} cannot resume: no checkpoint was stored (the first comes at step 1 ` +
        '(“Checkpoint every” 1) and it was stopped by an error after step 0); start it again instead',
    );
    expect(await page.getByTestId('runs-interrupted').count()).toBe(0);
  }, 600_000);
});
