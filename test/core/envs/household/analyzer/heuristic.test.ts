import { describe, expect, it } from 'vitest';
import {
  HeuristicAnalyzer,
  executableFix,
  searchSteps,
  trackStates,
  workflowSteps,
} from '../../../../../src/core/envs/household/analyzer/heuristic';
import type { AnalyzerTrajectory } from '../../../../../src/core/analyzer/types';
import { discountedReturns } from '../../../../../src/core/math/returns';

const room =
  'You are in the middle of a room. Looking quickly around you, you see a desk 1, a shelf 1, and a sidetable 1.';
const atDesk = 'You arrive at desk 1. On the desk 1, you see a box 1, and a pen 2.';
const atShelf = 'You arrive at shelf 1. On the shelf 1, you see nothing.';
const step = (observation: string, action: string, valid = true, ret = 0) => ({
  observation,
  action,
  valid,
  return: ret,
});
const task = 'put a box in sidetable.';

/**
 * A successful `put a hot apple in fridge.` in a room described by `room`: apple 1 from countertop 1, heated, put away.
 */
const heatedApple = (room: string): AnalyzerTrajectory => ({
  task: 'put a hot apple in fridge.',
  success: true,
  finalObservation: 'You move the apple 1 to the fridge 1.',
  steps: [
    step(room, 'go to countertop 1'),
    step('You arrive at countertop 1. On the countertop 1, you see a apple 1.', 'take apple 1 from countertop 1'),
    step('You pick up the apple 1 from the countertop 1.', 'go to microwave 1'),
    step('You arrive at microwave 1. The microwave 1 is closed.', 'heat apple 1 with microwave 1'),
    step('You heat the apple 1 using the microwave 1.', 'go to fridge 1'),
    step('You arrive at fridge 1. The fridge 1 is closed.', 'open fridge 1'),
    step('You open the fridge 1. The fridge 1 is open. In it, you see nothing.', 'move apple 1 to fridge 1', true, 1),
  ],
});

const win: AnalyzerTrajectory = {
  task,
  success: true,
  finalObservation: 'You move the box 1 to the sidetable 1.',
  steps: [
    step(room, 'go to shelf 1'),
    step(atShelf, 'go to desk 1'),
    step(atDesk, 'take box 1 from desk 1'),
    step('You pick up the box 1 from the desk 1.', 'go to sidetable 1'),
    step('You arrive at sidetable 1. On the sidetable 1, you see nothing.', 'move box 1 to sidetable 1', true, 1),
  ],
};
const lose: AnalyzerTrajectory = {
  task,
  success: false,
  finalObservation: 'You arrive at shelf 1.',
  steps: [
    step(room, 'go to desk 1'),
    step(atDesk, 'take pen 2 from desk 1'),
    step('You pick up the pen 2 from the desk 1.', 'go to sidetable 1'),
  ],
};

