/**
 * The searchqa demonstration renamer (src/core/envs/searchqa/rename.ts): one bijection per entity kind over the seen
 * world's names (or, `fresh`, new combinations of the lexicon's words), whole names only, case kept, unseen names and
 * other words untouched; and pretraining with
 * `rename` (src/core/pretrain/demos.ts) demonstrates the renamed texts of the same episodes.
 */
import { describe, expect, it } from 'vitest';
import { searchqaDemoRenamer } from '../../../../src/core/envs/searchqa/rename';
import { world, type EntityKind } from '../../../../src/core/envs/searchqa/world';
import { searchqa } from '../../../../src/core/envs/searchqa';
import { getEnvSpec } from '../../../../src/core/envs/registry';
import { makeDemos } from '../../../../src/core/pretrain/demos';
import { noisyDemoSetup } from '../../../helpers/noisy-demos';
import { buildTokenizer } from '../../../../src/core/model/policy';
import { Rng } from '../../../../src/core/rng';
import * as lex from '../../../../src/core/envs/searchqa/lexicon';

const w = world();
const seenOf = (k: EntityKind) => w.byKind[k].map((id) => w.entities[id]).filter((e) => !e.unseen);

describe('searchqa demonstration renamer', () => {
  it('maps the seen names of each kind one to one onto the seen names of that kind', () => {
    const rn = searchqaDemoRenamer(new Rng(7));
    for (const k of Object.keys(w.byKind) as EntityKind[]) {
      const names = seenOf(k).map((e) => e.name);
      const images = names.map(rn);
      expect(new Set(images)).toEqual(new Set(names));
      expect(images.filter((n, i) => n !== names[i]).length).toBeGreaterThan(names.length / 2);
    }
  });

  it('renames whole names in running text, keeps case style, years and every other word', () => {
    const rn = searchqaDemoRenamer(new Rng(3));
    const [p] = seenOf('person');
    const [t] = seenOf('town');
    const [o] = seenOf('org');
    const text = `${p.name} was a novelist born in ${t.name} in 1843. ${p.name} founded the ${o.name}.`;
    expect(rn(text)).toBe(
      `${rn(p.name)} was a novelist born in ${rn(t.name)} in 1843. ${rn(p.name)} founded the ${rn(o.name)}.`,
    );
    expect(rn(p.name)).not.toBe(p.name);
    expect(rn(`who founded the ${o.name.toLowerCase()}`)).toBe(`who founded the ${rn(o.name).toLowerCase()}`);
    // a name inside a longer word is no name; an unseen entity is never renamed
    expect(rn(`${p.name}x`)).toBe(`${p.name}x`);
    const unseen = w.entities.filter((e) => e.unseen);
    expect(unseen.length).toBeGreaterThan(0);
    for (const u of unseen.slice(0, 50)) expect(rn(u.name)).toBe(u.name);
  });

  it('the same rng draws the same renaming, another rng another', () => {
    const names = seenOf('person').map((e) => e.name);
    const a = names.map(searchqaDemoRenamer(new Rng(1)));
    expect(names.map(searchqaDemoRenamer(new Rng(1)))).toEqual(a);
    expect(names.map(searchqaDemoRenamer(new Rng(2)))).not.toEqual(a);
  });
});

