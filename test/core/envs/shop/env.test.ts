/**
 * Shop pages and actions (WebShop, Yao et al. 2022, envs/web_agent_text_env.py and the SimServer page logic): every
 * page and every transition, the reward at `buy now`, `maxSteps`, and bad input (empty, 5 000 characters, all
 * punctuation, non-Latin and look-alike letters, values not on the page, the wrong page), on one catalogue product
 * (index 1234, pinned by catalog.test.ts) with a hand-built task.
 */
import { describe, expect, it } from 'vitest';
import { catalog } from '../../../../src/core/envs/shop/catalog';
import { NOTHING_HAPPENS, SEARCH_PREFIX, ShopEnv, parseAction } from '../../../../src/core/envs/shop/env';
import { SEARCH_PAGE_TEXT, resultLine } from '../../../../src/core/envs/shop/pages';
import { search } from '../../../../src/core/envs/shop/search';
import type { ShopTask } from '../../../../src/core/envs/shop/tasks';

const P = catalog()[1234];
const TASK: ShopTask = {
  split: 'train',
  index: 0,
  product: P,
  goalOptions: { color: 'sky blue', size: '7.5' },
  instruction:
    'i am looking for non slip and breathable running shoes with color: sky blue, and size: 7.5, and price lower ' +
    'than 130.00 dollars',
};
/** The target ranks 12th (page 2, second line) for this query. */
const QUERY = 'breathable running shoes sky blue';
const ITEM = [
  '[back to search] [< prev]',
  'color: [black] [off white] [sky blue] [dark grey] [beige]',
  'size: [6.5] [7.5] [9.5]',
  'pinecrest memory foam running shoes, breathable',
  'Price: $94.91',
  'Rating: N.A.',
  '[description] [features] [reviews] [buy now]',
].join('\n');

function fresh(): ShopEnv {
  const env = new ShopEnv('default');
  env.resetTask(TASK);
  return env;
}

/** An env on the target's item page (search, next >, open). */
function onItem(): ShopEnv {
  const env = fresh();
  env.step(`search[${QUERY}]`);
  env.step('click[next >]');
  env.step('click[b37m25]');
  return env;
}

describe('shop product 1234 (the hand-built task)', () => {
  it('is the product the expected strings were written for', () => {
    expect(P.asin).toBe('b37m25');
    expect(P.title).toBe('pinecrest memory foam running shoes, breathable');
    expect(P.instructionAttributes).toEqual(['non slip', 'breathable']);
    expect(P.priceUpper).toBe(130);
    expect(search(QUERY).indexOf(1234)).toBe(11);
  });
});

