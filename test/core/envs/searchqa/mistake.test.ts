/**
 * searchqa's plausible mistakes for the noisy demonstrator (src/core/envs/searchqa/mistake.ts): a search for, or an
 * answer of, a name on screen, or an answer of a year the observation holds; and pretraining with
 * `noiseActions: 'plausible'` (src/core/pretrain/demos.ts) demonstrates them in place of random-word actions.
 */
import { describe, expect, it } from 'vitest';
import { searchqaPlausibleMistake } from '../../../../src/core/envs/searchqa/mistake';
import { corpus } from '../../../../src/core/envs/searchqa/corpus';
import { searchqa } from '../../../../src/core/envs/searchqa';
import { getEnvSpec } from '../../../../src/core/envs/registry';
import { makeDemos } from '../../../../src/core/pretrain/demos';
import { noisyDemoSetup } from '../../../helpers/noisy-demos';
import { buildTokenizer } from '../../../../src/core/model/policy';
import { Rng } from '../../../../src/core/rng';

describe('searchqa plausible mistakes', () => {
  // Passage 40: "Kestrel Vale is a town in Belmora, founded in 1702." (corpus.ts, the seeded world)
  const p = corpus()[40];
  const obs = `Doc 1(Title: ${p.title}) ${p.text}`;

  it('draws among searching or answering each name on screen and answering each year of the observation', () => {
    expect(p.text).toBe('Kestrel Vale is a town in Belmora, founded in 1702.');
    const r = new Rng(3);
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) seen.add(searchqaPlausibleMistake('Where was Kestrel Vale founded?', obs, r)!);
    expect([...seen].sort()).toEqual([
      'answer[1702]',
      'answer[Belmora]',
      'answer[Kestrel Vale]',
      'search[Belmora]',
      'search[Kestrel Vale]',
    ]);
  });

  it('a name in lower case (an NQ-style question) is searched as written', () => {
    const r = new Rng(2);
    const seen = new Set<string>();
    for (let i = 0; i < 50; i++) seen.add(searchqaPlausibleMistake('where is kestrel vale', 'Question received.', r)!);
    expect([...seen].sort()).toEqual(['answer[kestrel vale]', 'search[kestrel vale]']);
  });

  it('a year in the question is no answer, a name inside a longer word is none; nothing on screen: undefined', () => {
    const r = new Rng(1);
    const start = 'Question received. Search or answer.';
    const seen = new Set<string>();
    for (let i = 0; i < 50; i++)
      seen.add(searchqaPlausibleMistake('Which town was founded in 1702 in Belmora?', start, r)!);
    expect([...seen].sort()).toEqual(['answer[Belmora]', 'search[Belmora]']);
    expect(searchqaPlausibleMistake('who is Belmorax', 'No passage matches the query.', r)).toBeUndefined();
  });

  it('the same rng draws the same mistakes', () => {
    const draw = (seed: number) => {
      const r = new Rng(seed);
      return Array.from({ length: 20 }, () => searchqaPlausibleMistake('Where is Kestrel Vale?', obs, r));
    };
    expect(draw(5)).toEqual(draw(5));
    expect(draw(5)).not.toEqual(draw(6));
  });
});

describe('pretraining with plausible noisy actions', () => {
  const { tok, o, text } = noisyDemoSetup(searchqa, 30, 1);

  it('every noisy action is a search or an answer of a name or year (random words without: `search[the the]`)', () => {
    const random = makeDemos(searchqa, tok, { ...o, rng: new Rng(1) });
    const plausible = makeDemos(searchqa, tok, { ...o, rng: new Rng(1), noiseActions: 'plausible' });
    const actions = (d: typeof random) => d.samples.map((s) => text(s.response).trim());
    // With noise 1 every step is the demonstrator's noise; a plausible one names an entity (any case) or a year.
    const names = new Set(corpus().map((c) => c.title.toLowerCase()));
    const named = (a: string) => {
      const m = /^(search|answer)\[(.*)\]$/.exec(a);
      return m !== null && (names.has(m[2].toLowerCase()) || (m[1] === 'answer' && /^\d{4}$/.test(m[2])));
    };
    expect(actions(plausible).length).toBeGreaterThan(0);
    expect(actions(plausible).every(named)).toBe(true);
    expect(actions(random).filter(named).length).toBeLessThan(actions(random).length / 2);
  });

  it('the default (random) demonstrates exactly what no noiseActions does', () => {
    expect(makeDemos(searchqa, tok, { ...o, rng: new Rng(2), noiseActions: 'random' })).toEqual(
      makeDemos(searchqa, tok, { ...o, rng: new Rng(2) }),
    );
  });

  it('an env without plausible mistakes refuses them', () => {
    const household = getEnvSpec('household');
    expect(() =>
      makeDemos(household, buildTokenizer(household), {
        ...o,
        preset: 'easy',
        rng: new Rng(1),
        noiseActions: 'plausible',
      }),
    ).toThrow(
      'makeDemos: household has no plausible mistakes (EnvSpec.plausibleMistake); leave noiseActions at random',
    );
  });
});
