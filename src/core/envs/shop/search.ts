/**
 * The shop's search engine: BM25 (the index every env shares, ../bm25.ts) over one text field per product, as WebShop
 * (Yao et al. 2022) indexes its products with Pyserini/Lucene (search_engine/convert_product_file_format.py:
 * `contents` = title, description, first bullet and the option text `name: v1, v2, and name: …`, lower-cased;
 * engine/engine.py `get_top_n_product_from_keywords` keeps the top `SEARCH_RETURN_N` = 50).
 *
 * Scoring (../bm25.ts): MiniSearch 7's BM25 with Pyserini's defaults k1 = 0.9, b = 0.4 and δ = 0 (plain BM25,
 * not BM25+): idf = ln(1 + (N − n + 0.5) / (n + 0.5)), tf part = tf (k1 + 1) / (tf + k1 (1 − b + b·len/avglen)),
 * summed over the query terms (an OR query), without MiniSearch's matched-terms factor. Terms: MiniSearch's
 * tokenizer (splits on Unicode spaces and punctuation), lower-cased, Lucene's English stop words removed; no stemming
 * (Pyserini's default analyzer also Porter-stems). Ranking: score descending, then catalogue index ascending (the
 * shared index's document index is the catalogue index), so equal scores order the same way on every machine.
 */
import { Bm25Index } from '../bm25';
import { catalog, type Product } from './catalog';

export { BM25, STOP_WORDS } from '../bm25';

/** How many products a search returns (WebShop engine/engine.py `SEARCH_RETURN_N`). */
export const SEARCH_RETURN_N = 50;

/** The indexed text of a product (lower case): title, description, first feature, option text. */
export function indexedText(p: Product): string {
  const optionText = p.options.map((o) => `${o.name}: ${o.values.join(', ')}`).join(', and ');
  return [p.title, p.description, p.features[0] ?? '', optionText].join(' ').toLowerCase();
}

let engine: Bm25Index | null = null;

/** The catalogue's index, built on first use (document i = catalogue product i). */
function index(): Bm25Index {
  engine ??= new Bm25Index(catalog().map(indexedText));
  return engine;
}

/** One ranked hit: catalogue index and BM25 score. */
export interface Hit {
  index: number;
  score: number;
}

/** All matching products for `keywords`, ranked (score desc, index asc). An empty or stop-word-only query: []. */
export function rankAll(keywords: string): Hit[] {
  return index().rank(keywords);
}

/** The top `SEARCH_RETURN_N` products for `keywords`, as catalogue indices. */
export function search(keywords: string): number[] {
  return index()
    .top(keywords, SEARCH_RETURN_N)
    .map((h) => h.index);
}
