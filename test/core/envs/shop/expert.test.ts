/**
 * The shop expert solves every task: 200 tasks of every split, reward 1 within 10 steps from the search page; it also
 * recovers from detours (a wrong product, a sub page, a results page that lacks the target), and it has nothing to
 * do once the purchase is made.
 */
import { describe, expect, it } from 'vitest';
import { shop, type ShopEnv } from '../../../../src/core/envs/shop';
import { expertQuery, keyWords } from '../../../../src/core/envs/shop/expert';
import { search } from '../../../../src/core/envs/shop/search';
import { SPLITS } from '../../../../src/core/envs/types';

describe('shop expert', () => {
  for (const split of SPLITS) {
    it(`solves 200 ${split} tasks (reward 1, at most 10 steps)`, () => {
      const env = shop.create('default') as ShopEnv;
      const expert = shop.expert(env);
      let solved = 0;
      for (let i = 0; i < 200; i++) {
        env.reset({ split, index: i });
        let r;
        do r = env.step(expert.act());
        while (!r.done);
        if (r.success && r.reward === 1 && env.steps <= 10) solved++;
      }
      expect(solved).toBe(200);
    });
  }

  it('searches with the instruction key words, or the title when those miss the target', () => {
    const env = shop.create('default') as ShopEnv;
    env.reset({ split: 'train', index: 1 });
    let t = env.state.task;
    expect(keyWords(t)).toBe('non gmo gluten free potato chips sour cream 12 count');
    expect(shop.expert(env).act()).toBe('search[non gmo gluten free potato chips sour cream 12 count]');
    env.reset({ split: 'train', index: 14 });
    t = env.state.task;
    expect(keyWords(t)).toBe('usb charging space saving nightstand black');
    expect(search(keyWords(t))).not.toContain(t.product.index);
    expect(expertQuery(t)).toBe('ember easy assembly nightstand, solid wood');
    expect(search(expertQuery(t))).toContain(t.product.index);
  });

  it('recovers from a wrong product, a sub page and a search that misses the target', () => {
    const env = shop.create('default') as ShopEnv;
    const expert = shop.expert(env);
    env.reset({ split: 'test-seen', index: 5 });
    env.step('search[zzz]');
    expect(expert.act()).toBe('click[back to search]');
    env.step('click[back to search]');
    env.step(`search[${expertQuery(env.state.task)}]`);
    const wrong = env
      .admissibleActions()
      .find((a) => /^click\[b\d/.test(a) && a !== `click[${env.state.task.product.asin}]`);
    env.step(wrong!);
    env.step('click[features]');
    expect(expert.act()).toBe('click[< prev]');
    env.step('click[< prev]');
    expect(expert.act()).toBe('click[< prev]');
    let r;
    do r = env.step(expert.act());
    while (!r.done);
    expect(r.success).toBe(true);
    expect(() => expert.act()).toThrow('the episode is done');
  });

  it('belongs to an env made by the spec', () => {
    expect(() => shop.expert({} as never)).toThrow('shop.expert: env must come from shop.create()');
  });
});
