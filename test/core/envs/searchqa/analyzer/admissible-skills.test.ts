/**
 * Property: every step skill the searchqa env's embedded analyzer writes names an action the env accepts at that step
 * — `search[<text>]` or `answer[<text>]` whose open form is in the step's admissible list, non-empty text, no bracket
 * inside (a sampler closes the open form with its first `]`), and valid when taken there — over 300 groups of seeded
 * mixed-quality policies; every step skill is made of the env's word tokens (no byte fallback for a word); and the
 * plan a successful trajectory gets as its episode skill answers correctly when replayed from the task's start.
 *
 * 150 tasks (75 train, 25 each of test-seen, test-unseen and val) get two groups of 4 rollouts, every draw from the
 * project's seeded Rng:
 * - group A: the expert, the expert with 30 % random moves, the expert that answers right after its first search
 *   with a name its passages show (a skipped hop), a uniformly random policy;
 * - group B: the expert that first searches another entity's name (the wrong entity), the expert that answers with
 *   another name of the last passages (a wrong name copied), the expert with 60 % random moves, a random policy
 *   that types junk a fifth of the time.
 * A random move searches 1–3 words of the question, or a title the last passages show, or answers such a title or a
 * word of the question. K is the episode's step limit, so every step skill the analyzer would write is checked.
 */
import { describe, expect, it } from 'vitest';
import { SearchQaAnalyzer } from '../../../../../src/core/envs/searchqa/analyzer/heuristic';
import { SEARCHQA_MAX_STEPS, searchqa, type SearchQaEnv } from '../../../../../src/core/envs/searchqa';
import { corpus } from '../../../../../src/core/envs/searchqa/corpus';
import { readPassages } from '../../../../../src/core/envs/searchqa/analyzer/read';
import { buildTokenizer } from '../../../../../src/core/model/policy';
import type { Split, TaskRef } from '../../../../../src/core/envs/types';
import { Rng } from '../../../../../src/core/rng';
import { actionOf, play, tryAt, type Played } from './helpers';

