import { describe, expect, it } from 'vitest';
import { HeuristicAnalyzer, trackStates } from '../../../../../src/core/envs/household/analyzer/heuristic';
import { hindsightPlan } from '../../../../../src/core/envs/household/analyzer/hindsight-plan';
import type { AnalyzerTrajectory } from '../../../../../src/core/analyzer/types';

const step = (observation: string, action: string, valid = true) => ({ observation, action, valid, return: 0 });
const room =
  'You are in the middle of a room. Looking quickly around you, you see a countertop 1, a fridge 1, a ' +
  'microwave 1, a shelf 1, and a sinkbasin 1.';
/** A failed `look at book under the desklamp.` trajectory. */
const lookTask = (finalObservation: string, ...steps: AnalyzerTrajectory['steps']): AnalyzerTrajectory => ({
  task: 'look at book under the desklamp.',
  success: false,
  finalObservation,
  steps,
});
const atCounter = 'You arrive at countertop 1. On the countertop 1, you see a apple 1, and a mug 1.';

/** `put a hot apple in fridge.`: it found and took the apple, then put it in the fridge without heating it. */
const cold: AnalyzerTrajectory = {
  task: 'put a hot apple in fridge.',
  success: false,
  finalObservation: 'You arrive at shelf 1. On the shelf 1, you see nothing.',
  steps: [
    step(room, 'go to shelf 1'),
    step('You arrive at shelf 1. On the shelf 1, you see nothing.', 'go to countertop 1'),
    step(atCounter, 'take apple 1 from countertop 1'),
    step('You pick up the apple 1 from the countertop 1.', 'go to fridge 1'),
    step('You arrive at fridge 1. The fridge 1 is closed.', 'open fridge 1'),
    step('You open the fridge 1. The fridge 1 is open. In it, you see nothing.', 'move apple 1 to fridge 1'),
    step('You move the apple 1 to the fridge 1.', 'go to shelf 1'),
  ],
};

