/**
 * A consistent renaming of the seen world's entities for one pretraining demonstration (`EnvSpec.demoRenamer`,
 * `npm run pretrain -- --rename P`): every name of a country, town, person, organisation, work or event is replaced
 * by the name of another seen entity of the same kind, through one random bijection per kind, in every text of the
 * episode (task line, passages, actions, hints). The facts of the renamed episode then contradict the world the
 * policy has read elsewhere, so behaviour cloning cannot answer from memorised facts and must copy the answer, or
 * the next hop's entity, from the passages the episode retrieved — what test-unseen's questions about never-seen
 * entities ask (world.ts: two disjoint worlds). Only seen-world names are used: no unseen entity reaches training.
 *
 * Matching is case-insensitive on whole names (no letter or digit on either side), longest name first (`The Iron
 * Ford`, a work, before `Iron Ford`, a town); an all-lower-case match (NQ-style questions, `who founded the azure
 * guild`) is replaced by the lower-cased name. Years, occupations and kinds are kept.
 */
import type { Rng } from '../../rng';
import { world, type EntityKind } from './world';

/** Lower-cased name → [entity kind, index among the seen entities of that kind]. */
let index: { re: RegExp; seen: Record<EntityKind, string[]>; slot: Map<string, [EntityKind, number]> } | null = null;

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
  const alts = [...slot.keys()].sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
  const esc = alts.map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const re = new RegExp(`(?<![\\p{L}\\p{N}])(?:${esc.join('|')})(?![\\p{L}\\p{N}])`, 'giu');
  index = { re, seen, slot };
  return index;
}

/**
 * A renamer for one demonstration episode: `text` with every seen entity's name replaced through one bijection per
 * kind drawn from `rng` (the same name always maps to the same name within the episode). Deterministic in `rng`.
 */
export function searchqaDemoRenamer(rng: Rng): (text: string) => string {
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
