/**
 * Property: the heuristic analyzer does not write a step skill against a move that advanced the task. A failed
 * trajectory can take, treat and place another object of the task's kind than its successful sibling did, or put
 * down an object it should not have taken; a step skill naming a different action there makes OPID's A_skill punish
 * the move (the skill-conditioned policy gives it a far lower log-prob; OPID paper, 2026, §3).
 *
 * "Advanced the task" is judged by the household expert, which reads the hidden state (a test oracle only; the
 * analyzer never sees it): a step progresses when the expert's remaining plan after it is shorter than before it.
 * Rollouts: per task, one group of the expert with 30 % and 60 % random admissible moves and two uniformly random
 * policies (successes and failures in one group, so failures are judged against a sibling's workflow), and one group
 * of four policies with 60–100 % random moves (mostly failures judged alone), every draw from the seeded Rng.
 */
import { describe, expect, it } from 'vitest';
import { HeuristicAnalyzer } from '../../../../../src/core/envs/household/analyzer/heuristic';
import type { AnalyzerTrajectory } from '../../../../../src/core/analyzer/types';
import { discountedReturns } from '../../../../../src/core/math/returns';
import { HouseholdEnv, expertPlan } from '../../../../../src/core/envs/household';
import { Rng } from '../../../../../src/core/rng';
import { kindOf } from '../../../../../src/core/envs/household/analyzer/tracked-state';

const GROUPS = [
  [0.3, 0.6, 1, 1],
  [0.6, 0.8, 1, 1],
];

/**
 * One episode of train task `index` with P(random admissible move) = noise; `progress[i]`: step i shortened the
 * expert's plan; `keep[i]`: before step i the agent held an object of the goal's kind that the expert's plan keeps (its
 * first action on it is a treatment, the lamp, or a move into a receptacle of the target kind); `target`: the goal's
 * target kind (null for a look task, whose object is never put anywhere).
 */
function rollout(
  index: number,
  noise: number,
  rng: Rng,
): { traj: AnalyzerTrajectory; progress: boolean[]; keep: (string | null)[]; target: string | null; type: string } {
  const env = new HouseholdEnv('default');
  const r = env.reset({ split: 'train', index });
  let obs = r.observation,
    success = false,
    done = false;
  const steps: { observation: string; action: string; valid: boolean; reward: number }[] = [],
    progress: boolean[] = [];
  const keep: (string | null)[] = [];
  const goal = env.world.goal;
  while (!done) {
    const a = env.admissibleActions();
    const before = expertPlan(env.world, 80);
    const h = env.world.holding;
    const first =
      h !== null && kindOf(h) === goal.object
        ? before.find((x) => x.startsWith(`move ${h} to `) || new RegExp(`^(clean|heat|cool) ${h} with |^use `).test(x))
        : undefined;
    keep.push(
      first &&
        (!first.startsWith('move ') ||
          (goal.type !== 'look' && kindOf(first.slice(`move ${h} to `.length)) === goal.target))
        ? h
        : null,
    );
    const action = rng.next() < noise ? a[rng.int(a.length)] : before[0];
    const st = env.step(action);
    progress.push(st.success || expertPlan(env.world, 80).length < before.length);
    steps.push({ observation: obs, action, valid: st.valid, reward: st.reward });
    obs = st.observation;
    success ||= st.success;
    done = st.done;
  }
  const G = discountedReturns(steps.map((s) => s.reward));
  return {
    type: r.taskType,
    progress,
    keep,
    target: goal.type === 'look' ? null : goal.target,
    traj: {
      task: r.task,
      success,
      finalObservation: obs,
      steps: steps.map((s, i) => ({ observation: s.observation, action: s.action, valid: s.valid, return: G[i] })),
    },
  };
}

/**
 * Step skills written on failed trajectories, those at decisive (take/treat/move) steps that progressed, and those
 * that tell the agent to put down an object of the task's kind the expert keeps (`move X to R`, R not of the target
 * kind).
 */
interface Count {
  failed: number;
  skills: number;
  againstProgress: number;
  putDown: number;
}

