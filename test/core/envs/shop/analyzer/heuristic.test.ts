/**
 * The shop's embedded analyzer on hand-built groups played through the real env (shop/default, train tasks 3 and 7),
 * with the exact skills each rule writes: a success's plan (with paging), a missed option, a wrong option, a purchase
 * over the price limit, a search whose words missed the product, another search that also finds it, an invalid and a
 * repeated action, a best-reward reference below 1 (its repaired plan), steps run out with no mistake (shop's own
 * fallback words, every one a token of the env), K, failedOnly and the counters.
 *
 * Task train/7: `i want to buy polo shirt that is short sleeve, moisture wicking and cotton blend with color: olive
 * green, and size: xx-large, and price lower than 70.00 dollars`; the expert searches its key words (Q7), opens
 * b55q83 (page 1) and clicks olive green, xx-large, buy now. Task train/3: `i need office chair that is ergonomic with
 * color: espresso, and price lower than 80.00 dollars`; the expert searches Q3, pages to page 4, opens b14j23
 * ($68.23), clicks espresso, buys; page 1 lists b07x28 at $95.69, which offers espresso.
 */
import { describe, expect, it } from 'vitest';
import { SHOP_FALLBACK, ShopAnalyzer } from '../../../../../src/core/envs/shop/analyzer/heuristic';
import { SHOP_PROMPT } from '../../../../../src/core/envs/shop/analyzer/prompt-examples';
import { getEnvSpec } from '../../../../../src/core/envs/registry';
import { buildTokenizer } from '../../../../../src/core/model/policy';
import type { AnalyzerOptions, AnalyzerTrajectory, AnalysisResult } from '../../../../../src/core/envs/types';
import { playActions, type Played } from './helpers';

const T7 = { split: 'train', index: 7 } as const;
const T3 = { split: 'train', index: 3 } as const;
const Q7 = 'search[short sleeve moisture wicking cotton blend polo shirt olive green xx-large]';
const Q3 = 'search[ergonomic office chair espresso]';
const TITLE3 = 'nordik adjustable height office chair, easy assembly';

/** The expert's whole episode of a task (it buys within 10 steps). */
const expert = (ref: typeof T7 | typeof T3) => playActions(ref, Array(10).fill(null));
/** Analyse one group of played episodes. */
const analyze = (runs: Played[], o: AnalyzerOptions = { maxStepSkills: 5 }): Promise<AnalysisResult> =>
  new ShopAnalyzer(o).analyze({ env: 'shop', trajectories: runs.map((r) => r.traj) });
/** The steps-run-out skill in shop's own words (SHOP_FALLBACK), never household's `wandering between places`. */
const FALLBACK =
  'avoid: search and click with no buy now. warning sign: steps run out. instead: buy the product in fewer steps.';
/** `n` alternations of two actions, starting with the first. */
const alternate = (a: string, b: string, n: number) => Array.from({ length: n }, (_, k) => (k % 2 ? b : a));

