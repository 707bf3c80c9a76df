/**
 * Questions over the fact graph (world.ts), in seven subsets shaped like Search-R1's seven benchmarks (Jin et al.
 * 2025, §4.1): each question names its subject(s), and its hops are the passages (corpus.ts) the answer needs, in the
 * order a reader finds them — the first hop's passage is found by a name in the question, every later hop's by a name
 * the previous passage gives.
 *
 * - `nq` (Natural Questions, Kwiatkowski et al. 2019): single hop, a search-engine query in lower case without a
 *   question mark, e.g. `who founded the azure guild`.
 * - `triviaqa` (Joshi et al. 2017): single hop, a trivia clue that describes the answer by its facts, e.g.
 *   `Which novel by Orla Brenn was published in 1881?` (the clue fits exactly one entity of the graph).
 * - `popqa` (Mallen et al. 2023): single hop, PopQA's relation templates (occupation, place of birth, country) about
 *   a person or a town that is popular (the top tenth of its kind in its world by `mentions`, the other passages
 *   naming it) or long-tail (the bottom half: people no other passage names), each half of the time; `popularity`
 *   records which.
 * - `hotpotqa` (Yang et al. 2018): two-hop bridge, e.g. `Where was the founder of the Azure Guild born?`.
 * - `2wiki` (2WikiMultiHopQA, Ho et al. 2020): comparison of two entities of one kind by year, e.g.
 *   `Who was born first, Orla Brenn or Tavin Morrow?` (the years differ).
 * - `musique` (Trivedi et al. 2022): three-hop chains, e.g. `In which country was the author of The Silent Harbour
 *   born?`.
 * - `bamboogle` (Press et al. 2023): two-hop compositions no other subset asks, e.g. `Who founded the organisation
 *   that organised the Harvest Fair?`; test splits only (tasks.ts), as Bamboogle has only a test set.
 *
 * Gold aliases: the answer as its passage writes it (a town also as `Town, Country`); scored by score.ts.
 */
import type { Rng } from '../../rng';
import {
  world,
  type Country,
  type Entity,
  type EntityKind,
  type Org,
  type Person,
  type QaEvent,
  type Town,
  type Work,
} from './world';

/** The subsets (= the env's task types), in display order. */
export const SUBSETS = ['nq', 'triviaqa', 'popqa', 'hotpotqa', '2wiki', 'musique', 'bamboogle'] as const;
/** One subset. */
export type Subset = (typeof SUBSETS)[number];
/** PopQA's entity popularity bucket. */
export type Popularity = 'popular' | 'long-tail';

/** One question, with what the expert and the reward need (hidden from the policy). */
export interface Question {
  readonly subset: Subset;
  /** The template's name, e.g. `org-founder` (for tests and analyses). */
  readonly template: string;
  /** The question, as the task line shows it. */
  readonly text: string;
  /** Gold aliases; the first is canonical (what the expert answers). */
  readonly golds: readonly string[];
  /** Passage indices the answer needs, in reading order (one per hop; a comparison's two subjects). */
  readonly hops: readonly number[];
  /** Ids of every entity on the question's chain: the hops' entities and the answer's (when it is an entity). */
  readonly entities: readonly number[];
  /** `triviaqa` only: the clue's facts as search words (the expert's first query), e.g. `Orla Brenn novel 1881`. */
  readonly clue?: string;
  /** `popqa` only: the subject's popularity bucket. */
  readonly popularity?: Popularity;
}

/** What a template's draw fills in (makeQuestion adds the subset and the template's name). */
type Drawn = Omit<Question, 'subset' | 'template'>;

/** A question template: its name and its draw (null when the draw does not fit; the caller draws again). */
export interface Template {
  /** e.g. `org-founder`. */
  readonly name: string;
  readonly draw: (rng: Rng, pool: Pool) => Drawn | null;
}

/** A template. */
const tpl = (name: string, draw: Template['draw']): Template => ({ name, draw });

/** The ids of each kind in one world. */
export type Pool = Readonly<Record<EntityKind, readonly number[]>>;

