/**
 * The state a trajectory shows (tracked-state.ts): read from real household observations, and `knownAdmissible`
 * against the environment's own admissible lists (ALFWorld's preconditions, src/core/envs/household/rules.ts).
 */
import { describe, expect, it } from 'vitest';
import { doorOf, knownAdmissible, trackStates } from '../../../../../src/core/envs/household/analyzer/tracked-state';
import { executableFix } from '../../../../../src/core/envs/household/analyzer/workflow';
import { getEnvSpec } from '../../../../../src/core/envs/registry';
import { Rng } from '../../../../../src/core/rng';

const spec = getEnvSpec('household');
const step = (observation: string, action: string, valid = true) => ({ observation, action, valid });

describe('trackStates reads doors and contents from the observations', () => {
  const room =
    'You are in the middle of a room. Looking quickly around you, you see a countertop 1, a fridge 1, and ' +
    'a sidetable 1.';
  const t = {
    steps: [
      step(room, 'go to fridge 1'),
      step('You arrive at fridge 1. The fridge 1 is closed.', 'open fridge 1'),
      step(
        'You open the fridge 1. The fridge 1 is open. In it, you see a apple 1, and a egg 2.',
        'take apple 1 from fridge 1',
      ),
      step('You pick up the apple 1 from the fridge 1.', 'close fridge 1'),
      step('You close the fridge 1.', 'go to sidetable 1'),
    ],
    finalObservation: 'You arrive at sidetable 1. On the sidetable 1, you see a desklamp 1.',
  };
  const s = trackStates(t);

  it('door seen closed, opened, closed again; contents listed, then the take removes the apple', () => {
    expect(s.map((x) => [x.at, x.held, x.doors.get('fridge 1') ?? null])).toEqual([
      [null, null, null],
      ['fridge 1', null, 'closed'],
      ['fridge 1', null, 'open'],
      ['fridge 1', 'apple 1', 'open'],
      ['fridge 1', 'apple 1', 'closed'],
      ['sidetable 1', 'apple 1', 'closed'],
    ]);
    expect(s[5].doors.get('sidetable 1')).toBe('none');
    expect(s[2].contents.get('fridge 1')).toEqual(['apple 1', 'egg 2']);
    expect(s[3].contents.get('fridge 1')).toEqual(['egg 2']);
    expect(s[5].contents.get('sidetable 1')).toEqual(['desklamp 1']);
    // A kind without a door never has one (ALFWorld); a closable kind never seen is unknown.
    expect(doorOf(s[0], 'countertop 1')).toBe('none');
    expect(doorOf(s[0], 'fridge 1')).toBeUndefined();
  });

  it('knownAdmissible: the preconditions, from what was seen', () => {
    expect(knownAdmissible('take apple 1 from fridge 1', s[1])).toBe(false); // door closed
    expect(knownAdmissible('open fridge 1', s[1])).toBe(true);
    expect(knownAdmissible('take apple 1 from fridge 1', s[2])).toBe(true);
    expect(knownAdmissible('take egg 1 from fridge 1', s[2])).toBe(false); // not seen there
    expect(knownAdmissible('move apple 1 to fridge 1', s[4])).toBe(false); // closed again
    expect(knownAdmissible('cool apple 1 with fridge 1', s[4])).toBe(true); // cooling works with the door closed
    expect(knownAdmissible('go to fridge 1', s[4])).toBe(false); // already there
    expect(knownAdmissible('use desklamp 1', s[5])).toBe(true);
    expect(knownAdmissible('use desklamp 1', s[4])).toBe(false);
    expect(knownAdmissible('look', s[5])).toBe(false); // information commands not shown to be offered
    expect(knownAdmissible('examine apple 1', { ...s[5], info: true })).toBe(true);
  });

  it('executableFix: open a closed receptacle first, go to the lamp with the object, skip a fix already done', () => {
    const W = ['go to fridge 1', 'open fridge 1', 'take apple 1 from fridge 1', 'go to sidetable 1', 'use desklamp 1'];
    expect(executableFix('take apple 1 from fridge 1', s[1], W)).toBe('open fridge 1');
    expect(executableFix('move apple 1 to fridge 1', s[4], W)).toBe('open fridge 1');
    expect(executableFix('use desklamp 1', s[4], W)).toBe('go to sidetable 1');
    expect(executableFix('use desklamp 1', s[1], W)).toBe('open fridge 1'); // fetch the apple first
    expect(executableFix('use desklamp 1', s[5], W)).toBe('use desklamp 1');
    expect(executableFix('open fridge 1', s[2], W)).toBe('take apple 1 from fridge 1'); // already open
    // already there (open is done too)
    expect(executableFix('go to fridge 1', s[2], W, 0)).toBe('take apple 1 from fridge 1');
    expect(executableFix('examine fridge 1', s[5], ['examine fridge 1', 'use desklamp 1'])).toBe('use desklamp 1');
  });
});

describe("knownAdmissible equals the environment's admissible list on real trajectories", () => {
  it.each([
    ['default', 60, true],
    ['easy', 60, false],
  ] as const)('household/%s: %i tasks × 2 rollouts (expert with noise, random)', (preset, tasks, info) => {
    const rng = new Rng(5);
    let checked = 0;
    const wrong: string[] = [];
    for (let index = 0; index < tasks; index++) {
      for (const noise of [0.3, 1]) {
        const env = spec.create(preset);
        const expert = spec.expert(env);
        let obs = env.reset({ split: 'train', index }).observation,
          done = false;
        const steps: { observation: string; action: string; valid: boolean }[] = [],
          lists: string[][] = [];
        while (!done) {
          const a = env.admissibleActions();
          const action = rng.next() < noise ? a[rng.int(a.length)] : expert.act();
          const st = env.step(action);
          steps.push(step(obs, action, st.valid));
          lists.push(a);
          obs = st.observation;
          done = st.done;
        }
        // Every action the episode ever offered is a candidate at every step: admissible there exactly when known so.
        const candidates = [...new Set(lists.flat())];
        const states = trackStates({ steps }, info);
        lists.forEach((a, i) => {
          for (const c of candidates) {
            checked++;
            if (knownAdmissible(c, states[i]) !== a.includes(c) && wrong.length < 5)
              wrong.push(`${preset} task ${index} step ${i}: ${c} (admissible ${a.includes(c)})`);
          }
        });
      }
    }
    expect(wrong).toEqual([]);
    expect(checked).toBeGreaterThan(preset === 'default' ? 50_000 : 5_000);
  });
});
