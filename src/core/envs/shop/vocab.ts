/**
 * The shop vocabulary corpus: text covering every word, number and punctuation pattern the env can emit (pages,
 * instructions, actions), for the word-level tokenizer (src/core/tokenizer/tokenizer.ts, which tells `word` from
 * ` word`). Deterministic: built from the catalogue and fixed templates only, in catalogue order. Every catalogue word
 * also appears as `search[w w]`, so a search the policy types from catalogue words is covered with and without a
 * leading space.
 */
import { NOTHING_HAPPENS, SEARCH_PREFIX } from './env';
import { catalog, type Product } from './catalog';
import {
  BACK_TO_SEARCH,
  BUY_NOW,
  NEXT_PAGE,
  PREV_PAGE,
  SEARCH_PAGE_TEXT,
  SUB_PAGES,
  doneText,
  itemText,
  resultLine,
  resultsHeader,
  subText,
} from './pages';
import { SEARCH_RETURN_N } from './search';
import { SHOP_MAX_STEPS, optionText } from './tasks';

function productLines(p: Product): string[] {
  const out = [resultLine(p), itemText(p, new Map()), `click[${p.asin}]`, `${p.instruction}${p.priceText}`];
  for (const sub of SUB_PAGES) out.push(subText(p, sub));
  for (const g of p.options) {
    for (const v of g.values) {
      out.push(`You have clicked ${v}.`, `click[${v}]`, optionText({ [g.name]: v }));
    }
  }
  return out;
}

/** Build the corpus (a fresh array each call; same content every time). */
export function shopCorpus(): string[] {
  const out = [SEARCH_PAGE_TEXT, NOTHING_HAPPENS, SEARCH_PREFIX, 'Rating: N.A.'];
  for (const v of [BACK_TO_SEARCH, NEXT_PAGE, PREV_PAGE, BUY_NOW, ...SUB_PAGES]) out.push(`click[${v}]`, `[${v}]`);
  // Results pages: a page number can reach maxSteps + 1 (one `next >` per step), totals 0..SEARCH_RETURN_N.
  for (let page = 1; page <= SHOP_MAX_STEPS + 1; page++) {
    for (let n = 0; n <= SEARCH_RETURN_N; n++) out.push(resultsHeader(page, n));
  }
  for (let r = 0; r <= 100; r++) out.push(doneText(r / 100));
  const words = new Set<string>();
  for (const p of catalog()) {
    for (const line of productLines(p)) {
      out.push(line);
      for (const w of line.toLowerCase().split(/[^a-z0-9]+/)) if (w !== '') words.add(w);
    }
  }
  for (const w of [...words].sort()) out.push(`search[${w} ${w}]`);
  return out;
}