const W = () => world();
const ent = <T extends Entity>(id: number) => W().entities[id] as T;
const person = (id: number) => ent<Person>(id);
const town = (id: number) => ent<Town>(id);
const org = (id: number) => ent<Org>(id);
const country = (id: number) => ent<Country>(id);
const work = (id: number) => ent<Work>(id);
const evt = (id: number) => ent<QaEvent>(id);
const lc = (s: string) => s.toLowerCase();

/** A town's gold aliases: its name, and `Town, Country`. */
function townGolds(id: number): string[] {
  const x = town(id);
  return [x.name, `${x.name}, ${country(x.country).name}`];
}

/** The question parts of a fact whose answer is entity `id` (golds, answer id). */
function answerEntity(id: number): { golds: string[]; answer: number[] } {
  const e = ent(id);
  return { golds: e.kind === 'town' ? townGolds(id) : [e.name], answer: [id] };
}

/** A single-hop question about `subject` answered by entity `id`. */
function oneHop(text: string, subject: number, id: number): Drawn {
  const a = answerEntity(id);
  return { text, golds: a.golds, hops: [subject], entities: [subject, ...a.answer] };
}

/** A single-hop question about `subject` answered by a value (a year, an occupation). */
function oneValue(text: string, subject: number, value: string): Drawn {
  return { text, golds: [value], hops: [subject], entities: [subject] };
}

/** NQ-style forward questions, lower case, no question mark. */
const NQ: readonly Template[] = [
  tpl('org-founder', (r, p) => {
    const o = org(r.pick(p.org));
    return oneHop(`who founded the ${lc(o.name)}`, o.id, o.founder);
  }),
  tpl('org-base', (r, p) => {
    const o = org(r.pick(p.org));
    return oneHop(`where is the ${lc(o.name)} based`, o.id, o.base);
  }),
  tpl('org-year', (r, p) => {
    const o = org(r.pick(p.org));
    return oneValue(`when was the ${lc(o.name)} founded`, o.id, String(o.year));
  }),
  tpl('work-maker', (r, p) => {
    const w = work(r.pick(p.work));
    return oneHop(`who ${w.workKind.made} ${lc(w.name)}`, w.id, w.maker);
  }),
  tpl('work-year', (r, p) => {
    const w = work(r.pick(p.work));
    return oneValue(`when was ${lc(w.name)} ${w.workKind.verb}`, w.id, String(w.year));
  }),
  tpl('event-host', (r, p) => {
    const e = evt(r.pick(p.event));
    return oneHop(`where was the ${lc(e.name)} held`, e.id, e.host);
  }),
  tpl('event-organiser', (r, p) => {
    const e = evt(r.pick(p.event));
    return oneHop(`who organised the ${lc(e.name)}`, e.id, e.organiser);
  }),
  tpl('event-year', (r, p) => {
    const e = evt(r.pick(p.event));
    return oneValue(`what year was the ${lc(e.name)} held`, e.id, String(e.year));
  }),
];

/** The parts of a TriviaQA-style clue question (see `clue`). */
interface Clue {
  kind: EntityKind;
  /** The answer's id. */
  id: number;
  /** The facts the clue gives, as one string (equal keys: the clue fits both entities). */
  key: (e: Entity) => string;
  text: string;
  /** The clue's facts as search words. */
  words: string;
}

/** The entities an entity's clue names (its maker, founder, birthplace, country, organiser). */
function namedOf(e: Entity): number[] {
  if (e.kind === 'work') return [e.maker];
  if (e.kind === 'org') return [e.founder];
  if (e.kind === 'person') return [e.birthplace];
  if (e.kind === 'town') return [e.country];
  if (e.kind === 'event') return [e.organiser];
  return [];
}

/** A TriviaQA-style clue question whose answer is entity `c.id`, or null when the clue fits another entity too. */
function clue(p: Pool, c: Clue): Drawn | null {
  const k = c.key(ent(c.id));
  if (p[c.kind].filter((x) => c.key(ent(x)) === k).length !== 1) return null;
  const golds = answerEntity(c.id).golds;
  return { text: c.text, golds, hops: [c.id], entities: [c.id, ...namedOf(ent(c.id))], clue: c.words };
}

