/** Household rules on a hand-built room: exact observations for every command and precondition (ALFWorld rules). */
import { describe, expect, it } from 'vitest';
import { buildWorld, envOn, play } from './helpers';

const NOTHING = 'Nothing happens.';
const pickApple = { type: 'pick', object: 'apple', target: 'fridge' } as const;
const ROOM =
  'You are in the middle of a room. Looking quickly around you, you see a cabinet 1, a countertop 1, a desk 1, ' +
  'a fridge 1, a microwave 1, and a sinkbasin 1.';

describe('household rules', () => {
  it('reset shows the room and lists go-to, inventory and look', () => {
    const env = envOn(buildWorld(pickApple));
    const r = env.resetWorld(buildWorld(pickApple));
    expect(r).toEqual({ task: 'put a apple in fridge.', taskType: 'pick', observation: ROOM });
    expect(env.admissibleActions()).toEqual([
      'go to cabinet 1',
      'go to countertop 1',
      'go to desk 1',
      'go to fridge 1',
      'go to microwave 1',
      'go to sinkbasin 1',
      'inventory',
      'look',
    ]);
  });

  it('go to shows an open surface, and the admissible list at a receptacle', () => {
    const env = envOn(buildWorld(pickApple));
    play(env, [
      ['go to countertop 1', 'You arrive at countertop 1. On the countertop 1, you see a apple 1, and a knife 1.'],
    ]);
    expect(env.admissibleActions()).toEqual([
      'go to cabinet 1',
      'go to desk 1',
      'go to fridge 1',
      'go to microwave 1',
      'go to sinkbasin 1',
      'take apple 1 from countertop 1',
      'take knife 1 from countertop 1',
      'examine countertop 1',
      'inventory',
      'look',
    ]);
    play(env, [
      ['go to countertop 1', NOTHING], // already there
      ['go to sinkbasin 1', 'You arrive at sinkbasin 1. On the sinkbasin 1, you see nothing.'],
    ]);
  });

  it('closed receptacles hide their contents until opened; no take from / move into a closed one', () => {
    const env = envOn(buildWorld(pickApple));
    play(env, [
      ['go to fridge 1', 'You arrive at fridge 1. The fridge 1 is closed.'],
      ['take egg 1 from fridge 1', NOTHING],
      ['close fridge 1', NOTHING],
      ['examine fridge 1', 'The fridge 1 is closed.'],
    ]);
    expect(env.admissibleActions()).not.toContain('take egg 1 from fridge 1');
    expect(env.admissibleActions()).toContain('open fridge 1');
    play(env, [
      ['open fridge 1', 'You open the fridge 1. The fridge 1 is open. In it, you see a egg 1.'],
      ['open fridge 1', NOTHING],
      ['take egg 1 from fridge 1', 'You pick up the egg 1 from the fridge 1.'],
      ['close fridge 1', 'You close the fridge 1.'],
      ['go to microwave 1', 'You arrive at microwave 1. The microwave 1 is closed.'],
      ['move egg 1 to microwave 1', NOTHING],
      ['open microwave 1', 'You open the microwave 1. The microwave 1 is open. In it, you see nothing.'],
      ['move egg 1 to microwave 1', 'You move the egg 1 to the microwave 1.'],
      ['examine microwave 1', 'The microwave 1 is open. In it, you see a egg 1.'],
      ['go to fridge 1', 'You arrive at fridge 1. The fridge 1 is closed.'],
      ['go to microwave 1', 'You arrive at microwave 1. The microwave 1 is open. In it, you see a egg 1.'],
    ]);
  });

  it('must be at the receptacle to open, close, take from or move to it', () => {
    const env = envOn(buildWorld(pickApple));
    play(env, [
      ['take apple 1 from countertop 1', NOTHING],
      ['open fridge 1', NOTHING],
      ['go to countertop 1', 'You arrive at countertop 1. On the countertop 1, you see a apple 1, and a knife 1.'],
      ['open fridge 1', NOTHING],
      ['take egg 1 from fridge 1', NOTHING],
      ['take apple 1 from countertop 1', 'You pick up the apple 1 from the countertop 1.'],
      ['move apple 1 to fridge 1', NOTHING],
      ['move apple 1 to sinkbasin 1', NOTHING],
    ]);
  });

  it('must hold the object to move, clean, heat, cool or examine it; holds at most one object', () => {
    const env = envOn(buildWorld(pickApple));
    play(env, [
      ['go to countertop 1', 'You arrive at countertop 1. On the countertop 1, you see a apple 1, and a knife 1.'],
      ['move apple 1 to countertop 1', NOTHING],
      ['examine apple 1', NOTHING],
      ['take apple 1 from countertop 1', 'You pick up the apple 1 from the countertop 1.'],
      ['take knife 1 from countertop 1', NOTHING], // one object at a time
      ['move knife 1 to countertop 1', NOTHING],
      ['go to sinkbasin 1', 'You arrive at sinkbasin 1. On the sinkbasin 1, you see nothing.'],
      ['clean knife 1 with sinkbasin 1', NOTHING],
    ]);
    expect(env.admissibleActions().filter((a) => a.startsWith('take'))).toEqual([]);
    play(env, [
      ['move apple 1 to sinkbasin 1', 'You move the apple 1 to the sinkbasin 1.'],
      ['clean apple 1 with sinkbasin 1', NOTHING],
    ]);
  });

  it('clean only at a sinkbasin, heat only at a microwave, cool only at a fridge (doors may stay closed)', () => {
    const env = envOn(buildWorld(pickApple));
    play(env, [
      ['go to countertop 1', 'You arrive at countertop 1. On the countertop 1, you see a apple 1, and a knife 1.'],
      ['take apple 1 from countertop 1', 'You pick up the apple 1 from the countertop 1.'],
      ['clean apple 1 with sinkbasin 1', NOTHING],
      ['go to microwave 1', 'You arrive at microwave 1. The microwave 1 is closed.'],
      ['cool apple 1 with fridge 1', NOTHING],
      ['clean apple 1 with sinkbasin 1', NOTHING],
      ['heat apple 1 with microwave 1', 'You heat the apple 1 using the microwave 1.'],
      ['go to fridge 1', 'You arrive at fridge 1. The fridge 1 is closed.'],
      ['heat apple 1 with microwave 1', NOTHING],
      ['cool apple 1 with fridge 1', 'You cool the apple 1 using the fridge 1.'],
      ['go to sinkbasin 1', 'You arrive at sinkbasin 1. On the sinkbasin 1, you see nothing.'],
      ['clean apple 1 with sinkbasin 1', 'You clean the apple 1 using the sinkbasin 1.'],
    ]);
  });

  it('heating clears cold and cooling clears hot', () => {
    const env = envOn(buildWorld(pickApple));
    play(env, [
      ['go to countertop 1', 'You arrive at countertop 1. On the countertop 1, you see a apple 1, and a knife 1.'],
      ['take apple 1 from countertop 1', 'You pick up the apple 1 from the countertop 1.'],
      ['examine apple 1', "There's nothing special about apple 1."],
      ['go to fridge 1', 'You arrive at fridge 1. The fridge 1 is closed.'],
      ['cool apple 1 with fridge 1', 'You cool the apple 1 using the fridge 1.'],
      ['examine apple 1', 'The apple 1 is cold.'],
      ['go to microwave 1', 'You arrive at microwave 1. The microwave 1 is closed.'],
      ['heat apple 1 with microwave 1', 'You heat the apple 1 using the microwave 1.'],
      ['examine apple 1', 'The apple 1 is hot.'],
      ['go to sinkbasin 1', 'You arrive at sinkbasin 1. On the sinkbasin 1, you see nothing.'],
      ['clean apple 1 with sinkbasin 1', 'You clean the apple 1 using the sinkbasin 1.'],
      ['examine apple 1', 'The apple 1 is clean and hot.'],
      ['go to fridge 1', 'You arrive at fridge 1. The fridge 1 is closed.'],
      ['cool apple 1 with fridge 1', 'You cool the apple 1 using the fridge 1.'],
      ['examine apple 1', 'The apple 1 is clean and cold.'],
    ]);
    const apple = env.world.things.find((t) => t.name === 'apple 1');
    expect(apple).toMatchObject({ clean: true, hot: false, cold: true, location: null });
  });

  it('inventory, look and examine report without changing anything', () => {
    const env = envOn(buildWorld(pickApple));
    play(env, [
      ['inventory', 'You are not carrying anything.'],
      ['look', ROOM],
      ['examine countertop 1', NOTHING], // not there
      ['go to countertop 1', 'You arrive at countertop 1. On the countertop 1, you see a apple 1, and a knife 1.'],
      ['look', 'You are facing the countertop 1.'],
      ['examine countertop 1', 'On the countertop 1, you see a apple 1, and a knife 1.'],
      ['take knife 1 from countertop 1', 'You pick up the knife 1 from the countertop 1.'],
      ['inventory', 'You are carrying: a knife 1.'],
      ['examine countertop 1', 'On the countertop 1, you see a apple 1.'],
    ]);
    const before = JSON.stringify(env.world);
    for (const a of ['inventory', 'look', 'examine countertop 1', 'examine knife 1'])
      expect(env.step(a).valid).toBe(true);
    expect(JSON.stringify(env.world)).toBe(before);
  });

  it('the desklamp is used where it stands and cannot be taken', () => {
    const env = envOn(buildWorld(pickApple));
    play(env, [
      ['use desklamp 1', NOTHING],
      ['go to desk 1', 'You arrive at desk 1. On the desk 1, you see a book 1, and a desklamp 1.'],
      ['take desklamp 1 from desk 1', NOTHING],
      ['use desklamp 1', 'You turn on the desklamp 1.'],
    ]);
    expect(env.admissibleActions()).toEqual([
      'go to cabinet 1',
      'go to countertop 1',
      'go to fridge 1',
      'go to microwave 1',
      'go to sinkbasin 1',
      'take book 1 from desk 1',
      'use desklamp 1',
      'examine desk 1',
      'inventory',
      'look',
    ]);
  });

  it('an inadmissible action changes nothing, answers exactly "Nothing happens." and counts as a step', () => {
    const env = envOn(buildWorld(pickApple));
    const before = JSON.stringify(env.world);
    for (const a of ['', '   ', 'x'.repeat(10_000), 'go to fridge 9', 'take apple 1 from countertop 1', 'jump']) {
      expect(env.step(a)).toEqual({ observation: NOTHING, reward: 0, done: false, valid: false, success: false });
    }
    expect(env.steps).toBe(6);
    expect(JSON.stringify(env.world)).toBe(before);
  });

  it('normalises odd whitespace and case before judging', () => {
    const env = envOn(buildWorld(pickApple));
    play(env, [['  GO   to  Fridge 1 ', 'You arrive at fridge 1. The fridge 1 is closed.']]);
    play(env, [['\tOpen\n fridge\t1', 'You open the fridge 1. The fridge 1 is open. In it, you see a egg 1.']]);
    expect(env.step('INVENTORY').valid).toBe(true);
  });
});
