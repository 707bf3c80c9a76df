/**
 * Browser end-to-end test of the Play view: a person picks a task, reads the policy's text (task, observation,
 * admissible actions), types actions (completion by Tab and the arrow keys, a click on an admissible action fills the
 * box, Enter plays; Tab leaves a box with no suggestions), gets a hint for a command the preset does not have, and
 * plays to success by the expert's actions, with the success summary at the end; a task drawn from a seed is the same
 * task every time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startE2E, type E2E } from './harness';
import { household } from '../../src/core/envs/household';
import { PlayEpisode } from '../../src/core/envs/play';

let e2e: E2E | null = null;

beforeAll(async () => {
  e2e = await startE2E();
}, 180_000);

afterAll(async () => {
  await e2e?.close();
}, 30_000);

/** Opens the page on wasm and waits until the worker is up (the badge names its backend). */
async function openPage(): Promise<{ page: Page; logs: string[] }> {
  const page = await e2e!.context.newPage();
  const logs: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') logs.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (err) => logs.push(`pageerror: ${err.message}`));
  await page.goto(`${e2e!.url}#backend=wasm&model=nano&init=scratch&steps=1`);
  await expect
    .poll(async () => (await page.getByTestId('backend-badge').textContent()) ?? '', { timeout: 90_000 })
    .toMatch(/^\s*wasm/);
  return { page, logs };
}

const text = async (page: Page, id: string) =>
  ((await page.getByTestId(id).textContent()) ?? '').replace(/\s+/g, ' ').trim();

/** Types `action` in the box and presses Enter; waits for the worker's answer (one more turn). */
async function playTyped(page: Page, action: string): Promise<void> {
  const before = await page.getByTestId('play-turn').count();
  await page.getByTestId('play-input').fill(action);
  await page.getByTestId('play-input').press('Enter');
  await expect.poll(() => page.getByTestId('play-turn').count(), { timeout: 10_000 }).toBe(before + 1);
}

/** Presses Enter in the box and waits for one more turn. */
async function enter(page: Page): Promise<void> {
  const before = await page.getByTestId('play-turn').count();
  await page.getByTestId('play-input').press('Enter');
  await expect.poll(() => page.getByTestId('play-turn').count(), { timeout: 10_000 }).toBe(before + 1);
}

