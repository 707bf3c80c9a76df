/** The household expert solves every task; a random admissible policy rarely does on `easy`. */
import { describe, expect, it } from 'vitest';
import { household } from '../../../../src/core/envs/household';
import { HouseholdEnv } from '../../../../src/core/envs/household/env';
import { expertPlan, subgoals } from '../../../../src/core/envs/household/expert';
import { Rng } from '../../../../src/core/rng';
import { SPLITS, type Env } from '../../../../src/core/envs/types';
import { buildWorld, envOn } from './helpers';

/** Run the expert to the end; every action must be admissible. Returns success and length. */
function runExpert(env: Env): { success: boolean; steps: number } {
  const expert = household.expert(env);
  let r;
  do {
    const a = expert.act();
    expect(env.admissibleActions()).toContain(a);
    r = env.step(a);
  } while (!r.done);
  return { success: r.success, steps: env.steps };
}

describe('household expert', () => {
  for (const preset of ['default', 'easy', 'easy-pick2']) {
    for (const split of SPLITS) {
      it(`solves 200/200 ${preset} ${split} tasks within maxSteps`, () => {
        const env = household.create(preset);
        let solved = 0;
        let steps = 0;
        for (let index = 0; index < 200; index++) {
          env.reset({ split, index });
          const r = runExpert(env);
          solved += r.success ? 1 : 0;
          steps += r.steps;
        }
        expect(solved).toBe(200);
        if (preset === 'easy') expect(steps / 200).toBe(4);
        else expect(steps / 200).toBeLessThan(10);
      });
    }
  }

  it('recovers after noisy actions (3 random admissible actions first)', () => {
    const rng = new Rng(5);
    const env = household.create('default');
    for (let index = 0; index < 100; index++) {
      env.reset({ split: 'train', index });
      for (let k = 0; k < 3; k++) env.step(rng.pick(env.admissibleActions()));
      expect(runExpert(env).success).toBe(true);
    }
  });

  it('puts down an object the task does not need', () => {
    const env = envOn(buildWorld({ type: 'pick', object: 'egg', target: 'countertop' }));
    env.step('go to countertop 1');
    env.step('take knife 1 from countertop 1');
    env.step('go to fridge 1');
    const expert = household.expert(env);
    expect(expert.act()).toBe('open fridge 1');
    env.step('open fridge 1');
    expect(expert.act()).toBe('move knife 1 to fridge 1');
    expect(runExpert(env).success).toBe(true);
  });

  it('expertPlan matches stepping with the expert and leaves the state unchanged', () => {
    const env = new HouseholdEnv('default');
    env.reset({ split: 'test-seen', index: 3 });
    const before = JSON.stringify(env.world);
    const plan = expertPlan(env.world, env.maxSteps);
    expect(JSON.stringify(env.world)).toBe(before);
    const taken: string[] = [];
    const expert = household.expert(env);
    while (!env.done) {
      taken.push(expert.act());
      env.step(taken.at(-1) as string);
    }
    expect(taken).toEqual(plan);
    expect(env.success).toBe(true);
  });

  it('names the subgoals of each task type', () => {
    expect(subgoals({ type: 'clean', object: 'apple', target: 'fridge' })).toEqual([
      'take a apple',
      'clean it with sinkbasin',
      'put it in fridge',
    ]);
    expect(subgoals({ type: 'look', object: 'book', target: 'desk' })).toEqual([
      'take a book',
      'go to the desklamp on the desk',
      'use the desklamp',
    ]);
    expect(subgoals({ type: 'pick2', object: 'cd', target: 'safe' })).toHaveLength(4);
  });

  it('refuses an env it did not create', () => {
    const fake = {
      reset: () => ({}),
      step: () => ({}),
      admissibleActions: () => [],
      steps: 0,
      maxSteps: 1,
    } as unknown as Env;
    expect(() => household.expert(fake)).toThrow(/household.create/);
  });

  it('a uniformly random admissible policy on easy succeeds on some but under half of 100 tasks', () => {
    const env = household.create('easy');
    const rng = new Rng(2024);
    let solved = 0;
    for (let index = 0; index < 100; index++) {
      env.reset({ split: 'train', index });
      let r;
      do r = env.step(rng.pick(env.admissibleActions()));
      while (!r.done);
      solved += r.success ? 1 : 0;
    }
    console.log(`household easy: random admissible policy solved ${solved}/100 train tasks`);
    expect(solved).toBeGreaterThan(0);
    expect(solved).toBeLessThan(50);
  });
});
