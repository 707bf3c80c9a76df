/**
 * Property: every step skill the heuristic analyzer writes names an action that is admissible at that step (in the
 * environment's admissible list for the state at that turn: ALFWorld's preconditions,
 * src/core/envs/household/rules.ts), on every task type of household/default and household/easy, over many trajectories
 * of mixed quality.
 *
 * Each task gets two groups of 4 rollouts, each rollout from one policy, all draws from the project's seeded Rng:
 * - group A: the expert, the expert with 20 % and 50 % random admissible moves, and a uniformly random policy
 *   (successes, and failures with a successful sibling);
 * - group B: the expert with 80 % random moves, two random policies, and a sloppy random policy that gives an action
 *   admissible at an earlier step but not now 15 % of the time (mostly failures judged alone, some inadmissible steps).
 * K is the episode's step limit, so every step skill the analyzer would write is checked, not only the first five.
 */
import { describe, expect, it } from 'vitest';
import { HeuristicAnalyzer } from '../../../../../src/core/envs/household/analyzer/heuristic';
import type { AnalyzerTrajectory } from '../../../../../src/core/analyzer/types';
import { discountedReturns } from '../../../../../src/core/math/returns';
import { getEnvSpec } from '../../../../../src/core/envs/registry';
import { STEP_TEMPLATES } from '../../../../../src/core/skills/grammar';
import { Rng } from '../../../../../src/core/rng';

/** The action inside a step skill, from the grammar's templates (null if the text fits none). */
function actionOf(skill: string): string | null {
  for (const t of STEP_TEMPLATES) {
    const [pre, post] = t.split('{a}');
    if (skill.startsWith(pre) && skill.endsWith(post)) return skill.slice(pre.length, skill.length - post.length);
  }
  return null;
}

/**
 * A rollout policy: the expert with probability 1 − noise, else a random admissible action; `stale`: P(an old
 * action).
 */
interface Policy {
  noise: number;
  stale: number;
}
const GROUP_A: Policy[] = [
  { noise: 0, stale: 0 },
  { noise: 0.2, stale: 0 },
  { noise: 0.5, stale: 0 },
  { noise: 1, stale: 0 },
];
const GROUP_B: Policy[] = [
  { noise: 0.8, stale: 0 },
  { noise: 1, stale: 0 },
  { noise: 1, stale: 0 },
  { noise: 1, stale: 0.15 },
];

const spec = getEnvSpec('household');

/**
 * One episode of task `index` (train split) under `p`: the trajectory as the analyzer sees it, and each step's
 * admissible list.
 */
function rollout(
  preset: string,
  index: number,
  p: Policy,
  rng: Rng,
): { type: string; traj: AnalyzerTrajectory; admissible: string[][] } {
  const env = spec.create(preset);
  const expert = spec.expert(env);
  const r = env.reset({ split: 'train', index });
  let obs = r.observation,
    success = false,
    done = false;
  const steps: { observation: string; action: string; valid: boolean; reward: number }[] = [],
    admissible: string[][] = [];
  while (!done) {
    const a = env.admissibleActions();
    const old = p.stale > 0 ? [...new Set(admissible.flat())].filter((x) => !a.includes(x)) : [];
    const action =
      old.length && rng.next() < p.stale
        ? old[rng.int(old.length)]
        : rng.next() < p.noise
          ? a[rng.int(a.length)]
          : expert.act();
    const st = env.step(action);
    steps.push({ observation: obs, action, valid: st.valid, reward: st.reward });
    admissible.push(a);
    obs = st.observation;
    success ||= st.success;
    done = st.done;
  }
  const G = discountedReturns(steps.map((s) => s.reward));
  return {
    type: r.taskType,
    admissible,
    traj: {
      task: r.task,
      success,
      finalObservation: obs,
      steps: steps.map((s, i) => ({ observation: s.observation, action: s.action, valid: s.valid, return: G[i] })),
    },
  };
}

