/**
 * The shared BM25 index (src/core/envs/bm25.ts): scores computed by hand on a five-document corpus with Pyserini's
 * k1 = 0.9, b = 0.4 and MiniSearch's length (distinct tokens), the explicit tie-break (index ascending), stop words,
 * queries with no indexed term, `top`'s cut and its bad `k`.
 *
 * Corpus: d0 `red apple`, d1 `green apple pie`, d2 `red red car`, d3 `blue car`, d4 `apple red`. Lengths (distinct
 * tokens) 2, 3, 2, 2, 2, so avg|d| = 11/5 = 2.2; N = 5.
 * - `apple` and `red` are each in 3 documents: idf = ln(1 + (5 − 3 + 0.5)/(3 + 0.5)) = ln(12/7) = 0.5389965.
 * - tf part, tf 1, |d| 2: 1.9 / (1 + 0.9 (0.6 + 0.4·2/2.2)) = 1.9 / 1.8672727 = 1.0175268; tf 1, |d| 3:
 *   1.9 / (1 + 0.9 (0.6 + 0.4·3/2.2)) = 1.9 / 2.0309091 = 0.9355416; tf 2, |d| 2: 3.8 / 2.8672727 = 1.3253013.
 */
import { describe, expect, it } from 'vitest';
import { BM25, Bm25Index, STOP_WORDS } from '../../../src/core/envs/bm25';

const DOCS = ['red apple', 'green apple pie', 'red red car', 'blue car', 'apple red'];
const IDF = Math.log(12 / 7);

describe('Bm25Index', () => {
  const ix = new Bm25Index(DOCS);

  it("uses Pyserini's parameters and Lucene's stop words", () => {
    expect(BM25).toEqual({ k: 0.9, b: 0.4, d: 0 });
    expect(STOP_WORDS.size).toBe(33);
    expect(STOP_WORDS.has('the')).toBe(true);
    expect(ix.size).toBe(5);
  });

  it('scores one term by hand: idf × tf part', () => {
    const hits = ix.rank('apple');
    expect(hits.map((h) => h.index)).toEqual([0, 4, 1]);
    expect(hits[0].score).toBeCloseTo(IDF * 1.0175268, 6);
    expect(hits[0].score).toBeCloseTo(0.5484434, 6);
    expect(hits[2].score).toBeCloseTo(IDF * 0.9355416, 6);
  });

  it('sums over the query terms without MiniSearch’s matched-terms factor; tf 2 beats tf 1', () => {
    const hits = ix.rank('red apple');
    expect(hits.map((h) => h.index)).toEqual([0, 4, 2, 1]);
    expect(hits[0].score).toBeCloseTo(2 * IDF * 1.0175268, 6);
    expect(hits[2].score).toBeCloseTo(IDF * 1.3253013, 6);
  });

  it('breaks ties by document index, the same on every build', () => {
    const a = ix.rank('apple red');
    expect(a[0].score).toBe(a[1].score);
    expect(a.slice(0, 2).map((h) => h.index)).toEqual([0, 4]);
    const rebuilt = new Bm25Index(DOCS);
    expect(rebuilt.rank('apple red')).toEqual(a);
    // Reversed documents: the tie is still won by the lower index (now `apple red`).
    const reversed = new Bm25Index([...DOCS].reverse());
    expect(
      reversed
        .rank('apple red')
        .slice(0, 2)
        .map((h) => h.index),
    ).toEqual([0, 4]);
  });

  it('lower-cases, drops stop words and punctuation; a query with no indexed term finds nothing', () => {
    expect(ix.rank('The APPLE!')).toEqual(ix.rank('apple'));
    for (const q of ['', 'the and of', '!?.,;:', 'яблоко 苹果', 'zebra']) expect(ix.rank(q)).toEqual([]);
  });

  it('top(k) cuts the ranking and refuses a bad k', () => {
    expect(ix.top('red apple', 2).map((h) => h.index)).toEqual([0, 4]);
    expect(ix.top('red apple', 0)).toEqual([]);
    expect(() => ix.top('red', -1)).toThrow('Bm25Index.top: k must be an integer ≥ 0, got -1');
    expect(() => ix.top('red', 1.5)).toThrow('k must be an integer ≥ 0, got 1.5');
  });
});
