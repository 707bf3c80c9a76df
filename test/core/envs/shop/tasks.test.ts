/**
 * Shop tasks (WebShop, Yao et al. 2022, engine/goal.py `get_synthetic_goals`): the option combination order
 * (itertools.product over sorted option names), the instruction text, the splits (test-unseen only the products of
 * catalog.ts `isUnseenGoal`, the others never; no split the held-out types), val = train at TRAIN_TASK_INDICES + i,
 * addressing errors.
 */
import { describe, expect, it } from 'vitest';
import { catalog, isUnseenGoal } from '../../../../src/core/envs/shop/catalog';
import { LEAVES } from '../../../../src/core/envs/shop/lexicon';
import {
  SHOP_TASK_TYPES,
  combination,
  combinations,
  generateTask,
  optionText,
  rewardGoal,
} from '../../../../src/core/envs/shop/tasks';
import { SPLITS, TRAIN_TASK_INDICES } from '../../../../src/core/envs/types';

describe('shop goals', () => {
  it('enumerates combinations as itertools.product over sorted names, the last name fastest', () => {
    const p = catalog()[1234]; // color: 5 values, size: 3 values
    expect(combinations(p)).toBe(15);
    expect(combination(p, 0)).toEqual({ color: 'black', size: '6.5' });
    expect(combination(p, 1)).toEqual({ color: 'black', size: '7.5' });
    expect(combination(p, 3)).toEqual({ color: 'off white', size: '6.5' });
    expect(combination(p, 14)).toEqual({ color: 'beige', size: '9.5' });
  });

  it('sorts option names even when the item page lists them otherwise (size before scent there)', () => {
    const p = catalog()[2];
    expect(p.options.map((g) => g.name)).toEqual(['size', 'scent']);
    expect(Object.keys(combination(p, 0))).toEqual(['scent', 'size']);
    expect(combination(p, 0)).toEqual({ scent: 'citrus', size: '4 fl oz' });
    expect(combination(p, 1)).toEqual({ scent: 'citrus', size: '16 fl oz' });
  });

  it('writes WebShop’s option text', () => {
    expect(optionText({})).toBe('');
    expect(optionText({ color: 'black' })).toBe(' with color: black');
    expect(optionText({ color: 'sky blue', size: '7.5' })).toBe(' with color: sky blue, and size: 7.5');
  });

  it('train task 0: instruction = product instruction + option text + price text (a redrawn unseen goal)', () => {
    // The stream's first draw is a goal of product 2679 (a bed frame kept for test-unseen): drawn again, as shop-v1's
    // task 0 was that bed frame.
    expect(isUnseenGoal(catalog()[2679])).toBe(true);
    const t = generateTask('default', { split: 'train', index: 0 });
    expect(t.product.index).toBe(2067);
    expect(t.goalOptions).toEqual({ size: '16 ounce', style: 'dark roast' });
    expect(t.instruction).toBe(
      'i need coffee beans that is non gmo and low acid with size: 16 ounce, and style: dark roast, and price lower ' +
        'than 70.00 dollars',
    );
    expect(rewardGoal(t)).toEqual({
      query: 'coffee beans',
      productCategory: 'grocery › beverages › coffee beans',
      nouns: t.product.nouns,
      attributes: ['non gmo', 'low acid'],
      goalOptions: { size: '16 ounce', style: 'dark roast' },
      priceUpper: 70,
    });
  });
});

describe('shop splits', () => {
  it('only test-unseen asks for its products; none asks for held-out types', () => {
    for (const split of SPLITS) {
      for (let i = 0; i < 300; i++) {
        const t = generateTask('default', { split, index: i });
        expect(isUnseenGoal(t.product)).toBe(split === 'test-unseen');
        expect(LEAVES[t.product.leaf].heldOut).toBe(false);
      }
    }
  });

  it('every top category is a task type and occurs in 300 train and 300 test-unseen tasks', () => {
    expect(SHOP_TASK_TYPES).toEqual(['beauty', 'electronics', 'fashion', 'grocery', 'furniture']);
    for (const split of ['train', 'test-unseen'] as const) {
      const seen = new Set<string>();
      for (let i = 0; i < 300; i++) seen.add(generateTask('default', { split, index: i }).product.category);
      expect([...seen].sort()).toEqual([...SHOP_TASK_TYPES].sort());
    }
  });

  it('val task i is train task TRAIN_TASK_INDICES + i, labelled val', () => {
    for (const i of [0, 1, 17, 999]) {
      const v = generateTask('default', { split: 'val', index: i });
      const t = generateTask('default', { split: 'train', index: TRAIN_TASK_INDICES + i });
      expect(v).toEqual({ ...t, split: 'val', index: i });
    }
  });

  it('train and test-seen differ at the same index; the same address gives the same task', () => {
    let same = 0;
    for (let i = 0; i < 100; i++) {
      const a = generateTask('default', { split: 'train', index: i });
      const b = generateTask('default', { split: 'test-seen', index: i });
      if (a.instruction === b.instruction) same++;
      expect(generateTask('default', { split: 'train', index: i })).toEqual(a);
    }
    expect(same).toBeLessThan(5);
  });

  it('fails on a bad address or preset', () => {
    expect(() => generateTask('default', { split: 'dev' as never, index: 0 })).toThrow(
      'shop: unknown split "dev"; accepted: train, test-seen, test-unseen, val',
    );
    expect(() => generateTask('default', { split: 'train', index: -1 })).toThrow('non-negative integer, got -1');
    expect(() => generateTask('default', { split: 'train', index: 1.5 })).toThrow('non-negative integer, got 1.5');
    expect(() => generateTask('hard', { split: 'train', index: 0 })).toThrow('accepted: default');
    expect(generateTask('default', { split: 'train', index: 2 ** 40 }).instruction.length).toBeGreaterThan(0);
  });
});
