/**
 * The shop reward against WebShop's own cases (Yao et al. 2022, tests/web-agent-site/engine/test_goal.py:
 * `test_get_type_reward`, `test_get_attribute_reward`, `test_get_option_reward`, `test_get_reward`), plus one case per
 * r_type band, a missing attribute, a missing option and a price over the limit, each computed by hand.
 *
 * Title nouns: test_goal.py's names are tagged by spaCy; here each name's nouns are written down. The tagging used for
 * the "similar product names" pairs is an assumed one that yields WebShop's asserted scores (0.333 = 2/6, 0.3 ≈ 5/17,
 * 0.15 ≈ 2/13): the test checks the formula |set(purchased) ∩ set(goal)| / len(goal), not spaCy.
 */
import { describe, expect, it } from 'vitest';
import {
  getAttributeReward,
  getOptionReward,
  getReward,
  getTypeReward,
  type RewardGoal,
  type RewardProduct,
} from '../../../../src/core/envs/shop/reward';
import { normalizeColor } from '../../../../src/core/envs/shop/normalize';

/** A product with empty text fields, overridden by `p`. */
function product(p: Partial<RewardProduct>): RewardProduct {
  return {
    query: '',
    productCategory: '',
    nouns: [],
    attributes: [],
    title: '',
    features: [],
    description: '',
    ...p,
  };
}

/** A goal with empty fields, overridden by `g`. */
function goal(g: Partial<RewardGoal>): RewardGoal {
  return { query: '', productCategory: '', nouns: [], attributes: [], goalOptions: [], priceUpper: 1e6, ...g };
}

describe('get_type_reward (test_goal.py)', () => {
  it('exact match, query mismatch, category orders and duplicates', () => {
    const g = goal({ query: 'Query 1', productCategory: 'a › b › c', nouns: ['name'] });
    const p = { query: 'Query 1', productCategory: 'a › b › c', nouns: ['name'] };
    expect(getTypeReward(product(p), g)).toEqual({ rType: 1, queryMatch: true, categoryMatch: true, titleScore: 1 });
    expect(getTypeReward(product({ ...p, query: 'Query 2' }), g).queryMatch).toBe(false);
    const cat = (c: string) => getTypeReward(product({ ...p, productCategory: c }), g).categoryMatch;
    expect(cat('b › c › a')).toBe(true);
    expect(cat('d › e › f')).toBe(false);
    expect(cat('a › d › b')).toBe(true);
    expect(cat('a › a › b')).toBe(true);
    expect(cat('a › a › d')).toBe(false);
  });

  it('similar names: title score 2/6 = 0.333', () => {
    // "Mens D.O.N. Issue 2 Gca Basketball Sneakers Shoes Casual - Off White" vs "PEAK High Top Mens Basketball Shoes
    // Lou Williams Streetball Master Breathable Non Slip Outdoor Sneakers".
    const g = goal({ nouns: ['d.o.n.', 'issue', 'gca', 'basketball', 'sneakers', 'shoes'] });
    const p = product({
      nouns: ['peak', 'top', 'lou', 'williams', 'streetball', 'master', 'slip', 'sneakers', 'shoes'],
    });
    expect(getTypeReward(p, g).titleScore).toBeCloseTo(0.333, 2);
  });

  it('slightly similar names: 5/17 ≈ 0.3, then 2/13 ≈ 0.15 once "Home Theater System Subwoofer" is dropped', () => {
    const head = [
      'saireed',
      'ul',
      'prong',
      'power',
      'cord',
      'jbl',
      'bar',
      'bar',
      'channel',
      'k',
      'ultra',
      'hd',
      'soundbar',
    ];
    const p = product({
      nouns: ['brst', 'ac', 'power', 'cord', 'outlet', 'socket', 'cable', 'plug', 'lead', 'panasonic', 'sc', 'dvd'],
    });
    const withHome = product({ nouns: [...p.nouns, 'vcr', 'combo', 'home', 'theater', 'system'] });
    const full = goal({ nouns: [...head, 'home', 'theater', 'system', 'subwoofer'] });
    expect(head.length + 4).toBe(17);
    expect(getTypeReward(withHome, full).titleScore).toBeCloseTo(5 / 17, 10);
    expect(Math.abs(getTypeReward(withHome, full).titleScore - 0.3)).toBeLessThan(1e-2);
    const short = goal({ nouns: head });
    expect(getTypeReward(withHome, short).titleScore).toBeCloseTo(2 / 13, 10);
    expect(Math.abs(getTypeReward(withHome, short).titleScore - 0.15)).toBeLessThan(1e-2);
  });

  it('completely different names: title score < 0.05', () => {
    const g = goal({ nouns: ['rusticware', 'orb', 'kitchen', 'bath', 'cabinet', 'knob'] });
    const p = product({ nouns: ['minkissy', 'pcs', 'steel', 'eyebrow', 'tweezers', 'blackhead', 'acne', 'remover'] });
    expect(getTypeReward(p, g).titleScore).toBe(0);
  });
});