/** A rollout policy: the expert with probability 1 − noise, else a random move; `junk`: P(junk); a perturbation. */
interface Policy {
  noise: number;
  junk?: number;
  perturb?: 'early' | 'wrongEntity' | 'wrongName';
}
const GROUP_A: Policy[] = [{ noise: 0 }, { noise: 0.3 }, { noise: 0, perturb: 'early' }, { noise: 1 }];
const GROUP_B: Policy[] = [
  { noise: 0, perturb: 'wrongEntity' },
  { noise: 0, perturb: 'wrongName' },
  { noise: 0.6 },
  { noise: 1, junk: 0.2 },
];
const JUNK = ['', 'search[]', 'answer[  ]', 'xyzzy', 'search [x]', '<search>x</search>', 'answer[a] b'];
/** The question's words (letters and digits). */
const wordsOf = (text: string) => text.split(/[^A-Za-z0-9']+/).filter((w) => w !== '');

/** A random move from what the policy sees: the question and the last passages. */
function randomMove(rng: Rng, question: string, observation: string): string {
  const titles = readPassages(observation).map((p) => p.title);
  const words = wordsOf(question);
  const k = rng.int(4);
  if (k === 0) return `search[${Array.from({ length: 1 + rng.int(3) }, () => rng.pick(words)).join(' ')}]`;
  if (k === 1 && titles.length) return `search[${rng.pick(titles)}]`;
  if (k === 2 && titles.length) return `answer[${rng.pick(titles)}]`;
  return `answer[${rng.pick(words)}]`;
}

/** One rollout of `ref` under policy `p`. */
function rollout(ref: TaskRef, p: Policy, rng: Rng): Played {
  let searched = 0;
  return play(ref, (env: SearchQaEnv, step, expert, observation) => {
    const question = env.state.task.question;
    let action: string | null = null;
    if (p.junk && rng.next() < p.junk) action = rng.pick(JUNK);
    else if (rng.next() < p.noise) action = randomMove(rng, question.text, observation);
    else if (p.perturb === 'early' && searched > 0) {
      const titles = readPassages(observation).map((x) => x.title);
      action = `answer[${titles.length ? rng.pick(titles) : 'Arvenia'}]`;
    } else if (p.perturb === 'wrongEntity' && step === 0) action = `search[${rng.pick(corpus()).title}]`;
    else if (p.perturb === 'wrongName' && expert.startsWith('answer[')) {
      const others = readPassages(observation).filter((x) => !question.golds.includes(x.title));
      action = others.length ? `answer[${rng.pick(others).title}]` : null;
    }
    if ((action ?? expert).startsWith('search[')) searched++;
    return action;
  });
}

/** The actions of a success episode skill (`plan: a, then b, …, then z.`). */
function planActions(skill: string): string[] {
  expect(skill.startsWith('plan: ') && skill.endsWith('.')).toBe(true);
  return skill.slice('plan: '.length, -1).split(', then ');
}

interface Count {
  episodes: number;
  successes: number;
  searchSkills: number;
  answerSkills: number;
  failureSkills: number;
  violations: number;
  plansReplayed: number;
}

const tok = buildTokenizer(searchqa);
/** Byte tokens of a text's encoding, except single punctuation, brackets and space (every word is a word token). */
const byteTokens = (text: string) =>
  tok
    .encode(' ' + text)
    .filter((i) => i >= tok.byteOffset && i < tok.byteOffset + 256 && !/^[ .,:;[\]]$/.test(tok.decode([i])));

/** Check one played episode's skills (see the module doc); returns the violations in words. */
function checkEpisode(run: Played, skills: { episodeSkill: string; stepSkills: Record<number, string> }, c: Count) {
  const bad: string[] = [];
  for (const [t, text] of Object.entries(skills.stepSkills)) {
    const i = Number(t);
    const act = actionOf(text) ?? '';
    const m = /^(search|answer)\[[^[\]]*[^[\]\s][^[\]]*\]$/.exec(act);
    if (m?.[1] === 'search') c.searchSkills++;
    else c.answerSkills++;
    const ok = m !== null && run.admissible[i].includes(`${m[1]}[`) && tryAt(run.ref, run.actions, i, act).result.valid;
    if (!ok || byteTokens(text).length) {
      c.violations++;
      bad.push(`${run.ref.split}/${run.ref.index} step ${i}: "${text}" (${run.actions.join(' | ')})`);
    }
  }
  if (skills.episodeSkill.startsWith('avoid: ')) c.failureSkills++;
  if (run.traj.success) {
    c.plansReplayed++;
    const plan = planActions(skills.episodeSkill);
    expect(plan.length).toBeLessThanOrEqual(SEARCHQA_MAX_STEPS);
    const r = tryAt(run.ref, plan, plan.length - 1, plan[plan.length - 1]).result;
    if (!r.success) bad.push(`${run.ref.split}/${run.ref.index}: plan "${skills.episodeSkill}" scored ${r.reward}`);
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

describe('searchqa heuristic analyzer: every step skill is admissible at its step', () => {
  it('300 seeded groups of mixed policies, K = the step limit', async () => {
    const rng = new Rng(20260117);
    const analyzer = new SearchQaAnalyzer({ maxStepSkills: SEARCHQA_MAX_STEPS });
    const c: Count = {
      episodes: 0,
      successes: 0,
      searchSkills: 0,
      answerSkills: 0,
      failureSkills: 0,
      violations: 0,
      plansReplayed: 0,
    };
    const bad: string[] = [];
    for (const ref of TASKS)
      for (const group of [GROUP_A, GROUP_B]) {
        const runs = group.map((p) => rollout(ref, p, rng));
        const out = await analyzer.analyze({ env: 'searchqa', trajectories: runs.map((r) => r.traj) });
        runs.forEach((run, k) => {
          c.episodes++;
          if (run.traj.success) c.successes++;
          expect(out[k]).not.toBeNull();
          expect(out[k]!.episodeSkill).not.toBe('');
          bad.push(...checkEpisode(run, out[k]!, c));
        });
      }
    expect(bad.slice(0, 5)).toEqual([]);
    expect(c.violations).toBe(0);
    expect(c.episodes).toBe(1200);
    // The mix covers both outcomes and both kinds of step skill.
    expect(c.successes).toBeGreaterThan(350);
    expect(c.successes).toBeLessThan(550);
    expect(c.plansReplayed).toBe(c.successes);
    expect(c.failureSkills).toBe(c.episodes - c.successes);
    expect(c.searchSkills).toBeGreaterThan(1200);
    expect(c.answerSkills).toBeGreaterThan(500);
    expect(analyzer.stats()).toEqual({ calls: 1200, failures: 0, latencyMs: expect.any(Number), failureReasons: {} });
  }, 600_000);
});
