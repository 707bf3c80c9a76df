/**
 * `ShopEnv`: one WebShop episode behind the shared `Env` interface (WebShop, Yao et al. 2022: the text environment
 * envs/web_agent_text_env.py `WebAgentTextEnv.step` and the server's page logic `SimServer.receive`).
 *
 * - Reset: the search page (pages.ts); the task line is the instruction (tasks.ts), not repeated in observations.
 * - Actions, after `normalizeAction` (trim, collapse whitespace, lower-case) and WebShop's `parse_action` (Python
 *   `re.match(r'(.+)\[(.+)\]')`: name before the last `[` that a `]` follows, argument up to the last `]`, anything
 *   after it ignored):
 *   - `search[keywords]` on the search page: BM25 search (search.ts), results page 1 of the top 50. Any non-empty
 *     keywords are a search, as in WebShop: keywords with no indexed term (all punctuation, non-Latin letters,
 *     look-alike letters, stop words only) give `Page 1 (Total results: 0)`; a 5 000-character query is searched
 *     like any other. Unlike WebShop's text env, which also searches from other pages, search is only admissible on
 *     the search page (where WebShop's agents search: `has_search_bar`).
 *   - `click[value]` for a value the current page shows in brackets (pages.ts `clickables`): `back to search` (search
 *     page, choices cleared), `next >` / `< prev` on results (page ± 1; pages past the last are empty), a product id
 *     (its item page), an option value (chosen for its group, replacing the group's earlier choice), `description` /
 *     `features` / `reviews` (sub page), `< prev` on an item page (back to the results, choices cleared: WebShop
 *     re-renders the search) or on a sub page (back to the item page, choices kept), `buy now` (the episode ends).
 *   - Anything else — `search[]`, `search[` alone, search off the search page, a value not on the page,
 *     `click[search]`, a look-alike letter in a value, an empty or 5 000-character string — is invalid: the state is
 *     unchanged, `valid: false`, the observation is `Nothing happens.` (WebShop re-shows the unchanged page; the page
 *     is still what `admissibleActions()` lists), and the step counts.
 * - Reward: 0 until `buy now`, then WebShop's `get_reward` (reward.ts) for the open product, its drawn price and the
 *   chosen options (`buy now` before any option is allowed, as in WebShop: no option then matches). `success` iff the
 *   reward is exactly 1.
 * - done: after `buy now`, or once `steps` reaches `maxSteps` (15). The last step's `info` holds `{score}`: the
 *   episode's reward in [0, 1] (0 when it ran out of steps), whose mean × 100 over a split is WebShop's "score"
 *   (Yao et al. 2022, the column beside success rate); evaluations report its mean per split and task type.
 * - `admissibleActions()`: on the search page `['search[']` — an open form, not a complete action: a sampler
 *   completes it with free text and closes it with `]` (the action is `search[<text>]`, `<text>` non-empty); elsewhere
 *   `click[v]` for every clickable of the page, in page order; empty once done.
 */
import { normalizeAction, type Env, type ResetResult, type StepResult, type TaskRef } from '../types';
import {
  BACK_TO_SEARCH,
  BUY_NOW,
  NEXT_PAGE,
  PREV_PAGE,
  SUB_PAGES,
  clickables,
  openProduct,
  pageText,
  type ShopState,
  type SubPage,
} from './pages';
import { getReward } from './reward';
import { search } from './search';
import { SHOP_MAX_STEPS, checkPreset, generateTask, rewardGoal, type ShopTask } from './tasks';

/** The answer to an invalid action. */
export const NOTHING_HAPPENS = 'Nothing happens.';
/** The admissible entry on the search page: the open form of a search (see the module comment). */
export const SEARCH_PREFIX = 'search[';

/** WebShop engine/engine.py `parse_action`: [name, argument or null]. */
export function parseAction(action: string): [string, string | null] {
  const m = /^(.+)\[(.+)\]/.exec(action);
  return m ? [m[1], m[2]] : [action, null];
}

/** An episode of the shop env. */
export class ShopEnv implements Env {
  /** Preset name. */
  readonly preset: string;
  /** Max actions per episode (15). */
  readonly maxSteps = SHOP_MAX_STEPS;
  private st: ShopState | null = null;
  private taken = 0;
  private finished = false;
  private solved = false;

