/**
 * A purchase plan read from a trajectory that bought something, and the move that leads from any page towards it.
 * The plan is the way the trajectory went, without its detours: the search whose results held the product it bought,
 * `next >` to the results page it lay on, the product, the options chosen when it bought, `buy now` (WebShop's
 * action grammar, Yao et al. 2022). Read from the trajectory's own pages and actions (tracked.ts).
 */
import { BACK_TO_SEARCH, BUY_NOW, NEXT_PAGE, PREV_PAGE } from '../pages';
import type { AskedGoal } from './read';
import { canonicalAction, clickValue, searchKeywords } from './read';
import { skillAdmissible, type ShopSeen } from './tracked';

/** A purchase plan (see the module doc). */
export interface ShopPlan {
  /** The search keywords. */
  query: string;
  /** The results page (1-based) of that search where the product lies. */
  pageNo: number;
  /** The product's id. */
  asin: string;
  /** The product's title (from its item page). */
  title: string;
  /** The option values to click, in order. */
  options: string[];
  /** As actions: `search[q]`, `click[next >]` (pageNo − 1 times), `click[id]`, `click[v]` each, `click[buy now]`. */
  actions: string[];
  /** Where the plan's actions were taken in the trajectory it was read from (step indices, increasing). */
  steps: number[];
}

/** A step of a trajectory, as the plan reader needs it (actions in canonical form). */
interface PlanStep {
  action: string;
  valid: boolean;
}

/** The last index i in [from, to) with pred(i), or −1. */
function lastIndex(from: number, to: number, pred: (i: number) => boolean): number {
  for (let i = to - 1; i >= from; i--) if (pred(i)) return i;
  return -1;
}

/**
 * The options a plan clicks: the values chosen when the product was bought (`You have clicked` lines, in page order);
 * with `goal`, each asked option the product's page offers replaces the chosen value of its group, or is added (in
 * the instruction's order) — a plan that repairs a purchase which missed an asked option.
 */
function planOptions(buy: ShopSeen, goal?: AskedGoal): string[] {
  const page = buy.page;
  if (!page) return [];
  const groupOf = (v: string) => page.groups.find((g) => g.values.includes(v))?.name;
  const byGroup = new Map<string, string>();
  for (const v of page.chosen) byGroup.set(groupOf(v) ?? `=${v}`, v);
  for (const [name, value] of goal?.options ?? []) {
    if (page.groups.some((g) => g.name === name && g.values.includes(value))) byGroup.set(name, value);
  }
  return [...byGroup.values()];
}

/**
 * The plan of a trajectory whose last step is a valid `click[buy now]` on an item page; null otherwise (or when the
 * search or the click that opened the product cannot be found). `seen` is trackSeen's output for `steps`; `goal`
 * (optional) repairs the options (see `planOptions`).
 */
export function planOf(steps: readonly PlanStep[], seen: readonly ShopSeen[], goal?: AskedGoal): ShopPlan | null {
  const buy = steps.length - 1;
  if (buy < 0 || !steps[buy].valid || steps[buy].action !== `click[${BUY_NOW}]`) return null;
  const at = seen[buy];
  if (at.page?.kind !== 'item' || at.asin === null) return null;
  const asin = at.asin;
  const opens = (i: number) =>
    steps[i].valid && seen[i].page?.kind === 'results' && clickValue(steps[i].action) === asin;
  const open = lastIndex(0, buy, opens);
  const query = open < 0 ? null : seen[open].query;
  if (query === null) return null;
  const search = lastIndex(0, open, (i) => steps[i].valid && searchKeywords(steps[i].action) === query);
  const pageNo = seen[open].page?.pageNo ?? 1;
  const paging: number[] = [];
  for (let k = 1; k < pageNo; k++) {
    const j = lastIndex(Math.max(0, search), open, (i) => {
      const p = seen[i].page;
      return steps[i].valid && steps[i].action === `click[${NEXT_PAGE}]` && p?.kind === 'results' && p.pageNo === k;
    });
    if (j >= 0) paging.push(j);
  }
  const options = planOptions(at, goal);
  const optionSteps = options
    .map((v) => lastIndex(open + 1, buy, (i) => steps[i].valid && clickValue(steps[i].action) === v))
    .filter((i) => i >= 0);
  const actions = [
    `search[${query}]`,
    ...paging.map(() => `click[${NEXT_PAGE}]`),
    ...Array.from({ length: pageNo - 1 - paging.length }, () => `click[${NEXT_PAGE}]`),
    `click[${asin}]`,
    ...options.map((v) => `click[${v}]`),
    `click[${BUY_NOW}]`,
  ];
  const idx = [...(search >= 0 ? [search] : []), ...paging, open, ...optionSteps, buy];
  return {
    query,
    pageNo,
    asin,
    title: at.page.title,
    options,
    actions,
    steps: [...new Set(idx)].sort((a, b) => a - b),
  };
}

/**
 * The move from browser state `s` towards plan `p`, or undefined when none can be written (no page known, the done
 * page). Always a move the page accepts (`skillAdmissible`):
 * - search page: `search[q]`;
 * - results page: the product when the page lists it; on the plan's search, `next >` / `< prev` towards its page;
 *   otherwise `back to search`;
 * - item page of the plan's product: the first plan option not chosen yet, then `buy now`;
 * - another item page, or a sub page: `< prev` when that leads back to results that hold the product or are the
 *   plan's search (a sub page of the plan's product too), otherwise `back to search`.
 */
export function towardPlan(s: ShopSeen, p: ShopPlan): string | undefined {
  const page = s.page;
  if (!page || page.kind === 'done') return undefined;
  let move: string;
  const sameSearch = s.query === p.query;
  const backLeadsThere = sameSearch || s.lastResults.includes(p.asin);
  if (page.kind === 'search') move = `search[${p.query}]`;
  else if (page.kind === 'results') {
    if (page.products.some((x) => x.id === p.asin)) move = `click[${p.asin}]`;
    else if (sameSearch && page.pageNo < p.pageNo) move = `click[${NEXT_PAGE}]`;
    else if (sameSearch && page.pageNo > p.pageNo) move = `click[${PREV_PAGE}]`;
    else move = `click[${BACK_TO_SEARCH}]`;
  } else if (page.kind === 'item' && s.asin === p.asin) {
    const next = p.options.find((v) => !page.chosen.includes(v) && page.clickables.includes(v));
    move = `click[${next ?? BUY_NOW}]`;
  } else if (page.kind === 'sub' && s.asin === p.asin) move = `click[${PREV_PAGE}]`;
  else move = `click[${backLeadsThere ? PREV_PAGE : BACK_TO_SEARCH}]`;
  move = canonicalAction(move);
  return skillAdmissible(page, move) ? move : undefined;
}

/**
 * Whether `action`, taken validly in state `s`, keeps to plan `p`: it is the plan's move there (`towardPlan`), or, on
 * the plan product's item page, a click on another plan option not chosen yet (options may be chosen in any order).
 */
export function keepsToPlan(s: ShopSeen, action: string, p: ShopPlan): boolean {
  if (action === towardPlan(s, p)) return true;
  const v = clickValue(action);
  return (
    s.page?.kind === 'item' && s.asin === p.asin && v !== null && p.options.includes(v) && !s.page.chosen.includes(v)
  );
}
