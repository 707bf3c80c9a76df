/**
 * The searchqa fact graph: fictional countries, towns, people, organisations, works and events, drawn from a seeded
 * `Rng` (`searchqa/<tag>/world/<stage>`, SEARCHQA_SEED_TAG), so no pretrained knowledge helps and every answer is
 * grounded in the corpus (corpus.ts writes one passage per entity). The same graph, bit for bit, on every machine and
 * run; built on first use and memoised (`world()`; 0.05–0.15 s with the passages, cold, on two busy cores).
 *
 * Entities and facts (counts are totals; `id` is the entity's index in `world().entities`, which is also its
 * passage index):
 * - 30 countries (ids 0–29): a capital town.
 * - 300 towns (10 per country, ids 30–329): a country, a founding year in 1700–1799.
 * - 1 200 people: a birthplace town, an occupation (OCCUPATIONS), a birth year in 1800–1899.
 * - 300 organisations (`<word> <kind>`, e.g. `Azure Guild`): a founder (a person), a founding year 20–59 years after
 *   the founder's birth, a town it is based in.
 * - 600 works (`The <word> <word>`): a maker (a person whose occupation makes that kind: novelists write novels …),
 *   the kind, a year 18–67 years after the maker's birth.
 * - 240 events (`<word> <kind>`, e.g. `Harvest Fair`): an organiser (an organisation), a year 1–40 years after its
 *   founding, a host town.
 * Founders and makers are drawn with Zipf weights (1 + r)^−0.75 over a seeded ranking r of the people, so a few
 * people are mentioned by dozens of passages and many by none (PopQA's popular vs long-tail entities, Mallen et al.
 * 2023); `mentions` counts, per entity, the other passages that name it.
 *
 * Two disjoint worlds: every fifth country (index ≡ 4 mod 5) and everything tied to it — its towns, the people born
 * there, the organisations based there and their events, the works of those people — form the `unseen` world; every
 * relation stays inside one world (a founder is drawn among the people of the organisation's world, an organiser
 * among the organisations of the event's world). `train`, `val` and `test-seen` ask only about the seen world,
 * `test-unseen` only about the unseen one (tasks.ts), so no entity of a test-unseen question (subject, bridge or
 * answer) is ever in a train question.
 */
import { Rng, hash32 } from '../../rng';
import {
  COUNTRIES,
  EVENT_FIRST,
  EVENT_KINDS,
  FIRST_NAMES,
  OCCUPATIONS,
  ORG_FIRST,
  ORG_KINDS,
  SURNAMES,
  TOWN_FIRST,
  TOWN_SECOND,
  WORK_FIRST,
  WORK_KINDS,
  WORK_SECOND,
  type WorkKind,
} from './lexicon';

/**
 * Version of the searchqa corpus, questions and rules; stored in run configs and manifests. Bump it with the pins
 * (test/core/envs/conformance.test.ts, test/core/envs/searchqa/pins.test.ts) whenever generation or the rules change.
 * `searchqa-v2` changed only the action rule (an argument may not hold `]`, env.ts), not generation.
 */
export const SEARCHQA_VERSION = 'searchqa-v2';
/**
 * The tag the world's, the tasks' and the vocabulary samples' generators are seeded with
 * (`searchqa/<tag>/world/<stage>`, tasks.ts, vocab.ts): `searchqa-v1`'s, since `searchqa-v2` changed only the action
 * rule, so the corpus, the tasks and the tokenizer's vocabulary stay the same bit for bit. A change to generation
 * moves it to the new version.
 */
export const SEARCHQA_SEED_TAG = 'searchqa-v1';

/** Entity counts (see the module comment). */
export const COUNTS = { countries: 30, townsPerCountry: 10, people: 1200, orgs: 300, works: 600, events: 240 } as const;
/** Every UNSEEN_EVERY-th country (index ≡ UNSEEN_EVERY − 1) and everything tied to it form the unseen world. */
export const UNSEEN_EVERY = 5;
/** Zipf exponent of the founder and maker draws: weight (1 + rank)^−ZIPF_S. */
export const ZIPF_S = 0.75;