describe('heuristic analyzer', () => {
  it('discounted returns with γ = 0.95', () => {
    expect(discountedReturns([0, 0, 1])).toEqual([0.9025, 0.95, 1]);
  });

  it(
    'a successful trajectory: workflow without wasted moves, step skills at its detours, then its ' +
      'decisive steps (≤ K)',
    async () => {
      expect(workflowSteps(win)).toEqual([1, 2, 3, 4]);
      // Step 0 (`go to shelf 1`) is a search visit: the box was not in sight yet, so it is exploration, not waste.
      expect(searchSteps(win)).toEqual([0, 1]);
      const a = new HeuristicAnalyzer({ maxStepSkills: 2 });
      const [s] = await a.analyze({ env: 'household', trajectories: [win] });
      expect(s).toEqual({
        episodeSkill:
          'plan: go to shelf 1, then go to desk 1, then take box 1 from desk 1, then go to sidetable 1, ' +
          'then move box 1 to sidetable 1.',
        stepSkills: { 3: 'next, go to sidetable 1.', 4: 'next, move box 1 to sidetable 1.' },
      });
    },
  );

  it(
    'a successful trajectory that left the object in sight: the detour gets the way on, the search ' +
      'visits stay in the plan',
    async () => {
      const wander: AnalyzerTrajectory = {
        task,
        success: true,
        finalObservation: 'done',
        steps: [
          step(room, 'go to shelf 1'),
          step(atShelf, 'go to desk 1'),
          step(atDesk, 'go to shelf 1'),
          step(atShelf, 'go to desk 1'),
          step(atDesk, 'take box 1 from desk 1'),
          step('You pick up the box 1 from the desk 1.', 'go to sidetable 1'),
          step('You arrive at sidetable 1. On the sidetable 1, you see nothing.', 'move box 1 to sidetable 1', true, 1),
        ],
      };
      // Steps 0 and 1 are first visits before the box was seen; at step 2 the box is in sight (atDesk), so it stops.
      expect(searchSteps(wander)).toEqual([0, 1]);
      expect(workflowSteps(wander)).toEqual([3, 4, 5, 6]);
      const [s] = await new HeuristicAnalyzer({ maxStepSkills: 2 }).analyze({
        env: 'household',
        trajectories: [wander],
      });
      // Step 1's `go to desk 1` is dropped from the plan (the workflow goes there again at step 3); step 2 left the box
      // in sight: a detour taken at desk 1, where `go to desk 1` is not admissible (ALFWorld: `go to` any receptacle
      // but the current one), so the way on there is the plan's action after it, `take box 1 from desk 1` (the box lies
      // on the desk, hands empty). Step 1 needs no skill: going to the desk is the way on there.
      expect(s).toEqual({
        episodeSkill:
          'plan: go to shelf 1, then go to desk 1, then take box 1 from desk 1, then go to sidetable 1, ' +
          'then move box 1 to sidetable 1.',
        stepSkills: { 2: 'next, take box 1 from desk 1.', 6: 'next, move box 1 to sidetable 1.' },
      });
    },
  );

  it(
    "a failed trajectory with a successful sibling: the first divergence is the mistake, the sibling's " +
      'next action the fix',
    async () => {
      const a = new HeuristicAnalyzer({ maxStepSkills: 5 });
      const [, f] = await a.analyze({ env: 'household', trajectories: [win, lose] });
      expect(f).toEqual({
        episodeSkill:
          'avoid: take pen 2 from desk 1. warning sign: the task names box. instead: take box 1 from desk 1.',
        // Step 2 (`go to sidetable 1`) is a place the winning workflow also visits, so it is not marked.
        stepSkills: { 1: 'next, take box 1 from desk 1.' },
      });
      expect(a.stats()).toMatchObject({ calls: 2, failures: 0 });
    },
  );

  it('a failed trajectory alone: judged against the task text and what the observations show', async () => {
    const a = new HeuristicAnalyzer({ maxStepSkills: 5 });
    const [f] = await a.analyze({ env: 'household', trajectories: [lose] });
    expect(f).toEqual({
      episodeSkill: 'avoid: take pen 2 from desk 1. warning sign: the task names box. instead: take box 1 from desk 1.',
      stepSkills: { 1: 'next, take box 1 from desk 1.' },
    });
    const wander: AnalyzerTrajectory = {
      task,
      success: false,
      finalObservation: atShelf,
      steps: [step(room, 'go to shelf 1'), step(atShelf, 'go to desk 1')],
    };
    const [w] = await a.analyze({ env: 'household', trajectories: [wander] });
    expect(w).toEqual({
      episodeSkill:
        'avoid: wandering between places. warning sign: steps run out. instead: go to sidetable 1 once ' +
        'you hold the box.',
      stepSkills: {},
    });
  });

  it(
    'failedOnly leaves successful trajectories without skills; K = 0 gives no step skills; K < 0 is ' + 'refused',
    async () => {
      const a = new HeuristicAnalyzer({ maxStepSkills: 0, failedOnly: true });
      const r = await a.analyze({ env: 'household', trajectories: [win, lose] });
      expect(r[0]).toBeNull();
      expect(r[1]!.stepSkills).toEqual({});
      expect(() => new HeuristicAnalyzer({ maxStepSkills: -1 })).toThrow(/maxStepSkills must be an integer ≥ 0/);
    },
  );

  it('is deterministic', async () => {
    const g = { env: 'household', trajectories: [win, lose, lose] };
    expect(await new HeuristicAnalyzer({ maxStepSkills: 5 }).analyze(g)).toEqual(
      await new HeuristicAnalyzer({ maxStepSkills: 5 }).analyze(g),
    );
  });
});