describe('hindsight workflow of a failed trajectory without a successful sibling', () => {
  it("heat task: fetch the apple where it was seen, heat it at the room's microwave, move it into the fridge", () => {
    const h = hindsightPlan(cold, trackStates(cold));
    expect(h).toEqual({
      workflow: [
        'go to countertop 1',
        'take apple 1 from countertop 1',
        'go to microwave 1',
        'heat apple 1 with microwave 1',
        'go to fridge 1',
        'open fridge 1',
        'move apple 1 to fridge 1',
      ],
      from: 2, // the apple is first in sight before step 2; steps 0–1 were search
      next: 1, // it stands at countertop 1 (no door): the take is next
    });
  });

  it(
    'the analyzer judges the steps after the sighting against it: the unheated apple put away is the ' + 'mistake',
    async () => {
      const [s] = await new HeuristicAnalyzer({ maxStepSkills: 5 }).analyze({ env: 'household', trajectories: [cold] });
      // Step 3 (`go to fridge 1`) is a visit the workflow also makes, so it is not blamed; opening the fridge and
      // moving the apple into it before heating it are (the fix there: the walk to the microwave), and so is leaving
      // it there (the fix: take it back out, since the heat needs it in hand).
      expect(s).toEqual({
        episodeSkill: 'avoid: open fridge 1. warning sign: the task names apple. instead: go to microwave 1.',
        stepSkills: {
          4: 'next, go to microwave 1.',
          5: 'next, go to microwave 1.',
          6: 'next, take apple 1 from fridge 1.',
        },
      });
    },
  );

  it(
    'pick-two and look tasks; none when the object was never seen or the room has no appliance for the ' + 'treatment',
    () => {
      const two: AnalyzerTrajectory = {
        task: 'put two apple in shelf.',
        success: false,
        finalObservation: 'Nothing happens.',
        steps: [
          step(room, 'go to countertop 1'),
          step('You arrive at countertop 1. On the countertop 1, you see a apple 1, and a apple 3.', 'look'),
        ],
      };
      expect(hindsightPlan(two, trackStates(two))?.workflow).toEqual([
        'go to countertop 1',
        'take apple 1 from countertop 1',
        'go to shelf 1',
        'move apple 1 to shelf 1',
        'go to countertop 1',
        'take apple 3 from countertop 1',
        'go to shelf 1',
        'move apple 3 to shelf 1',
      ]);
      const lamp = lookTask(
        'You arrive at desk 1. On the desk 1, you see a desklamp 2.',
        step(
          'You are in the middle of a room. Looking quickly around you, you see a drawer 1, and a desk 1.',
          'go to drawer 1',
        ),
        step('You arrive at drawer 1. The drawer 1 is closed.', 'open drawer 1'),
        step('You open the drawer 1. The drawer 1 is open. In it, you see a book 4.', 'go to desk 1'),
      );
      expect(hindsightPlan(lamp, trackStates(lamp))).toEqual({
        workflow: ['go to drawer 1', 'open drawer 1', 'take book 4 from drawer 1', 'go to desk 1', 'use desklamp 2'],
        from: 2,
        next: 2, // at drawer 1 with its door seen open: the take is next
      });
      const unseen = { ...cold, steps: cold.steps.slice(0, 2) };
      expect(hindsightPlan(unseen, trackStates(unseen))).toBeNull();
      const noMicrowave = {
        ...cold,
        steps: [step(room.replace('a microwave 1, ', ''), 'go to countertop 1'), ...cold.steps.slice(2)],
      };
      expect(hindsightPlan(noMicrowave, trackStates(noMicrowave))).toBeNull();
    },
  );

  it(
    "with a successful sibling, a failed trajectory's search moves before it saw the object get no step " + 'skill',
    async () => {
      const win: AnalyzerTrajectory = {
        task: 'put a apple in shelf.',
        success: true,
        finalObservation: 'You move the apple 1 to the shelf 1.',
        steps: [
          step(room, 'go to countertop 1'),
          step(atCounter, 'take apple 1 from countertop 1'),
          step('You pick up the apple 1 from the countertop 1.', 'go to shelf 1'),
          { ...step('You arrive at shelf 1. On the shelf 1, you see nothing.', 'move apple 1 to shelf 1'), return: 1 },
        ],
      };
      const lose: AnalyzerTrajectory = {
        task: 'put a apple in shelf.',
        success: false,
        finalObservation: 'You arrive at shelf 1. On the shelf 1, you see nothing.',
        steps: [
          step(room, 'go to sinkbasin 1'), // search: it could not know the apple was on the countertop
          step('You arrive at sinkbasin 1. On the sinkbasin 1, you see nothing.', 'go to countertop 1'),
          step(atCounter, 'go to sinkbasin 1'), // it saw the apple and left it there: a mistake
        ],
      };
      const [, s] = await new HeuristicAnalyzer({ maxStepSkills: 5 }).analyze({
        env: 'household',
        trajectories: [win, lose],
      });
      expect(s).toEqual({
        episodeSkill:
          'avoid: go to sinkbasin 1. warning sign: you already did that. instead: take apple 1 from countertop 1.',
        stepSkills: { 2: 'next, take apple 1 from countertop 1.' },
      });
    },
  );

  it('no walk to the appliance or the lamp where the object lay; the target opened once for two objects', async () => {
    const clean: AnalyzerTrajectory = {
      task: 'put a clean apple in shelf.',
      success: false,
      finalObservation: 'You arrive at countertop 1. On the countertop 1, you see a mug 1.',
      steps: [
        step(room, 'go to sinkbasin 1'),
        step('You arrive at sinkbasin 1. On the sinkbasin 1, you see a apple 1.', 'take apple 1 from sinkbasin 1'),
        step('You pick up the apple 1 from the sinkbasin 1.', 'go to countertop 1'),
      ],
    };
    expect(hindsightPlan(clean, trackStates(clean))?.workflow).toEqual([
      'go to sinkbasin 1',
      'take apple 1 from sinkbasin 1',
      'clean apple 1 with sinkbasin 1',
      'go to shelf 1',
      'move apple 1 to shelf 1',
    ]);
    const [s] = await new HeuristicAnalyzer({ maxStepSkills: 5 }).analyze({ env: 'household', trajectories: [clean] });
    expect(s!.stepSkills).toEqual({ 2: 'next, clean apple 1 with sinkbasin 1.' });
    const lamp = lookTask(
      'You arrive at shelf 1. On the shelf 1, you see nothing.',
      step(
        'You are in the middle of a room. Looking quickly around you, you see a desk 1, and a shelf 1.',
        'go to desk 1',
      ),
      step('You arrive at desk 1. On the desk 1, you see a book 1, and a desklamp 1.', 'take book 1 from desk 1'),
      step('You pick up the book 1 from the desk 1.', 'go to shelf 1'),
    );
    expect(hindsightPlan(lamp, trackStates(lamp))?.workflow).toEqual([
      'go to desk 1',
      'take book 1 from desk 1',
      'use desklamp 1',
    ]);
    const [l] = await new HeuristicAnalyzer({ maxStepSkills: 5 }).analyze({ env: 'household', trajectories: [lamp] });
    expect(l!.stepSkills).toEqual({ 2: 'next, use desklamp 1.' });
    const two: AnalyzerTrajectory = {
      task: 'put two mug in cabinet.',
      success: false,
      finalObservation: 'Nothing happens.',
      steps: [
        step(
          'You are in the middle of a room. Looking quickly around you, you see a cabinet 1, and a countertop 1.',
          'go to countertop 1',
        ),
        step('You arrive at countertop 1. On the countertop 1, you see a mug 1, and a mug 2.', 'look'),
      ],
    };
    expect(hindsightPlan(two, trackStates(two))?.workflow).toEqual([
      'go to countertop 1',
      'take mug 1 from countertop 1',
      'go to cabinet 1',
      'open cabinet 1',
      'move mug 1 to cabinet 1',
      'go to countertop 1',
      'take mug 2 from countertop 1',
      'go to cabinet 1',
      'move mug 2 to cabinet 1',
    ]);
  });
});
