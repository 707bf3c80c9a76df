/**
 * Browser end-to-end test of a new user on the `searchqa` environment (wasm, tiny settings in the link) where no base
 * policy is served (the server answers the manifest's URL with a web page, as a static server without the file
 * does): `searchqa` picked in the top bar's Environment select, the page says there is no base policy and offers
 * scratch; under OPID the Analyzer select offers searchqa's embedded heuristic analyzer; a short Pretrain in the
 * page (behaviour cloning on the expert, so the policy closes its `search[…]` and some searches return passages) and
 * two Step clicks from it; the Explorer shows the group's task as the env words it, a failed trajectory's passage
 * observation one `Doc i(Title: t) text` line each (as the env gives them for the searches before it), the action's
 * tokens with their values, and a critical turn with the heuristic's step skill; Act (greedy) fills the most probable
 * open form with words, answered as the env answers them; the Play view (on searchqa already) plays a
 * test-seen question by typing the expert's searches and answer into the two open forms, each observation as the env
 * gives it, the answer ending the episode; the Results view reads a searchqa table with its seven task types; the
 * copied link, opened in a new page, restores env=searchqa and the settings.
 *
 * Why a pretraining: a scratch policy almost never closes its search with `]` within its 16 tokens (seeds 1–12 of
 * these settings make no valid search in two steps), so its trajectories hold no passages; 40 iterations of the
 * page's Pretrain (15–40 s here) make most actions valid while the answers stay mostly wrong.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useE2E } from './harness';
import { getEnvSpec } from '../../src/core/envs/registry';
import { PlayEpisode } from '../../src/core/envs/play';
import { INVALID_ACTION, START_OBSERVATION, searchqa } from '../../src/core/envs/searchqa';
import { makeResultsTable, resultsTableJson } from '../../src/core/run/table-schema';
import { stepSkill } from '../../src/core/skills/grammar';

/** Tiny settings: two steps of two groups of two, no evaluation; env, init, algorithm and analyzer left to the page. */
const TINY = 'backend=wasm&model=nano&seed=5&steps=2&tasksPerStep=2&groupSize=2&miniBatches=2&evalEvery=0';
/** The Play task: searchqa test-seen task 3, a two-hop (hotpotqa) question. */
const PLAY_TASK = { env: 'searchqa', preset: 'default', split: 'test-seen', index: 3 } as const;
/** Pretraining iterations in the page before training. */
const PRETRAIN_ITERS = 40;
/** The weights the Pretrain panel stores for nano, preset default, seed 5. */
const PRETRAINED = 'pretrained-nano-default-seed5';

const suite = useE2E({ startTimeoutMs: 600_000 });
const { open } = suite;

const phaseText = async (page: Page) => ((await page.getByTestId('run-phase').textContent()) ?? '').trim();
const stepShown = async (page: Page) =>
  Number(/step (\d+)/.exec((await page.getByTestId('step-counter').textContent()) ?? '')?.[1] ?? NaN);
const text = async (page: Page, id: string) =>
  ((await page.getByTestId(id).textContent()) ?? '').replace(/\s+/g, ' ').trim();
/** Whether an element's text runs past its box sideways (a line that neither wraps nor fits). */
const overflows = (page: Page, id: string) =>
  page.getByTestId(id).evaluate((el) => el.scrollWidth > el.clientWidth + 1);

/** The observations a searchqa train task gives for `actions`, computed in Node (the last one is the one shown). */
function observationAfter(index: number, actions: string[]): string {
  const ep = new PlayEpisode({ env: 'searchqa', preset: 'default', split: 'train', index });
  let obs = ep.view().observation;
  for (const a of actions) obs = ep.step(a).observation;
  return obs;
}

/** A turn the Explorer walk found: group, rollout (0-based) and turn (1-based). */
interface Found {
  group: number;
  rollout: number;
  turn: number;
}

/**
 * Walks step 2's groups, their failed rollouts and their turns (→ key); returns the first turn whose observation is a
 * page of passages and the first critical turn (C_τ), each in a failed rollout, or null where none was met.
 */
