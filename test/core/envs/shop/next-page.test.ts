/**
 * `[next >]` on a results page with nothing on it: kept as WebShop's results template draws it (always), as the
 * shop's pages document (src/core/envs/shop/pages.ts); clicking it shows the next, empty, page with `[< prev]`.
 */
import { describe, expect, it } from 'vitest';
import { shop } from '../../../../src/core/envs/shop';

describe('shop: [next >] on an empty results page', () => {
  it('a search with no results shows [next >], and it leads to another empty page', () => {
    const env = shop.create(shop.defaultPreset);
    env.reset({ split: 'train', index: 0 });
    expect(env.step('search[zzzz qqqq]').observation).toBe('[back to search]\nPage 1 (Total results: 0)\n[next >]');
    expect(env.admissibleActions()).toEqual(['click[back to search]', 'click[next >]']);
    const next = env.step('click[next >]');
    expect([next.valid, next.observation]).toEqual([
      true,
      '[back to search]\nPage 2 (Total results: 0)\n[< prev] [next >]',
    ]);
  });
});
