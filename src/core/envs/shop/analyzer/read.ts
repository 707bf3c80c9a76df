/**
 * What the shop's embedded analyzer reads off a trajectory's text: a page as the policy saw it (pages.ts writes them;
 * WebShop's text pages, Yao et al. 2022) and the instruction (tasks.ts writes it in the form of WebShop's synthetic
 * goals). Only public text is read — the page, the task line, the env's fixed templates — never the hidden state.
 */
import { normalizeAction } from '../../types';
import { NOTHING_HAPPENS, parseAction } from '../env';
import { BACK_TO_SEARCH, BUY_NOW, PREV_PAGE, SEARCH_PAGE_TEXT } from '../pages';
import { INSTRUCTION_TEMPLATES } from '../lexicon';

/** Which page a text is (pages.ts `PageKind`). */
export type SeenKind = 'search' | 'results' | 'item' | 'sub' | 'done';

/** One product line of a results page: `[id] title | price`. */
export interface SeenProduct {
  /** Its id, lower case, e.g. `b07k42` (the value `click[…]` takes). */
  id: string;
  title: string;
  /** The lowest price its tag shows, dollars (`$12.99 to $20.50` → 12.99). */
  price: number;
}

/** A page as its text shows it. */
export interface SeenPage {
  kind: SeenKind;
  /** The page text as recorded. */
  text: string;
  /** The values `click[…]` takes here, in page order (none on the search and done pages). */
  clickables: string[];
  /** Results page: its number (1-based); other pages 0. */
  pageNo: number;
  /** Results page: its product lines, in page order; other pages empty. */
  products: SeenProduct[];
  /** Item page: its option groups (`name: [v1] [v2]`), in page order; other pages empty. */
  groups: { name: string; values: string[] }[];
  /** Item page: the values chosen so far (`You have clicked v.` lines), in page order; other pages empty. */
  chosen: string[];
  /** Item page: the product's title; other pages ''. */
  title: string;
  /** Item page: the lowest price of its tag, dollars; other pages null. */
  price: number | null;
}

const RESULTS_HEADER = /^Page (\d+) \(Total results: (\d+)\)$/;
const PRODUCT_LINE = /^\[([^\]]+)\] (.*) \| \$(\d+(?:\.\d+)?)/;
const GROUP_LINE = /^([a-z][a-z ]*): ((?:\[[^\]]+\] ?)+)$/;
const CLICKED = /^You have clicked (.+)\.$/;

/** The bracketed values of a line, in order: `[a] [b c]` → [`a`, `b c`]. */
function bracketed(line: string): string[] {
  return [...line.matchAll(/\[([^\]]+)\]/g)].map((m) => m[1]);
}

function blank(kind: SeenKind, text: string): SeenPage {
  return { kind, text, clickables: [], pageNo: 0, products: [], groups: [], chosen: [], title: '', price: null };
}

function resultsPage(text: string, lines: string[], pageNo: number): SeenPage {
  const p = blank('results', text);
  p.pageNo = pageNo;
  for (const line of lines.slice(3)) {
    const m = PRODUCT_LINE.exec(line);
    if (m) p.products.push({ id: m[1], title: m[2], price: Number(m[3]) });
  }
  p.clickables = [BACK_TO_SEARCH, ...bracketed(lines[2] ?? ''), ...p.products.map((x) => x.id)];
  return p;
}

function itemPage(text: string, lines: string[]): SeenPage {
  const p = blank('item', text);
  let k = 0;
  for (; k < lines.length && CLICKED.test(lines[k]); k++) p.chosen.push((CLICKED.exec(lines[k]) as RegExpExecArray)[1]);
  p.clickables.push(...bracketed(lines[k++] ?? ''));
  for (; k < lines.length && GROUP_LINE.test(lines[k]); k++) {
    const m = GROUP_LINE.exec(lines[k]) as RegExpExecArray;
    p.groups.push({ name: m[1], values: bracketed(m[2]) });
    p.clickables.push(...bracketed(m[2]));
  }
  p.title = lines[k] ?? '';
  const price = /^Price: \$(\d+(?:\.\d+)?)/.exec(lines[k + 1] ?? '');
  p.price = price ? Number(price[1]) : null;
  p.clickables.push(...bracketed(lines[lines.length - 1]));
  return p;
}

/**
 * The page a text shows, or null when it shows none (`Nothing happens.`: the page is unchanged, or a text no shop
 * page has). Kinds: the search page (SEARCH_PAGE_TEXT), a results page (`[back to search]` then `Page p (Total
 * results: n)`), an item page (ends with `[buy now]`), a sub page (`[back to search] [< prev]` and its text), the done
 * page (`Thank you for shopping with us!`).
 */