describe('shop pages and transitions', () => {
  it('reset shows the search page; only the search form is admissible', () => {
    const env = new ShopEnv('default');
    const r = env.resetTask(TASK);
    expect(r).toEqual({ task: TASK.instruction, taskType: 'fashion', observation: SEARCH_PAGE_TEXT });
    expect(r.observation).toBe('WebShop\nSearch for a product: search[keywords]');
    expect(env.admissibleActions()).toEqual([SEARCH_PREFIX]);
    expect(env.steps).toBe(0);
  });

  it('search → results page 1: back to search, header, next >, ten products', () => {
    const env = fresh();
    const r = env.step(`search[${QUERY}]`);
    const top = search(QUERY);
    expect(top).toHaveLength(50);
    const lines = r.observation.split('\n');
    expect(lines.slice(0, 3)).toEqual(['[back to search]', 'Page 1 (Total results: 50)', '[next >]']);
    expect(lines.slice(3)).toEqual(top.slice(0, 10).map((i) => resultLine(catalog()[i])));
    expect(r).toMatchObject({ reward: 0, done: false, valid: true, success: false });
    expect(env.admissibleActions()).toEqual([
      'click[back to search]',
      'click[next >]',
      ...top.slice(0, 10).map((i) => `click[${catalog()[i].asin}]`),
    ]);
  });

  it('next > / < prev page through the results; past the last page the list is empty', () => {
    const env = fresh();
    env.step(`search[${QUERY}]`);
    const p2 = env.step('click[next >]').observation.split('\n');
    expect(p2.slice(0, 3)).toEqual(['[back to search]', 'Page 2 (Total results: 50)', '[< prev] [next >]']);
    expect(p2[4]).toBe('[b37m25] pinecrest memory foam running shoes, breathable | $94.91');
    expect(env.admissibleActions().slice(0, 3)).toEqual(['click[back to search]', 'click[< prev]', 'click[next >]']);
    expect(env.step('click[< prev]').observation.split('\n')[1]).toBe('Page 1 (Total results: 50)');
    for (let i = 0; i < 5; i++) env.step('click[next >]');
    const p6 = env.step('click[next >]').observation;
    expect(p6).toBe('[back to search]\nPage 7 (Total results: 50)\n[< prev] [next >]');
  });

  it('a product id opens its item page', () => {
    const env = onItem();
    expect(env.state.page).toBe('item');
    expect(env.admissibleActions()).toEqual([
      'click[back to search]',
      'click[< prev]',
      ...['black', 'off white', 'sky blue', 'dark grey', 'beige', '6.5', '7.5', '9.5'].map((v) => `click[${v}]`),
      'click[description]',
      'click[features]',
      'click[reviews]',
      'click[buy now]',
    ]);
    const env2 = fresh();
    env2.step(`search[${QUERY}]`);
    env2.step('click[next >]');
    expect(env2.step('click[b37m25]').observation).toBe(ITEM);
  });

  it('option clicks choose a value per group, a later click replacing the group’s earlier one', () => {
    const env = onItem();
    expect(env.step('click[black]').observation).toBe(`You have clicked black.\n${ITEM}`);
    expect(env.step('click[9.5]').observation).toBe(`You have clicked black.\nYou have clicked 9.5.\n${ITEM}`);
    expect(env.step('click[sky blue]').observation).toBe(`You have clicked sky blue.\nYou have clicked 9.5.\n${ITEM}`);
    expect([...env.state.options]).toEqual([
      ['color', 'sky blue'],
      ['size', '9.5'],
    ]);
  });

  it('description, features and reviews sub pages; < prev returns to the item page with the choices kept', () => {
    const env = onItem();
    env.step('click[7.5]');
    expect(env.step('click[description]').observation).toBe(
      '[back to search] [< prev]\nthese running shoes are memory foam and machine washable. perfect for daily use at ' +
        'home or on the go. made to last for years.',
    );
    expect(env.admissibleActions()).toEqual(['click[back to search]', 'click[< prev]']);
    expect(env.step('click[< prev]').observation).toBe(`You have clicked 7.5.\n${ITEM}`);
    expect(env.step('click[features]').observation).toBe(
      [
        '[back to search] [< prev]',
        '- rubber sole - easy to use',
        '- breathable - loved by customers',
        '- machine washable - a smart choice',
        '- memory foam - easy to use',
        '- non slip - built to last',
      ].join('\n'),
    );
    env.step('click[< prev]');
    expect(env.step('click[reviews]').observation).toBe('[back to search] [< prev]');
  });

  it('< prev on an item page returns to the results page it was opened from, choices cleared', () => {
    const env = onItem();
    env.step('click[black]');
    const r = env.step('click[< prev]');
    expect(r.observation.split('\n')[1]).toBe('Page 2 (Total results: 50)');
    expect(env.state.options.size).toBe(0);
    expect(env.step('click[b37m25]').observation).toBe(ITEM);
  });

  it('back to search from results, item and sub pages returns to the search page', () => {
    for (const extra of [[], ['click[b37m25]'], ['click[b37m25]', 'click[features]']]) {
      const env = fresh();
      env.step(`search[${QUERY}]`);
      env.step('click[next >]');
      for (const a of extra) env.step(a);
      const r = env.step('click[back to search]');
      expect(r.observation).toBe(SEARCH_PAGE_TEXT);
      expect(env.admissibleActions()).toEqual([SEARCH_PREFIX]);
      expect(env.state).toMatchObject({ page: 'search', keywords: null, results: [], asin: null });
    }
  });
});

describe('shop purchase', () => {
  it('buying the target with the asked options: reward 1, success, done', () => {
    const env = onItem();
    env.step('click[sky blue]');
    env.step('click[7.5]');
    const r = env.step('click[buy now]');
    expect(r).toEqual({
      observation: 'Thank you for shopping with us!\nYour score (min 0.0, max 1.0): 1.00',
      reward: 1,
      done: true,
      valid: true,
      success: true,
      info: { score: 1 },
    });
    expect(env.steps).toBe(6);
    expect(env.admissibleActions()).toEqual([]);
    expect(() => env.step('click[buy now]')).toThrow('after the episode ended');
  });

  it('buy now before any option: (2 + 0 + 1) / 5 = 0.6, done, no success', () => {
    const r = onItem().step('click[buy now]');
    expect(r).toMatchObject({ reward: 0.6, done: true, valid: true, success: false, info: { score: 0.6 } });
    expect(r.observation).toBe('Thank you for shopping with us!\nYour score (min 0.0, max 1.0): 0.60');
  });

  it('wrong colour (off white → white, not in "color sky blue"): (2 + 1 + 1) / 5 = 0.8', () => {
    const env = onItem();
    env.step('click[off white]');
    env.step('click[7.5]');
    expect(env.step('click[buy now]').reward).toBeCloseTo(0.8, 12);
  });

  it('another running shoe (halcyon, $93.76) scores by its attributes, options and price, not its identity', () => {
    // Goal nouns pinecrest, foam, shoes; its nouns halcyon, shoes: title score 1/3 > 0.2, same query: r_type 1. It has
    // both asked attributes (non slip, breathable) and costs less than 130. Size 7 hits the pair (size, 7.5): the words
    // `size 7 5` contain `7` (token_set_ratio 100); size 8 does not.
    const buy = (size: string) => {
      const env = fresh();
      env.step(`search[${QUERY}]`);
      const first = catalog()[search(QUERY)[0]];
      expect(first.title).toBe('halcyon breathable running shoes');
      env.step(`click[${first.asin}]`);
      env.step('click[sky blue]');
      env.step(`click[${size}]`);
      return env.step('click[buy now]');
    };
    expect(buy('7')).toMatchObject({ reward: 1, success: true, done: true });
    expect(buy('8').reward).toBeCloseTo(0.8, 12);
  });
});

