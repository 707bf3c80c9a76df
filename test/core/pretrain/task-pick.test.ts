/**
 * Pretraining demonstrations weighted by task type (src/core/pretrain/task-pick.ts): the parser names bad parts, no
 * weights keep tasks 0..n−1, weights of 0 and 1 keep exactly the first n tasks of the kept types, and makeDemos
 * demonstrates only the picked tasks.
 */
import { describe, expect, it } from 'vitest';
import { checkTypeWeights, parseTypeWeights, pickTasks } from '../../../src/core/pretrain/task-pick';
import { makeDemos, DEFAULT_MIX } from '../../../src/core/pretrain/demos';
import { getEnvSpec } from '../../../src/core/envs/registry';
import { buildTokenizer } from '../../../src/core/model/policy';
import { Rng } from '../../../src/core/rng';

const spec = getEnvSpec('searchqa');
const preset = spec.defaultPreset;
const types = spec.taskTypes(preset);
const typeOf = (index: number) => spec.create(preset).reset({ split: 'train', index }).taskType;

describe('pretraining by task type', () => {
  it('parseTypeWeights reads type=weight pairs and names a bad part', () => {
    expect(parseTypeWeights(' popqa=0.2 , musique=4 ', types)).toEqual({ popqa: 0.2, musique: 4 });
    expect(() => parseTypeWeights('musiqe=2', types)).toThrow(
      `type-weights: "musiqe=2" is not type=weight with type one of ${types.join(', ')} and weight ≥ 0 ` +
        '(e.g. nq=0.5); did you mean musique=2?',
    );
    expect(() => parseTypeWeights('popqa=-1', types)).toThrow(/"popqa=-1" is not type=weight/);
    expect(() => parseTypeWeights('popqa=1,popqa=2', types)).toThrow(
      'type-weights: popqa is given twice; give it once',
    );
    expect(() => parseTypeWeights(' , ', types)).toThrow(
      'type-weights: empty; give type=weight pairs, e.g. nq=0.5,bamboogle=2',
    );
    expect(() => parseTypeWeights(`popqa=${'9'.repeat(400)}`, types)).toThrow(
      "type-weights: popqa's weight 999999999999… is too large; give a weight such as 4",
    );
  });

  it('without weights, or with every weight 1, tasks 0..n−1', () => {
    const rng = new Rng(3);
    expect(pickTasks(spec, { preset, split: 'train', tasks: 5, rng })).toEqual([0, 1, 2, 3, 4]);
    const ones = Object.fromEntries(types.map((t) => [t, t === 'bamboogle' ? 0 : 1])); // bamboogle: test only
    expect(pickTasks(spec, { preset, split: 'train', tasks: 5, weights: ones, rng })).toEqual([0, 1, 2, 3, 4]);
  });

  it('a type at 0 is left out: the first n tasks of the other types, whatever the seed', () => {
    const first: number[] = [];
    for (let i = 0; first.length < 30; i++) if (typeOf(i) !== 'popqa') first.push(i);
    expect(first.at(-1)).toBeGreaterThan(29); // popqa tasks were skipped
    for (const seed of [1, 2])
      expect(pickTasks(spec, { preset, split: 'train', tasks: 30, weights: { popqa: 0 }, rng: new Rng(seed) })).toEqual(
        first,
      );
  });

  it('a heavier type is demonstrated more often; the same seed picks the same tasks', () => {
    const o = { preset, split: 'train' as const, tasks: 300, weights: { musique: 4 } };
    const a = pickTasks(spec, { ...o, rng: new Rng(1) });
    expect(pickTasks(spec, { ...o, rng: new Rng(1) })).toEqual(a);
    expect(pickTasks(spec, { ...o, rng: new Rng(2) })).not.toEqual(a);
    const share = (ix: number[]) => ix.filter((i) => typeOf(i) === 'musique').length / ix.length;
    const plain = Array.from({ length: 300 }, (_, i) => i);
    // Each other type is kept with probability 1/4, musique always: its share grows about threefold.
    expect(share(a)).toBeGreaterThan(2.5 * share(plain));
  });

  it('a type train does not hold, or every type it holds at 0, is refused at once', () => {
    const trainTypes = 'nq, triviaqa, popqa, hotpotqa, 2wiki, musique';
    expect(checkTypeWeights(spec, preset, 'train', { popqa: 0 })).toEqual(trainTypes.split(', '));
    expect(() => checkTypeWeights(spec, preset, 'train', { bamboogle: 5 })).toThrow(
      `type-weights: bamboogle is not among the train split's task types (${trainTypes}); leave it out`,
    );
    const zero = Object.fromEntries(types.filter((t) => t !== 'bamboogle').map((t) => [t, 0]));
    expect(() => pickTasks(spec, { preset, split: 'train', tasks: 3, weights: zero, rng: new Rng(1) })).toThrow(
      `type-weights: every task type the train split holds (${trainTypes}) weighs 0 (a type left out weighs 1); ` +
        'give at least one a weight > 0',
    );
  });

  it('makeDemos demonstrates only the picked tasks', () => {
    const tok = buildTokenizer(spec);
    const only = Object.fromEntries(types.map((t) => [t, t === 'hotpotqa' ? 1 : 0]));
    const demos = makeDemos(spec, tok, {
      preset,
      tasks: 6,
      noise: 0,
      stepHintRate: 1,
      stepNoise: 0,
      mix: { ...DEFAULT_MIX, noisy: 1, episode: 0, step: 0, failure: 0 },
      historyTurns: 3,
      maxPrompt: 372,
      rng: new Rng(1),
      typeWeights: only,
    });
    // hotpotqa is two-hop: the noise-free expert searches twice and answers, 3 samples per episode.
    expect(demos.episodes.noisy).toBe(6);
    expect(demos.samples.length).toBe(18);
  });
});
