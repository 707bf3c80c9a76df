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
import { HeuristicAnalyzer } from '../../../src/core/analyzer/heuristic';
import { discountedReturns, type AnalyzerTrajectory } from '../../../src/core/analyzer/types';
import { HouseholdEnv, expertPlan } from '../../../src/core/envs/household';
import { Rng } from '../../../src/core/rng';

const GROUPS = [[0.3, 0.6, 1, 1], [0.6, 0.8, 1, 1]];

/** One episode of train task `index` with P(random admissible move) = noise; `progress[i]`: step i shortened the expert's plan. */
function rollout(index: number, noise: number, rng: Rng): { traj: AnalyzerTrajectory; progress: boolean[]; type: string } {
  const env = new HouseholdEnv('default');
  const r = env.reset({ split: 'train', index });
  let obs = r.observation, success = false, done = false;
  const steps: { observation: string; action: string; valid: boolean; reward: number }[] = [], progress: boolean[] = [];
  while (!done) {
    const a = env.admissibleActions();
    const before = expertPlan(env.world, 80);
    const action = rng.next() < noise ? a[rng.int(a.length)] : before[0];
    const st = env.step(action);
    progress.push(st.success || expertPlan(env.world, 80).length < before.length);
    steps.push({ observation: obs, action, valid: st.valid, reward: st.reward });
    obs = st.observation;
    success ||= st.success;
    done = st.done;
  }
  const G = discountedReturns(steps.map((s) => s.reward));
  return { type: r.taskType, progress, traj: { task: r.task, success, finalObservation: obs, steps: steps.map((s, i) => ({ observation: s.observation, action: s.action, valid: s.valid, return: G[i] })) } };
}

/** Step skills written on failed trajectories, and those at decisive (take/treat/move) steps that progressed. */
interface Count { failed: number; skills: number; againstProgress: number }

async function count(tasks: number): Promise<{ byType: Record<string, Count>; examples: string[] }> {
  const rng = new Rng(21);
  const analyzer = new HeuristicAnalyzer({ maxStepSkills: 30 });
  const byType: Record<string, Count> = {}, examples: string[] = [];
  for (let index = 0; index < tasks; index++) {
    for (const g of GROUPS) {
      const runs = g.map((noise) => rollout(index, noise, rng));
      const out = await analyzer.analyze({ env: 'household', trajectories: runs.map((x) => x.traj) });
      runs.forEach((run, ti) => {
        if (run.traj.success) return;
        const c = (byType[run.type] ??= { failed: 0, skills: 0, againstProgress: 0 });
        c.failed++;
        for (const k of Object.keys(out[ti]?.stepSkills ?? {})) {
          c.skills++;
          const s = run.traj.steps[Number(k)];
          if (!run.progress[Number(k)] || !/^(take|move|clean|heat|cool) /.test(s.action)) continue;
          c.againstProgress++;
          if (examples.length < 3) examples.push(`task ${index}: "${s.action}" progressed, skill "${out[ti]!.stepSkills[Number(k)]}"`);
        }
      });
    }
  }
  return { byType, examples };
}

describe('heuristic analyzer: no step skill against a decisive move that advanced the task', () => {
  it('household/default, 60 tasks × 8 rollouts: 0 step skills at take/treat/move steps the expert counts as progress', async () => {
    const { byType, examples } = await count(60);
    expect(Object.keys(byType).sort()).toEqual(['clean', 'cool', 'heat', 'look', 'pick', 'pick2']);
    const against = Object.fromEntries(Object.entries(byType).map(([k, v]) => [k, v.againstProgress]));
    expect({ against, examples }).toEqual({ against: { clean: 0, cool: 0, heat: 0, look: 0, pick: 0, pick2: 0 }, examples: [] });
    // The rule removes skills only there: failed trajectories still get step skills on every type.
    for (const [type, c] of Object.entries(byType)) expect(c.skills, type).toBeGreaterThan(c.failed);
  });
});

describe('heuristic analyzer: the warning sign of a search that went the wrong way', () => {
  it('names the task\'s object, not the place of the fix as if it were the target', async () => {
    const room = 'You are in the middle of a room. Looking quickly around you, you see a dresser 1, a garbagecan 1, and a sidetable 1.';
    const step = (observation: string, action: string, ret = 0) => ({ observation, action, valid: true, return: ret });
    const task = 'put a remotecontrol in dresser.';
    const win: AnalyzerTrajectory = {
      task, success: true, finalObservation: 'You move the remotecontrol 1 to the dresser 1.',
      steps: [
        step(room, 'go to sidetable 1'), step('You arrive at sidetable 1. On the sidetable 1, you see a remotecontrol 1.', 'take remotecontrol 1 from sidetable 1'),
        step('You pick up the remotecontrol 1 from the sidetable 1.', 'go to dresser 1'), step('You arrive at dresser 1. On the dresser 1, you see nothing.', 'move remotecontrol 1 to dresser 1', 1),
      ],
    };
    // It saw the remote control on the sidetable and went to the garbage can instead (a search visit before it had
    // seen one would not be judged: it could not know where the object was).
    const lose: AnalyzerTrajectory = {
      task, success: false, finalObservation: 'You arrive at garbagecan 1. On the garbagecan 1, you see nothing.',
      steps: [step(room, 'go to sidetable 1'), step('You arrive at sidetable 1. On the sidetable 1, you see a remotecontrol 1.', 'go to garbagecan 1')],
    };
    const [, s] = await new HeuristicAnalyzer({ maxStepSkills: 5 }).analyze({ env: 'household', trajectories: [win, lose] });
    expect(s!.episodeSkill).toBe('avoid: go to garbagecan 1. warning sign: the task names remotecontrol. instead: take remotecontrol 1 from sidetable 1.');
  });
});
