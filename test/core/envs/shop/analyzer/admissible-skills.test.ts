/**
 * Property: every step skill the shop's embedded analyzer writes names an action the env accepts at that step — a
 * `click[v]` of the step's admissible list, or, where the list holds the open form `search[`, a `search[<words>]` with
 * its closing bracket and no bracket inside — over 300 groups of seeded mixed-quality policies; and the plan a
 * successful trajectory gets as its episode skill buys with reward 1 when replayed from the task's start.
 *
 * 150 tasks (75 train, 25 each of test-seen, test-unseen and val) get two groups of 4 rollouts, every draw from the
 * project's seeded Rng:
 * - group A: the expert, the expert with 30 % and 60 % random moves, a uniformly random policy;
 * - group B: the expert with 80 % random moves, two random policies, a sloppy random policy that 20 % of the time
 *   types junk or an action admissible at an earlier step (mostly failures judged alone, many invalid steps).
 * A random move on the search page types a search: the expert's words, a few of the task's words, or junk words.
 * K is the episode's step limit, so every step skill the analyzer would write is checked, not only the first five.
 */
import { describe, expect, it } from 'vitest';
import { ShopAnalyzer } from '../../../../../src/core/envs/shop/analyzer/heuristic';
import { SEARCH_PREFIX, type ShopEnv } from '../../../../../src/core/envs/shop';
import { SHOP_MAX_STEPS } from '../../../../../src/core/envs/shop/tasks';
import type { Split, TaskRef } from '../../../../../src/core/envs/types';
import { Rng } from '../../../../../src/core/rng';
import { actionOf, play, tryAt, type Played } from './helpers';

/** A rollout policy: the expert with probability 1 − noise, else a random move; `junk`: P(junk or a stale action). */
interface Policy {
  noise: number;
  junk: number;
}
const GROUP_A: Policy[] = [
  { noise: 0, junk: 0 },
  { noise: 0.3, junk: 0 },
  { noise: 0.6, junk: 0 },
  { noise: 1, junk: 0 },
];
const GROUP_B: Policy[] = [
  { noise: 0.8, junk: 0 },
  { noise: 1, junk: 0 },
  { noise: 1, junk: 0 },
  { noise: 1, junk: 0.2 },
];
const JUNK_WORDS = ['red', 'dress', 'zzz', 'cheap', 'gift', 'usb', 'organic', 'blue', 'the', '12'];
const JUNK_ACTIONS = ['search[', 'search[]', 'click[search]', 'buy now', '', 'go north', 'click[buy now]'];

/** A random search: the expert's words, 1–4 of the task's words, or 1–3 junk words. */
function randomSearch(rng: Rng, task: string, expert: string): string {
  const k = rng.int(3);
  if (k === 0) return expert;
  const pool = k === 1 ? task.split(/[\s,:]+/).filter((w) => w !== '') : JUNK_WORDS;
  const n = 1 + rng.int(k === 1 ? 4 : 3);
  return `search[${Array.from({ length: n }, () => rng.pick(pool)).join(' ')}]`;
}

/** One rollout of `ref` under policy `p`. */
function rollout(ref: TaskRef, p: Policy, rng: Rng): Played {
  const earlier = new Set<string>();
  return play(ref, (env: ShopEnv, _step, expert) => {
    const a = env.admissibleActions();
    const stale = [...earlier].filter((x) => !a.includes(x));
    a.forEach((x) => earlier.add(x));
    if (p.junk > 0 && rng.next() < p.junk)
      return stale.length && rng.next() < 0.5 ? rng.pick(stale) : rng.pick(JUNK_ACTIONS);
    if (rng.next() >= p.noise) return null;
    const move = rng.pick(a);
    return move === SEARCH_PREFIX ? randomSearch(rng, env.state.task.instruction, expert) : move;
  });
}