describe('Play view in Chromium', () => {
  it(
    'plays household/easy train 357 by keyboard and clicks: a hint for an unknown command, then success ' +
      'with its summary',
    async () => {
      const { page, logs } = await openPage();
      await page.getByRole('button', { name: 'Play', exact: true }).click();
      await page.getByTestId('play-preset').selectOption('easy');
      await page.getByTestId('play-split').selectOption('train');
      await page.getByTestId('play-index').fill('357');
      await page.getByTestId('play-start').click();
      await expect.poll(() => text(page, 'play-task')).toBe('put a laptop in sidetable.');
      expect(await text(page, 'play-observation')).toBe(
        'You are in the middle of a room. Looking quickly around you, you see a desk 1, a shelf 1, and a sidetable 1.',
      );
      expect(await page.getByTestId('play-admissible').getByRole('button').allTextContents()).toEqual([
        'go to desk 1',
        'go to shelf 1',
        'go to sidetable 1',
      ]);
      expect(await text(page, 'play-where')).toBe('household/easy · train task 357 · pick');

      // Enter in an empty box plays nothing (the transcript below has exactly the five actions typed); Tab there leaves
      // the box for the next control, as usual (no suggestions show).
      await page.getByTestId('play-input').press('Enter');
      await page.getByTestId('play-input').press('Tab');
      expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('play-step');
      // A command household/easy does not have: "Nothing happens." as the policy reads it, and a hint for the person.
      await playTyped(page, 'fly to moon');
      const first = page.getByTestId('play-turn').nth(0);
      expect(await first.getByTestId('play-invalid').count()).toBe(1);
      expect(await first.textContent()).toContain('Nothing happens.');
      expect(await text(page, 'play-hint')).toBe(
        '"fly to moon" is not a command of household/easy; commands here: go to …, take … from …, ' +
          'move … to …, clean … with …; admissible now: go to desk 1, go to shelf 1, go to sidetable ' +
          '1',
      );

      // The expert's actions (go to desk 1, take laptop 1 from desk 1, go to sidetable 1, move laptop 1 to sidetable
      // 1), entered four ways: a click on an admissible action, Tab completion, the arrow keys, typing.
      await page.getByTestId('play-admissible').getByRole('button', { name: 'go to desk 1' }).click();
      expect(await page.getByTestId('play-input').inputValue()).toBe('go to desk 1');
      await enter(page);
      await page.getByTestId('play-input').fill('take l');
      await page.getByTestId('play-input').press('Tab');
      expect(await page.getByTestId('play-input').inputValue()).toBe('take laptop 1 from desk 1');
      await enter(page);
      await page.getByTestId('play-input').fill('go to s');
      await page.getByTestId('play-input').press('Tab'); // shelf and sidetable part here: Tab moves through them
      expect(await page.getByTestId('play-input').inputValue()).toBe('go to shelf 1');
      await page.getByTestId('play-input').press('Tab');
      expect(await page.getByTestId('play-input').inputValue()).toBe('go to sidetable 1');
      await page.getByTestId('play-input').press('Escape');
      await page.getByTestId('play-input').fill('go to s');
      expect(await page.getByTestId('play-suggestions').getByRole('option').allTextContents()).toEqual([
        'go to shelf 1',
        'go to sidetable 1',
      ]);
      await page.getByTestId('play-input').press('ArrowDown');
      await page.getByTestId('play-input').press('ArrowDown');
      expect(await page.getByTestId('play-suggestions').getByRole('option', { selected: true }).textContent()).toBe(
        'go to sidetable 1',
      );
      await enter(page);
      await playTyped(page, 'move laptop 1 to sidetable 1');

      expect(await text(page, 'play-summary')).toBe(
        'Task complete: success in 5 of 10 steps, total reward 1 (1 invalid action).',
      );
      expect(await text(page, 'play-status')).toBe('step 5 of 10 · total reward 1 · 1 invalid · success');
      const turns = await page.getByTestId('play-turn').allTextContents();
      expect(turns.map((t) => t.replace(/\s+/g, ' ').trim())).toEqual([
        expect.stringMatching(/^1\. > fly to moon invalid Nothing happens\. "fly to moon" is not a command/),
        '2. > go to desk 1 You arrive at desk 1. On the desk 1, you see a candle 2, and a laptop 1.',
        '3. > take laptop 1 from desk 1 You pick up the laptop 1 from the desk 1.',
        '4. > go to sidetable 1 You arrive at sidetable 1. On the sidetable 1, you see a candle 1.',
        '5. > move laptop 1 to sidetable 1 reward 1 done You move the laptop 1 to the sidetable 1.',
      ]);
      expect(await page.getByTestId('play-input').count()).toBe(0); // the episode has ended: nothing more to type
      expect(logs.filter((l) => l.startsWith('pageerror'))).toEqual([]);
      await page.close();
    },
    300_000,
  );

  it(
    "a random task from seed 5 on household/default is train task 220338; typing the expert's actions " + 'solves it',
    async () => {
      const { page, logs } = await openPage();
      await page.getByRole('button', { name: 'Play', exact: true }).click();
      await page.getByTestId('play-preset').selectOption('default');
      await page.getByTestId('play-seed').fill('5');
      await page.getByTestId('play-random').click();
      await expect
        .poll(() => text(page, 'play-where'))
        .toMatch(/^household\/default · train task 220338 \(drawn from seed 5\) · /);
      expect(await page.getByTestId('play-seed').inputValue()).toBe('6'); // the next draw is another task
      expect(await page.getByTestId('play-index').inputValue()).toBe('220338');

      // The expert's plan for the same task, computed here in Node on the same core code.
      const ep = new PlayEpisode({ env: 'household', preset: 'default', split: 'train', index: 220338 });
      expect(await text(page, 'play-task')).toBe(ep.view().task);
      const expert = household.expert(ep.environment);
      const plan: string[] = [];
      while (!ep.done) plan.push(ep.step(expert.act()).action);
      expect(ep.summary().success).toBe(true);
      for (const a of plan) await playTyped(page, a);

      expect(await text(page, 'play-summary')).toBe(
        `Task complete: success in ${plan.length} of 30 steps, total reward 1 (0 invalid actions).`,
      );
      expect(await page.getByTestId('play-invalid').count()).toBe(0);
      expect(await page.getByTestId('error-banner').count()).toBe(0);
      expect(logs.filter((l) => l.startsWith('pageerror'))).toEqual([]);
      await page.close();
    },
    300_000,
  );
});
