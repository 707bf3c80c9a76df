import { describe, expect, it } from 'vitest';
import { householdSearchSteps } from '../../../../src/core/envs/household/search';
import { routeSkills } from '../../../../src/core/math/skill';
import { HouseholdEnv } from '../../../../src/core/envs/household';

const room = 'You are in the middle of a room. Looking quickly around you, you see a drawer 1, a desk 1, and a safe 1.';

describe('household search steps', () => {
  it('go to / open before the task object is in sight are search steps; the first sight ends the search', () => {
    const steps = [
      { observation: room, action: 'go to drawer 1' },
      { observation: 'You arrive at drawer 1. The drawer 1 is closed.', action: 'open drawer 1' },
      { observation: 'You open the drawer 1. The drawer 1 is open. In it, you see a pen 1.', action: 'go to desk 1' },
      { observation: 'You arrive at desk 1. On the desk 1, you see a creditcard 2.', action: 'go to safe 1' },
      { observation: 'You arrive at safe 1.', action: 'go to desk 1' },
    ];
    expect(householdSearchSteps('put two creditcard in safe.', steps)).toEqual([0, 1, 2]);
    expect(householdSearchSteps('put a hot pen in safe.', steps)).toEqual([0, 1]);
    expect(householdSearchSteps('look at creditcard under the desklamp.', steps)).toEqual([0, 1, 2]);
    // The object in the room overview (a receptacle kind never is): not searched for.
    expect(
      householdSearchSteps('put a pen in safe.', [
        { observation: 'On the desk 1, you see a pen 1.', action: 'go to safe 1' },
      ]),
    ).toEqual([]);
    expect(householdSearchSteps('an unknown task line', steps)).toEqual([]);
  });

  it('a real default task: the first steps of an episode are search steps until the object is seen', () => {
    const env = new HouseholdEnv('default');
    const r = env.reset({ split: 'train', index: 3 });
    const steps: { observation: string; action: string }[] = [];
    let obs = r.observation;
    for (const a of env
      .admissibleActions()
      .filter((x) => x.startsWith('go to '))
      .slice(0, 6)) {
      steps.push({ observation: obs, action: a });
      obs = env.step(a).observation;
    }
    const kind =
      r.task.match(/(?:a|two) (?:clean |hot |cool )?([a-z]+) in/)?.[1] ?? r.task.match(/^look at ([a-z]+)/)![1];
    const firstSeen = steps.findIndex((s) => new RegExp(`\\b${kind} \\d+`).test(s.observation));
    const expected = (firstSeen < 0 ? steps : steps.slice(0, firstSeen)).map((_, i) => i);
    expect(expected.length).toBeGreaterThan(0);
    expect(householdSearchSteps(r.task, steps)).toEqual(expected);
  });

  it('routing: search steps get no episode skill, their step skills still route', () => {
    const skills = { episodeSkill: 'plan: go to desk 1.', stepSkills: { 1: 'next, go to desk 1.' } };
    const { routes } = routeSkills(skills, 4, 'none', new Set([0, 1, 2]));
    expect(routes).toEqual([
      [],
      [{ stepSkill: 'next, go to desk 1.', critical: true }],
      [],
      [{ episodeSkill: 'plan: go to desk 1.', critical: false }],
    ]);
    const additive = routeSkills(skills, 2, 'additive', new Set([0, 1])).routes;
    expect(additive).toEqual([[], [{ stepSkill: 'next, go to desk 1.', critical: true }]]);
  });
});