/** The actions of a success episode skill (`plan: a, then b, …, then z.`). */
function planActions(skill: string): string[] {
  expect(skill.startsWith('plan: ') && skill.endsWith('.')).toBe(true);
  return skill.slice('plan: '.length, -1).split(', then ');
}

interface Count {
  groups: number;
  episodes: number;
  successes: number;
  clickSkills: number;
  searchSkills: number;
  violations: number;
  plansReplayed: number;
  plansFailed: number;
}

/** Check one played episode's skills (see the module doc); `bad` collects the first violations in words. */
function checkEpisode(run: Played, skills: { episodeSkill: string; stepSkills: Record<number, string> }, c: Count) {
  const bad: string[] = [];
  for (const [t, text] of Object.entries(skills.stepSkills)) {
    const i = Number(t);
    const act = actionOf(text);
    const adm = run.admissible[i];
    const isSearch = adm.includes(SEARCH_PREFIX);
    if (isSearch) c.searchSkills++;
    else c.clickSkills++;
    const written = act !== null && (isSearch ? /^search\[[^[\]]*[^[\]\s][^[\]]*\]$/.test(act) : adm.includes(act));
    const valid = act !== null && tryAt(run.ref, run.actions, i, act).result.valid;
    if (written && valid) continue;
    c.violations++;
    bad.push(`${run.ref.split}/${run.ref.index} step ${i}: "${text}" not admissible (${adm.join(' | ')})`);
  }
  if (run.traj.success) {
    c.plansReplayed++;
    const plan = planActions(skills.episodeSkill);
    const r = tryAt(run.ref, plan, plan.length - 1, plan[plan.length - 1]).result;
    if (!r.success) {
      c.plansFailed++;
      bad.push(`${run.ref.split}/${run.ref.index}: plan "${skills.episodeSkill}" scored ${r.reward}`);
    }
  }
  return bad;
}

const TASKS: TaskRef[] = (
  [
    ['train', 75],
    ['test-seen', 25],
    ['test-unseen', 25],
    ['val', 25],
  ] as [Split, number][]
).flatMap(([split, n]) => Array.from({ length: n }, (_, index) => ({ split, index })));

describe('shop heuristic analyzer: every step skill is admissible at its step', () => {
  it('300 seeded groups of mixed policies, K = the step limit', async () => {
    const rng = new Rng(20240611);
    const analyzer = new ShopAnalyzer({ maxStepSkills: SHOP_MAX_STEPS });
    const c: Count = {
      groups: 0,
      episodes: 0,
      successes: 0,
      clickSkills: 0,
      searchSkills: 0,
      violations: 0,
      plansReplayed: 0,
      plansFailed: 0,
    };
    const bad: string[] = [];
    for (const ref of TASKS) {
      for (const group of [GROUP_A, GROUP_B]) {
        const runs = group.map((p) => rollout(ref, p, rng));
        const out = await analyzer.analyze({ env: 'shop', trajectories: runs.map((r) => r.traj) });
        c.groups++;
        runs.forEach((run, k) => {
          c.episodes++;
          if (run.traj.success) c.successes++;
          const skills = out[k];
          expect(skills).not.toBeNull();
          expect(skills!.episodeSkill).not.toBe('');
          bad.push(...checkEpisode(run, skills!, c));
        });
      }
    }
    expect(bad.slice(0, 5)).toEqual([]);
    expect(c.violations).toBe(0);
    expect(c.plansFailed).toBe(0);
    expect(c.groups).toBe(300);
    expect(c.episodes).toBe(1200);
    // The mix covers both kinds of skill and both outcomes.
    expect(c.successes).toBeGreaterThan(250);
    expect(c.successes).toBeLessThan(900);
    expect(c.searchSkills).toBeGreaterThan(100);
    expect(c.clickSkills).toBeGreaterThan(1000);
    expect(analyzer.stats()).toEqual({ calls: 1200, failures: 0, latencyMs: expect.any(Number), failureReasons: {} });
  }, 600_000);
});