/** TriviaQA-style clues: the answer described by two or three of its facts. */
const TRIVIA: readonly Template[] = [
  tpl('work-by', (r, p) => {
    const w = work(r.pick(p.work));
    const k = w.workKind;
    const maker = person(w.maker).name;
    const key = (e: Entity) => `${(e as Work).maker}/${(e as Work).workKind.kind}/${(e as Work).year}`;
    const text = `Which ${k.kind} by ${maker} was ${k.verb} in ${w.year}?`;
    return clue(p, { kind: 'work', id: w.id, key, text, words: `${maker} ${k.kind} ${w.year}` });
  }),
  tpl('org-by', (r, p) => {
    const o = org(r.pick(p.org));
    const founder = person(o.founder).name;
    const key = (e: Entity) => `${(e as Org).founder}/${(e as Org).year}`;
    const text = `Which organisation did ${founder} found in ${o.year}?`;
    return clue(p, { kind: 'org', id: o.id, key, text, words: `${founder} founded ${o.year}` });
  }),
  tpl('person-by', (r, p) => {
    const h = person(r.pick(p.person));
    const place = town(h.birthplace).name;
    const key = (e: Entity) => `${(e as Person).occupation}/${(e as Person).birthplace}/${(e as Person).year}`;
    const text = `Which ${h.occupation} was born in ${place} in ${h.year}?`;
    return clue(p, { kind: 'person', id: h.id, key, text, words: `${h.occupation} ${place} ${h.year}` });
  }),
  tpl('town-by', (r, p) => {
    const x = town(r.pick(p.town));
    const c = country(x.country).name;
    const key = (e: Entity) => `${(e as Town).country}/${(e as Town).year}`;
    const text = `Which town in ${c} was founded in ${x.year}?`;
    return clue(p, { kind: 'town', id: x.id, key, text, words: `${c} town ${x.year}` });
  }),
  tpl('event-by', (r, p) => {
    const e = evt(r.pick(p.event));
    const o = org(e.organiser).name;
    const key = (x: Entity) => `${(x as QaEvent).organiser}/${(x as QaEvent).year}`;
    const text = `Which event did the ${o} organise in ${e.year}?`;
    return clue(p, { kind: 'event', id: e.id, key, text, words: `${o} ${e.year}` });
  }),
];

/** The share of a kind's entities (by mentions) that is `popular`. */
export const POPULAR_SHARE = 0.1;
/** The share of a kind's entities (by mentions) that is `long-tail`. */
export const LONG_TAIL_SHARE = 0.5;

/**
 * The pool's people or towns in a popularity bucket: sorted by mentions (descending, ties by id), the first
 * POPULAR_SHARE (a tenth) is `popular`, the last LONG_TAIL_SHARE (a half) `long-tail`.
 */
export function popularityBucket(ids: readonly number[], bucket: Popularity): number[] {
  const m = W().mentions;
  const sorted = [...ids].sort((a, b) => m[b] - m[a] || a - b);
  if (bucket === 'popular') return sorted.slice(0, Math.floor(sorted.length * POPULAR_SHARE));
  return sorted.slice(sorted.length - Math.floor(sorted.length * LONG_TAIL_SHARE));
}

/** A PopQA subject: its popularity drawn (each half of the time), then an entity of that bucket. */
function popular(r: Rng, ids: readonly number[]): { id: number; popularity: Popularity } {
  const popularity: Popularity = r.next() < 0.5 ? 'popular' : 'long-tail';
  return { id: r.pick(popularityBucket(ids, popularity)), popularity };
}

/** PopQA's templates (occupation, place of birth, country) on a popular or long-tail subject. */
const POPQA: readonly Template[] = [
  tpl('person-occupation', (r, p) => {
    const { id, popularity } = popular(r, p.person);
    const h = person(id);
    return { ...oneValue(`What is ${h.name}'s occupation?`, id, h.occupation), popularity };
  }),
  tpl('person-birthplace', (r, p) => {
    const { id, popularity } = popular(r, p.person);
    const h = person(id);
    return { ...oneHop(`In what city was ${h.name} born?`, id, h.birthplace), popularity };
  }),
  tpl('town-country', (r, p) => {
    const { id, popularity } = popular(r, p.town);
    const x = town(id);
    return { ...oneHop(`In what country is ${x.name}?`, id, x.country), popularity };
  }),
];

