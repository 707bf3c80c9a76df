/**
 * Browser end-to-end test of a new user on the `shop` environment (wasm, tiny settings in the link): `shop` picked in
 * the top bar's Environment select (its options name each env's presets), the page loads shop's shipped base policy
 * (public/base/shop-default.*) with no notice; Start trains two steps from it; the Explorer steps through a
 * trajectory's turns, whose results pages keep one product a line; the Play view plays a shop task by typing a
 * free-text search (the closing `]` added), clicking results and buying, with a hint for an invalid action; the
 * copied link, opened in a new page, restores env=shop and the settings.
 *
 * The base policy searches with the instruction's words, so step 2's rollouts reach results pages, which the Explorer
 * part reads.
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useE2E } from './harness';
import { ENV_SPECS } from '../../src/core/envs/registry';
import { PlayEpisode } from '../../src/core/envs/play';
import { shop } from '../../src/core/envs/shop';
import { INSTRUCTION_TEMPLATES } from '../../src/core/envs/shop/lexicon';

/** The page's defaults but tiny: two steps of two groups of two, no evaluation; env and init left to the page. */
const TINY = 'backend=wasm&model=nano&seed=5&steps=2&tasksPerStep=2&groupSize=2&miniBatches=2&evalEvery=0';
/** The Play task: shop/default train task 3 (an office chair in espresso under $80). */
const PLAY_TASK = { env: 'shop', preset: 'default', split: 'train', index: 3 } as const;

const suite = useE2E({ startTimeoutMs: 600_000 });
const { open } = suite;

const phaseText = async (page: Page) => ((await page.getByTestId('run-phase').textContent()) ?? '').trim();
const stepShown = async (page: Page) =>
  Number(/step (\d+)/.exec((await page.getByTestId('step-counter').textContent()) ?? '')?.[1] ?? NaN);
const text = async (page: Page, id: string) =>
  ((await page.getByTestId(id).textContent()) ?? '').replace(/\s+/g, ' ').trim();

/** The expert's actions for the Play task after the invalid action the test plays first (computed in Node). */
function expertPlan(): string[] {
  const ep = new PlayEpisode(PLAY_TASK);
  ep.step('fly away');
  const expert = shop.expert(ep.environment);
  const plan: string[] = [];
  while (!ep.done) plan.push(ep.step(expert.act()).action);
  expect(ep.summary().success).toBe(true);
  return plan;
}

/** Whether an element's text runs past its box sideways (a line that neither wraps nor fits). */
const overflows = (page: Page, id: string) =>
  page.getByTestId(id).evaluate((el) => el.scrollWidth > el.clientWidth + 1);

/**
 * Walks the Explorer's groups, trajectories and turns (→ key) until a turn's observation is a results page; returns
 * that observation as rendered (innerText keeps its line breaks) and how many turns were stepped through.
 */
async function findResultsPage(page: Page): Promise<{ obs: string; stepped: number }> {
  let stepped = 0;
  const groups = await page
    .getByTestId('explorer-group')
    .locator('option')
    .evaluateAll((os) => os.length);
  for (let g = 0; g < groups; g++) {
    await page.getByTestId('explorer-group').selectOption(String(g));
    await expect.poll(() => page.getByTestId('explorer-trajectory').count(), { timeout: 30_000 }).toBe(2);
    for (let t = 0; t < 2; t++) {
      await page.getByTestId('explorer-trajectory').nth(t).click();
      const counter = page.getByTestId('explorer-turn-counter');
      const turns = Number(/\/ (\d+)/.exec((await counter.textContent()) ?? '')?.[1]);
      await page.getByTestId('explorer-turn').focus();
      for (let k = 1; k <= turns; k++) {
        expect(await counter.textContent()).toBe(`turn ${k} / ${turns}`);
        const obs = await page.getByTestId('explorer-observation').innerText();
        if (/Total results/.test(obs)) return { obs, stepped };
        if (k < turns) await page.keyboard.press('ArrowRight');
        stepped++;
      }
    }
  }
  throw new Error('no turn of step 2 shows a results page');
}