  /** @throws Error naming the accepted presets on an unknown preset. */
  constructor(preset: string) {
    checkPreset(preset);
    this.preset = preset;
  }

  /** Start task (split, index) on the search page. @throws Error on an unknown split or a bad index. */
  reset(ref: TaskRef): ResetResult {
    return this.resetTask(generateTask(this.preset, ref));
  }

  /** Start an episode from a given task (tests, replays). */
  resetTask(task: ShopTask): ResetResult {
    this.st = {
      task,
      page: 'search',
      keywords: null,
      results: [],
      pageNo: 1,
      asin: null,
      options: new Map(),
      sub: null,
      reward: null,
    };
    this.taken = 0;
    this.finished = false;
    this.solved = false;
    return { task: task.instruction, taskType: task.product.category, observation: pageText(this.st) };
  }

  /** Apply one action (any string). @throws Error before `reset` and after the episode is done. */
  step(action: string): StepResult {
    const s = this.state;
    if (this.finished) throw new Error('shop: step() called after the episode ended (done); call reset() first');
    const [name, arg] = parseAction(normalizeAction(String(action)));
    let valid = true;
    if (name === 'search' && arg !== null && s.page === 'search') this.search(s, arg);
    else if (name === 'click' && arg !== null && arg !== 'search' && clickables(s).includes(arg)) this.click(s, arg);
    else valid = false;
    this.taken++;
    const reward = s.page === 'done' ? (s.reward ?? 0) : 0;
    this.solved = s.page === 'done' && reward === 1;
    this.finished = s.page === 'done' || this.taken >= this.maxSteps;
    const observation = valid ? pageText(s) : NOTHING_HAPPENS;
    const info = this.finished ? { score: reward } : undefined; // WebShop's score / 100 for the episode
    const truncated = this.finished && s.page !== 'done' ? { truncated: true as const } : {};
    return {
      observation,
      reward,
      done: this.finished,
      valid,
      success: this.solved,
      ...(info ? { info } : {}),
      ...truncated,
    };
  }

  private search(s: ShopState, keywords: string): void {
    Object.assign(s, { page: 'results', keywords, results: search(keywords), pageNo: 1, asin: null, sub: null });
    s.options = new Map();
  }

  private click(s: ShopState, v: string): void {
    if (v === BACK_TO_SEARCH) {
      Object.assign(s, { page: 'search', keywords: null, results: [], pageNo: 1, asin: null, sub: null });
      s.options = new Map();
    } else if (v === BUY_NOW) {
      const p = openProduct(s);
      s.reward = getReward(p, rewardGoal(s.task), p.price, [...s.options.values()]).reward;
      s.page = 'done';
    } else if (s.page === 'results') {
      if (v === NEXT_PAGE) s.pageNo++;
      else if (v === PREV_PAGE) s.pageNo--;
      else Object.assign(s, { page: 'item', asin: v });
    } else if (v === PREV_PAGE) {
      if (s.page === 'sub') Object.assign(s, { page: 'item', sub: null });
      else {
        const pageNo = s.pageNo; // WebShop's session `page`: the results page the item was opened from
        this.search(s, s.keywords ?? '');
        s.pageNo = pageNo;
      }
    } else if ((SUB_PAGES as readonly string[]).includes(v)) {
      Object.assign(s, { page: 'sub', sub: v as SubPage });
    } else {
      const group = openProduct(s).options.find((g) => g.values.includes(v));
      if (group) s.options.set(group.name, v);
    }
  }

  /** Admissible actions now (see the module comment); empty once done. @throws Error before `reset`. */
  admissibleActions(): string[] {
    const s = this.state;
    if (this.finished) return [];
    if (s.page === 'search') return [SEARCH_PREFIX];
    return clickables(s).map((v) => `click[${v}]`);
  }

  /** Actions taken since reset (valid or not). */
  get steps(): number {
    return this.taken;
  }

  /** True once the episode has ended. */
  get done(): boolean {
    return this.finished;
  }

  /** True once a purchase scored exactly 1. */
  get success(): boolean {
    return this.solved;
  }

  /** The hidden state, for the expert and tests (never show it to a policy). @throws Error before `reset`. */
  get state(): ShopState {
    if (this.st === null) throw new Error('shop: call reset() before step() or admissibleActions()');
    return this.st;
  }
}
