/**
 * A consistent renaming of the seen world's entities for one pretraining demonstration (`EnvSpec.demoRenamer`,
 * `npm run pretrain -- --rename P`): every name of a country, town, person, organisation, work or event is replaced
 * by the name of another seen entity of the same kind, through one random bijection per kind, in every text of the
 * episode (task line, passages, actions, hints). The facts of the renamed episode then contradict the world the
 * policy has read elsewhere, so behaviour cloning cannot answer from memorised facts and must copy the answer, or
 * the next hop's entity, from the passages the episode retrieved — what test-unseen's questions about never-seen
 * entities ask (world.ts: two disjoint worlds). Only seen-world names are used: no unseen entity reaches training.
 *
 * With `names: 'fresh'` each seen entity the episode mentions is instead given a fresh name drawn from the lexicon's
 * combinations for its kind (lexicon.ts; world.ts draws every name the same way): a person `FIRST SURNAME`, a town
 * `TOWN_FIRST TOWN_SECOND`, a work `The WORK_FIRST WORK_SECOND`, an organisation or an event a new first word before
 * its own kind word (`Azure Club` → `Lantern Club`, so the passage's `club` still fits), a country any of the
 * lexicon's 30 country names. Drawn lazily, one to one within the episode. A fresh pair of words is seldom a name the
 * policy has read, so it cannot be completed from memory (`Hester` → a remembered surname) and must be copied word
 * by word; the six unseen countries' names, words that no seen-world text holds, appear as the names of seen
 * countries. The unseen world's facts never do: a fresh name that happens to be an unseen entity's carries the
 * renamed seen entity's facts, drawn anew in every episode.
 *
 * Matching is case-insensitive on whole names (no letter or digit on either side), longest name first (`The Iron
 * Ford`, a work, before `Iron Ford`, a town); an all-lower-case match (NQ-style questions, `who founded the azure
 * guild`) is replaced by the lower-cased name. Years, occupations and kinds are kept.
 */
import type { Rng } from '../../rng';
import type { RenameNames } from '../types';
import * as lex from './lexicon';
import { world, type EntityKind } from './world';

/** Lower-cased name → [entity kind, index among the seen entities of that kind]. */
let index: { re: RegExp; seen: Record<EntityKind, string[]>; slot: Map<string, [EntityKind, number]> } | null = null;

/**
 * A pattern matching any of `names` as a whole name (no letter or digit on either side), in any case, longest name
 * first (`The Iron Ford` before `Iron Ford`); global, so `replace` and `matchAll` find every mention.
 */
export function wholeNames(names: readonly string[]): RegExp {
  const alts = [...new Set(names)].sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
  const esc = alts.map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`(?<![\\p{L}\\p{N}])(?:${esc.join('|')})(?![\\p{L}\\p{N}])`, 'giu');
}

/** The seen names per kind, their match pattern and where each sits (built once). */
function names(): NonNullable<typeof index> {
  if (index) return index;
  const w = world();
  const kinds = Object.keys(w.byKind) as EntityKind[];
  const seen = Object.fromEntries(
    kinds.map((k) => [
      k,
      w.byKind[k]
        .map((id) => w.entities[id])
        .filter((e) => !e.unseen)
        .map((e) => e.name),
    ]),
  ) as Record<EntityKind, string[]>;
  const slot = new Map<string, [EntityKind, number]>();
  for (const k of kinds) seen[k].forEach((n, i) => slot.set(n.toLowerCase(), [k, i]));
  const re = wholeNames([...slot.keys()]);
  index = { re, seen, slot };
  return index;
}

/**
 * A renamer for one demonstration episode: `text` with every seen entity's name replaced through one bijection per
 * kind drawn from `rng` (the same name always maps to the same name within the episode), or with `pool` `fresh` by
 * fresh names of its kind (module comment). Deterministic in `rng` (and, for `fresh`, the order of the texts).
 */
export function searchqaDemoRenamer(rng: Rng, pool: RenameNames = 'seen'): (text: string) => string {
  if (pool === 'fresh') return freshRenamer(rng);
  const { re, seen, slot } = names();
  const perm = Object.fromEntries(Object.entries(seen).map(([k, ns]) => [k, rng.shuffle(ns)])) as Record<
    EntityKind,
    string[]
  >;
  return (text) =>
    text.replace(re, (m) => {
      const at = slot.get(m.toLowerCase());
      if (!at) return m;
      const to = perm[at[0]][at[1]];
      return m === m.toLowerCase() ? to.toLowerCase() : to;
    });
}

/** The last word of a name (an organisation's or an event's kind word: `Club`, `Festival`). */
const lastWord = (name: string) => name.slice(name.lastIndexOf(' ') + 1);

/** A fresh name for a seen entity of `kind` named `name`, drawn from the lexicon's combinations for the kind. */
function freshName(kind: EntityKind, name: string, rng: Rng): string {
  switch (kind) {
    case 'country':
      return rng.pick(lex.COUNTRIES);
    case 'town':
      return `${rng.pick(lex.TOWN_FIRST)} ${rng.pick(lex.TOWN_SECOND)}`;
    case 'person':
      return `${rng.pick(lex.FIRST_NAMES)} ${rng.pick(lex.SURNAMES)}`;
    case 'work':
      return `The ${rng.pick(lex.WORK_FIRST)} ${rng.pick(lex.WORK_SECOND)}`;
    case 'org':
      return `${rng.pick(lex.ORG_FIRST)} ${lastWord(name)}`;
    case 'event':
      return `${rng.pick(lex.EVENT_FIRST)} ${lastWord(name)}`;
  }
}

/** Draws per name before a fresh name is given up on (the name is kept): never reached by an episode's few names. */
const FRESH_TRIES = 64;

/**
 * The `fresh` renamer (module comment): each seen name met is given, at first sight, a fresh name of its kind not yet
 * given in this episode; later mentions get the same one. Deterministic in `rng` and the order of the texts.
 */
function freshRenamer(rng: Rng): (text: string) => string {
  const { re, seen, slot } = names();
  const given = new Map<string, string>();
  const used = new Set<string>();
  const rename = (key: string, kind: EntityKind, index: number): string => {
    const known = given.get(key);
    if (known !== undefined) return known;
    let to = seen[kind][index];
    for (let i = 0; i < FRESH_TRIES; i++) {
      const c = freshName(kind, to, rng);
      if (!used.has(c.toLowerCase())) {
        to = c;
        break;
      }
    }
    used.add(to.toLowerCase());
    given.set(key, to);
    return to;
  };
  return (text) =>
    text.replace(re, (m) => {
      const key = m.toLowerCase();
      const at = slot.get(key);
      if (!at) return m;
      const to = rename(key, at[0], at[1]);
      return m === key ? to.toLowerCase() : to;
    });
}