describe('workflow of a trajectory with a put-back loop', () => {
  it(
    'drops the put-back and the retake (the first take stays); the put-back gets the way on, the retake ' +
      '(the right fix then) nothing',
    async () => {
      const loop: AnalyzerTrajectory = {
        task: 'put a kettle in countertop.',
        success: true,
        finalObservation: 'done',
        steps: [
          step(room, 'go to diningtable 1'),
          step('x', 'take kettle 1 from diningtable 1'),
          step('x', 'move kettle 1 to diningtable 1'),
          step('x', 'take kettle 1 from diningtable 1'),
          step('x', 'go to countertop 1'),
          step('x', 'move kettle 1 to countertop 1', true, 1),
        ],
      };
      expect(workflowSteps(loop)).toEqual([0, 1, 4, 5]);
      const [s] = await new HeuristicAnalyzer({ maxStepSkills: 5 }).analyze({ env: 'household', trajectories: [loop] });
      expect(s!.episodeSkill).toBe(
        'plan: go to diningtable 1, then take kettle 1 from diningtable 1, then go to countertop 1, then ' +
          'move kettle 1 to countertop 1.',
      );
      expect(s!.stepSkills).toEqual({
        0: 'next, go to diningtable 1.',
        1: 'next, take kettle 1 from diningtable 1.',
        2: 'next, go to countertop 1.',
        4: 'next, go to countertop 1.',
        5: 'next, move kettle 1 to countertop 1.',
      });
    },
  );
});

