/**
 * Browser end-to-end test of the explorer's "Act with the current policy" panel and the ratio colouring (wasm, tiny
 * settings in the link): one step trained with Step; in the Explorer the ratio quantity gives every action token of
 * step 1's group a positive ρ; Act on the selected trajectory, then Step twice (once sampled, once greedy): two turns,
 * each with top-k rows (k = 5, fewer when fewer actions are admissible) whose probabilities parse, fall in [0, 1],
 * come most probable first and sum to ≤ 1, the taken action marked, and the greedy turn taking its first row.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ROOT, startE2E, type E2E } from './harness';

/** The shipped base policy's model size (household/easy), so the run can start from it. */
const BASE_MODEL = (
  JSON.parse(readFileSync(join(ROOT, 'public/base/household-easy.json'), 'utf8')) as { model: string }
).model;
/** Two groups of two per step, no evaluation: about a second per update on wasm. */
const TINY = `backend=wasm&model=${BASE_MODEL}&steps=6&tasksPerStep=2&groupSize=2&miniBatches=2&evalEvery=0`;

let e2e: E2E | null = null;
beforeAll(async () => {
  e2e = await startE2E();
}, 600_000);
afterAll(async () => {
  await e2e?.close();
}, 30_000);

const stepShown = async (page: Page) =>
  Number(/step (\d+)/.exec((await page.getByTestId('step-counter').textContent()) ?? '')?.[1] ?? NaN);
const phaseText = async (page: Page) => ((await page.getByTestId('run-phase').textContent()) ?? '').trim();

/** The rows of turn `n` (1-based): their exact and shown probabilities and whether each is the taken action. */
async function rowsOf(page: Page, n: number): Promise<{ exact: number[]; shown: number[]; taken: boolean[] }> {
  const rows = page
    .getByTestId('act-turn')
    .nth(n - 1)
    .getByTestId('act-topk-row');
  return rows.evaluateAll((rs) => ({
    exact: rs.map((r) => Number(r.getAttribute('data-prob'))),
    shown: rs.map((r) => Number(r.querySelector('[data-testid="act-prob"]')?.textContent)),
    taken: rs.map((r) => r.classList.contains('taken')),
  }));
}

describe('explorer: ratio colouring and Act with the current policy (wasm)', () => {
  it(
    'trains one step, colours by ρ, then Act and Step twice show top-k rows whose probabilities sum to ' + '≤ 1',
    async () => {
      const page = await e2e!.context.newPage();
      const logs: string[] = [];
      page.on('pageerror', (err) => logs.push(`pageerror: ${err.message}`));
      page.on('console', (m) => {
        if (m.type() === 'error') logs.push(`console: ${m.text()}`);
      });
      await page.goto(`${e2e!.url}#${TINY}`);
      await expect.poll(() => phaseText(page), { timeout: 120_000 }).toBe('ready');
      await page.getByTestId('step-button').click();
      await expect
        .poll(async () => ((await page.getByTestId('error-banner').count()) ? -1 : stepShown(page)), {
          timeout: 180_000,
          interval: 250,
        })
        .toBe(1);
      await expect.poll(() => phaseText(page), { timeout: 60_000 }).toBe('paused');

      await page.getByRole('button', { name: 'Explorer', exact: true }).click();
      await expect.poll(async () => page.getByTestId('explorer-step').textContent(), { timeout: 30_000 }).toBe('1');
      // The PPO ratio per token, as the update used it: finite and positive for every token shown.
      await page.getByTestId('explorer-quantity').selectOption('ratio');
      const ratios = await page
        .getByTestId('explorer-token')
        .evaluateAll((ts) => ts.map((t) => t.getAttribute('data-value') ?? ''));
      expect(ratios.length).toBeGreaterThan(0);
      for (const r of ratios) expect(Number(r), r).toBeGreaterThan(0);

      // Act on the selected trajectory: the task is shown, no turn yet.
      await page.getByTestId('act-start').click();
      await expect
        .poll(
          async () =>
            page
              .getByTestId('act-summary')
              .textContent()
              .catch(() => ''),
          { timeout: 60_000 },
        )
        .toMatch(/step 1 · group 0 · rollout 1: train task \d+/);
      expect(await page.getByTestId('act-turn').count()).toBe(0);
      // Step (sampled), then Step (greedy).
      await page.getByTestId('act-step').click();
      await expect.poll(async () => page.getByTestId('act-turn').count(), { timeout: 60_000 }).toBe(1);
      await page.getByTestId('act-greedy').check();
      const done = (await page.getByTestId('act-summary').textContent())?.includes('task complete');
      if (!done) {
        await page.getByTestId('act-step').click();
        await expect.poll(async () => page.getByTestId('act-turn').count(), { timeout: 60_000 }).toBe(2);
      }
      const turns = done ? 1 : 2;
      for (let n = 1; n <= turns; n++) {
        const { exact, shown, taken } = await rowsOf(page, n);
        console.log(
          `act e2e: turn ${n} top-k probabilities ${exact.map((p) => p.toFixed(4)).join(', ')} ` +
            `(sum ${exact.reduce((a, b) => a + b, 0).toFixed(6)})`,
        );
        expect(exact.length).toBeGreaterThan(0);
        expect(exact.length).toBeLessThanOrEqual(5);
        for (const p of [...exact, ...shown]) {
          expect(Number.isFinite(p)).toBe(true);
          expect(p).toBeGreaterThanOrEqual(0);
          expect(p).toBeLessThanOrEqual(1);
        }
        for (let j = 1; j < exact.length; j++) expect(exact[j]).toBeLessThanOrEqual(exact[j - 1]);
        exact.forEach((p, j) => expect(Math.abs(shown[j] - p)).toBeLessThanOrEqual(5e-5)); // shown with 4 decimals
        expect(exact.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(1 + 1e-9);
        expect(shown.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(1 + 5 * 5e-5);
        if (n === 2)
          expect(taken[0]).toBe(true); // greedy takes the most probable action
        else
          expect(
            taken.filter(Boolean).length +
              (await page.getByTestId('act-turn').nth(0).getByTestId('act-taken-outside').count()),
          ).toBe(1);
      }
      expect(await page.getByTestId('act-error').count()).toBe(0);
      expect(logs.filter((l) => l.startsWith('pageerror'))).toEqual([]);
      await page.close();
    },
    600_000,
  );
});
