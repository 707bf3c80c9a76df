/** The six household task types: exact solving sequences, reward, done and the end of the episode. */
import { describe, expect, it } from 'vitest';
import { HouseholdEnv } from '../../../../src/core/envs/household/env';
import type { Goal } from '../../../../src/core/envs/household/world';
import { buildWorld, envOn, play } from './helpers';

const NOTHING = 'Nothing happens.';
const AT_COUNTER = 'You arrive at countertop 1. On the countertop 1, you see a apple 1, and a knife 1.';

/** Every step but the last gives reward 0 and done false; the last reward 1, done and success. */
function expectSolvedAtLast(results: { reward: number; done: boolean; success: boolean }[]): void {
  for (const r of results.slice(0, -1)) expect([r.reward, r.done, r.success]).toEqual([0, false, false]);
  expect(results.at(-1)).toMatchObject({ reward: 1, done: true, success: true, valid: true });
}

describe('household task types', () => {
  it('pick: put a apple in fridge', () => {
    const env = envOn(buildWorld({ type: 'pick', object: 'apple', target: 'fridge' }));
    const rs = play(env, [
      ['go to countertop 1', AT_COUNTER],
      ['take apple 1 from countertop 1', 'You pick up the apple 1 from the countertop 1.'],
      ['go to fridge 1', 'You arrive at fridge 1. The fridge 1 is closed.'],
      ['open fridge 1', 'You open the fridge 1. The fridge 1 is open. In it, you see a egg 1.'],
      ['move apple 1 to fridge 1', 'You move the apple 1 to the fridge 1.'],
    ]);
    expectSolvedAtLast(rs);
    expect(env.done).toBe(true);
    expect(env.admissibleActions()).toEqual([]);
    expect(() => env.step('look')).toThrow(/after the episode ended/);
  });

  it('pick: a receptacle of another kind does not count', () => {
    const env = envOn(buildWorld({ type: 'pick', object: 'egg', target: 'countertop' }));
    const rs = play(env, [
      ['go to fridge 1', 'You arrive at fridge 1. The fridge 1 is closed.'],
      ['open fridge 1', 'You open the fridge 1. The fridge 1 is open. In it, you see a egg 1.'],
      ['take egg 1 from fridge 1', 'You pick up the egg 1 from the fridge 1.'],
      ['go to sinkbasin 1', 'You arrive at sinkbasin 1. On the sinkbasin 1, you see nothing.'],
      ['move egg 1 to sinkbasin 1', 'You move the egg 1 to the sinkbasin 1.'],
    ]);
    expect(rs.at(-1)).toMatchObject({ reward: 0, done: false });
  });

  it('clean: put a clean apple in fridge (a dirty apple in the fridge does not count)', () => {
    const env = envOn(buildWorld({ type: 'clean', object: 'apple', target: 'fridge' }));
    expect(env.resetWorld(buildWorld({ type: 'clean', object: 'apple', target: 'fridge' })).task).toBe(
      'put a clean apple in fridge.',
    );
    const rs = play(env, [
      ['go to countertop 1', AT_COUNTER],
      ['take apple 1 from countertop 1', 'You pick up the apple 1 from the countertop 1.'],
      ['go to fridge 1', 'You arrive at fridge 1. The fridge 1 is closed.'],
      ['open fridge 1', 'You open the fridge 1. The fridge 1 is open. In it, you see a egg 1.'],
      ['move apple 1 to fridge 1', 'You move the apple 1 to the fridge 1.'],
      ['take apple 1 from fridge 1', 'You pick up the apple 1 from the fridge 1.'],
      ['go to sinkbasin 1', 'You arrive at sinkbasin 1. On the sinkbasin 1, you see nothing.'],
      ['clean apple 1 with sinkbasin 1', 'You clean the apple 1 using the sinkbasin 1.'],
      ['go to fridge 1', 'You arrive at fridge 1. The fridge 1 is open. In it, you see a egg 1.'],
      ['move apple 1 to fridge 1', 'You move the apple 1 to the fridge 1.'],
    ]);
    expectSolvedAtLast(rs);
  });

  it('heat: put a hot egg in countertop (heating with the microwave door closed)', () => {
    const env = envOn(buildWorld({ type: 'heat', object: 'egg', target: 'countertop' }));
    const rs = play(env, [
      ['go to fridge 1', 'You arrive at fridge 1. The fridge 1 is closed.'],
      ['open fridge 1', 'You open the fridge 1. The fridge 1 is open. In it, you see a egg 1.'],
      ['take egg 1 from fridge 1', 'You pick up the egg 1 from the fridge 1.'],
      ['go to microwave 1', 'You arrive at microwave 1. The microwave 1 is closed.'],
      ['heat egg 1 with microwave 1', 'You heat the egg 1 using the microwave 1.'],
      ['go to countertop 1', AT_COUNTER],
      ['move egg 1 to countertop 1', 'You move the egg 1 to the countertop 1.'],
    ]);
    expectSolvedAtLast(rs);
  });

  it('cool: put a cool mug in countertop (a mug heated after cooling no longer counts)', () => {
    const goal: Goal = { type: 'cool', object: 'mug', target: 'countertop' };
    const env = envOn(buildWorld(goal));
    const rs = play(env, [
      ['go to cabinet 1', 'You arrive at cabinet 1. The cabinet 1 is closed.'],
      ['open cabinet 1', 'You open the cabinet 1. The cabinet 1 is open. In it, you see a mug 1.'],
      ['take mug 1 from cabinet 1', 'You pick up the mug 1 from the cabinet 1.'],
      ['go to fridge 1', 'You arrive at fridge 1. The fridge 1 is closed.'],
      ['cool mug 1 with fridge 1', 'You cool the mug 1 using the fridge 1.'],
      ['go to microwave 1', 'You arrive at microwave 1. The microwave 1 is closed.'],
      ['heat mug 1 with microwave 1', 'You heat the mug 1 using the microwave 1.'],
      ['go to countertop 1', AT_COUNTER],
      ['move mug 1 to countertop 1', 'You move the mug 1 to the countertop 1.'],
    ]);
    expect(rs.at(-1)).toMatchObject({ reward: 0, done: false });
    const rs2 = play(env, [
      ['take mug 1 from countertop 1', 'You pick up the mug 1 from the countertop 1.'],
      ['go to fridge 1', 'You arrive at fridge 1. The fridge 1 is closed.'],
      ['cool mug 1 with fridge 1', 'You cool the mug 1 using the fridge 1.'],
      ['go to countertop 1', 'You arrive at countertop 1. On the countertop 1, you see a apple 1, and a knife 1.'],
      ['move mug 1 to countertop 1', 'You move the mug 1 to the countertop 1.'],
    ]);
    expectSolvedAtLast(rs2);
  });

  it('pick2: put two apple in cabinet (both in the same cabinet)', () => {
    const recs = ['cabinet 1', 'cabinet 2', 'countertop 1', 'fridge 1'];
    const things: Array<[string, string]> = [
      ['apple 1', 'countertop 1'],
      ['apple 2', 'fridge 1'],
    ];
    const env = envOn(buildWorld({ type: 'pick2', object: 'apple', target: 'cabinet' }, recs, things));
    expect(env.resetWorld(buildWorld({ type: 'pick2', object: 'apple', target: 'cabinet' }, recs, things)).task).toBe(
      'put two apple in cabinet.',
    );
    const rs = play(env, [
      ['go to countertop 1', 'You arrive at countertop 1. On the countertop 1, you see a apple 1.'],
      ['take apple 1 from countertop 1', 'You pick up the apple 1 from the countertop 1.'],
      ['go to cabinet 1', 'You arrive at cabinet 1. The cabinet 1 is closed.'],
      ['open cabinet 1', 'You open the cabinet 1. The cabinet 1 is open. In it, you see nothing.'],
      ['move apple 1 to cabinet 1', 'You move the apple 1 to the cabinet 1.'],
      ['go to fridge 1', 'You arrive at fridge 1. The fridge 1 is closed.'],
      ['open fridge 1', 'You open the fridge 1. The fridge 1 is open. In it, you see a apple 2.'],
      ['take apple 2 from fridge 1', 'You pick up the apple 2 from the fridge 1.'],
      ['go to cabinet 2', 'You arrive at cabinet 2. The cabinet 2 is closed.'],
      ['open cabinet 2', 'You open the cabinet 2. The cabinet 2 is open. In it, you see nothing.'],
      ['move apple 2 to cabinet 2', 'You move the apple 2 to the cabinet 2.'], // different cabinets: not yet
      ['take apple 2 from cabinet 2', 'You pick up the apple 2 from the cabinet 2.'],
      ['go to cabinet 1', 'You arrive at cabinet 1. The cabinet 1 is open. In it, you see a apple 1.'],
      ['move apple 2 to cabinet 1', 'You move the apple 2 to the cabinet 1.'],
    ]);
    expectSolvedAtLast(rs);
  });

  it('look: look at book under the desklamp (holding the book, using the lamp where it stands)', () => {
    const env = envOn(buildWorld({ type: 'look', object: 'book', target: 'desk' }));
    expect(env.resetWorld(buildWorld({ type: 'look', object: 'book', target: 'desk' })).task).toBe(
      'look at book under the desklamp.',
    );
    const rs = play(env, [
      ['go to desk 1', 'You arrive at desk 1. On the desk 1, you see a book 1, and a desklamp 1.'],
      ['use desklamp 1', 'You turn on the desklamp 1.'], // not holding the book yet
      ['take book 1 from desk 1', 'You pick up the book 1 from the desk 1.'],
      ['go to countertop 1', AT_COUNTER],
      ['use desklamp 1', NOTHING], // the lamp is on the desk
      ['go to desk 1', 'You arrive at desk 1. On the desk 1, you see a desklamp 1.'],
      ['use desklamp 1', 'You turn on the desklamp 1.'],
    ]);
    expectSolvedAtLast(rs);
  });

  it('maxSteps ends the episode without reward; step before reset and after done throws', () => {
    const env = new HouseholdEnv('easy');
    expect(() => env.step('look')).toThrow(/reset\(\)/);
    expect(() => env.admissibleActions()).toThrow(/reset\(\)/);
    env.reset({ split: 'train', index: 0 });
    const n = env.maxSteps;
    for (let i = 1; i <= n; i++) {
      const r = env.step(i % 2 ? env.admissibleActions()[0] : 'not a command');
      expect([env.steps, r.done, r.reward, r.success]).toEqual([i, i === n, 0, false]);
    }
    expect(() => env.step('look')).toThrow(/done/);
    env.reset({ split: 'train', index: 0 });
    expect([env.steps, env.done]).toEqual([0, false]);
    expect(new HouseholdEnv('default').maxSteps).toBe(30);
  });

  it('success on the last allowed step still counts', () => {
    const env = new HouseholdEnv('easy');
    env.resetWorld(
      buildWorld(
        { type: 'pick', object: 'apple', target: 'countertop' },
        ['countertop 1', 'shelf 1'],
        [['apple 1', 'shelf 1']],
      ),
    );
    for (let i = 0; i < env.maxSteps - 4; i++) env.step('look');
    const rs = play(env, [
      ['go to shelf 1', 'You arrive at shelf 1. On the shelf 1, you see a apple 1.'],
      ['take apple 1 from shelf 1', 'You pick up the apple 1 from the shelf 1.'],
      ['go to countertop 1', 'You arrive at countertop 1. On the countertop 1, you see nothing.'],
      ['move apple 1 to countertop 1', 'You move the apple 1 to the countertop 1.'],
    ]);
    expect(env.steps).toBe(env.maxSteps);
    expectSolvedAtLast(rs);
  });
});
