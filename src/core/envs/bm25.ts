/**
 * BM25 ranking over a fixed list of texts, the one search engine of every environment that searches (an env builds
 * one `Bm25Index` over its documents and memoises it). A leaf: it imports only MiniSearch, so env folders share it
 * without importing each other.
 *
 * Scoring is MiniSearch 7's BM25 with Pyserini's defaults k1 = 0.9, b = 0.4 and δ = 0 (plain BM25, not BM25+), as
 * Pyserini/Lucene score WebShop's products and Search-R1's BM25 retriever scores wiki-18 passages:
 *
 *   score(q, d) = Σ_{t ∈ q} idf(t) · tf(t, d) (k1 + 1) / (tf(t, d) + k1 (1 − b + b·|d| / avg|d|)),
 *   idf(t) = ln(1 + (N − n_t + 0.5) / (n_t + 0.5))
 *
 * summed over the query's distinct terms (an OR query), N documents, n_t of them holding t. MiniSearch multiplies a
 * document's score by the number of distinct query terms it matched; Lucene does not, so that factor is divided out
 * here (`queryTerms.length`). Terms: MiniSearch's tokenizer (splits on Unicode spaces and punctuation), lower-cased,
 * Lucene's English stop words removed; no stemming (Pyserini's default analyzer also Porter-stems). The length |d| is
 * MiniSearch's: the number of distinct tokens of the text, stop words included (Lucene counts every token but the
 * stop words), averaged over the documents for avg|d|.
 *
 * Ranking: score descending, then document index ascending — the explicit tie-break, so documents with equal scores
 * (e.g. two passages that differ only in words the query lacks) come in the same order on every machine and run.
 */
import MiniSearch from 'minisearch';

/** BM25 parameters: Pyserini's defaults (k1 0.9, b 0.4), δ 0 (MiniSearch's names: k, b, d). */
export const BM25 = { k: 0.9, b: 0.4, d: 0 } as const;

/** Lucene's English stop words (`EnglishAnalyzer.ENGLISH_STOP_WORDS_SET`), never indexed nor searched. */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a an and are as at be but by for if in into is it no not of on or such that the their then there these they ' +
    'this to was will with'
  ).split(' '),
);

/** One ranked document: its index in the indexed list and its BM25 score (unitless, > 0). */
export interface Bm25Hit {
  index: number;
  score: number;
}

/** A term as indexed and searched: lower case; null (dropped) when empty or a stop word. */
function processTerm(term: string): string | null {
  const t = term.toLowerCase();
  return t === '' || STOP_WORDS.has(t) ? null : t;
}

/** A BM25 index over `texts` (document i = texts[i]); immutable once built. */
export class Bm25Index {
  private readonly engine: MiniSearch<{ id: number; contents: string }>;
  /** Number of indexed documents. */
  readonly size: number;

  /** Index every text (one field, `contents`). Cost: linear in the total text length. */
  constructor(texts: readonly string[]) {
    this.engine = new MiniSearch<{ id: number; contents: string }>({
      fields: ['contents'],
      idField: 'id',
      processTerm,
      searchOptions: { bm25: BM25, combineWith: 'OR', prefix: false, fuzzy: false },
    });
    this.engine.addAll(texts.map((contents, id) => ({ id, contents })));
    this.size = texts.length;
  }

  /**
   * Every document that shares a term with `query`, ranked: score descending, then index ascending. A query with no
   * indexed term (empty, punctuation only, stop words only, words no document has, a script the documents lack)
   * gives [].
   */
  rank(query: string): Bm25Hit[] {
    const hits = this.engine
      .search(String(query))
      .map((r) => ({ index: r.id as number, score: r.score / Math.max(1, r.queryTerms.length) }));
    return hits.sort((x, y) => y.score - x.score || x.index - y.index);
  }

  /** The first `k` documents of `rank(query)`. @throws Error when k is not a non-negative integer. */
  top(query: string, k: number): Bm25Hit[] {
    if (!Number.isInteger(k) || k < 0) throw new Error(`Bm25Index.top: k must be an integer ≥ 0, got ${k}`);
    return this.rank(query).slice(0, k);
  }
}
