/**
 * The shop's search engine: BM25 over one text field per product, as WebShop (Yao et al. 2022) indexes its products
 * with Pyserini/Lucene (search_engine/convert_product_file_format.py: `contents` = title, description, first bullet and
 * the option text `name: v1, v2, and name: …`, lower-cased; engine/engine.py `get_top_n_product_from_keywords` keeps
 * the top `SEARCH_RETURN_N` = 50).
 *
 * Scoring is MiniSearch 7's BM25 with Pyserini's defaults k1 = 0.9, b = 0.4 and δ = 0 (plain BM25, not BM25+):
 * idf = ln(1 + (N − n + 0.5) / (n + 0.5)), tf part = tf (k1 + 1) / (tf + k1 (1 − b + b·len/avglen)), summed
 * over the query terms (an OR query). MiniSearch multiplies a document's score by the number of distinct query terms
 * it matched; Lucene does not, so that factor is divided out here (`queryTerms.length`). Terms: MiniSearch's tokenizer
 * (splits on Unicode spaces and punctuation), lower-cased, Lucene's English stop words removed; no stemming
 * (Pyserini's default analyzer also Porter-stems). Ranking: score descending, then catalogue index ascending, so equal
 * scores order the same way on every machine.
 */
import MiniSearch from 'minisearch';
import { catalog, type Product } from './catalog';

/** How many products a search returns (WebShop engine/engine.py `SEARCH_RETURN_N`). */
export const SEARCH_RETURN_N = 50;
/** BM25 parameters: Pyserini's defaults (k1 0.9, b 0.4), δ 0. */
export const BM25 = { k: 0.9, b: 0.4, d: 0 } as const;

/** Lucene's English stop words (`EnglishAnalyzer.ENGLISH_STOP_WORDS_SET`). */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a an and are as at be but by for if in into is it no not of on or such that the their then there these they ' +
    'this to was will with'
  ).split(' '),
);

/** The indexed text of a product (lower case): title, description, first feature, option text. */
export function indexedText(p: Product): string {
  const optionText = p.options.map((o) => `${o.name}: ${o.values.join(', ')}`).join(', and ');
  return [p.title, p.description, p.features[0] ?? '', optionText].join(' ').toLowerCase();
}

function processTerm(term: string): string | null {
  const t = term.toLowerCase();
  return t === '' || STOP_WORDS.has(t) ? null : t;
}

let engine: MiniSearch<{ id: number; contents: string }> | null = null;

function index(): MiniSearch<{ id: number; contents: string }> {
  if (engine) return engine;
  const ms = new MiniSearch<{ id: number; contents: string }>({
    fields: ['contents'],
    idField: 'id',
    processTerm,
    searchOptions: { bm25: BM25, combineWith: 'OR', prefix: false, fuzzy: false },
  });
  ms.addAll(catalog().map((p) => ({ id: p.index, contents: indexedText(p) })));
  engine = ms;
  return ms;
}

/** One ranked hit: catalogue index and BM25 score. */
export interface Hit {
  index: number;
  score: number;
}

/** All matching products for `keywords`, ranked (score desc, index asc). An empty or stop-word-only query: []. */
export function rankAll(keywords: string): Hit[] {
  const hits = index()
    .search(keywords)
    .map((r) => ({ index: r.id as number, score: r.score / Math.max(1, r.queryTerms.length) }));
  return hits.sort((x, y) => y.score - x.score || x.index - y.index);
}

/** The top `SEARCH_RETURN_N` products for `keywords`, as catalogue indices. */
export function search(keywords: string): number[] {
  return rankAll(keywords)
    .slice(0, SEARCH_RETURN_N)
    .map((h) => h.index);
}