/** Per task type: tasks, episodes, successes, step skills checked, and step skills naming an inadmissible action. */
interface Count {
  tasks: number;
  episodes: number;
  successes: number;
  skills: number;
  violations: number;
}

/**
 * Run `perType` tasks of every task type of a preset (train indices from `first` on, in order) through both groups and
 * the analyzer; count per type. `bad` collects the first violations in words.
 */
async function check(
  preset: string,
  perType: number,
  first: number,
  seed: number,
  bad: string[],
): Promise<Record<string, Count>> {
  const rng = new Rng(seed);
  const counts: Record<string, Count> = {};
  const analyzer = new HeuristicAnalyzer({ maxStepSkills: spec.create(preset).maxSteps });
  const types = presetTypes(preset);
  for (let index = first; types.some((t) => (counts[t]?.tasks ?? 0) < perType); index++) {
    const type = spec.create(preset).reset({ split: 'train', index }).taskType;
    const c = (counts[type] ??= { tasks: 0, episodes: 0, successes: 0, skills: 0, violations: 0 });
    if (c.tasks >= perType) continue;
    c.tasks++;
    for (const group of [GROUP_A, GROUP_B]) {
      const runs = group.map((p) => rollout(preset, index, p, rng));
      const out = await analyzer.analyze({ env: 'household', trajectories: runs.map((x) => x.traj) });
      runs.forEach((run, ti) => {
        c.episodes++;
        if (run.traj.success) c.successes++;
        for (const [t, text] of Object.entries(out[ti]?.stepSkills ?? {})) {
          c.skills++;
          const act = actionOf(text),
            adm = run.admissible[Number(t)];
          if (act !== null && adm.includes(act)) continue;
          c.violations++;
          if (bad.length < 3)
            bad.push(`${preset} ${type} task ${index} rollout ${ti} step ${t}: "${text}" not in [${adm.join(' | ')}]`);
        }
      });
    }
  }
  return counts;
}

/** The task types a preset draws (from its first 200 train tasks). */
function presetTypes(preset: string): string[] {
  const env = spec.create(preset);
  const seen = new Set<string>();
  for (let i = 0; i < 200; i++) seen.add(env.reset({ split: 'train', index: i }).taskType);
  return [...seen].sort();
}

const violations = (c: Record<string, Count>) =>
  Object.fromEntries(Object.entries(c).map(([k, v]) => [k, v.violations]));

describe('heuristic analyzer: every step skill names an action admissible at its step', () => {
  it(
    'household/default: 40 tasks × 8 rollouts of each of the 6 task types, 0 inadmissible step skills ' + 'per type',
    async () => {
      const bad: string[] = [];
      const c = await check('default', 40, 0, 11, bad);
      expect(Object.keys(c).sort()).toEqual(['clean', 'cool', 'heat', 'look', 'pick', 'pick2']);
      expect({ violations: violations(c), examples: bad }).toEqual({
        violations: { pick: 0, look: 0, clean: 0, heat: 0, cool: 0, pick2: 0 },
        examples: [],
      });
      for (const [type, v] of Object.entries(c)) {
        expect({ type, episodes: v.episodes }).toEqual({ type, episodes: 320 });
        // Mixed quality: the expert rollouts succeed, the random ones mostly do not; skills on every type.
        expect(v.successes, type).toBeGreaterThanOrEqual(80);
        expect(v.successes, type).toBeLessThan(v.episodes);
        expect(v.skills, type).toBeGreaterThan(2000);
      }
    },
  );

  it('household/easy (pick only): 100 tasks × 8 rollouts, 0 inadmissible step skills', async () => {
    const bad: string[] = [];
    const c = await check('easy', 100, 0, 12, bad);
    expect({ violations: violations(c), examples: bad }).toEqual({ violations: { pick: 0 }, examples: [] });
    expect(c.pick.episodes).toBe(800);
    expect(c.pick.successes).toBeGreaterThanOrEqual(200);
    expect(c.pick.successes).toBeLessThan(800);
    expect(c.pick.skills).toBeGreaterThan(2500);
  });
});