async function walkFailed(page: Page): Promise<{ passages: Found | null; critical: Found | null }> {
  let passages: Found | null = null;
  let critical: Found | null = null;
  const groups = await page.getByTestId('explorer-group').locator('option').count();
  for (let g = 0; g < groups && !(passages && critical); g++) {
    await page.getByTestId('explorer-group').selectOption(String(g));
    await expect.poll(() => page.getByTestId('explorer-trajectory').count(), { timeout: 30_000 }).toBe(2);
    for (let t = 0; t < 2 && !(passages && critical); t++) {
      const row = page.getByTestId('explorer-group-table').locator('tbody tr').nth(t);
      if (!((await row.textContent()) ?? '').includes('✗ failure')) continue;
      await page.getByTestId('explorer-trajectory').nth(t).click();
      const counter = page.getByTestId('explorer-turn-counter');
      const turns = Number(/\/ (\d+)/.exec((await counter.textContent()) ?? '')?.[1]);
      await page.getByTestId('explorer-turn').focus();
      for (let k = 1; k <= turns; k++) {
        expect(await counter.textContent()).toBe(`turn ${k} / ${turns}`);
        const obs = await page.getByTestId('explorer-observation').innerText();
        if (!passages && /\nDoc 1\(Title: /.test(obs)) passages = { group: g, rollout: t, turn: k };
        const isCritical = (await page.getByTestId('explorer-turn').locator('h3 .badge').count()) > 0;
        if (!critical && isCritical) critical = { group: g, rollout: t, turn: k };
        if (k < turns) await page.keyboard.press('ArrowRight');
      }
    }
  }
  return { passages, critical };
}

/** Opens turn `f.turn` of rollout `f.rollout` of group `f.group` in the Explorer. */
async function openTurn(page: Page, f: Found): Promise<void> {
  await page.getByTestId('explorer-group').selectOption(String(f.group));
  await expect.poll(() => page.getByTestId('explorer-trajectory').count(), { timeout: 30_000 }).toBe(2);
  await page.getByTestId('explorer-trajectory').nth(f.rollout).click();
  await page.getByTestId('explorer-turn').focus();
  for (let k = 1; k < f.turn; k++) await page.keyboard.press('ArrowRight');
  await expect.poll(() => page.getByTestId('explorer-turn-counter').textContent()).toMatch(`turn ${f.turn} / `);
}

/** A results table of two methods × one seed over searchqa's seven task types (made with the experiment's writer). */
function searchqaTable(): string {
  const types = searchqa.taskTypes('default');
  const split = (rate: number) => ({
    successRate: rate,
    episodes: 70,
    byTaskType: Object.fromEntries(types.map((t) => [t, { successRate: rate, episodes: 10 }])),
  });
  const run = (method: string, rate: number) => ({
    method,
    seed: 1,
    evals: [{ step: 2, splits: { 'test-seen': split(rate), 'test-unseen': split(rate / 2) } }],
  });
  const command = 'npm run experiment -- opid-table --env searchqa --seeds 1 --steps 2';
  const table = makeResultsTable({
    header: [`command: ${command}`, 'searchqa/default, nano, FROM SCRATCH'],
    command,
    baseline: 'grpo',
    splits: ['test-seen', 'test-unseen'],
    methods: ['grpo', 'opid'],
    runs: [run('grpo', 0.2), run('opid', 0.4)],
  });
  return resultsTableJson(table);
}

describe('a new user on the searchqa environment (wasm)', () => {
  const title =
    'picks searchqa, starts from scratch, pretrains, steps, explores, plays, reads results, reopens the link';
  it(
    title,
    async () => {
      // searchqa's base policy ships; hidden here so the page's path without one (scratch, Pretrain) is walked.
      const asked: string[] = [];
      const { page, logs } = await open(TINY, {
        before: (p) =>
          p.route('**/base/searchqa-default.json', (route) => {
            asked.push(route.request().url());
            return route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>x</title>' });
          }),
      });
      await expect.poll(() => phaseText(page), { timeout: 120_000 }).toBe('ready');

      // Picking searchqa: its preset and its own longest action; no base policy is served: the page offers scratch.
      await page.locator('#field-env').selectOption('searchqa');
      await expect.poll(() => page.getByTestId('base-notice').count(), { timeout: 60_000 }).toBe(1);
      expect(await page.locator('#field-preset option').allTextContents()).toEqual(['default']);
      expect(await page.locator('#field-maxActionTokens').inputValue()).toBe(String(searchqa.maxActionTokens));
      expect(await text(page, 'base-notice')).toBe(
        'Base policy not used. Starting from scratch: no base policy for searchqa/default ' +
          '(base/searchqa-default.json ' +
          'is not on the server; it answered with a web page); make one with npm run pretrain -- --env searchqa ' +
          '--preset default. Runs start from fresh weights: choose scratch to say so, or pretrain a policy in the ' +
          'Pretrain panel. Start from scratch Dismiss',
      );
      expect(asked.length).toBeGreaterThan(0); // the web page came from the route above
      const initField = page.locator('.field:has(#field-init)');
      expect(await initField.textContent()).toContain('no base policy fits searchqa/default with model nano');
      await expect.poll(() => phaseText(page), { timeout: 60_000 }).toBe('ready');
      await page.getByTestId('base-use-scratch').click();
      await expect.poll(() => page.getByTestId('base-notice').count(), { timeout: 60_000 }).toBe(0);
      expect(await page.locator('#field-init').inputValue()).toBe('scratch');

      // OPID: the Analyzer select offers searchqa's embedded heuristic analyzer (the default), and every other one.
      await page.locator('#field-algo').selectOption('opid');
      expect(await page.locator('#field-analyzer').inputValue()).toBe('heuristic');
      expect(await page.locator('#field-analyzer option').allTextContents()).toEqual([
        'heuristic (embedded)',
        'http (OpenAI-compatible)',
        'oracle (privileged: the expert)',
      ]);
      expect(await page.locator('#field-analyzer option:disabled').count()).toBe(0);
      expect(await page.getByTestId('field-error-analyzer').count()).toBe(0);
      await expect
        .poll(() => page.evaluate(() => location.hash))
        .toMatch(/^(?=.*env=searchqa)(?=.*init=scratch)(?=.*algo=opid)/);

      // Pretrain in the page, then start from its weights.
      await expect.poll(() => page.getByTestId('pretrain-button').isEnabled(), { timeout: 60_000 }).toBe(true);
      await page.getByTestId('pretrain-iters').fill(String(PRETRAIN_ITERS));
      await page.getByTestId('pretrain-button').click();
      const message = page.getByTestId('pretrain-message');
      await expect
        .poll(async () => (await message.textContent()) ?? '', { timeout: 240_000, interval: 500 })
        .toMatch(/^Pretraining (done|failed)/);
      expect(await message.textContent()).toMatch(
        new RegExp(`^Pretraining done: ${PRETRAIN_ITERS} iterations, .* Saved as "${PRETRAINED}" in this browser`),
      );
      await page.getByRole('button', { name: `Start from ${PRETRAINED}`, exact: true }).click();
      await expect.poll(() => text(page, 'weights-init')).toBe(`Next run: starts from ${PRETRAINED} Clear`);

      // Two Step clicks: one update each.
      for (const step of [1, 2]) {
        await expect.poll(() => page.getByTestId('step-button').isEnabled(), { timeout: 60_000 }).toBe(true);
        await page.getByTestId('step-button').click();
        await expect
          .poll(async () => ((await page.getByTestId('error-banner').count()) ? -1 : stepShown(page)), {
            timeout: 180_000,
            interval: 250,
          })
          .toBe(step);
      }
      expect(await page.getByTestId('error-banner').count()).toBe(0);

      // Explorer: step 2's groups; the task line is the env's own for the task index it names.
      await page.getByRole('button', { name: 'Explorer', exact: true }).click();
      await expect.poll(() => page.getByTestId('explorer-step').textContent(), { timeout: 30_000 }).toBe('2');
      await page.getByTestId('explorer-group').selectOption('0');
      const taskLine = await text(page, 'explorer-task');
      const index = Number(/train task (\d+) /.exec(taskLine)?.[1]);
      const first = new PlayEpisode({ env: 'searchqa', preset: 'default', split: 'train', index }).view();
      expect(taskLine).toBe(`step 2 · group 0 · train task ${index} (${first.taskType}): ${first.task}`);
      expect(searchqa.taskTypes('default')).toContain(first.taskType);

      const { passages, critical } = await walkFailed(page);
      expect(passages, 'a failed rollout of step 2 whose search returned passages').not.toBeNull();
      expect(critical, 'a failed rollout of step 2 with a critical turn').not.toBeNull();

      // A page of passages: one line each, as the env gives them after the actions in the history window.
      await openTurn(page, passages!);
      const obsLines = (await page.getByTestId('explorer-observation').innerText()).split('\n').map((l) => l.trim());
      expect(obsLines[0]).toBe('observation');
      expect(obsLines.length).toBeGreaterThanOrEqual(2);
      for (const l of obsLines.slice(1)) expect(l).toMatch(/^Doc [123]\(Title: [^)]+\) \S.*\.$/);
      const history = (await page.getByTestId('explorer-turn').locator('ol.hist li span.act').allInnerTexts()).map(
        (a) => a.replace(/^> /, ''),
      );
      expect(history.length).toBe(passages!.turn - 1);
      expect(obsLines.slice(1).join('\n')).toBe(observationAfter(index, history));
      expect(await overflows(page, 'explorer-observation')).toBe(false);
      expect(await overflows(page, 'explorer-action')).toBe(false);

      // Per token: the search that returned them, one value per token, the tokens spelling the action (its first
      // piece word-initial, with its space) and <eos>.
      await page.keyboard.press('ArrowLeft');
      const tokens = page.getByTestId('explorer-token');
      expect((await tokens.allTextContents()).join('')).toBe(` ${history.at(-1)}⏎`);
      for (const v of await tokens.evaluateAll((ts) => ts.map((t) => t.getAttribute('data-value'))))
        expect(Number.isFinite(Number(v)) && v !== '').toBe(true);
      await tokens.first().focus();
      const tokenValue = /^token 1 " search": A \(total advantage\) = [-+−]?\d/;
      expect(await text(page, 'explorer-token-value')).toMatch(tokenValue);

      // A critical turn of a failed rollout: the heuristic's step skill there names another action than the one taken
      // (the move its plan makes there), phrased with the skill grammar, and is routed to the turn.
      await openTurn(page, critical!);
      const actionText = await page.getByTestId('explorer-action').innerText();
      const own = actionText.replace(/^>\s*/, '').replace(/⏎$/, '').trim();
      const [before, after] = stepSkill('\u0001').split('\u0001');
      const esc = (t: string) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      const routed = await text(page, 'explorer-routed-skill');
      const skill = new RegExp(
        `^step skill: ${esc(before)}((search|answer)\\[[^\\[\\]]+\\])${esc(after)} · λ_skill [\\d.]+$`,
      ).exec(routed);
      expect(skill, routed).not.toBeNull();
      expect(skill![1]).not.toBe(own);

      // Act (greedy): the current weights fill the most probable open form with their most probable words; the
      // reply is the env's own for that action.
      await page.getByTestId('act-start').click();
      const actSummary = () => text(page, 'act-summary').catch(() => '');
      await expect.poll(actSummary, { timeout: 60_000 }).toMatch(/: train task \d+ /);
      const actTask = Number(/: train task (\d+) /.exec(await actSummary())?.[1]);
      await page.getByTestId('act-greedy').check();
      await page.getByTestId('act-step').click();
      await expect.poll(() => page.getByTestId('act-turn').count(), { timeout: 60_000 }).toBe(1);
      const taken = await text(page, 'act-taken-form');
      const greedyTaken = /^taken \(greedy\): ((search|answer)\[.*) \(fills the open form (\w+\[), rank 1\) · p \S+ /;
      const m = greedyTaken.exec(taken);
      expect(taken).toMatch(/ · ℓ -\d+\.\d\d nats$/);
      expect(m, taken).not.toBeNull();
      expect(m![3]).toBe(`${m![2]}[`);
      const formCell = page.getByTestId('act-topk-row').first().locator('td').nth(1);
      expect((await formCell.textContent())?.replace(/\s+/g, ' ')).toBe(`${m![3]} ← taken (greedy), filled below`);
      expect(await page.getByTestId('act-turn').locator('p.reply > span').nth(1).innerText()).toBe(
        observationAfter(actTask, [m![1]]),
      );

      // Play: on searchqa already; a test-seen question, an invalid action, then the expert's actions typed.
      await page.getByRole('button', { name: 'Play', exact: true }).click();
      expect(await page.getByTestId('play-env').inputValue()).toBe('searchqa');
      expect(await page.getByTestId('play-preset').inputValue()).toBe('default');
      await page.getByTestId('play-split').selectOption(PLAY_TASK.split);
      await page.getByTestId('play-index').fill(String(PLAY_TASK.index));
      await page.getByTestId('play-start').click();
      await expect.poll(() => text(page, 'play-task')).toBe('Where was the founder of the Azure Bank born?');
      const episode = new PlayEpisode(PLAY_TASK);
      expect(await text(page, 'play-task')).toBe(episode.view().task);
      expect(await page.getByTestId('play-observation').innerText()).toBe(START_OBSERVATION);
      const forms = ['search[…]', 'answer[…]'];
      expect(await page.getByTestId('play-admissible').getByRole('button').allTextContents()).toEqual(forms);
      expect(await text(page, 'play-open-help')).toBe(
        'search[…] and answer[…] take your own words: type them after the [ and press Enter (the closing ] is ' +
          'added if you leave it out).',
      );
      const input = page.getByTestId('play-input');
      const turns = page.getByTestId('play-turn');
      await input.fill('who knows');
      await input.press('Enter');
      await expect.poll(() => turns.count(), { timeout: 10_000 }).toBe(1);
      expect(await page.getByTestId('play-observation').innerText()).toBe(INVALID_ACTION);
      expect(await text(page, 'play-hint')).toBe(
        '"who knows" is not a command of searchqa/default; commands here: search[…], answer[…]; admissible now: ' +
          'search[…], answer[…]',
      );
      episode.step('who knows');

      // The expert's plan from here, played by a person: the form's button, then the words (no closing ]), Enter.
      const expert = getEnvSpec('searchqa').expert(episode.environment);
      const plan: string[] = [];
      const expected: string[] = [];
      while (!episode.done) {
        const r = episode.step(expert.act());
        plan.push(r.action);
        expected.push(r.observation);
      }
      expect(plan).toEqual(['search[Azure Bank]', 'search[Mira Yarrow]', 'answer[Silver Vale]']);
      for (const [k, action] of plan.entries()) {
        const form = action.slice(0, action.indexOf('[') + 1);
        await page
          .getByTestId('play-admissible')
          .getByRole('button', { name: `${form}…]`, exact: true })
          .click();
        expect(await input.inputValue()).toBe(form);
        await input.pressSequentially(action.slice(form.length, -1));
        await input.press('Enter');
        await expect.poll(() => turns.count(), { timeout: 10_000 }).toBe(k + 2);
        expect(
          await turns
            .nth(k + 1)
            .locator('code')
            .textContent(),
        ).toBe(action);
        expect(await page.getByTestId('play-observation').innerText()).toBe(expected[k]);
        expect(await overflows(page, 'play-observation')).toBe(false);
      }
      expect(expected[0].split('\n')).toEqual([
        'Doc 1(Title: Azure Bank) The Azure Bank was founded by Mira Yarrow in 1851 and is based in Bramble Ford.',
        'Doc 2(Title: Azure League) The Azure League was founded by Elsa Ulver in 1873 and is based in Ash Point.',
        'Doc 3(Title: Azure Club) The Azure Club was founded by Petra Everard in 1926 and is based in Copper Harbour.',
      ]);
      expect(expected.at(-1)).toBe('The answer is correct.');
      expect(await text(page, 'play-summary')).toBe(
        'Task complete: success in 4 of 4 steps, total reward 1 (1 invalid action).',
      );
      expect(await page.getByTestId('play-admissible').count()).toBe(0);

      // Results: a searchqa table shows every one of its seven task types per split.
      await page.getByRole('button', { name: 'Results', exact: true }).click();
      const dir = mkdtempSync(join(tmpdir(), 'opd-searchqa-table-'));
      try {
        writeFileSync(join(dir, 'table.json'), searchqaTable());
        await page.getByTestId('results-file').setInputFiles(join(dir, 'table.json'));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
      const types = [...searchqa.taskTypes('default')]; // the env's own order, as the Results view lists them
      expect(types.length).toBe(7);
      const rows = (s: string) =>
        page.$$eval(`[data-testid="results-table"][data-split="${s}"] tr`, (trs) =>
          trs.map((tr) => [...tr.children].map((c) => (c.textContent ?? '').trim())),
        );
      for (const s of ['test-seen', 'test-unseen']) {
        await expect
          .poll(async () => (await rows(s))[0], { timeout: 60_000 })
          .toEqual(['method', 'seeds', s, ...types, 'Δ vs grpo']);
        expect((await rows(s)).map((r) => r.length)).toEqual([11, 11, 11]);
        const grpo = s === 'test-seen' ? '20.0 (1 seed)' : '10.0 (1 seed)';
        expect((await rows(s))[1]).toEqual(['grpo', '1', ...Array(8).fill(grpo), 'baseline']);
      }
      expect(await overflows(page, 'results-view')).toBe(false);

      // Copy link, open it in a new page: env=searchqa and the settings come back, the pretrained weights too.
      const { e2e } = suite;
      await page.getByRole('button', { name: 'Train', exact: true }).click();
      await e2e.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: e2e.url });
      await page.getByTestId('copy-link-button').click();
      await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toMatch(/#.*env=searchqa/);
      const link = await page.evaluate(() => navigator.clipboard.readText());
      expect(new URL(link).origin).toBe(new URL(e2e.url).origin);
      expect(link).toContain(`ckpt=${PRETRAINED}`);
      const other = await open(link.slice(link.indexOf('#') + 1));
      await expect.poll(() => phaseText(other.page), { timeout: 120_000 }).toBe('ready');
      const keys = ['env', 'preset', 'init', 'algo', 'analyzer', 'seed', 'model', 'steps', 'tasksPerStep', 'groupSize'];
      const values = async (p: Page) =>
        Object.fromEntries(
          await Promise.all(keys.map(async (k) => [k, await p.locator(`#field-${k}`).inputValue()] as const)),
        );
      expect(await values(other.page)).toEqual({
        env: 'searchqa',
        preset: 'default',
        init: 'scratch',
        algo: 'opid',
        analyzer: 'heuristic',
        seed: '5',
        model: 'nano',
        steps: '2',
        tasksPerStep: '2',
        groupSize: '2',
      });
      expect(await values(other.page)).toEqual(await values(page));
      await expect.poll(() => text(other.page, 'weights-init')).toBe(`Next run: starts from ${PRETRAINED} Clear`);
      expect(await other.page.getByTestId('base-notice').count()).toBe(0);
      expect(await other.page.getByTestId('link-notice').count()).toBe(0);
      expect([...logs, ...other.logs].filter((l) => l.startsWith('pageerror'))).toEqual([]);
      await other.page.close();
      await page.close();
    },
    900_000,
  );
});
