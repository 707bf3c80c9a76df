/**
 * A searchqa question read back from its text, and solved from the passages a group's searches showed: which
 * passages the answer needs (the hops, in reading order), the name each hop is found by, and the answer once every
 * hop's passage has been seen. The question shapes are questions.ts's templates (Search-R1's seven benchmarks, Jin et
 * al. 2025): a chain of relations from a named subject (NQ, PopQA, HotpotQA, MuSiQue, Bamboogle), a comparison of two
 * named entities by year (2WikiMultiHopQA), or a clue that describes the answer by its facts (TriviaQA). Only the task
 * line and the passages' text are read, never the hidden state.
 */
import { WORK_KINDS, OCCUPATIONS } from '../lexicon';
import { nameKey, type Facts, type Field, type PassageKind } from './read';

/** A question as its text shows it. */
export type ReadQuestion =
  /** Follow `path` from the entity `name` (as the question writes it); the last field's value is the answer. */
  | { form: 'chain'; name: string; path: readonly Field[] }
  /** Two named entities (as the question writes them); the answer is the one with the earlier year. */
  | { form: 'compare'; names: readonly [string, string] }
  /**
   * The answer is the title of the one passage of `kind` whose fields equal `facts` (names compared by `nameKey`);
   * `words` are the clue's facts as search words (questions.ts `clue`, the expert's first query).
   */
  | { form: 'clue'; kind: PassageKind; facts: Partial<Record<Field, string>>; words: string };

const MAKERS = WORK_KINDS.map((k) => k.maker).join('|');
const MADE = [...new Set(WORK_KINDS.map((k) => k.made))].join('|');
const VERBS = [...new Set(WORK_KINDS.map((k) => k.verb))].join('|');
const KINDS = WORK_KINDS.map((k) => k.kind).join('|');
const JOBS = OCCUPATIONS.join('|');

/** A template: its text as a pattern (`N` a name, `MAKER` a maker word …) and what its groups give. */
interface Shape {
  re: RegExp;
  read: (m: RegExpExecArray) => ReadQuestion;
}

const chain = (re: RegExp, path: Field[], at = 1): Shape => ({
  re,
  read: (m) => ({ form: 'chain', name: m[at], path }),
});
const compare = (re: RegExp): Shape => ({ re, read: (m) => ({ form: 'compare', names: [m[1], m[2]] }) });

/**
 * questions.ts's templates, the more specific first (`the founder of the organisation that organised the …` before
 * `the founder of the …`).
 */
