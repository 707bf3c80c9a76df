/**
 * The shop catalogue: size, determinism (pinned digest), WebShop's price-limit rule (engine/goal.py
 * `get_synthetic_goals`) on hand-picked prices, title nouns, and the invariants the env relies on (unique ids, option
 * values unique within a product and matching themselves under the reward).
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  isUnseenGoal,
  PRICE_RANGE,
  SHOP_VERSION,
  catalog,
  generateCatalog,
  priceLimit,
  productByAsin,
  titleNouns,
} from '../../../../src/core/envs/shop/catalog';
import { LEAVES } from '../../../../src/core/envs/shop/lexicon';
import { getOptionReward } from '../../../../src/core/envs/shop/reward';
import { Rng } from '../../../../src/core/rng';

/** The version the digest below was computed for (bump both together). */
const PINNED_VERSION = 'shop-v2';
const CATALOG_SHA256 = '98e685087d57b1feeae32eac91604e6ca6d8087cc52d49cc567d8bb231389e40';

describe('shop catalogue', () => {
  it('has 3 000 products over 30 leaves, generated identically twice', () => {
    expect(catalog()).toHaveLength(3000);
    expect(LEAVES).toHaveLength(30);
    // Types no split asks for (search distractors only), and test-unseen's products: catalogue products 4, 9, 14, …
    // of the other types, 20 of each such leaf's 100.
    expect(LEAVES.filter((l) => l.heldOut).map((l) => l.type)).toEqual([
      'eye shadow',
      'power bank',
      'wallet',
      'olive oil',
      'desk lamp',
    ]);
    const unseen = catalog().filter(isUnseenGoal);
    expect(unseen).toHaveLength(500);
    expect(unseen.slice(0, 3).map((p) => p.index)).toEqual([4, 9, 14]);
    for (let l = 0; l < LEAVES.length; l++) {
      expect(unseen.filter((p) => p.leaf === l)).toHaveLength(LEAVES[l].heldOut ? 0 : 20);
    }
    expect(generateCatalog()).toEqual(catalog());
  });

  it('is pinned for its version', () => {
    expect(SHOP_VERSION).toBe(PINNED_VERSION);
    const digest = createHash('sha256').update(JSON.stringify(catalog())).digest('hex');
    expect(digest).toBe(CATALOG_SHA256);
  });

  it('has unique ids of the form b + 2 digits + letter + 2 digits, found by productByAsin', () => {
    const ids = catalog().map((p) => p.asin);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^b\d\d[a-z]\d\d$/);
    expect(productByAsin(ids[1234])?.index).toBe(1234);
    expect(productByAsin('nope')).toBeUndefined();
  });

  it('keeps option values unique within a product, each matching itself under the reward', () => {
    for (const p of catalog()) {
      const values = p.options.flatMap((g) => g.values);
      expect(new Set(values).size).toBe(values.length);
      for (const g of p.options) for (const v of g.values) expect(getOptionReward([v], [[g.name, v]])).toEqual([1, 1]);
    }
  });

  it('draws prices within the pricing and 1–3 instruction attributes among the attributes', () => {
    for (const p of catalog()) {
      expect(p.price).toBeGreaterThanOrEqual(p.pricing[0]);
      expect(p.price).toBeLessThanOrEqual(p.pricing[p.pricing.length - 1]);
      expect(p.pricing[p.pricing.length - 1]).toBeLessThanOrEqual(99.99);
      expect(p.instructionAttributes.length).toBeGreaterThanOrEqual(1);
      expect(p.instructionAttributes.length).toBeLessThanOrEqual(3);
      for (const a of p.instructionAttributes) expect(p.attributes).toContain(a);
      expect(p.nouns.length).toBeGreaterThan(0);
    }
  });
});

describe('price limit (WebShop get_synthetic_goals)', () => {
  it('uses the grid 10, 20, …, 990', () => {
    expect(PRICE_RANGE).toHaveLength(99);
    expect([PRICE_RANGE[0], PRICE_RANGE[98]]).toEqual([10, 990]);
  });

  it('price 23.65: the larger of two of 30, 40, 50, 60 — never 30, each of 40/50/60 reached', () => {
    const seen = new Set<number>();
    const rng = new Rng(7);
    for (let i = 0; i < 200; i++) {
      const { priceUpper, priceText } = priceLimit(23.65, rng);
      expect([40, 50, 60]).toContain(priceUpper);
      expect(priceText).toBe(`, and price lower than ${priceUpper}.00 dollars`);
      seen.add(priceUpper);
    }
    expect([...seen].sort()).toEqual([40, 50, 60]);
  });

  it('price 10 exactly: the grid values above it are 20..50', () => {
    const rng = new Rng(3);
    for (let i = 0; i < 50; i++) expect([30, 40, 50]).toContain(priceLimit(10, rng).priceUpper);
  });

  it('price 975: only 980 and 990 above it, so 990; price 985: one value, no price text', () => {
    expect(priceLimit(975, new Rng(1))).toEqual({
      priceUpper: 990,
      priceText: ', and price lower than 990.00 dollars',
    });
    expect(priceLimit(985, new Rng(1))).toEqual({ priceUpper: 1000000, priceText: '' });
  });
});

describe('title nouns', () => {
  it('keeps brand and lexicon nouns in order', () => {
    expect(titleNouns('summit color safe shampoo, natural ingredients')).toEqual(['summit', 'shampoo', 'ingredients']);
    expect(titleNouns('acme tea tree shampoo')).toEqual(['acme', 'tea', 'tree', 'shampoo']);
  });
});