/** A chain question: hops (passage ids, each naming the next) and the answer (an entity id or a value). */
function chain(text: string, hops: number[], answer: number | string): Drawn {
  if (typeof answer === 'string') return { text, golds: [answer], hops, entities: hops };
  const a = answerEntity(answer);
  return { text, golds: a.golds, hops, entities: [...hops, ...a.answer] };
}

/** HotpotQA-style two-hop bridges. */
const HOTPOT: readonly Template[] = [
  tpl('work-maker-birthplace', (r, p) => {
    const w = work(r.pick(p.work));
    const text = `In which town was the ${w.workKind.maker} of ${w.name} born?`;
    return chain(text, [w.id, w.maker], person(w.maker).birthplace);
  }),
  tpl('org-founder-birthplace', (r, p) => {
    const o = org(r.pick(p.org));
    return chain(`Where was the founder of the ${o.name} born?`, [o.id, o.founder], person(o.founder).birthplace);
  }),
  tpl('org-founder-year', (r, p) => {
    const o = org(r.pick(p.org));
    const text = `In what year was the founder of the ${o.name} born?`;
    return chain(text, [o.id, o.founder], String(person(o.founder).year));
  }),
  tpl('event-host-country', (r, p) => {
    const e = evt(r.pick(p.event));
    return chain(`In which country was the ${e.name} held?`, [e.id, e.host], town(e.host).country);
  }),
  tpl('event-organiser-base', (r, p) => {
    const e = evt(r.pick(p.event));
    const text = `Where is the organisation that organised the ${e.name} based?`;
    return chain(text, [e.id, e.organiser], org(e.organiser).base);
  }),
];

/** The year of a town, person, organisation, work or event. */
function yearOf(id: number): number {
  const e = ent(id);
  if (e.kind === 'country') throw new Error(`searchqa: country ${e.name} has no year`);
  return e.year;
}

/** A 2Wiki-style comparison by year of two entities drawn from `ids` (null when they are one or their years tie). */
function compare(r: Rng, ids: readonly number[], text: (a: string, b: string) => string): Drawn | null {
  const a = r.pick(ids);
  const b = r.pick(ids);
  if (a === b || yearOf(a) === yearOf(b)) return null;
  const first = yearOf(a) < yearOf(b) ? a : b;
  return { text: text(ent(a).name, ent(b).name), golds: answerEntity(first).golds, hops: [a, b], entities: [a, b] };
}

/** 2WikiMultiHopQA-style comparisons. */
const TWOWIKI: readonly Template[] = [
  tpl('people-born-first', (r, p) => compare(r, p.person, (a, b) => `Who was born first, ${a} or ${b}?`)),
  tpl('orgs-founded-first', (r, p) => compare(r, p.org, (a, b) => `Which was founded first, the ${a} or the ${b}?`)),
  tpl('works-first', (r, p) => compare(r, p.work, (a, b) => `Which came out first, ${a} or ${b}?`)),
  tpl('towns-founded-first', (r, p) => compare(r, p.town, (a, b) => `Which town was founded first, ${a} or ${b}?`)),
];

/** MuSiQue-style three-hop chains. */
const MUSIQUE: readonly Template[] = [
  tpl('work-maker-birthplace-country', (r, p) => {
    const w = work(r.pick(p.work));
    const h = person(w.maker);
    const text = `In which country was the ${w.workKind.maker} of ${w.name} born?`;
    return chain(text, [w.id, h.id, h.birthplace], town(h.birthplace).country);
  }),
  tpl('org-founder-birthplace-country', (r, p) => {
    const o = org(r.pick(p.org));
    const h = person(o.founder);
    const text = `In which country was the founder of the ${o.name} born?`;
    return chain(text, [o.id, h.id, h.birthplace], town(h.birthplace).country);
  }),
  tpl('event-organiser-founder-birthplace', (r, p) => {
    const e = evt(r.pick(p.event));
    const o = org(e.organiser);
    const text = `Where was the founder of the organisation that organised the ${e.name} born?`;
    return chain(text, [e.id, o.id, o.founder], person(o.founder).birthplace);
  }),
  tpl('event-host-country-capital', (r, p) => {
    const e = evt(r.pick(p.event));
    const c = town(e.host).country;
    const text = `What is the capital of the country where the ${e.name} was held?`;
    return chain(text, [e.id, e.host, c], country(c).capital);
  }),
  tpl('work-maker-birthplace-year', (r, p) => {
    const w = work(r.pick(p.work));
    const h = person(w.maker);
    const text = `When was the town where the ${w.workKind.maker} of ${w.name} was born founded?`;
    return chain(text, [w.id, h.id, h.birthplace], String(town(h.birthplace).year));
  }),
];

