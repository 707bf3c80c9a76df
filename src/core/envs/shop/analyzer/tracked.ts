/**
 * What a shop trajectory shows about the browser before each step, read from its own observations and actions only:
 * the page the action was chosen on, the last search's keywords, the product open on an item or sub page and the
 * products of the last results page seen. The rules are env.ts's: an invalid action changes nothing (its answer,
 * `Nothing happens.`, shows no page), `search[…]` opens its results, `click[id]` on a results page opens that
 * product, `click[back to search]` forgets the keywords, `< prev` from an item page re-runs the same search.
 */
import { BACK_TO_SEARCH } from '../pages';
import { canonicalAction, clickValue, readPage, searchKeywords, validOn, type SeenPage } from './read';

/** The browser before one step, as the trajectory shows it. */
export interface ShopSeen {
  /** The page the step's action was chosen on; null when no observation so far showed a page. */
  page: SeenPage | null;
  /** Keywords of the search whose results are (or were last) shown; null before a search or after `back to search`. */
  query: string | null;
  /** The product (id) open on the item or sub page; null elsewhere before any product was opened. */
  asin: string | null;
  /** Product ids of the last results page seen (in page order); empty before any. */
  lastResults: string[];
}

/** One step as the tracker reads it: the observation its action was chosen on, the action, optionally validity. */
export interface SeenStep {
  observation: string;
  action: string;
  /** Recorded validity; absent: judged from the page (`validOn`). */
  valid?: boolean;
}

/**
 * The browser before each step and after the last one: `steps.length + 1` entries, entry i the state step i's action
 * was chosen on, the last one the state after the last action (read from `final`, the observation after it, when
 * given). Actions are read in canonical form (`canonicalAction`).
 */
export function trackSeen(steps: readonly SeenStep[], final?: string): ShopSeen[] {
  const out: ShopSeen[] = [];
  let cur: ShopSeen = { page: null, query: null, asin: null, lastResults: [] };
  for (let i = 0; i <= steps.length; i++) {
    const obs = i < steps.length ? steps[i].observation : final;
    const page = obs === undefined ? null : readPage(obs);
    cur = { ...cur, page: page ?? cur.page };
    if (cur.page?.kind === 'results') cur.lastResults = cur.page.products.map((p) => p.id);
    out.push(cur);
    if (i === steps.length) break;
    cur = afterAction(cur, steps[i]);
  }
  return out;
}

/** The state after a step's action, before its answer is read (the answer's page is read by the caller). */
function afterAction(s: ShopSeen, step: SeenStep): ShopSeen {
  const a = canonicalAction(step.action);
  const valid = step.valid ?? validOn(s.page, a);
  if (!valid || !s.page) return s;
  const keywords = searchKeywords(a);
  if (keywords !== null) return { ...s, query: keywords, asin: null };
  const v = clickValue(a);
  if (v === BACK_TO_SEARCH) return { ...s, query: null, asin: null };
  if (s.page.kind === 'results' && s.page.products.some((p) => p.id === v)) return { ...s, asin: v };
  return s;
}

/**
 * Whether a step skill may name `action` on `page`: the env accepts it there (`validOn`) and the policy can write
 * it — a search is `search[<keywords>]` with non-empty keywords and no bracket inside (the admissible list holds the
 * open form `search[`, which a sampler closes with the first `]`; envs/types.ts `isOpenAction`).
 */
export function skillAdmissible(page: SeenPage | null, action: string): boolean {
  if (!validOn(page, action)) return false;
  return page?.kind !== 'search' || /^search\[[^[\]]*[^[\]\s][^[\]]*\]$/.test(action);
}