describe('shop heuristic analyzer: hand-built groups', () => {
  it('a success gets its plan and, with no detour, its last K plan steps', async () => {
    const run = expert(T7);
    expect(run.actions).toEqual([Q7, 'click[b55q83]', 'click[olive green]', 'click[xx-large]', 'click[buy now]']);
    const plan = `plan: ${Q7}, then click[b55q83], then click[olive green], then click[xx-large], then click[buy now].`;
    expect(await analyze([run])).toEqual([
      {
        episodeSkill: plan,
        stepSkills: {
          0: `next, ${Q7}.`,
          1: 'next, click[b55q83].',
          2: 'next, click[olive green].',
          3: 'next, click[xx-large].',
          4: 'next, click[buy now].',
        },
      },
    ]);
    // K = 2: the decisive last two, as the http prompt's first worked example shows.
    expect(await analyze([run], { maxStepSkills: 2 })).toEqual([SHOP_PROMPT.examples[0].skills]);
    expect((await analyze([run], { maxStepSkills: 0 }))[0]).toEqual({ episodeSkill: plan, stepSkills: {} });
  });

  it('a success found on results page 3 of other words: the plan pages there; detours get the plan move', async () => {
    const run = playActions(T7, [
      'search[polo shirt]',
      'click[next >]',
      'click[b35c04]',
      'click[< prev]',
      'click[next >]',
      'click[b55q83]',
      'click[large]',
      'click[olive green]',
      'click[xx-large]',
      'click[buy now]',
    ]);
    expect(run.traj.steps[2].observation).toContain('Page 2 (Total results: 50)');
    expect(run.traj.steps[2].observation).toContain('[b35c04]');
    expect(run.traj.success).toBe(true);
    expect(await analyze([run])).toEqual([
      {
        episodeSkill:
          'plan: search[polo shirt], then click[next >], then click[next >], then click[b55q83], ' +
          'then click[xx-large], then click[olive green], then click[buy now].',
        // Detours first: the wrong product on page 2 (the way back from it, `< prev`, is the plan's move there) and
        // the wrong size; then the latest plan steps.
        stepSkills: {
          2: 'next, click[next >].',
          6: 'next, click[xx-large].',
          7: 'next, click[olive green].',
          8: 'next, click[xx-large].',
          9: 'next, click[buy now].',
        },
      },
    ]);
  });

  it('a purchase without an asked option, alone: the option is the fix (the prompt example)', async () => {
    const run = playActions(T7, [Q7, 'click[b55q83]', 'click[olive green]', 'click[buy now]']);
    expect(run.traj.success).toBe(false);
    expect(run.traj.steps[3].return).toBeCloseTo(5 / 6, 12);
    const skills = {
      episodeSkill: 'avoid: click[buy now]. warning sign: the task names size: xx-large. instead: click[xx-large].',
      stepSkills: { 3: 'next, click[xx-large].' },
    };
    expect(await analyze([run])).toEqual([skills]);
    expect(SHOP_PROMPT.examples[1].skills).toEqual(skills);
    // Beside the success the walk finds the same mistake.
    expect((await analyze([expert(T7), run]))[1]).toEqual(skills);
  });

  it('another value of an asked option, alone: the option click and the purchase are mistakes', async () => {
    // (`large` would score 1: WebShop's fuzzy option match finds `large` in `('size', 'xx-large')`.)
    const run = playActions(T7, [Q7, 'click[b55q83]', 'click[olive green]', 'click[x-small]', 'click[buy now]']);
    expect(run.traj.success).toBe(false);
    expect(await analyze([run])).toEqual([
      {
        episodeSkill: 'avoid: click[x-small]. warning sign: the task names size: xx-large. instead: click[xx-large].',
        stepSkills: { 3: 'next, click[xx-large].', 4: 'next, click[xx-large].' },
      },
    ]);
  });

  it('a purchase over the price limit: alone, the price; beside the success, the product the plan opens', async () => {
    const over = playActions(T3, [Q3, 'click[b07x28]', 'click[espresso]', 'click[buy now]']);
    expect(over.traj.steps[1].observation).toContain('[b07x28] maven ergonomic office chair, easy assembly | $95.69');
    expect(over.traj.steps[3].return).toBeCloseTo(2 / 3, 12);
    expect(await analyze([over])).toEqual([
      {
        episodeSkill:
          'avoid: click[buy now]. warning sign: the task names price lower than 80.00 dollars. instead: click[< prev].',
        stepSkills: { 3: 'next, click[< prev].' },
      },
    ]);
    const win = expert(T3);
    expect(win.actions).toEqual([
      Q3,
      'click[next >]',
      'click[next >]',
      'click[next >]',
      'click[b14j23]',
      'click[espresso]',
      'click[buy now]',
    ]);
    const out = await analyze([win, over]);
    expect(out[0]).toEqual({
      episodeSkill:
        `plan: ${Q3}, then click[next >], then click[next >], then click[next >], then click[b14j23], ` +
        'then click[espresso], then click[buy now].',
      stepSkills: {
        2: 'next, click[next >].',
        3: 'next, click[next >].',
        4: 'next, click[b14j23].',
        5: 'next, click[espresso].',
        6: 'next, click[buy now].',
      },
    });
    expect(out[1]).toEqual({
      episodeSkill: `avoid: click[b07x28]. warning sign: the task target is ${TITLE3}. instead: click[next >].`,
      stepSkills: { 1: 'next, click[next >].', 2: 'next, click[< prev].', 3: 'next, click[< prev].' },
    });
  });

  it('a search whose words missed the product, beside a success: the search, then back to search', async () => {
    const lost = playActions(T7, ['search[red dress]', ...alternate('click[next >]', 'click[< prev]', 14)]);
    expect(lost.traj.steps).toHaveLength(15);
    expect(lost.traj.steps.some((s) => s.observation.includes('[b55q83]'))).toBe(false);
    const out = await analyze([expert(T7), lost]);
    expect(out[1]).toEqual({
      episodeSkill:
        'avoid: search[red dress]. warning sign: the task names short sleeve moisture wicking cotton blend polo ' +
        `shirt olive green xx-large. instead: ${Q7}.`,
      stepSkills: {
        0: `next, ${Q7}.`,
        1: 'next, click[back to search].',
        2: 'next, click[back to search].',
        3: 'next, click[back to search].',
        4: 'next, click[back to search].',
      },
    });
  });

  it('another search that also lists the product and options in another order are no mistakes', async () => {
    const run = playActions(T7, [
      'search[polo shirt olive green]',
      'click[b55q83]',
      'click[xx-large]',
      'click[buy now]',
    ]);
    expect(run.traj.steps[1].observation).toContain('[b55q83]');
    expect((await analyze([expert(T7), run]))[1]).toEqual({
      episodeSkill:
        'avoid: click[buy now]. warning sign: the task names color: olive green. instead: click[olive green].',
      stepSkills: { 3: 'next, click[olive green].' },
    });
  });

  it('an invalid and a repeated action, alone: fixes read from the instruction and the page', async () => {
    const run = playActions(T7, [
      'go north',
      Q7,
      'click[b55q83]',
      'click[description]',
      'click[< prev]',
      'click[description]',
      'click[< prev]',
    ]);
    expect(run.traj.steps.map((s) => s.valid)).toEqual([false, true, true, true, true, true, true]);
    expect(await analyze([run])).toEqual([
      {
        episodeSkill: `avoid: go north. warning sign: nothing happens. instead: ${Q7}.`,
        // Step 6 repeats `< prev` on the same sub page, but `< prev` is also the way on: no step skill there.
        stepSkills: { 0: `next, ${Q7}.`, 5: 'next, click[olive green].' },
      },
    ]);
  });

  it('a best purchase below 1 is the reference, its plan repaired with the asked option it missed', async () => {
    const best = playActions(T7, [Q7, 'click[b55q83]', 'click[olive green]', 'click[buy now]']);
    const idle = playActions(T7, [
      Q7,
      'click[b55q83]',
      'click[olive green]',
      ...alternate('click[description]', 'click[< prev]', 12),
    ]);
    expect(idle.traj.steps).toHaveLength(15);
    const out = await analyze([idle, best]);
    expect(out[0]).toEqual({
      episodeSkill: 'avoid: click[description]. warning sign: the task names size: xx-large. instead: click[xx-large].',
      stepSkills: {
        3: 'next, click[xx-large].',
        5: 'next, click[xx-large].',
        7: 'next, click[xx-large].',
        9: 'next, click[xx-large].',
        11: 'next, click[xx-large].',
      },
    });
    expect(out[1]).toEqual(SHOP_PROMPT.examples[1].skills);
  });

  it('nothing bought and no mistake of its own: the steps-run-out skill', async () => {
    const wander = playActions(T7, [Q7, ...Array(14).fill('click[next >]')]);
    expect(wander.traj.steps).toHaveLength(15);
    expect(await analyze([wander])).toEqual([
      {
        episodeSkill: FALLBACK,
        stepSkills: {},
      },
    ]);
  });

  it('text that shows no shop page, or no step at all, gets the steps-run-out skill and no step skill', async () => {
    const fallback = { episodeSkill: FALLBACK, stepSkills: {} };
    const odd = {
      task: 'put a clean apple in fridge 1.',
      success: false,
      finalObservation: 'You arrive at fridge 1.',
      steps: [{ observation: 'You are in the middle of a room.', action: 'go to fridge 1', valid: true, return: 0 }],
    };
    const empty = { task: '', success: false, finalObservation: '', steps: [] };
    expect(await new ShopAnalyzer({ maxStepSkills: 5 }).analyze({ env: 'shop', trajectories: [odd, empty] })).toEqual([
      fallback,
      fallback,
    ]);
  });

  it("a hand-made failure with no mistake: shop's own fallback, every word one of shop's tokens", async () => {
    // Task train/3's instruction; a search of its words, then `next >` to page 2, and the episode ends unbought.
    const results = (page: number, line: string) =>
      `[back to search]\nPage ${page} (Total results: 50)\n${page > 1 ? '[< prev] ' : ''}[next >]\n${line}`;
    const unbought: AnalyzerTrajectory = {
      task: 'i need office chair that is ergonomic with color: espresso, and price lower than 80.00 dollars',
      success: false,
      steps: [
        { observation: 'WebShop\nSearch for a product: search[keywords]', action: Q3, valid: true, return: 0 },
        {
          observation: results(1, '[b07x28] harbor ergonomic office chair | $95.69'),
          action: 'click[next >]',
          valid: true,
          return: 0,
        },
      ],
      finalObservation: results(2, '[b30k11] atlas mesh office chair | $120.00'),
    };
    expect(await new ShopAnalyzer({ maxStepSkills: 5 }).analyze({ env: 'shop', trajectories: [unbought] })).toEqual([
      { episodeSkill: FALLBACK, stepSkills: {} },
    ]);
    // Every word is one of the env's tokens: the whole skill falls back to bytes only for its punctuation.
    const tok = buildTokenizer(getEnvSpec('shop'));
    const bytes = (text: string) => tok.encode(text).filter((i) => i >= tok.byteOffset && i < tok.byteOffset + 256);
    for (const text of Object.values(SHOP_FALLBACK)) expect(bytes(` ${text}`)).toEqual([]);
    expect(tok.decode(bytes(FALLBACK))).toBe(':.:.:.');
  });

  it('failedOnly: successes get null and are not counted; K must be an integer ≥ 0', async () => {
    const a = new ShopAnalyzer({ maxStepSkills: 5, failedOnly: true });
    const miss = playActions(T7, [Q7, 'click[b55q83]', 'click[olive green]', 'click[buy now]']);
    const out = await a.analyze({ env: 'shop', trajectories: [expert(T7).traj, miss.traj] });
    expect(out[0]).toBeNull();
    expect(out[1]).toEqual(SHOP_PROMPT.examples[1].skills);
    const s = a.stats();
    expect(s).toEqual({ calls: 1, failures: 0, latencyMs: s.latencyMs, failureReasons: {} });
    expect(s.latencyMs).toBeGreaterThanOrEqual(0);
    expect(a.name).toBe('heuristic');
    expect(() => new ShopAnalyzer({ maxStepSkills: -1 })).toThrow(
      'heuristic analyzer: maxStepSkills must be an integer ≥ 0, got -1',
    );
    expect(() => new ShopAnalyzer({ maxStepSkills: 1.5 })).toThrow('got 1.5');
  });
});
