/**
 * Evaluation in worker threads (cli/eval-pool.ts) gives exactly the numbers of evaluation in this thread: the trainer's
 * evaluation (evaluatePolicy, both test splits, the `eval/<s>` stream) equals its two split jobs run in two workers,
 * with and without an episode skill, and with hints.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as tf from '../../src/core/tf';
import { Rng } from '../../src/core/rng';
import { getEnvSpec } from '../../src/core/envs/registry';
import {
  buildTokenizer,
  createPolicy,
  disposePolicy,
  savePolicy,
  type PolicyHandle,
} from '../../src/core/model/policy';
import { evaluatePolicy } from '../../src/core/rollout/evaluate';
import { episodeSkillTable, runEvalJob, type EvalJob } from '../../src/core/rollout/eval-job';
import { EvalPool } from '../../cli/eval-pool';
import { useBackend } from '../helpers/backend';

const spec = getEnvSpec('household');
let policy: PolicyHandle;
let weights: Uint8Array;
const pool = new EvalPool(2, 'wasm');

beforeAll(async () => {
  await useBackend('wasm');
  policy = createPolicy('nano', buildTokenizer(spec), new Rng(7).fork('init'));
  weights = await savePolicy(policy, 'nano', { [spec.name]: spec.version });
});
afterAll(async () => {
  disposePolicy(policy);
  await pool.close();
});

const base = {
  env: 'household',
  preset: 'easy',
  firstTask: 0,
  episodes: 6,
  temperature: 1,
  decoding: 'admissible',
  historyTurns: 2,
  maxActionTokens: 12,
  seed: 3,
  hints: 'none',
} as const;
const skill = (type: string) =>
  type.startsWith('p') ? 'first find the object, then go to the receptacle.' : undefined;

describe('evaluation in worker threads', () => {
  it.each([
    ['no skill', false],
    ['an episode skill per task type', true],
  ] as const)('equals evaluatePolicy with %s, split by split', async (_n, withSkill) => {
    const before = tf.memory().numTensors;
    const inThread = await evaluatePolicy(policy, spec, {
      preset: 'easy',
      splits: ['test-seen', 'test-unseen'],
      episodes: 6,
      temperature: 1,
      decoding: 'admissible',
      historyTurns: 2,
      maxActionTokens: 12,
      rng: new Rng(3).fork('eval/4'),
      episodeSkillFor: withSkill ? skill : undefined,
    });
    expect(tf.memory().numTensors).toBe(before);
    const episodeSkills = withSkill ? episodeSkillTable(spec, 'easy', skill) : null;
    if (withSkill) expect(Object.keys(episodeSkills!).length).toBeGreaterThan(0);
    const jobs: EvalJob[] = (['test-seen', 'test-unseen'] as const).map((split) => ({
      ...base,
      split,
      streams: ['eval/4', split],
      episodeSkills,
    }));
    const threaded = await Promise.all(jobs.map((j) => pool.evaluate(j, weights)));
    expect(threaded.map((r) => r.eval)).toEqual([inThread.splits['test-seen'], inThread.splits['test-unseen']]);
    expect(threaded[0].tokens + threaded[1].tokens).toBe(inThread.tokens);
    // Episode by episode: the same tasks, outcomes, rewards and lengths.
    const seen = inThread.trajectories['test-seen']!;
    expect(threaded[0].episodes).toEqual(
      seen.map((t) => ({
        index: t.ref.index,
        taskType: t.taskType,
        success: t.success,
        reward: t.reward,
        steps: t.steps.length,
      })),
    );
  });

  it(
    'equals runEvalJob in this thread for a job with hints, a first task and the root stream (eval ' + '--split)',
    async () => {
      const job: EvalJob = {
        ...base,
        split: 'test-unseen',
        firstTask: 5,
        episodes: 4,
        hints: 'both',
        streams: [],
        episodeSkills: null,
      };
      const here = await runEvalJob(policy, spec, job);
      expect(here.episodes.map((e) => e.index)).toEqual([5, 6, 7, 8]);
      expect(await pool.evaluate(job, weights)).toEqual(here);
    },
  );

  it('a job the worker cannot run rejects with the reason', async () => {
    await expect(
      pool.evaluate({ ...base, split: 'test-seen', streams: [], episodeSkills: null }, weights.slice(0, 20)),
    ).rejects.toThrow(/weights|safetensors|header/i);
    await expect(
      pool.evaluate({ ...base, split: 'test-seen', streams: [], episodeSkills: null, episodes: -1 }, weights),
    ).rejects.toThrow(/malformed request/);
  });
});
