/** Test helpers: hand-built household worlds and a started env on them. */
import { expect } from 'vitest';
import type { StepResult } from '../../../../src/core/envs/types';
import { CLOSABLE_KINDS, DESKLAMP } from '../../../../src/core/envs/household/catalog';
import { HouseholdEnv } from '../../../../src/core/envs/household/env';
import { byKindNum, type Goal, type World } from '../../../../src/core/envs/household/world';

/**
 * A world from receptacle names (doored kinds start closed) and `[object, receptacle]` pairs.
 * Default room: cabinet 1 {mug 1}, countertop 1 {apple 1, knife 1}, desk 1 {book 1, desklamp 1},
 * fridge 1 {egg 1}, microwave 1 {}, sinkbasin 1 {}.
 */
export function buildWorld(
  goal: Goal,
  recs: string[] = ['cabinet 1', 'countertop 1', 'desk 1', 'fridge 1', 'microwave 1', 'sinkbasin 1'],
  things: Array<[string, string]> = [
    ['mug 1', 'cabinet 1'],
    ['apple 1', 'countertop 1'],
    ['knife 1', 'countertop 1'],
    ['book 1', 'desk 1'],
    ['desklamp 1', 'desk 1'],
    ['egg 1', 'fridge 1'],
  ],
): World {
  const receptacles = recs.map((name) => {
    const [kind, n] = name.split(' ');
    const closable = CLOSABLE_KINDS.includes(kind);
    return { name, kind, num: Number(n), closable, open: !closable };
  });
  const objs = things.map(([name, location]) => {
    const [kind, n] = name.split(' ');
    return { name, kind, num: Number(n), location, takeable: kind !== DESKLAMP, clean: false, hot: false, cold: false };
  });
  return {
    receptacles: receptacles.sort(byKindNum),
    things: objs.sort(byKindNum),
    at: null,
    holding: null,
    goal,
    layout: 'hand-built',
    split: 'train',
    index: 0,
    preset: 'default',
  };
}

/** A `default`-preset env started on `world`. */
export function envOn(world: World): HouseholdEnv {
  const env = new HouseholdEnv('default');
  env.resetWorld(world);
  return env;
}

/**
 * Step through `[action, expected observation]` pairs, asserting each observation (with the action in the
 * message, so a failure names its step); returns every step result.
 */
export function play(env: HouseholdEnv, script: Array<[string, string]>): StepResult[] {
  return script.map(([action, obs]) => {
    const r = env.step(action);
    expect(`${action} -> ${r.observation}`).toBe(`${action} -> ${obs}`);
    return r;
  });
}