describe('searchqa demonstration renamer, fresh names', () => {
  const words = (xs: readonly string[]) => new Set(xs);
  const pair = (name: string, first: readonly string[], second: readonly string[]) => {
    const [a, b, ...rest] = name.split(' ');
    return rest.length === 0 && words(first).has(a) && words(second).has(b);
  };
  const kindOk: Record<EntityKind, (to: string, from: string) => boolean> = {
    country: (to) => lex.COUNTRIES.includes(to),
    town: (to) => pair(to, lex.TOWN_FIRST, lex.TOWN_SECOND),
    person: (to) => pair(to, lex.FIRST_NAMES, lex.SURNAMES),
    work: (to) => to.startsWith('The ') && pair(to.slice(4), lex.WORK_FIRST, lex.WORK_SECOND),
    org: (to, from) => pair(to, lex.ORG_FIRST, lex.ORG_KINDS) && to.split(' ')[1] === from.split(' ')[1],
    event: (to, from) => pair(to, lex.EVENT_FIRST, lex.EVENT_KINDS) && to.split(' ')[1] === from.split(' ')[1],
  };

  it("gives each name met a new combination of the lexicon's words for its kind, one to one, kind word kept", () => {
    for (const k of Object.keys(w.byKind) as EntityKind[]) {
      const rn = searchqaDemoRenamer(new Rng(11), 'fresh');
      // An episode's handful of names of one kind, as a demonstration holds them.
      const names = seenOf(k)
        .slice(0, 8)
        .map((e) => e.name);
      const images = names.map(rn);
      for (const [i, to] of images.entries()) expect(kindOk[k](to, names[i]), `${k}: ${names[i]} → ${to}`).toBe(true);
      expect(new Set(images.map((n) => n.toLowerCase())).size).toBe(names.length);
      // The same name later in the episode, in any case style, gets the same new name.
      expect(names.map(rn)).toEqual(images);
      expect(rn(names[0].toLowerCase())).toBe(images[0].toLowerCase());
    }
  });

  it('renames running text as the seen pool does: whole names, years and other words kept (a pinned draw)', () => {
    const rn = searchqaDemoRenamer(new Rng(5), 'fresh');
    expect(rn('Who was born first, Tavin Tregarth or Niko Kendal?')).toBe(
      'Who was born first, Greta Penhallow or Bram Jarrow?',
    );
    expect(rn('Tavin Tregarth was a sculptor born in Juniper Vale in 1862.')).toBe(
      'Greta Penhallow was a sculptor born in Raven Hollow in 1862.',
    );
    expect(rn('Tavin Tregarthx')).toBe('Tavin Tregarthx');
  });

  it("the unseen world's country names appear as seen countries' new names; its entities are never renamed", () => {
    const unseenCountries = w.byKind.country.map((id) => w.entities[id]).filter((e) => e.unseen);
    const seenCountries = seenOf('country').map((e) => e.name);
    const given = new Set<string>();
    for (let seed = 0; seed < 20; seed++)
      seenCountries.map(searchqaDemoRenamer(new Rng(seed), 'fresh')).forEach((n) => given.add(n));
    for (const u of unseenCountries) expect(given.has(u.name), u.name).toBe(true);
    const rn = searchqaDemoRenamer(new Rng(3), 'fresh');
    for (const u of w.entities.filter((e) => e.unseen).slice(0, 50)) expect(rn(u.name)).toBe(u.name);
  });

  it('the same rng and order of texts draw the same names, another rng others', () => {
    const names = seenOf('person')
      .map((e) => e.name)
      .slice(0, 20);
    const a = names.map(searchqaDemoRenamer(new Rng(1), 'fresh'));
    expect(names.map(searchqaDemoRenamer(new Rng(1), 'fresh'))).toEqual(a);
    expect(names.map(searchqaDemoRenamer(new Rng(2), 'fresh'))).not.toEqual(a);
  });
});

describe('pretraining with renamed demonstrations', () => {
  const { tok, o, text } = noisyDemoSetup(searchqa, 12, 0);

  it('rename 0 demonstrates exactly what no rename does; rename 1 the same episodes, renamed', () => {
    const plain = makeDemos(searchqa, tok, { ...o, rng: new Rng(1) });
    expect(makeDemos(searchqa, tok, { ...o, rng: new Rng(1), rename: 0 })).toEqual(plain);
    const renamed = makeDemos(searchqa, tok, { ...o, rng: new Rng(1), rename: 1 });
    expect(renamed.renamed).toBe(12);
    expect(renamed.episodes).toEqual(plain.episodes);
    expect(renamed.samples.length).toBe(plain.samples.length);
    // Task 0's first sample: its response is the expert's action through task 0's renamer (the noise-free demo).
    const rn = searchqa.demoRenamer!(new Rng(1).fork('rename/0/names'));
    expect(text(renamed.samples[0].response)).toBe(rn(text(plain.samples[0].response)));
    const changed = renamed.samples.filter((s, i) => text(s.prompt) !== text(plain.samples[i].prompt)).length;
    expect(changed).toBe(plain.samples.length);
  });

  it("renameNames fresh demonstrates the same episodes through the fresh renamer of each task's stream", () => {
    const plain = makeDemos(searchqa, tok, { ...o, rng: new Rng(1) });
    const fresh = makeDemos(searchqa, tok, { ...o, rng: new Rng(1), rename: 1, renameNames: 'fresh' });
    expect(fresh.episodes).toEqual(plain.episodes);
    const rn = searchqa.demoRenamer!(new Rng(1).fork('rename/0/names'), 'fresh');
    // The renamer meets the task line first (the prompt), then the response: the same order here.
    rn(text(plain.samples[0].prompt));
    expect(text(fresh.samples[0].response)).toBe(rn(text(plain.samples[0].response)));
    const seen = makeDemos(searchqa, tok, { ...o, rng: new Rng(1), rename: 1 });
    expect(text(fresh.samples[0].response)).not.toBe(text(seen.samples[0].response));
  });

  it('an env without names refuses rename above 0', () => {
    const household = getEnvSpec('household');
    expect(() =>
      makeDemos(household, buildTokenizer(household), { ...o, preset: 'easy', rng: new Rng(1), rename: 0.5 }),
    ).toThrow('makeDemos: household has no names to rename (EnvSpec.demoRenamer); leave rename at 0');
  });
});