describe('r_type bands (order of overrides)', () => {
  const g = goal({ query: 'q', productCategory: 'a › b › c', nouns: ['n1', 'n2', 'n3', 'n4', 'n5', 'n6', 'n7'] });
  // 1 of 7 goal nouns shared: title score 1/7 ≈ 0.143 (in [0.1, 0.2]).
  const oneOfSeven = ['n1', 'x'];
  const type = (p: Partial<RewardProduct>) => getTypeReward(product(p), g);
  it('1.0 by query match', () => {
    expect(type({ query: 'q', productCategory: 'x › y › z', nouns: oneOfSeven }).rType).toBe(1);
  });
  it('1.0 by two shared category levels', () => {
    expect(type({ query: 'r', productCategory: 'b › a › z', nouns: oneOfSeven }).rType).toBe(1);
  });
  it('1.0 by title score > 0.2 (2/7) alone', () => {
    expect(getTypeReward(product({ query: 'r', productCategory: 'x', nouns: ['n1', 'n2'] }), g).rType).toBe(1);
  });
  it('0.5: no query match, one category level, title score 1/7', () => {
    const t = getTypeReward(product({ query: 'r', productCategory: 'a › y › z', nouns: oneOfSeven }), g);
    expect(t).toEqual({ rType: 0.5, queryMatch: false, categoryMatch: false, titleScore: 1 / 7 });
  });
  it('0.1: title score 1/11 < 0.1 even with a query and category match', () => {
    const g11 = goal({ ...g, nouns: ['n1', 'n2', 'n3', 'n4', 'n5', 'n6', 'n7', 'n8', 'n9', 'n10', 'n11'] });
    const p = product({ query: 'q', productCategory: 'a › b › c', nouns: ['n1'] });
    expect(getTypeReward(p, g11).rType).toBe(0.1);
  });
  it('0: title score 0 even with a query and category match', () => {
    expect(getTypeReward(product({ query: 'q', productCategory: 'a › b › c', nouns: ['z'] }), g).rType).toBe(0);
  });
  it('a goal without nouns scores 0.2 (not > 0.2): 0.5 without a query or category match', () => {
    const t = getTypeReward(product({ query: 'r', productCategory: 'x', nouns: ['n1'] }), goal({ nouns: [] }));
    expect(t.titleScore).toBe(0.2);
    expect(t.rType).toBe(0.5);
  });
});

describe('get_attribute_reward (test_goal.py)', () => {
  const attrs = ['tea tree', 'essential oils', 'natural ingredients'];
  it('exact match: 3/3 (essential oil ~ essential oils)', () => {
    const p = product({ attributes: ['tea tree', 'essential oil', 'natural ingredients'] });
    expect(getAttributeReward(p, attrs)).toEqual([1, 3]);
  });
  it('partial match: 2/3', () => {
    expect(getAttributeReward(product({ attributes: ['essential oil', 'natural ingredients'] }), attrs)).toEqual([
      2 / 3,
      2,
    ]);
  });
  it('goal attributes found in features and description: 2/3', () => {
    const p = product({
      features: ['This shampoo has essential oils and smells like lemons'],
      description: 'Best shampoo on the market, made with natural ingredients',
    });
    expect(getAttributeReward(p, attrs)).toEqual([2 / 3, 2]);
  });
  it('no match: 0', () => {
    const p = product({
      attributes: ['tea bag', 'earl gray', 'lipton'],
      title: 'English tea for breakfast',
      features: ['Soothing aroma', 'Calming, great feeling'],
      description: 'Best tea made by Lipton, great to pair with breakfast',
    });
    expect(getAttributeReward(p, attrs)).toEqual([0, 0]);
  });
});

describe('get_option_reward (test_goal.py)', () => {
  it('exact match 3/3, partial 2/3, fuzzy 3/3, empty goal, empty purchase', () => {
    expect(getOptionReward(['pack of 12', 'grey', 'XL'], ['grey', 'XL', 'pack of 12'])).toEqual([1, 3]);
    expect(getOptionReward(['pack of 12', 'blue', 'XL'], ['grey', 'XL', 'pack of 12'])).toEqual([2 / 3, 2]);
    expect(getOptionReward(['pack of 12', 'powder snow', 'XL'], ['cool powder snow', 'XL', 'pack of 12'])).toEqual([
      1, 3,
    ]);
    expect(getOptionReward(['goal 1', 'goal 2'], [])).toEqual([null, 0]);
    expect(getOptionReward([], ['goal 1', 'goal 2'])).toEqual([0, 0]);
  });

  it('normalize_color quirks: navy blue → blue, so sky blue matches navy blue', () => {
    expect(normalizeColor('navy blue')).toBe('blue');
    expect(normalizeColor('dark grey')).toBe('dark');
    expect(normalizeColor('light grey')).toBe('grey');
    expect(normalizeColor('standard')).toBe('tan');
    expect(normalizeColor('6 count')).toBe('6 count');
    expect(getOptionReward(['sky blue'], ['navy blue'])).toEqual([1, 1]);
  });

  it('dict goals compare as (name, value) pairs: "large" hits size x-large, "8 fl oz" misses size 12 fl oz', () => {
    expect(getOptionReward(['large'], [['size', 'x-large']])).toEqual([1, 1]);
    expect(getOptionReward(['8 fl oz'], [['size', '12 fl oz']])).toEqual([0, 0]);
    expect(getOptionReward(['black'], [['color', 'black']])).toEqual([1, 1]);
  });
});

