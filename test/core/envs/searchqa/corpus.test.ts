/**
 * The searchqa fact graph and corpus (src/core/envs/searchqa/world.ts, corpus.ts): size and make-up, bit-for-bit
 * determinism (a sha256 pinned for searchqa-v2, the same as v1's: v2 changed only the action rule), generation
 * time, the two worlds (no relation crosses them), one passage per entity in its template, and BM25 retrieval — a
 * passage's title as the query ranks that passage first, for every passage; equal scores come in passage order, the
 * same on every build.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Bm25Index } from '../../../../src/core/envs/bm25';
import { corpus, indexedText, passageText, retrieve } from '../../../../src/core/envs/searchqa/corpus';
import { searchqaRetrieve } from '../../../../src/core/envs/searchqa';
import { SEARCHQA_VERSION, generateWorld, namedIds, world } from '../../../../src/core/envs/searchqa/world';

/** sha256 of JSON.stringify(corpus()) for searchqa-v2 (unchanged since searchqa-v1). */
const CORPUS_SHA256 = 'a9da11dfcde26fefad2c3c24264eddeb1f79ac2f2343030193b8c58baf1a9ea7';

describe('searchqa corpus', () => {
  it('has 2 670 passages: 30 countries, 300 towns, 1 200 people, 300 organisations, 600 works, 240 events', () => {
    const w = world();
    expect(corpus().length).toBe(2670);
    expect(Object.fromEntries(Object.entries(w.byKind).map(([k, ids]) => [k, ids.length]))).toEqual({
      country: 30,
      town: 300,
      person: 1200,
      org: 300,
      work: 600,
      event: 240,
    });
    expect(new Set(corpus().map((p) => p.title)).size).toBe(2670);
    corpus().forEach((p, i) => expect(p.index).toBe(i));
  });

  it('is the same bit for bit on every build (pinned for its version)', () => {
    expect(SEARCHQA_VERSION).toBe('searchqa-v2');
    expect(createHash('sha256').update(JSON.stringify(corpus())).digest('hex')).toBe(CORPUS_SHA256);
    const again = generateWorld();
    expect(again.entities.map((e) => passageText(again, e))).toEqual(corpus().map((p) => p.text));
  });

  it('builds the graph, the passages and the index in well under a second', () => {
    const t0 = performance.now();
    const w = generateWorld();
    const texts = w.entities.map((e) => `${e.name}\n${passageText(w, e)}`);
    new Bm25Index(texts);
    const ms = performance.now() - t0;
    expect(ms).toBeLessThan(1000);
  });

  it('writes one sentence per entity in its template (title + sentence)', () => {
    const c = corpus();
    expect(c[0]).toEqual({ index: 0, title: 'Arvenia', text: 'Arvenia is a country whose capital is Rowan Vale.' });
    expect(c[30].text).toBe('Juniper Reach is a town in Arvenia, founded in 1785.');
    expect(c[330].text).toBe('Bram Bellamy was a composer born in Wolf Harbour in 1886.');
    expect(c[1530].text).toBe('The Western Company was founded by Evander Ulver in 1864 and is based in Willow Gate.');
    expect(c[1830].text).toBe('The Golden Mirror is a novel by Bram Harcourt, published in 1929.');
    expect(c[2430].text).toBe('The Crystal Fair was held in Oak Crossing in 1949 and organised by the Royal Press.');
    expect(c.some((p) => / an (engineer|explorer|architect|astronomer|opera|album) /.test(p.text))).toBe(true);
    expect(c.some((p) => / a (engineer|explorer|architect|astronomer|opera|album) /.test(p.text))).toBe(false);
    expect(indexedText(c[0])).toBe('Arvenia\nArvenia is a country whose capital is Rowan Vale.');
  });

  it('keeps every relation inside one world; a fifth of the countries and what is tied to them are unseen', () => {
    const w = world();
    for (const e of w.entities) for (const id of namedIds(e)) expect(w.entities[id].unseen).toBe(e.unseen);
    expect(w.byKind.country.filter((id) => w.entities[id].unseen)).toEqual([4, 9, 14, 19, 24, 29]);
    const unseen = w.entities.filter((e) => e.unseen).length;
    expect(unseen).toBe(6 + 60 + 242 + 56 + 122 + 61);
  });

  it('names founders and makers with Zipf weights: a few people in dozens of passages, most in none', () => {
    const w = world();
    const m = w.byKind.person.map((id) => w.mentions[id]).sort((a, b) => b - a);
    expect(m[0]).toBe(73);
    expect(m.filter((x) => x === 0).length).toBe(774);
    expect(m.reduce((a, b) => a + b, 0)).toBe(900);
  });
});

describe('searchqa retrieval (BM25, ties by passage index)', () => {
  it('ranks a passage first when the query is its title, for every passage', () => {
    const missed = corpus().filter((p) => retrieve(p.title, 1)[0]?.passage.index !== p.index);
    expect(missed.map((p) => p.title)).toEqual([]);
  });

  it('orders equal scores by passage index, the same every run', () => {
    const hits = retrieve('Arvenia', 11);
    expect(hits.map((h) => h.passage.index)).toEqual([0, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39]);
    expect(new Set(hits.slice(1).map((h) => h.score)).size).toBe(1);
    expect(hits[0].score).toBeGreaterThan(hits[1].score);
    expect(retrieve('Arvenia', 11)).toEqual(hits);
  });

  it('searchqaRetrieve returns title, text and score, best first, and refuses a bad topk', () => {
    const r = searchqaRetrieve('Azure Bank', 3);
    expect(r.map((x) => x.title)).toEqual(['Azure Bank', 'Azure League', 'Azure Club']);
    expect(r[0].text).toBe('The Azure Bank was founded by Mira Yarrow in 1851 and is based in Bramble Ford.');
    expect(r[0].score).toBeGreaterThan(r[1].score);
    expect(searchqaRetrieve('!!!', 3)).toEqual([]);
    expect(searchqaRetrieve('Azure Bank', 0)).toEqual([]);
    // Every passage with the word `Azure` (the Azure organisations and the passages naming them), and no other.
    const withAzure = corpus().filter((p) => /\bAzure\b/.test(indexedText(p)));
    expect(withAzure.length).toBe(16);
    expect(
      searchqaRetrieve('Azure', 100)
        .map((x) => x.title)
        .sort(),
    ).toEqual(withAzure.map((p) => p.title).sort());
    expect(() => searchqaRetrieve('x', -1)).toThrow('searchqaRetrieve: topk must be an integer ≥ 0 (e.g. 3), got -1');
    expect(() => searchqaRetrieve('x', 2.5)).toThrow('got 2.5');
  });
});