/** What every entity has. */
interface Base {
  /** Index in `world().entities` and in the corpus. */
  readonly id: number;
  /** The name, which is also its passage's title. */
  readonly name: string;
  /** True in the unseen world (test-unseen only). */
  readonly unseen: boolean;
}

/** A country. */
export interface Country extends Base {
  readonly kind: 'country';
  /** Id of its capital town. */
  readonly capital: number;
}

/** A town. */
export interface Town extends Base {
  readonly kind: 'town';
  /** Id of its country. */
  readonly country: number;
  /** Founding year. */
  readonly year: number;
}

/** A person. */
export interface Person extends Base {
  readonly kind: 'person';
  /** Id of the town they were born in. */
  readonly birthplace: number;
  readonly occupation: string;
  /** Birth year. */
  readonly year: number;
}

/** An organisation. */
export interface Org extends Base {
  readonly kind: 'org';
  /** The last word of its name, lower case (`guild`). */
  readonly orgKind: string;
  /** Id of its founder (a person). */
  readonly founder: number;
  /** Id of the town it is based in. */
  readonly base: number;
  /** Founding year. */
  readonly year: number;
}

/** A work. */
export interface Work extends Base {
  readonly kind: 'work';
  readonly workKind: WorkKind;
  /** Id of its maker (a person of the kind's occupation). */
  readonly maker: number;
  /** Year published, staged or released. */
  readonly year: number;
}

/** An event. */
export interface QaEvent extends Base {
  readonly kind: 'event';
  /** Id of the organisation that organised it. */
  readonly organiser: number;
  /** Id of the town that hosted it. */
  readonly host: number;
  readonly year: number;
}

/** Any entity. */
export type Entity = Country | Town | Person | Org | Work | QaEvent;
/** Entity kinds. */
export type EntityKind = Entity['kind'];

/** The whole graph. */
export interface World {
  /** Every entity, by id (countries, towns, people, organisations, works, events, in that order). */
  readonly entities: readonly Entity[];
  /** Per entity id: the number of other entities whose passage names it (founder, maker, birthplace, …). */
  readonly mentions: readonly number[];
  /** Ids per kind, ascending. */
  readonly byKind: Readonly<Record<EntityKind, readonly number[]>>;
}

/** Every `a b` pair of two word lists, in a seeded order. */
function names(rng: Rng, first: readonly string[], second: readonly string[], n: number, prefix = ''): string[] {
  const all = first.flatMap((a) => second.map((b) => `${prefix}${a} ${b}`));
  if (all.length < n) throw new Error(`searchqa world: ${n} names asked of ${all.length} combinations`);
  return rng.shuffle(all).slice(0, n);
}

/** A seeded stream for one stage of generation. */
function stage(label: string): Rng {
  return new Rng(hash32(`searchqa/${SEARCHQA_SEED_TAG}/world/${label}`));
}

/** An index drawn with probability ∝ weights[i] (all > 0). */
function weighted(rng: Rng, ids: readonly number[], weight: (id: number) => number): number {
  let total = 0;
  for (const id of ids) total += weight(id);
  let u = rng.next() * total;
  for (const id of ids) {
    u -= weight(id);
    if (u < 0) return id;
  }
  return ids[ids.length - 1];
}

/** Countries and their towns (capitals drawn among each country's towns). */
function places(out: Entity[]): void {
  const rng = stage('places');
  const towns = names(rng, TOWN_FIRST, TOWN_SECOND, COUNTRIES.length * COUNTS.townsPerCountry);
  const firstTown = COUNTRIES.length;
  COUNTRIES.forEach((name, c) => {
    const capital = firstTown + c * COUNTS.townsPerCountry + rng.int(COUNTS.townsPerCountry);
    out.push({ kind: 'country', id: c, name, unseen: c % UNSEEN_EVERY === UNSEEN_EVERY - 1, capital });
  });
  towns.forEach((name, t) => {
    const country = Math.floor(t / COUNTS.townsPerCountry);
    const year = 1700 + rng.int(100);
    out.push({ kind: 'town', id: out.length, name, unseen: out[country].unseen, country, year });
  });
}

