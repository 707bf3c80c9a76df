/**
 * The `shop` environment: a WebShop-like store (WebShop, Yao et al. 2022) — a seeded catalogue of 3 000 products in
 * 5 top categories (catalog.ts), BM25 search (search.ts), WebShop's pages and `search[…]` / `click[…]` actions in a
 * readable text form (pages.ts, env.ts), WebShop's purchase reward (reward.ts), synthetic instructions over train /
 * test-seen / test-unseen / val splits (tasks.ts) and an expert (expert.ts). One preset, `default`; task types are the
 * target product's top category. Embedded analyzer: analyzer/heuristic.ts; search steps: analyzer/search-steps.ts.
 */
import type { Analyzer, AnalyzerOptions, CommandForm, Env, EnvSpec, Expert } from '../types';
import { SHOP_VERSION } from './catalog';
import { SEARCH_PREFIX, ShopEnv, parseAction } from './env';
import { ShopExpert } from './expert';
import { SHOP_PRESETS, SHOP_TASK_TYPES, checkPreset } from './tasks';
import { shopCorpus } from './vocab';
import { ShopAnalyzer } from './analyzer/heuristic';
import { shopSearchSteps } from './analyzer/search-steps';
import { SHOP_PROMPT } from './analyzer/prompt-examples';

export { SHOP_VERSION, catalog, type Product } from './catalog';
export { ShopEnv, SEARCH_PREFIX, NOTHING_HAPPENS, parseAction } from './env';
export { ShopExpert, expertAction, expertQuery } from './expert';
export { SHOP_PRESETS, SHOP_TASK_TYPES, SHOP_MAX_STEPS, generateTask, type ShopTask } from './tasks';
export { getReward } from './reward';
export { shopCorpus } from './vocab';
export { ShopAnalyzer } from './analyzer/heuristic';
export { shopSearchSteps } from './analyzer/search-steps';

/** The two command forms (for people's hints). */
const COMMANDS: readonly CommandForm[] = [
  { verb: 'search', form: 'search[…]', example: 'search[red shoes]', pattern: /^search\[.+\]/ },
  { verb: 'click', form: 'click[…]', pattern: /^click\[.+\]/ },
];

/**
 * The shop env family, registered as `shop`. Preset: `default`. Embedded analyzer: the `heuristic` one of
 * analyzer/heuristic.ts.
 */
export const shop: EnvSpec = {
  name: 'shop',
  version: SHOP_VERSION,
  summary: 'WebShop-like store: search a 3\u00a0000-product catalogue, open an item, choose its options and buy',
  presets: SHOP_PRESETS,
  defaultPreset: 'default',
  /**
   * 20 tokens: the expert's searches (the instruction's key words) are up to 17 tokens with <eos> (measured over
   * tasks 0–1999 of every split), beyond the schema's 12.
   */
  maxActionTokens: 20,
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
  /** Search and results-page steps before the product it buys was listed (see analyzer/search-steps.ts). */
  searchSteps(_task, steps) {
    return shopSearchSteps(steps);
  },
  /** The embedded `heuristic` analyzer (analyzer/heuristic.ts). @throws Error on a bad K. */
  analyzer(opts: AnalyzerOptions): Analyzer {
    return new ShopAnalyzer(opts);
  },
  /**
   * Two worked examples for the `http` analyzer's prompt (analyzer/prompt-examples.ts).
   * @throws Error on an unknown preset.
   */
  analyzerPrompt(preset: string) {
    checkPreset(preset);
    return SHOP_PROMPT;
  },
  /**
   * AgentGym's WebShop `GET /available_actions` shape (WebShop `WebAgentTextEnv.get_available_actions`): on the search
   * page `{has_search_bar: true, clickables: ['search']}`, elsewhere the page's clickable values, in page order.
   */
  availableActions(admissible: readonly string[]) {
    if (admissible.includes(SEARCH_PREFIX)) return { has_search_bar: true, clickables: ['search'] };
    const clickables = admissible.flatMap((a) => {
      const [name, value] = parseAction(a);
      return name === 'click' && value !== null ? [value] : [];
    });
    return { has_search_bar: false, clickables };
  },
};