/** Bamboogle-style two-hop compositions (chains no other subset asks). */
const BAMBOOGLE: readonly Template[] = [
  tpl('event-organiser-founder', (r, p) => {
    const e = evt(r.pick(p.event));
    const text = `Who founded the organisation that organised the ${e.name}?`;
    return chain(text, [e.id, e.organiser], org(e.organiser).founder);
  }),
  tpl('town-country-capital', (r, p) => {
    const x = town(r.pick(p.town));
    const text = `What is the capital of the country that ${x.name} is in?`;
    return chain(text, [x.id, x.country], country(x.country).capital);
  }),
  tpl('org-founder-occupation', (r, p) => {
    const o = org(r.pick(p.org));
    const text = `What did the founder of the ${o.name} do for a living?`;
    return chain(text, [o.id, o.founder], person(o.founder).occupation);
  }),
  tpl('org-base-country', (r, p) => {
    const o = org(r.pick(p.org));
    const text = `In which country is the town where the ${o.name} is based?`;
    return chain(text, [o.id, o.base], town(o.base).country);
  }),
  tpl('person-birthplace-year', (r, p) => {
    const h = person(r.pick(p.person));
    const text = `When was the town where ${h.name} was born founded?`;
    return chain(text, [h.id, h.birthplace], String(town(h.birthplace).year));
  }),
];

/** The templates of each subset. */
export const TEMPLATES: Readonly<Record<Subset, readonly Template[]>> = {
  nq: NQ,
  triviaqa: TRIVIA,
  popqa: POPQA,
  hotpotqa: HOTPOT,
  '2wiki': TWOWIKI,
  musique: MUSIQUE,
  bamboogle: BAMBOOGLE,
};

const pools = new Map<boolean, Pool>();

/** The ids of every kind in the seen (`unseen` false) or unseen world. */
export function poolOf(unseen: boolean): Pool {
  let p = pools.get(unseen);
  if (!p) {
    const w = W();
    const kinds = Object.keys(w.byKind) as EntityKind[];
    const ofWorld = (k: EntityKind) => w.byKind[k].filter((id) => w.entities[id].unseen === unseen);
    p = Object.fromEntries(kinds.map((k) => [k, ofWorld(k)])) as unknown as Pool;
    pools.set(unseen, p);
  }
  return p;
}

/** Draws per question before giving up (a template that fits no draw is a bug in the graph). */
const MAX_DRAWS = 1000;

/**
 * A question of `template` (of `subset`) about the seen or unseen world, drawn from `rng`; a draw that does not fit
 * (a clue that fits two entities, a comparison of equal years) is drawn again.
 * @throws Error when no draw fits in MAX_DRAWS tries.
 */
export function drawQuestion(subset: Subset, template: Template, rng: Rng, unseen: boolean): Question {
  const pool = poolOf(unseen);
  for (let i = 0; i < MAX_DRAWS; i++) {
    const q = template.draw(rng, pool);
    if (q) return { subset, template: template.name, ...q };
  }
  throw new Error(`searchqa: no ${subset}/${template.name} question fits after ${MAX_DRAWS} draws`);
}

/** A question of `subset`: a template drawn uniformly, then the question (`drawQuestion`). */
export function makeQuestion(subset: Subset, rng: Rng, unseen: boolean): Question {
  return drawQuestion(subset, rng.pick(TEMPLATES[subset]), rng, unseen);
}