/** People: birthplace, occupation (half of them makers of works), birth year. */
function people(out: Entity[], townIds: readonly number[]): void {
  const rng = stage('people');
  for (const name of names(rng, FIRST_NAMES, SURNAMES, COUNTS.people)) {
    const birthplace = rng.pick(townIds);
    const makers = WORK_KINDS.length;
    const occupation = rng.next() < 0.5 ? OCCUPATIONS[rng.int(makers)] : OCCUPATIONS[makers + rng.int(makers * 2)];
    const year = 1800 + rng.int(100);
    out.push({ kind: 'person', id: out.length, name, unseen: out[birthplace].unseen, birthplace, occupation, year });
  }
}

/** Organisations, works and events, with Zipf-weighted founders and makers. */
function institutions(out: Entity[], ids: Record<'town' | 'person', number[]>): void {
  const rng = stage('institutions');
  const rank = new Map(rng.shuffle(ids.person).map((id, r) => [id, r]));
  const weight = (id: number) => Math.pow(1 + (rank.get(id) as number), -ZIPF_S);
  const personsOf = (unseen: boolean) => ids.person.filter((p) => out[p].unseen === unseen);
  const seenPeople = [personsOf(false), personsOf(true)];
  const orgIds: number[] = [];
  for (const name of names(rng, ORG_FIRST, ORG_KINDS, COUNTS.orgs)) {
    const base = rng.pick(ids.town);
    const unseen = out[base].unseen;
    const founder = weighted(rng, seenPeople[unseen ? 1 : 0], weight);
    const year = (out[founder] as Person).year + 20 + rng.int(40);
    const orgKind = name.slice(name.lastIndexOf(' ') + 1).toLowerCase();
    orgIds.push(out.length);
    out.push({ kind: 'org', id: out.length, name, unseen, orgKind, founder, base, year });
  }
  const makers = ids.person.filter((p) => WORK_KINDS.some((k) => k.occupation === (out[p] as Person).occupation));
  for (const name of names(rng, WORK_FIRST, WORK_SECOND, COUNTS.works, 'The ')) {
    const maker = weighted(rng, makers, weight);
    const m = out[maker] as Person;
    const workKind = WORK_KINDS.find((k) => k.occupation === m.occupation) as WorkKind;
    const year = m.year + 18 + rng.int(50);
    out.push({ kind: 'work', id: out.length, name, unseen: m.unseen, workKind, maker, year });
  }
  for (const name of names(rng, EVENT_FIRST, EVENT_KINDS, COUNTS.events)) {
    const host = rng.pick(ids.town);
    const unseen = out[host].unseen;
    const organiser = rng.pick(orgIds.filter((o) => out[o].unseen === unseen));
    const year = (out[organiser] as Org).year + 1 + rng.int(40);
    out.push({ kind: 'event', id: out.length, name, unseen, organiser, host, year });
  }
}

/** The ids an entity's passage names (its relations' targets). */
export function namedIds(e: Entity): number[] {
  switch (e.kind) {
    case 'country':
      return [e.capital];
    case 'town':
      return [e.country];
    case 'person':
      return [e.birthplace];
    case 'org':
      return [e.founder, e.base];
    case 'work':
      return [e.maker];
    case 'event':
      return [e.host, e.organiser];
  }
}

/** Build the graph (a fresh object; `world()` memoises one). */
export function generateWorld(): World {
  const out: Entity[] = [];
  places(out);
  const idsOf = (k: EntityKind) => out.filter((e) => e.kind === k).map((e) => e.id);
  people(out, idsOf('town'));
  institutions(out, { town: idsOf('town'), person: idsOf('person') });
  const mentions = out.map(() => 0);
  for (const e of out) for (const id of namedIds(e)) mentions[id]++;
  const kinds: EntityKind[] = ['country', 'town', 'person', 'org', 'work', 'event'];
  const byKind = Object.fromEntries(kinds.map((k) => [k, idsOf(k)])) as Record<EntityKind, number[]>;
  return { entities: out, mentions, byKind };
}

let memo: World | null = null;

/** The graph, built on first use. */
export function world(): World {
  memo ??= generateWorld();
  return memo;
}
