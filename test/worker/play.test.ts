/** The Play view's worker side (src/worker/play.ts): requests are checked, each step returns the episode so far. */
import { describe, expect, it } from 'vitest';
import { PlayTable } from '../../src/worker/play';

describe('PlayTable', () => {
  it('starts a task by index or by seed and plays it to the summary', () => {
    const t = new PlayTable();
    expect(t.view()).toBeNull();
    const v = t.start({ env: 'household', preset: 'easy', split: 'train', index: 357 });
    expect(v).toMatchObject({
      index: 357,
      task: 'put a laptop in sidetable.',
      admissible: ['go to desk 1', 'go to shelf 1', 'go to sidetable 1'],
    });
    expect(t.step('fly to moon').turns[0]).toMatchObject({
      valid: false,
      observation: 'Nothing happens.',
      hint: expect.stringMatching(/^"fly to moon" is not a command of household\/easy; commands here: go to …/),
    });
    for (const a of ['go to desk 1', 'take laptop 1 from desk 1', 'go to sidetable 1']) t.step(a);
    const end = t.step('move laptop 1 to sidetable 1');
    expect(end.summary).toEqual({
      ...{ steps: 5, maxSteps: 10, success: true, reward: 1, invalid: 1, done: true, truncated: false },
    });
    expect(() => t.step('look')).toThrow('play: the episode has ended; start a new task');
    const s = t.start({ env: 'household', preset: 'default', split: 'train', seed: 5 });
    expect(s.index).toBe(220338);
    expect(s.turns).toEqual([]);
  });

  it('refuses bad requests and actions, naming the field; the task before stays', () => {
    const t = new PlayTable();
    expect(() => t.step('look')).toThrow('play: no task started; choose one and press Start');
    const ok = { env: 'household', preset: 'easy', split: 'train', index: 0 };
    t.start(ok);
    expect(() => t.start({ ...ok, preset: 'hard' })).toThrow(
      'play: preset must be one of: default, easy, easy-pick2 (got "hard")',
    );
    expect(() => t.start({ ...ok, env: 'nope' })).toThrow(
      'play: unknown env "nope"; accepted: household, shop, searchqa',
    );
    expect(() => t.start({ ...ok, split: 'dev' })).toThrow(/^play: split: /);
    expect(() => t.start({ ...ok, index: -1 })).toThrow(/^play: index: /);
    expect(() => t.start({ ...ok, seed: 3 })).toThrow(
      'play: index: give either index (a task index) or seed (a random task), not both or neither',
    );
    expect(() => t.start({ ...ok, extra: 1 })).toThrow(/^play: /);
    expect(() => t.step(7)).toThrow('play: action must be text');
    expect(() => t.step('x'.repeat(10_001))).toThrow('play: action must be at most 10000 characters (got 10001)');
    expect(t.view()).toMatchObject({ preset: 'easy', index: 0, turns: [] });
  });
});