const SHAPES: readonly Shape[] = [
  chain(/^Where was the founder of the organisation that organised the (.+) born\?$/, [
    'organiser',
    'founder',
    'birthplace',
  ]),
  chain(/^Who founded the organisation that organised the (.+)\?$/, ['organiser', 'founder']),
  chain(/^Where is the organisation that organised the (.+) based\?$/, ['organiser', 'base']),
  chain(/^What is the capital of the country where the (.+) was held\?$/, ['host', 'country', 'capital']),
  chain(/^What is the capital of the country that (.+) is in\?$/, ['country', 'capital']),
  chain(
    new RegExp(`^When was the town where the (${MAKERS}) of (.+) was born founded\\?$`),
    ['maker', 'birthplace', 'year'],
    2,
  ),
  chain(/^When was the town where (.+) was born founded\?$/, ['birthplace', 'year']),
  chain(/^In which country is the town where the (.+) is based\?$/, ['base', 'country']),
  chain(new RegExp(`^In which country was the (${MAKERS}) of (.+) born\\?$`), ['maker', 'birthplace', 'country'], 2),
  chain(/^In which country was the founder of the (.+) born\?$/, ['founder', 'birthplace', 'country']),
  chain(/^In which country was the (.+) held\?$/, ['host', 'country']),
  chain(new RegExp(`^In which town was the (${MAKERS}) of (.+) born\\?$`), ['maker', 'birthplace'], 2),
  chain(/^Where was the founder of the (.+) born\?$/, ['founder', 'birthplace']),
  chain(/^In what year was the founder of the (.+) born\?$/, ['founder', 'year']),
  chain(/^What did the founder of the (.+) do for a living\?$/, ['founder', 'occupation']),
  chain(/^What is (.+)'s occupation\?$/, ['occupation']),
  chain(/^In what city was (.+) born\?$/, ['birthplace']),
  chain(/^In what country is (.+)\?$/, ['country']),
  compare(/^Who was born first, (.+) or (.+)\?$/),
  compare(/^Which was founded first, the (.+) or the (.+)\?$/),
  compare(/^Which came out first, (.+) or (.+)\?$/),
  compare(/^Which town was founded first, (.+) or (.+)\?$/),
  {
    re: new RegExp(`^Which (${KINDS}) by (.+) was (?:${VERBS}) in (\\d+)\\?$`),
    read: (m) => ({
      form: 'clue',
      kind: 'work',
      facts: { workKind: m[1], maker: m[2], year: m[3] },
      words: `${m[2]} ${m[1]} ${m[3]}`,
    }),
  },
  {
    re: /^Which organisation did (.+) found in (\d+)\?$/,
    read: (m) => ({
      form: 'clue',
      kind: 'org',
      facts: { founder: m[1], year: m[2] },
      words: `${m[1]} founded ${m[2]}`,
    }),
  },
  {
    re: new RegExp(`^Which (${JOBS}) was born in (.+) in (\\d+)\\?$`),
    read: (m) => ({
      form: 'clue',
      kind: 'person',
      facts: { occupation: m[1], birthplace: m[2], year: m[3] },
      words: `${m[1]} ${m[2]} ${m[3]}`,
    }),
  },
  {
    re: /^Which town in (.+) was founded in (\d+)\?$/,
    read: (m) => ({ form: 'clue', kind: 'town', facts: { country: m[1], year: m[2] }, words: `${m[1]} town ${m[2]}` }),
  },
  {
    re: /^Which event did the (.+) organise in (\d+)\?$/,
    read: (m) => ({ form: 'clue', kind: 'event', facts: { organiser: m[1], year: m[2] }, words: `${m[1]} ${m[2]}` }),
  },
  chain(/^who founded the (.+)$/, ['founder']),
  chain(/^where is the (.+) based$/, ['base']),
  chain(/^when was the (.+) founded$/, ['year']),
  chain(new RegExp(`^who (?:${MADE}) (.+)$`), ['maker']),
  chain(new RegExp(`^when was (.+) (?:${VERBS})$`), ['year']),
  chain(/^where was the (.+) held$/, ['host']),
  chain(/^who organised the (.+)$/, ['organiser']),
  chain(/^what year was the (.+) held$/, ['year']),
];

/** Read a task line; null when it has none of questions.ts's shapes. */
export function readQuestion(task: string): ReadQuestion | null {
  const text = String(task).trim();
  for (const s of SHAPES) {
    const m = s.re.exec(text);
    if (m) return s.read(m);
  }
  return null;
}

/** One hop of a solved question. */
export interface Hop {
  /**
   * What finds the hop's passage, as its source writes it: the name in the question (hop 0 of a chain, both hops of
   * a comparison), the name the previous hop's passage gives, or the clue's words.
   */
  name: string;
  /** The title of the hop's passage when a search of the group showed it; null while none did. */
  title: string | null;
  /** True when the question itself gives `name` (the first hop of a chain or a clue, a comparison's two). */
  fromQuestion: boolean;
  /** True for a clue's hop (`name` is the clue's words, not a title). */
  clue: boolean;
}

/** A question solved as far as the passages allow. */
export interface Solution {
  /**
   * The hops in reading order: the found ones, then (a chain) the first one no passage showed — its name is known,
   * the ones after it are not — or (a comparison) both.
   */
  hops: Hop[];
  /** The answer as its passage writes it (a name, a year, an occupation), or null until every hop was seen. */
  answer: string | null;
  /**
   * What a chain's answer is, for a warning sign: `a town`, `a year`, `an occupation` … (its last field's kind; `the
   * answer` for a field no multi-hop template ends with); null for a comparison or a clue.
   */
  answerKind: string | null;
}

/** What a field's value is, in the env's own words (every word is in its vocabulary). */
const FIELD_KIND: Readonly<Partial<Record<Field, string>>> = {
  capital: 'a town',
  birthplace: 'a town',
  base: 'a town',
  host: 'a town',
  country: 'a country',
  year: 'a year',
  occupation: 'an occupation',
  founder: 'a founder',
  organiser: 'an organisation',
};

/**
 * Solve `q` from `seen` (passages' facts by `nameKey` of their titles): the hops found and the first missing one, and
 * the answer when every hop was found (a chain: the last field's value; a comparison: the title with the earlier
 * year; a clue: the title of the one passage with its facts). A passage without the field a hop needs (another kind
 * of the same name) counts as not found.
 */
export function solveQuestion(q: ReadQuestion, seen: ReadonlyMap<string, Facts>): Solution {
  if (q.form === 'clue') {
    const same = (f: Facts) =>
      f.kind === q.kind &&
      Object.entries(q.facts).every(([k, v]) => nameKey(f.fields[k as Field] ?? '') === nameKey(v));
    const hit = [...seen.values()].find(same);
    const hop: Hop = { name: q.words, title: hit?.title ?? null, fromQuestion: true, clue: true };
    return { hops: [hop], answer: hit?.title ?? null, answerKind: null };
  }
  if (q.form === 'compare') {
    const found = q.names.map((n) => seen.get(nameKey(n))).map((f) => (f?.fields.year ? f : undefined));
    const hops = q.names.map((name, i) => ({ name, title: found[i]?.title ?? null, fromQuestion: true, clue: false }));
    const [a, b] = found;
    const answer = a && b && a.fields.year !== b.fields.year ? (+a.fields.year! < +b.fields.year! ? a : b).title : null;
    return { hops, answer, answerKind: null };
  }
  const hops: Hop[] = [];
  let name = q.name;
  let answer: string | null = null;
  for (let k = 0; k < q.path.length; k++) {
    const f = seen.get(nameKey(name));
    const value = f?.fields[q.path[k]];
    hops.push({ name, title: value === undefined ? null : f!.title, fromQuestion: k === 0, clue: false });
    if (value === undefined) break;
    if (k === q.path.length - 1) answer = value;
    else name = value;
  }
  return { hops, answer, answerKind: FIELD_KIND[q.path[q.path.length - 1]] ?? 'the answer' };
}