describe('a new user on the shop environment (wasm)', () => {
  it('picks shop, starts from its base policy, explores, plays a task and reopens the copied link', async () => {
    const { page, logs } = await open(TINY);
    await expect.poll(() => phaseText(page), { timeout: 120_000 }).toBe('ready');

    // The Environment select lists every env with its presets; picking shop moves Preset to shop's.
    const envSelect = page.locator('#field-env');
    expect(await envSelect.locator('option').allTextContents()).toEqual(
      ENV_SPECS.map((s) => `${s.name}: ${s.presets.join(' / ')}`),
    );
    await envSelect.selectOption('shop');
    expect(await page.locator('#field-preset option').allTextContents()).toEqual([...shop.presets]);
    expect(await page.locator('#field-preset').inputValue()).toBe(shop.defaultPreset);
    // shop's base policy ships: Start from stays `base`, the worker loads it (sha256 checked), no notice.
    expect(await page.locator('#field-init').inputValue()).toBe('base');
    await expect
      .poll(async () => (await page.getByTestId('weights-init').textContent()) ?? '', { timeout: 60_000 })
      .toContain('starts from the base policy (pretrained; shop/default, nano)');
    expect(await page.getByTestId('base-notice').count()).toBe(0);
    await expect.poll(() => page.evaluate(() => location.hash)).toMatch(/env=shop/);

    // Start: the steps arrive one by one.
    await expect.poll(() => phaseText(page), { timeout: 60_000 }).toBe('ready');
    await page.getByTestId('start-button').click();
    await expect
      .poll(async () => ((await page.getByTestId('error-banner').count()) ? -1 : stepShown(page)), {
        timeout: 180_000,
        interval: 250,
      })
      .toBeGreaterThanOrEqual(1);
    await expect.poll(() => phaseText(page), { timeout: 180_000 }).toBe('done');
    expect(await stepShown(page)).toBe(2);
    expect(await page.getByTestId('error-banner').count()).toBe(0);
    // A WebShop instruction (one of the shop's INSTRUCTION_TEMPLATES openers) for the group's task.
    const openers = INSTRUCTION_TEMPLATES.map((t) => t.slice(0, t.indexOf(' {')));
    const task = await text(page, 'trajectory-task');
    expect(task).toMatch(/^step 2 · task \(\w+\): /);
    expect(openers.some((o) => task.replace(/^step 2 · task \(\w+\): /, '').startsWith(`${o} `))).toBe(true);
    // The latest group's first observation (the search page) keeps its two lines.
    expect(await page.getByTestId('trajectory-panel').innerText()).toContain(
      'WebShop\nSearch for a product: search[keywords]',
    );

    // Explorer: step 2's trajectories, turn by turn, until a results page; it shows one product a line.
    await page.getByRole('button', { name: 'Explorer', exact: true }).click();
    await expect.poll(() => page.getByTestId('explorer-step').textContent(), { timeout: 30_000 }).toBe('2');
    const { obs } = await findResultsPage(page);
    const lines = obs.split('\n').map((l) => l.trim());
    expect(lines[0]).toBe('observation');
    expect(lines).toContain('Page 1 (Total results: 50)');
    const products = lines.filter((l) => /^\[b\w{5}\] .+ \| \$\d+\.\d\d( to \$\d+\.\d\d)?$/.test(l));
    expect(products.length).toBe(10);
    expect(await overflows(page, 'explorer-observation')).toBe(false);

    // Play: a shop task, a free-text search, results, options and buy now.
    await page.getByRole('button', { name: 'Play', exact: true }).click();
    await page.getByTestId('play-env').selectOption('shop');
    expect(await page.getByTestId('play-preset').inputValue()).toBe('default');
    await page.getByTestId('play-split').selectOption(PLAY_TASK.split);
    await page.getByTestId('play-index').fill(String(PLAY_TASK.index));
    await page.getByTestId('play-start').click();
    const first = new PlayEpisode(PLAY_TASK).view();
    await expect.poll(() => text(page, 'play-task')).toBe(first.task);
    expect(await page.getByTestId('play-observation').innerText()).toBe(first.observation);
    expect(first.observation).toBe('WebShop\nSearch for a product: search[keywords]');
    expect(await page.getByTestId('play-admissible').getByRole('button').allTextContents()).toEqual(['search[…]']);
    expect(await text(page, 'play-open-help')).toBe(
      'search[…] takes your own words: type them after the [ and press Enter (the closing ] is added if you ' +
        'leave it out).',
    );
    const input = page.getByTestId('play-input');
    const turns = page.getByTestId('play-turn');

    // An invalid action: "Nothing happens." for the policy, a hint for the person.
    await input.fill('fly away');
    await input.press('Enter');
    await expect.poll(() => turns.count(), { timeout: 10_000 }).toBe(1);
    const hint = '"fly away" is not a command of shop/default; commands here: search[…], click[…]';
    expect(await text(page, 'play-hint')).toBe(`${hint}; admissible now: search[…]`);

    // The search: the admissible button puts `search[` in the box; Enter on it alone plays nothing and says why;
    // the words typed after it are played with the closing ] added.
    const plan = expertPlan();
    expect(plan[0]).toMatch(/^search\[.+\]$/);
    await page.getByTestId('play-admissible').getByRole('button', { name: 'search[…]' }).click();
    expect(await input.inputValue()).toBe('search[');
    await input.press('Enter');
    await expect
      .poll(() => text(page, 'play-error'))
      .toBe('Type your own words after search[ and press Enter (the closing ] is added if you leave it out).');
    expect(await turns.count()).toBe(1);
    await input.pressSequentially(plan[0].slice('search['.length, -1));
    await input.press('Enter');
    await expect.poll(() => turns.count(), { timeout: 10_000 }).toBe(2);
    expect(await turns.nth(1).locator('code').textContent()).toBe(plan[0]);
    expect(await page.getByTestId('play-error').count()).toBe(0);
    const results = await page.getByTestId('play-observation').innerText();
    expect(results.split('\n').slice(0, 3)).toEqual(['[back to search]', 'Page 1 (Total results: 50)', '[next >]']);
    expect(results.split('\n').length).toBe(13);
    expect(await overflows(page, 'play-observation')).toBe(false);

    // The rest by clicks on the admissible actions (results pages, the product, its option, buy now) and Enter.
    for (const [k, action] of plan.slice(1).entries()) {
      await page.getByTestId('play-admissible').getByRole('button', { name: action, exact: true }).click();
      expect(await input.inputValue()).toBe(action);
      await input.press('Enter');
      await expect.poll(() => turns.count(), { timeout: 10_000 }).toBe(k + 3);
    }
    expect(await text(page, 'play-summary')).toBe(
      `Task complete: success in ${plan.length + 1} of 15 steps, total reward 1 (1 invalid action).`,
    );
    expect(await page.getByTestId('play-invalid').count()).toBe(1);

    // Copy link, open it in a new page: env=shop and the settings come back.
    const { e2e } = suite;
    await page.getByRole('button', { name: 'Train', exact: true }).click();
    await e2e.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: e2e.url });
    await page.getByTestId('copy-link-button').click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toMatch(/#.*env=shop/);
    const link = await page.evaluate(() => navigator.clipboard.readText());
    expect(new URL(link).origin).toBe(new URL(e2e.url).origin);
    const other = await open(link.slice(link.indexOf('#') + 1));
    await expect.poll(() => phaseText(other.page), { timeout: 120_000 }).toBe('ready');
    const values = async (p: Page) =>
      Object.fromEntries(
        await Promise.all(
          ['env', 'preset', 'init', 'seed', 'model', 'steps', 'tasksPerStep', 'groupSize', 'miniBatches'].map(
            async (k) => [k, await p.locator(`#field-${k}`).inputValue()] as const,
          ),
        ),
      );
    expect(await values(other.page)).toEqual({
      env: 'shop',
      preset: 'default',
      init: 'base',
      seed: '5',
      model: 'nano',
      steps: '2',
      tasksPerStep: '2',
      groupSize: '2',
      miniBatches: '2',
    });
    expect(await values(other.page)).toEqual(await values(page));
    expect(await other.page.getByTestId('base-notice').count()).toBe(0);
    expect(await other.page.getByTestId('link-notice').count()).toBe(0);
    expect([...logs, ...other.logs].filter((l) => l.startsWith('pageerror'))).toEqual([]);
    await other.page.close();
    await page.close();
  }, 600_000);
});
