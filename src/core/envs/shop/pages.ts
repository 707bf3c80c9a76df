/**
 * The shop's pages as text: WebShop's text mode (Yao et al. 2022, envs/web_agent_text_env.py, templates/*.html) in a
 * readable line form. Every clickable is written in square brackets exactly as `click[...]` takes it (lower case);
 * everything else is plain text. Pages (WebShop template → here):
 *
 * - search (`search_page.html`): `WebShop` and the search hint; no clickables (the Search button is not clickable in
 *   text mode, `web_agent_text_env.py` `step` refuses `click[search]`); the action is `search[keywords]`.
 * - results (`results_page.html`): `[back to search]`, `Page p (Total results: n)`, `[< prev]` (p > 1) and
 *   `[next >]` (always), then one line per product of the page: `[id] title | price`. `[next >]` shows on an empty
 *   page too (no results, or past the last page, where it leads to another empty one): that is WebShop's template,
 *   which draws it unconditionally, and is kept as it is.
 * - item (`item_page.html`): `You have clicked v.` per chosen option (text_rich mode's line), `[back to search]
 *   [< prev]`, one line per option group `name: [v1] [v2] …`, the title, `Price: …`, `Rating: N.A.` (WebShop's text
 *   env loads no ratings), `[description] [features] [reviews] [buy now]` (no `attributes`: `show_attrs` is off).
 * - description / features / reviews (`*_page.html`): `[back to search] [< prev]` and the description, the bullets
 *   (`- ` each), or nothing (WebShop's text env loads no reviews).
 * - done (`done_page.html`): `Thank you for shopping with us!` and `Your score (min 0.0, max 1.0): r` (2 decimals).
 */
import { catalog, productByAsin, type Product } from './catalog';
import type { ShopTask } from './tasks';

/** Products per results page (WebShop engine/engine.py `PRODUCT_WINDOW`). */
export const PRODUCT_WINDOW = 10;
/** Button texts as clickables (WebShop engine/engine.py `END_BUTTON`, `NEXT_PAGE`, `PREV_PAGE`, `BACK_TO_SEARCH`). */
export const BUY_NOW = 'buy now';
export const NEXT_PAGE = 'next >';
export const PREV_PAGE = '< prev';
export const BACK_TO_SEARCH = 'back to search';
/** Sub-page buttons (WebShop `ACTION_TO_TEMPLATE` without `Attributes`). */
export const SUB_PAGES = ['description', 'features', 'reviews'] as const;
/** A sub-page name. */
export type SubPage = (typeof SUB_PAGES)[number];
/** The one text a search page shows. */
export const SEARCH_PAGE_TEXT = 'WebShop\nSearch for a product: search[keywords]';

/** Which page the browser is on. */
export type PageKind = 'search' | 'results' | 'item' | 'sub' | 'done';

/** The hidden state of one shop episode (WebShop's session dict plus the current page). */
export interface ShopState {
  /** The task (target product, goal options, instruction). */
  readonly task: ShopTask;
  page: PageKind;
  /** The last search's keywords (lower case), null before a search. */
  keywords: string | null;
  /** The last search's top results, catalogue indices, best first. */
  results: number[];
  /** Results page number, 1-based. */
  pageNo: number;
  /** The product open on an item or sub page. */
  asin: string | null;
  /** Chosen options: group name → value, in the order groups were first clicked. */
  options: Map<string, string>;
  /** The sub page shown (page `sub`). */
  sub: SubPage | null;
  /** The reward of the purchase (page `done`). */
  reward: number | null;
}

/** The products on the current results page. */
export function pageProducts(s: ShopState): Product[] {
  const all = catalog();
  return s.results.slice((s.pageNo - 1) * PRODUCT_WINDOW, s.pageNo * PRODUCT_WINDOW).map((i) => all[i]);
}

/** The product open on an item or sub page. @throws Error when none is. */
export function openProduct(s: ShopState): Product {
  const p = s.asin === null ? undefined : productByAsin(s.asin);
  if (!p) throw new Error(`shop: no product is open (page ${s.page})`);
  return p;
}

/** The clickable values of the current page, in page order (lower case, as `click[...]` takes them). */
export function clickables(s: ShopState): string[] {
  switch (s.page) {
    case 'results': {
      const nav = s.pageNo > 1 ? [PREV_PAGE, NEXT_PAGE] : [NEXT_PAGE];
      return [BACK_TO_SEARCH, ...nav, ...pageProducts(s).map((p) => p.asin)];
    }
    case 'item': {
      const values = openProduct(s).options.flatMap((g) => g.values);
      return [BACK_TO_SEARCH, PREV_PAGE, ...values, ...SUB_PAGES, BUY_NOW];
    }
    case 'sub':
      return [BACK_TO_SEARCH, PREV_PAGE];
    default:
      return [];
  }
}

const b = (v: string) => `[${v}]`;

/** The results line of a product: `[id] title | price`. */
export function resultLine(p: Product): string {
  return `${b(p.asin)} ${p.title} | ${p.priceTag}`;
}

/** An item page's text (see the module comment). */
export function itemText(p: Product, chosen: ReadonlyMap<string, string>): string {
  const lines = [...chosen.values()].map((v) => `You have clicked ${v}.`);
  lines.push(`${b(BACK_TO_SEARCH)} ${b(PREV_PAGE)}`);
  for (const g of p.options) lines.push(`${g.name}: ${g.values.map(b).join(' ')}`);
  lines.push(p.title, `Price: ${p.priceTag}`, 'Rating: N.A.', [...SUB_PAGES, BUY_NOW].map(b).join(' '));
  return lines.join('\n');
}

/** A sub page's text. */
export function subText(p: Product, sub: SubPage): string {
  const head = `${b(BACK_TO_SEARCH)} ${b(PREV_PAGE)}`;
  if (sub === 'description') return `${head}\n${p.description}`;
  if (sub === 'features') return [head, ...p.features.map((f) => `- ${f}`)].join('\n');
  return head;
}

/** The results page header: `Page p (Total results: n)`. */
export function resultsHeader(pageNo: number, total: number): string {
  return `Page ${pageNo} (Total results: ${total})`;
}

/** The done page's text for a reward in [0, 1]. */
export function doneText(reward: number): string {
  return `Thank you for shopping with us!\nYour score (min 0.0, max 1.0): ${reward.toFixed(2)}`;
}

/** The text of the current page. */
export function pageText(s: ShopState): string {
  switch (s.page) {
    case 'search':
      return SEARCH_PAGE_TEXT;
    case 'results': {
      const nav = s.pageNo > 1 ? `${b(PREV_PAGE)} ${b(NEXT_PAGE)}` : b(NEXT_PAGE);
      const lines = [b(BACK_TO_SEARCH), resultsHeader(s.pageNo, s.results.length), nav];
      return [...lines, ...pageProducts(s).map(resultLine)].join('\n');
    }
    case 'item':
      return itemText(openProduct(s), s.options);
    case 'sub':
      return subText(openProduct(s), s.sub ?? 'description');
    case 'done':
      return doneText(s.reward ?? 0);
  }
}