export function readPage(text: string): SeenPage | null {
  if (text === NOTHING_HAPPENS) return null;
  if (text === SEARCH_PAGE_TEXT) return blank('search', text);
  if (text.startsWith('Thank you for shopping with us!')) return blank('done', text);
  const lines = text.split('\n');
  const header = RESULTS_HEADER.exec(lines[1] ?? '');
  if (lines[0] === `[${BACK_TO_SEARCH}]` && header) return resultsPage(text, lines, Number(header[1]));
  if (lines[lines.length - 1].endsWith(`[${BUY_NOW}]`)) return itemPage(text, lines);
  if (lines[0] === `[${BACK_TO_SEARCH}] [${PREV_PAGE}]`) {
    const p = blank('sub', text);
    p.clickables = [BACK_TO_SEARCH, PREV_PAGE];
    return p;
  }
  return null;
}

/**
 * Whether the env accepts `action` on `page` (env.ts's rule): `search[…]` with non-empty keywords on the search page,
 * `click[v]` for a value the page shows (never `click[search]`). Judged on the normalised action and WebShop's
 * `parse_action`. An unknown page (null) accepts nothing.
 */
export function validOn(page: SeenPage | null, action: string): boolean {
  if (!page) return false;
  const [name, arg] = parseAction(normalizeAction(action));
  if (arg === null) return false;
  if (name === 'search') return page.kind === 'search';
  return name === 'click' && arg !== 'search' && page.clickables.includes(arg);
}

/** An action in its canonical form: normalised, and `name[arg]` without anything after the closing bracket. */
export function canonicalAction(action: string): string {
  const a = normalizeAction(action);
  const [name, arg] = parseAction(a);
  return arg === null ? a : `${name}[${arg}]`;
}

/** The value inside `click[…]`, or null for any other action. */
export function clickValue(action: string): string | null {
  const [name, arg] = parseAction(action);
  return name === 'click' ? arg : null;
}

/** The keywords inside `search[…]`, or null for any other action. */
export function searchKeywords(action: string): string | null {
  const [name, arg] = parseAction(action);
  return name === 'search' ? arg : null;
}

/** What an instruction asks for (tasks.ts: `<product instruction> with <name>: <value>, and …<price text>`). */
export interface AskedGoal {
  /** The product instruction without options and price, e.g. `i need shampoo that is sulfate free`. */
  head: string;
  /** The key words of the product instruction: its attributes and product type without the template's words. */
  keyWords: string[];
  /** The options asked for, `[name, value]`, in the instruction's order. */
  options: [string, string][];
  /** The price limit in dollars (`price lower than X dollars`), or null when the instruction names none. */
  priceUpper: number | null;
}

const PRICE_TEXT = /, and price lower than (\d+(?:\.\d+)?) dollars$/;
const OPTION_TEXT = / with ([a-z][a-z ]*: .+)$/;

/** The words a template's `{attrs}` and `{type}` filled in `head`, attributes first; null when no template fits. */
function templateWords(head: string): string[] | null {
  for (const t of INSTRUCTION_TEMPLATES) {
    const order = [...t.matchAll(/\{(attrs|type)\}/g)].map((m) => m[1]);
    const pattern = t.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(attrs|type)\}/g, '(.+)');
    const m = new RegExp(`^${pattern}$`).exec(head);
    if (!m) continue;
    const parts = order.map((name, i) => ({ name, text: m[i + 1] }));
    parts.sort((a, b) => (a.name === b.name ? 0 : a.name === 'attrs' ? -1 : 1));
    return parts.flatMap((p) => words(p.text));
  }
  return null;
}

/** The words of a text: lower case, split on anything but letters, digits, `.` and `-`, without `and`. */
export function words(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^a-z0-9.-]+/)
    .filter((w) => w !== '' && w !== 'and');
}

/** Read an instruction (the task line). Text in no known form reads as a head with no option and no price. */
export function readGoal(task: string): AskedGoal {
  let rest = task.trim().toLowerCase();
  const price = PRICE_TEXT.exec(rest);
  if (price) rest = rest.slice(0, price.index);
  const options: [string, string][] = [];
  const opt = OPTION_TEXT.exec(rest);
  if (opt) {
    for (const part of opt[1].split(', and ')) {
      const k = part.indexOf(': ');
      if (k > 0) options.push([part.slice(0, k), part.slice(k + 2)]);
    }
    rest = rest.slice(0, opt.index);
  }
  return {
    head: rest,
    keyWords: templateWords(rest) ?? words(rest),
    options,
    priceUpper: price ? Number(price[1]) : null,
  };
}

/**
 * The search keywords an instruction suggests: its key words, then the asked option values (the words WebShop's
 * agents search with; the expert's first query, expert.ts `keyWords`, is the same words). Never empty for a
 * non-empty task line; no brackets.
 */
export function goalQuery(goal: AskedGoal): string {
  const q = [...goal.keyWords, ...goal.options.map(([, v]) => v)].join(' ').replace(/[[\]]/g, ' ');
  return q.replace(/\s+/g, ' ').trim() || 'product';
}