describe('shop bad input: state unchanged, valid false, the step counted', () => {
  function expectNothing(env: ShopEnv, action: string): void {
    const before = { obs: JSON.stringify(env.state, (_, v) => (v instanceof Map ? [...v] : v)) };
    const adm = env.admissibleActions();
    const steps = env.steps;
    const r = env.step(action);
    expect(r).toEqual({ observation: NOTHING_HAPPENS, reward: 0, done: false, valid: false, success: false });
    expect(JSON.stringify(env.state, (_, v) => (v instanceof Map ? [...v] : v))).toBe(before.obs);
    expect(env.admissibleActions()).toEqual(adm);
    expect(env.steps).toBe(steps + 1);
  }

  it('on the search page: empty, 5 000 characters, search[] and the bare search[ form, click[search]', () => {
    const env = fresh();
    for (const a of [
      '',
      '   ',
      'x'.repeat(5000),
      'search[]',
      'search[',
      SEARCH_PREFIX,
      'click[search]',
      'click[buy now]',
    ]) {
      expectNothing(env, a);
    }
  });

  it('searches that match nothing are valid searches with 0 results', () => {
    for (const q of ['!!! ??? ...', '商品 検索', 'ѕһаmрoo', 'the and of', `${'zq '.repeat(1666)}zq`]) {
      const env = fresh();
      const r = env.step(`search[${q}]`);
      expect(r.valid).toBe(true);
      expect(r.observation).toBe('[back to search]\nPage 1 (Total results: 0)\n[next >]');
      expect(env.admissibleActions()).toEqual(['click[back to search]', 'click[next >]']);
    }
  });

  it('a 5 000-character search of catalogue words is a search like any other', () => {
    const env = fresh();
    const q = 'running shoes '.repeat(358).slice(0, 5000);
    const r = env.step(`search[${q}]`);
    expect(r.valid).toBe(true);
    expect(r.observation.split('\n')[1]).toBe('Page 1 (Total results: 50)');
  });

  it('on the results page: a search, an option value, buy now, an id of page 2, < prev on page 1, click[]', () => {
    const env = fresh();
    env.step(`search[${QUERY}]`);
    for (const a of ['search[shoes]', 'click[black]', 'click[buy now]', 'click[b37m25]', 'click[< prev]', 'click[]']) {
      expectNothing(env, a);
    }
  });

  it('on the item page: a value of another product, next >, a look-alike buy now, a sub page of the results', () => {
    const env = onItem();
    for (const a of ['click[navy blue]', 'click[next >]', 'click[buy nоw]', 'click[attributes]', 'click[search]']) {
      expectNothing(env, a);
    }
  });

  it('case and whitespace are normalised; text after the closing bracket is ignored (WebShop parse_action)', () => {
    const env = fresh();
    expect(env.step(`  SEARCH[${QUERY.toUpperCase()}]   trailing`).valid).toBe(true);
    expect(env.state.keywords).toBe(QUERY);
    expect(env.step('  Click[NEXT   >]').valid).toBe(true);
    expect(env.state.pageNo).toBe(2);
  });

  it('parse_action: name before the last bracket pair, argument up to the last ]', () => {
    expect(parseAction('search[a b]')).toEqual(['search', 'a b']);
    expect(parseAction('search[a]b')).toEqual(['search', 'a']);
    expect(parseAction('search[a[b]c]')).toEqual(['search[a', 'b]c']);
    expect(parseAction('search[')).toEqual(['search[', null]);
    expect(parseAction('click[]')).toEqual(['click[]', null]);
  });

  it('15 invalid actions end the episode with reward 0', () => {
    const env = fresh();
    let r = env.step('look');
    for (let i = 1; i < 15; i++) r = env.step('look');
    expect(r).toEqual({
      observation: NOTHING_HAPPENS,
      reward: 0,
      done: true,
      valid: false,
      success: false,
      info: { score: 0 },
      truncated: true,
    });
    expect(env.steps).toBe(15);
    expect(env.maxSteps).toBe(15);
  });

  it('step or admissibleActions before reset, an unknown preset', () => {
    const env = new ShopEnv('default');
    expect(() => env.step('search[x]')).toThrow('call reset()');
    expect(() => env.admissibleActions()).toThrow('call reset()');
    expect(() => new ShopEnv('easy')).toThrow('shop: unknown preset "easy"; accepted: default');
  });
});
