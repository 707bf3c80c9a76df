/**
 * The `shop` environment: a WebShop-like store (WebShop, Yao et al. 2022) — a seeded catalogue of 3 000 products in
 * 5 top categories (catalog.ts), BM25 search (search.ts), WebShop's pages and `search[…]` / `click[…]` actions in a
 * readable text form (pages.ts, env.ts), WebShop's purchase reward (reward.ts), synthetic instructions over train /
 * test-seen / test-unseen / val splits (tasks.ts) and an expert (expert.ts). One preset, `default`; task types are the
 * target product's top category.
 */
import type { CommandForm, Env, EnvSpec, Expert } from '../types';
import { SHOP_VERSION } from './catalog';
import { ShopEnv } from './env';
import { ShopExpert } from './expert';
import { SHOP_PRESETS, SHOP_TASK_TYPES, checkPreset } from './tasks';
import { shopCorpus } from './vocab';

export { SHOP_VERSION, catalog, type Product } from './catalog';
export { ShopEnv, SEARCH_PREFIX, NOTHING_HAPPENS, parseAction } from './env';
export { ShopExpert, expertAction, expertQuery } from './expert';
export { SHOP_PRESETS, SHOP_TASK_TYPES, SHOP_MAX_STEPS, generateTask, type ShopTask } from './tasks';
export { getReward } from './reward';
export { shopCorpus } from './vocab';

/** The two command forms (for people's hints). */
const COMMANDS: readonly CommandForm[] = [
  { verb: 'search', form: 'search[…]', pattern: /^search\[.+\]/ },
  { verb: 'click', form: 'click[…]', pattern: /^click\[.+\]/ },
];

/** The shop env family, registered as `shop`. Preset: `default`. */
export const shop: EnvSpec = {
  name: 'shop',
  version: SHOP_VERSION,
  summary: 'WebShop-like store: search a 3 000-product catalogue, open an item, choose its options and buy',
  presets: SHOP_PRESETS,
  defaultPreset: 'default',
  presetSummaries: { default: '5 top categories, 15 steps' },
  /** Task types (top categories). @throws Error naming the accepted presets on an unknown one. */
  taskTypes(preset: string): readonly string[] {
    checkPreset(preset);
    return SHOP_TASK_TYPES;
  },
  /** A fresh env for a preset. @throws Error naming the accepted presets on an unknown one. */
  create(preset: string): Env {
    return new ShopEnv(preset);
  },
  /** The expert bound to an env made by `create`. @throws Error for any other env. */
  expert(env: Env): Expert {
    if (!(env instanceof ShopEnv)) throw new Error('shop.expert: env must come from shop.create()');
    return new ShopExpert(env);
  },
  /** Every word the env can emit (see `vocab.ts`). */
  vocabularyCorpus(): string[] {
    return shopCorpus();
  },
  /** `search[…]` and `click[…]`. @throws Error on an unknown preset. */
  commands(preset: string): readonly CommandForm[] {
    checkPreset(preset);
    return COMMANDS;
  },
};