async function count(tasks: number): Promise<{ byType: Record<string, Count>; examples: string[] }> {
  const rng = new Rng(21);
  const analyzer = new HeuristicAnalyzer({ maxStepSkills: 30 });
  const byType: Record<string, Count> = {},
    examples: string[] = [];
  for (let index = 0; index < tasks; index++) {
    for (const g of GROUPS) {
      const runs = g.map((noise) => rollout(index, noise, rng));
      const out = await analyzer.analyze({ env: 'household', trajectories: runs.map((x) => x.traj) });
      runs.forEach((run, ti) => {
        if (run.traj.success) return;
        const c = (byType[run.type] ??= { failed: 0, skills: 0, againstProgress: 0, putDown: 0 });
        c.failed++;
        for (const k of Object.keys(out[ti]?.stepSkills ?? {})) {
          c.skills++;
          const held = run.keep[Number(k)],
            mv = out[ti]!.stepSkills[Number(k)].match(/^next, move (.+?) to (.+)\.$/);
          if (held && mv && mv[1] === held && (run.target === null || kindOf(mv[2]) !== run.target)) {
            c.putDown++;
            if (examples.length < 3)
              examples.push(`task ${index}: step ${k} holds ${held}, skill "${out[ti]!.stepSkills[Number(k)]}"`);
          }
          const s = run.traj.steps[Number(k)];
          if (!run.progress[Number(k)] || !/^(take|move|clean|heat|cool) /.test(s.action)) continue;
          c.againstProgress++;
          if (examples.length < 3)
            examples.push(`task ${index}: "${s.action}" progressed, skill "${out[ti]!.stepSkills[Number(k)]}"`);
        }
      });
    }
  }
  return { byType, examples };
}

describe('heuristic analyzer: no step skill against a decisive move that advanced the task', () => {
  it(
    'household/default, 60 tasks × 8 rollouts: 0 step skills at take/treat/move steps the expert counts ' +
      'as progress, 0 that put down a kept object',
    async () => {
      const { byType, examples } = await count(60);
      expect(Object.keys(byType).sort()).toEqual(['clean', 'cool', 'heat', 'look', 'pick', 'pick2']);
      const against = Object.fromEntries(Object.entries(byType).map(([k, v]) => [k, v.againstProgress]));
      const putDown = Object.fromEntries(Object.entries(byType).map(([k, v]) => [k, v.putDown]));
      const none = { clean: 0, cool: 0, heat: 0, look: 0, pick: 0, pick2: 0 };
      // Nor one that tells it to put down an object of the task's kind the expert keeps (a sibling's names or detour
      // read as the fix: heuristic.ts `exchangeObjects`, workflow.ts `workflowSteps`).
      expect({ against, putDown, examples }).toEqual({ against: none, putDown: none, examples: [] });
      // The rule removes skills only there: failed trajectories still get step skills on every type.
      for (const [type, c] of Object.entries(byType)) expect(c.skills, type).toBeGreaterThan(c.failed);
    },
  );
});

describe('heuristic analyzer: the warning sign of a search that went the wrong way', () => {
  it("names the task's object, not the place of the fix as if it were the target", async () => {
    const room =
      'You are in the middle of a room. Looking quickly around you, you see a dresser 1, a garbagecan 1, ' +
      'and a sidetable 1.';
    const step = (observation: string, action: string, ret = 0) => ({ observation, action, valid: true, return: ret });
    const task = 'put a remotecontrol in dresser.';
    const win: AnalyzerTrajectory = {
      task,
      success: true,
      finalObservation: 'You move the remotecontrol 1 to the dresser 1.',
      steps: [
        step(room, 'go to sidetable 1'),
        step(
          'You arrive at sidetable 1. On the sidetable 1, you see a remotecontrol 1.',
          'take remotecontrol 1 from sidetable 1',
        ),
        step('You pick up the remotecontrol 1 from the sidetable 1.', 'go to dresser 1'),
        step('You arrive at dresser 1. On the dresser 1, you see nothing.', 'move remotecontrol 1 to dresser 1', 1),
      ],
    };
    // It saw the remote control on the sidetable and went to the garbage can instead (a search visit before it had
    // seen one would not be judged: it could not know where the object was).
    const lose: AnalyzerTrajectory = {
      task,
      success: false,
      finalObservation: 'You arrive at garbagecan 1. On the garbagecan 1, you see nothing.',
      steps: [
        step(room, 'go to sidetable 1'),
        step('You arrive at sidetable 1. On the sidetable 1, you see a remotecontrol 1.', 'go to garbagecan 1'),
      ],
    };
    const [, s] = await new HeuristicAnalyzer({ maxStepSkills: 5 }).analyze({
      env: 'household',
      trajectories: [win, lose],
    });
    expect(s!.episodeSkill).toBe(
      'avoid: go to garbagecan 1. warning sign: the task names remotecontrol. instead: take remotecontrol ' +
        '1 from sidetable 1.',
    );
  });
});