describe('get_reward (test_goal.py)', () => {
  const g = goal({
    query: 'Query 1',
    productCategory: 'a › b › c',
    nouns: ['d.o.n.', 'issue', 'gca', 'basketball', 'sneakers', 'shoes'],
    attributes: ['tea tree', 'essential oils', 'natural ingredients'],
    goalOptions: { color: 'grey', size: 'XL' },
    priceUpper: 40,
  });
  const chosen = ['grey', 'XL'];
  const exact = product({
    query: 'Query 1',
    productCategory: 'a › b › c',
    nouns: g.nouns,
    attributes: ['tea tree', 'essential oil', 'natural ingredients'],
  });
  // test_goal.py sets BulletPoints to a string; Python's ' '.join over a string spaces out its characters.
  const varied = product({
    ...exact,
    attributes: [],
    features: [...'This shampoo has essential oils and smells like lemons'],
    description: 'Best shampoo on the market, made with natural ingredients',
  });

  it('exact match: (3 + 2 + 1) / 6 = 1', () => {
    expect(getReward(exact, g, 35, chosen).reward).toBe(1);
  });
  it('attributes vary: (1 + 2 + 1) / 6 = 2/3', () => {
    expect(getReward(varied, g, 35, chosen).reward).toBeCloseTo(2 / 3, 12);
  });
  it('options vary: (1 + 2 + 1) / 7 = 0.5714', () => {
    const g3 = { ...g, goalOptions: { color: 'grey', size: 'XL', amount: 'pack of 12' } };
    expect(getReward(varied, g3, 35, chosen).reward).toBeCloseTo(4 / 7, 12);
  });
  it('type varies: 4/7 × 0.5 = 0.2857', () => {
    const g3 = goal({
      ...g,
      nouns: [
        'saireed',
        'ul',
        'prong',
        'power',
        'cord',
        'jbl',
        'bar',
        'bar',
        'channel',
        'k',
        'ultra',
        'hd',
        'soundbar',
      ],
      goalOptions: { color: 'grey', size: 'XL', amount: 'pack of 12' },
    });
    const p = product({
      ...varied,
      query: 'Query 2',
      productCategory: 'a › d › e',
      nouns: ['brst', 'ac', 'power', 'cord', 'outlet', 'socket', 'cable', 'plug', 'lead', 'panasonic', 'home'],
    });
    const r = getReward(p, g3, 35, chosen);
    expect(r.type.rType).toBe(0.5);
    expect(r.reward).toBeCloseTo(2 / 7, 12);
  });
});

describe('reward parts, by hand', () => {
  const g = goal({
    query: 'shampoo',
    productCategory: 'beauty › hair care › shampoo',
    nouns: ['acme', 'tea', 'tree', 'shampoo'],
    attributes: ['tea tree', 'sulfate free'],
    goalOptions: { scent: 'citrus', size: '8 fl oz' },
    priceUpper: 40,
  });
  const p = product({
    query: 'shampoo',
    productCategory: 'beauty › hair care › shampoo',
    nouns: ['acme', 'tea', 'tree', 'shampoo'],
    attributes: ['tea tree', 'sulfate free', 'dry hair'],
  });
  it('everything matches: 1', () => {
    expect(getReward(p, g, 39.99, ['8 fl oz', 'citrus']).reward).toBe(1);
  });
  it('a missing attribute: (1 + 2 + 1) / 5 = 0.8', () => {
    const q = { ...p, attributes: ['tea tree', 'dry hair'] };
    expect(getReward(q, g, 39.99, ['8 fl oz', 'citrus'])).toMatchObject({ reward: 0.8, attrMatches: 1 });
  });
  it('a missing option (16 fl oz for 8 fl oz): (2 + 1 + 1) / 5 = 0.8', () => {
    expect(getReward(p, g, 39.99, ['16 fl oz', 'citrus'])).toMatchObject({ reward: 0.8, optionMatches: 1 });
  });
  it('buy now before any option: (2 + 0 + 1) / 5 = 0.6', () => {
    expect(getReward(p, g, 10, []).reward).toBeCloseTo(0.6, 12);
  });
  it('price over the limit: (2 + 2 + 0) / 5 = 0.8; the limit itself is within', () => {
    expect(getReward(p, g, 40.01, ['8 fl oz', 'citrus'])).toMatchObject({ reward: 0.8, priceOk: false });
    expect(getReward(p, g, 40, ['8 fl oz', 'citrus']).priceOk).toBe(true);
  });
  it('another type sharing one of four nouns (title 0.25 > 0.2) but no query: r_type 1', () => {
    const q = product({ ...p, query: 'conditioner', nouns: ['brisa', 'argan', 'oil', 'shampoo'] });
    expect(getReward(q, g, 10, ['8 fl oz', 'citrus']).type.rType).toBe(1);
  });
});
