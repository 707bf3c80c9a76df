/**
 * The searchqa corpus and its retriever. One passage per entity of the fact graph (world.ts), `Title` + one sentence
 * that states the entity's facts, in the spirit of Search-R1's wiki-18 passages (Jin et al. 2025: `contents` =
 * `"Title"\ntext`, 100-word chunks; ours are one sentence so a tiny policy's context holds three):
 *
 * - country: `Arvenia is a country whose capital is Kestrel Hollow.`
 * - town: `Kestrel Hollow is a town in Arvenia, founded in 1712.`
 * - person: `Orla Brenn was a novelist born in Kestrel Hollow in 1843.`
 * - organisation: `The Azure Guild was founded by Orla Brenn in 1871 and is based in Kestrel Hollow.`
 * - work: `The Silent Harbour is a novel by Orla Brenn, published in 1881.`
 * - event: `The Harvest Fair was held in Kestrel Hollow in 1890 and organised by the Azure Guild.`
 *
 * Retrieval is BM25 (../bm25.ts, the index every env shares: Pyserini's k1 0.9, b 0.4, Lucene's stop words, ties by
 * passage index) over `title + "\n" + text`, as Search-R1's BM25 retriever indexes wiki-18's `contents`. The corpus
 * (2 670 passages) and its index are built on first use and memoised: 0.1–0.2 s together, cold, measured on two busy
 * cores (test/core/envs/searchqa/corpus.test.ts holds it under 1 s).
 */
import { Bm25Index } from '../bm25';
import { world, type Entity, type World } from './world';

/** One passage: its entity's name as title and one sentence. */
export interface Passage {
  /** Index in `corpus()` (= the entity's id). */
  readonly index: number;
  readonly title: string;
  readonly text: string;
}

/** `a word` or `an word` (before a vowel letter: `an engineer`, `an opera`). */
export function withArticle(word: string): string {
  return `${/^[aeiou]/i.test(word) ? 'an' : 'a'} ${word}`;
}

/** The sentence of an entity's passage (see the module comment). */
export function passageText(w: World, e: Entity): string {
  const name = (id: number) => w.entities[id].name;
  switch (e.kind) {
    case 'country':
      return `${e.name} is a country whose capital is ${name(e.capital)}.`;
    case 'town':
      return `${e.name} is a town in ${name(e.country)}, founded in ${e.year}.`;
    case 'person':
      return `${e.name} was ${withArticle(e.occupation)} born in ${name(e.birthplace)} in ${e.year}.`;
    case 'org':
      return `The ${e.name} was founded by ${name(e.founder)} in ${e.year} and is based in ${name(e.base)}.`;
    case 'work':
      return `${e.name} is ${withArticle(e.workKind.kind)} by ${name(e.maker)}, ${e.workKind.verb} in ${e.year}.`;
    case 'event':
      return `The ${e.name} was held in ${name(e.host)} in ${e.year} and organised by the ${name(e.organiser)}.`;
  }
}

let passages: Passage[] | null = null;
let index: Bm25Index | null = null;

/** Every passage, by index (memoised). */
export function corpus(): readonly Passage[] {
  if (passages) return passages;
  const w = world();
  passages = w.entities.map((e) => ({ index: e.id, title: e.name, text: passageText(w, e) }));
  return passages;
}

/** The indexed text of a passage: `title\ntext` (Search-R1's wiki-18 `contents`). */
export function indexedText(p: Passage): string {
  return `${p.title}\n${p.text}`;
}

/** The corpus' BM25 index (memoised; document i = passage i). */
function bm25(): Bm25Index {
  index ??= new Bm25Index(corpus().map(indexedText));
  return index;
}

/** One retrieved passage and its BM25 score (unitless, > 0). */
export interface Retrieved {
  readonly passage: Passage;
  readonly score: number;
}

/**
 * The top `k` passages for `query`, best first (BM25 score descending, then passage index ascending). Fewer when
 * fewer passages share a term with the query; none for a query without an indexed term (empty, punctuation, stop
 * words, words or scripts the corpus lacks). @throws Error when k is not an integer ≥ 0.
 */
export function retrieve(query: string, k: number): Retrieved[] {
  const ps = corpus();
  return bm25()
    .top(query, k)
    .map((h) => ({ passage: ps[h.index], score: h.score }));
}