describe('step skills name an action the agent can take at that step (ALFWorld preconditions)', () => {
  const W = [
    'go to diningtable 1',
    'take tomato 1 from diningtable 1',
    'go to countertop 1',
    'move tomato 1 to countertop 1',
  ];
  const st = (at: string | null, held: string | null, placed: [string, string][] = []) => ({
    at,
    held,
    placed: new Map(placed),
    doors: new Map(),
    contents: new Map(),
    info: false,
  });

  it('executableFix: go where the fix needs, free the hands, fetch the object first', () => {
    expect(executableFix('take tomato 1 from diningtable 1', st('shelf 1', null), W)).toBe('go to diningtable 1');
    expect(executableFix('take tomato 1 from diningtable 1', st('diningtable 1', null), W)).toBe(
      'take tomato 1 from diningtable 1',
    );
    expect(executableFix('take tomato 1 from diningtable 1', st('shelf 1', 'egg 1'), W)).toBe('move egg 1 to shelf 1');
    expect(executableFix('take tomato 1 from diningtable 1', st('shelf 1', 'tomato 1'), W)).toBeUndefined();
    expect(
      executableFix('take tomato 1 from diningtable 1', st('shelf 1', null, [['tomato 1', 'sidetable 1']]), W),
    ).toBe('go to sidetable 1');
    expect(executableFix('move tomato 1 to countertop 1', st('shelf 1', 'tomato 1'), W)).toBe('go to countertop 1');
    expect(executableFix('move tomato 1 to countertop 1', st('countertop 1', 'tomato 1'), W)).toBe(
      'move tomato 1 to countertop 1',
    );
    expect(executableFix('move tomato 1 to countertop 1', st('countertop 1', null), W)).toBe('go to diningtable 1');
    expect(executableFix('go to countertop 1', st('diningtable 1', null), W)).toBe('take tomato 1 from diningtable 1');
    expect(executableFix('go to countertop 1', st('diningtable 1', 'tomato 1'), W)).toBe('go to countertop 1');
    expect(executableFix('go to diningtable 1', st('countertop 1', 'egg 1'), W)).toBe('move egg 1 to countertop 1');
    expect(executableFix('go to diningtable 1', st('countertop 1', null), W)).toBe('go to diningtable 1');
    expect(executableFix('open fridge 1', st('shelf 1', null), W)).toBe('go to fridge 1');
  });

  it('trackStates follows valid actions only', () => {
    const t: AnalyzerTrajectory = {
      task: 'put a tomato in countertop.',
      success: false,
      finalObservation: 'x',
      steps: [
        step(room, 'go to diningtable 1'),
        step('x', 'take tomato 1 from diningtable 1'),
        step('x', 'go to moon 1', false),
        step('x', 'move tomato 1 to diningtable 1'),
      ],
    };
    const s = trackStates(t);
    expect(s.map((x) => [x.at, x.held])).toEqual([
      [null, null],
      ['diningtable 1', null],
      ['diningtable 1', 'tomato 1'],
      ['diningtable 1', 'tomato 1'],
      ['diningtable 1', null],
    ]);
    expect([...s[4].placed]).toEqual([['tomato 1', 'diningtable 1']]);
  });

  it('a failed trajectory holding the wrong object is told to put it down before going on', async () => {
    const winner: AnalyzerTrajectory = {
      task: 'put a tomato in countertop.',
      success: true,
      finalObservation: 'x',
      steps: W.map((a, i) => step('x', a, true, i === 3 ? 1 : 0)),
    };
    const loser: AnalyzerTrajectory = {
      task: 'put a tomato in countertop.',
      success: false,
      finalObservation: 'x',
      steps: [step(room, 'go to countertop 1'), step('x', 'take egg 1 from countertop 1'), step('x', 'go to shelf 1')],
    };
    const [, f] = await new HeuristicAnalyzer({ maxStepSkills: 5 }).analyze({
      env: 'household',
      trajectories: [winner, loser],
    });
    // Step 0 is a search to a place the workflow visits; step 1 takes the wrong object (fix: go to diningtable 1);
    // step 2 goes on holding it, so the fix there is to put the egg down first.
    expect(f!.stepSkills).toEqual({ 1: 'next, go to diningtable 1.', 2: 'next, move egg 1 to countertop 1.' });
    expect(f!.episodeSkill).toMatch(/^avoid: take egg 1 from countertop 1\. .* instead: go to diningtable 1\.$/);
  });

  it(
    'a "success" with no valid step (not one the env makes) gets no skill and teaches its siblings ' +
      'nothing; nothing throws',
    async () => {
      const empty: AnalyzerTrajectory = {
        task,
        success: true,
        finalObservation: 'done',
        steps: [step(room, 'dance 1', false, 1)],
      };
      const a = new HeuristicAnalyzer({ maxStepSkills: 5 });
      const [e, l] = await a.analyze({ env: 'household', trajectories: [empty, lose] });
      expect(e).toEqual({ episodeSkill: '', stepSkills: {} });
      const [alone] = await new HeuristicAnalyzer({ maxStepSkills: 5 }).analyze({
        env: 'household',
        trajectories: [lose],
      });
      expect(l).toEqual(alone);
    },
  );

  it(
    "a failed trajectory that took another object of the task's kind is told the rest of the workflow by " +
      "its own object's name",
    async () => {
      const hot = 'put a hot apple in fridge.';
      const kitchen =
        'You are in the middle of a room. Looking quickly around you, you see a countertop 1, a diningtable ' +
        '1, a fridge 1, and a microwave 1.';
      const atMicrowave = 'You arrive at microwave 1. The microwave 1 is closed.';
      const heated = heatedApple(kitchen);
      const other: AnalyzerTrajectory = {
        task: hot,
        success: false,
        finalObservation: 'You move the apple 3 to the microwave 1.',
        steps: [
          step(kitchen, 'go to diningtable 1'),
          step(
            'You arrive at diningtable 1. On the diningtable 1, you see a apple 3.',
            'take apple 3 from diningtable 1',
          ),
          step('You pick up the apple 3 from the diningtable 1.', 'look'),
          step('You are facing the diningtable 1. Next to it, you see nothing.', 'go to microwave 1'),
          step(atMicrowave, 'open microwave 1'),
          step(
            'You open the microwave 1. The microwave 1 is open. In it, you see nothing.',
            'move apple 3 to microwave 1',
          ),
        ],
      };
      const [, s] = await new HeuristicAnalyzer({ maxStepSkills: 5 }).analyze({
        env: 'household',
        trajectories: [heated, other],
      });
      // Taking apple 3 stands for the sibling's `take apple 1`; at the microwave the way on is to heat apple 3, the one
      // in hand — by the sibling's names, opening the microwave and putting apple 3 into it would be on the way to
      // fetching apple 1, and go unblamed.
      expect(s).toEqual({
        episodeSkill: 'avoid: look. warning sign: the task names apple. instead: go to microwave 1.',
        stepSkills: {
          2: 'next, go to microwave 1.',
          4: 'next, heat apple 3 with microwave 1.',
          5: 'next, heat apple 3 with microwave 1.',
        },
      });
    },
  );

  it(
    "pick two: a trajectory that takes the sibling's second object first is sent for the first one where " + 'it lies',
    async () => {
      const two = 'put two apple in shelf.';
      const room2 =
        'You are in the middle of a room. Looking quickly around you, you see a countertop 1, a diningtable ' +
        '1, and a shelf 1.';
      const atShelf1 = 'You arrive at shelf 1. On the shelf 1, you see nothing.';
      const both: AnalyzerTrajectory = {
        task: two,
        success: true,
        finalObservation: 'You move the apple 3 to the shelf 1.',
        steps: [
          step(room2, 'go to countertop 1'),
          step('You arrive at countertop 1. On the countertop 1, you see a apple 1.', 'take apple 1 from countertop 1'),
          step('You pick up the apple 1 from the countertop 1.', 'go to shelf 1'),
          step(atShelf1, 'move apple 1 to shelf 1'),
          step('You move the apple 1 to the shelf 1.', 'go to diningtable 1'),
          step(
            'You arrive at diningtable 1. On the diningtable 1, you see a apple 3.',
            'take apple 3 from diningtable 1',
          ),
          step('You pick up the apple 3 from the diningtable 1.', 'go to shelf 1'),
          step('You arrive at shelf 1. On the shelf 1, you see a apple 1.', 'move apple 3 to shelf 1', true, 1),
        ],
      };
      const swapped: AnalyzerTrajectory = {
        task: two,
        success: false,
        finalObservation: 'You are facing the shelf 1. Next to it, you see nothing.',
        steps: [
          step(room2, 'go to diningtable 1'),
          step(
            'You arrive at diningtable 1. On the diningtable 1, you see a apple 3.',
            'take apple 3 from diningtable 1',
          ),
          step('You pick up the apple 3 from the diningtable 1.', 'go to shelf 1'),
          step(atShelf1, 'move apple 3 to shelf 1'),
          step('You move the apple 3 to the shelf 1.', 'look'),
        ],
      };
      const [, s] = await new HeuristicAnalyzer({ maxStepSkills: 5 }).analyze({
        env: 'household',
        trajectories: [both, swapped],
      });
      // apple 3 (the sibling's second) went first and is on the shelf; the second leg is the sibling's first one:
      // go to countertop 1, where apple 1 lies — not `take apple 1 from diningtable 1`, where apple 3 was.
      expect(s).toEqual({
        episodeSkill: 'avoid: look. warning sign: the task names apple. instead: go to countertop 1.',
        stepSkills: { 4: 'next, go to countertop 1.' },
      });
    },
  );

  it(
    "the workflow follows the object in hand: back to the sibling's own apple after another one was put " + 'down',
    async () => {
      const hot = 'put a hot apple in fridge.';
      const kitchen =
        'You are in the middle of a room. Looking quickly around you, you see a countertop 1, a diningtable ' +
        '1, a fridge 1, a microwave 1, and a sinkbasin 1.';
      const heated = heatedApple(kitchen);
      const back: AnalyzerTrajectory = {
        task: hot,
        success: false,
        finalObservation: 'You arrive at diningtable 1. On the diningtable 1, you see nothing.',
        steps: [
          step(kitchen, 'go to diningtable 1'),
          step(
            'You arrive at diningtable 1. On the diningtable 1, you see a apple 3.',
            'take apple 3 from diningtable 1',
          ),
          step('You pick up the apple 3 from the diningtable 1.', 'go to countertop 1'),
          step('You arrive at countertop 1. On the countertop 1, you see a apple 1.', 'move apple 3 to countertop 1'),
          step('You move the apple 3 to the countertop 1.', 'take apple 1 from countertop 1'),
          step('You pick up the apple 1 from the countertop 1.', 'go to sinkbasin 1'),
          step('You arrive at sinkbasin 1. On the sinkbasin 1, you see nothing.', 'go to diningtable 1'),
        ],
      };
      const [, s] = await new HeuristicAnalyzer({ maxStepSkills: 5 }).analyze({
        env: 'household',
        trajectories: [heated, back],
      });
      // Putting down apple 3, which it was carrying to the microwave, is the mistake; holding apple 1 afterwards it is
      // sent to the microwave again (not told to put apple 1 down because the workflow had been read for apple 3).
      expect(s).toEqual({
        episodeSkill:
          'avoid: move apple 3 to countertop 1. warning sign: the task target is fridge. instead: go to microwave 1.',
        stepSkills: { 3: 'next, go to microwave 1.', 5: 'next, go to microwave 1.', 6: 'next, go to microwave 1.' },
      });
    },
  );

  it(
    "pick two: carrying the second object, the way on is the workflow's second `go to` the target, not " +
      'its first leg',
    async () => {
      const two = 'put two apple in garbagecan.';
      const room3 =
        'You are in the middle of a room. Looking quickly around you, you see a countertop 1, a diningtable ' +
        '1, a garbagecan 1, and a sinkbasin 1.';
      const legs = [
        step(room3, 'go to countertop 1'),
        step(
          'You arrive at countertop 1. On the countertop 1, you see a apple 1, and a apple 2.',
          'take apple 1 from countertop 1',
        ),
        step('You pick up the apple 1 from the countertop 1.', 'go to garbagecan 1'),
        step('You arrive at garbagecan 1. On the garbagecan 1, you see nothing.', 'move apple 1 to garbagecan 1'),
        step('You move the apple 1 to the garbagecan 1.', 'go to countertop 1'),
        step('You arrive at countertop 1. On the countertop 1, you see a apple 2.', 'take apple 2 from countertop 1'),
      ];
      const both: AnalyzerTrajectory = {
        task: two,
        success: true,
        finalObservation: 'You move the apple 2 to the garbagecan 1.',
        steps: [
          ...legs,
          step('You pick up the apple 2 from the countertop 1.', 'go to garbagecan 1'),
          step(
            'You arrive at garbagecan 1. On the garbagecan 1, you see a apple 1.',
            'move apple 2 to garbagecan 1',
            true,
            1,
          ),
        ],
      };
      const wander: AnalyzerTrajectory = {
        task: two,
        success: false,
        finalObservation: 'You arrive at diningtable 1. On the diningtable 1, you see nothing.',
        steps: [
          ...legs,
          step('You pick up the apple 2 from the countertop 1.', 'go to sinkbasin 1'),
          step('You arrive at sinkbasin 1. On the sinkbasin 1, you see nothing.', 'go to diningtable 1'),
        ],
      };
      const [, s] = await new HeuristicAnalyzer({ maxStepSkills: 5 }).analyze({
        env: 'household',
        trajectories: [both, wander],
      });
      expect(s!.stepSkills).toEqual({ 6: 'next, go to garbagecan 1.', 7: 'next, go to garbagecan 1.' });
    },
  );

  it("a sibling's pick-up detour (a wrong object taken and put down unused) is not in its workflow", async () => {
    const task2 = 'put a clean cup in fridge.';
    const room4 =
      'You are in the middle of a room. Looking quickly around you, you see a cabinet 1, a diningtable 1, ' +
      'a fridge 1, and a sinkbasin 1.';
    const atCabinet = 'You open the cabinet 1. The cabinet 1 is open. In it, you see a cup 1.';
    const detour: AnalyzerTrajectory = {
      task: task2,
      success: true,
      finalObservation: 'You move the cup 1 to the fridge 1.',
      steps: [
        step(room4, 'go to diningtable 1'),
        step('You arrive at diningtable 1. On the diningtable 1, you see a vase 1.', 'take vase 1 from diningtable 1'),
        step('You pick up the vase 1 from the diningtable 1.', 'move vase 1 to diningtable 1'),
        step('You move the vase 1 to the diningtable 1.', 'go to cabinet 1'),
        step('You arrive at cabinet 1. The cabinet 1 is closed.', 'open cabinet 1'),
        step(atCabinet, 'take cup 1 from cabinet 1'),
        step('You pick up the cup 1 from the cabinet 1.', 'go to sinkbasin 1'),
        step('You arrive at sinkbasin 1. On the sinkbasin 1, you see nothing.', 'clean cup 1 with sinkbasin 1'),
        step('You clean the cup 1 using the sinkbasin 1.', 'go to fridge 1'),
        step('You arrive at fridge 1. The fridge 1 is closed.', 'open fridge 1'),
        step('You open the fridge 1. The fridge 1 is open. In it, you see nothing.', 'move cup 1 to fridge 1', true, 1),
      ],
    };
    expect(workflowSteps(detour)).toEqual([3, 4, 5, 6, 7, 8, 9, 10]);
    const cup: AnalyzerTrajectory = {
      task: task2,
      success: false,
      finalObservation: 'You are facing the cabinet 1. Next to it, you see nothing.',
      steps: [
        step(room4, 'go to cabinet 1'),
        step('You arrive at cabinet 1. The cabinet 1 is closed.', 'open cabinet 1'),
        step(atCabinet, 'take cup 1 from cabinet 1'),
        step('You pick up the cup 1 from the cabinet 1.', 'look'),
      ],
    };
    const [, s] = await new HeuristicAnalyzer({ maxStepSkills: 5 }).analyze({
      env: 'household',
      trajectories: [detour, cup],
    });
    // With the vase in the workflow, the cup's take stood for nothing and the fix at `look` was the sibling's next
    // action, `take vase 1`, made executable as "put the cup down" (`move cup 1 to cabinet 1`).
    expect(s!.stepSkills).toEqual({ 3: 'next, go to sinkbasin 1.' });
  });
});
