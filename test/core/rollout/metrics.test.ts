/**
 * The numbers an env reports besides the reward (`StepResult.info`) travel into the Trajectory (`metrics`, from the
 * latest step that reported any) and into an evaluation's summary (`SplitEval.metrics`, per task type too: the mean
 * over the episodes that report them), for a model's rollout (runner.ts) and a scripted policy's (scripted.ts) alike.
 *
 * Hand-computed on searchqa (SQuAD normalisation and token F1, score.ts): test-seen/3 asks where the founder of the
 * Azure Bank was born, golds `Silver Vale` and `Silver Vale, Galvony`; test-seen/0 (nq) asks when the Beacon Union
 * was founded, gold `1866`.
 * - `answer[the Silver Harbour]` → `silver harbour`: against `silver vale` 1 shared token, P = R = 1/2, F1 = 1/2
 *   (against the 3-token alias P = 1/2, R = 1/3, F1 = 2/5); no gold inside it: substring EM 0; EM 0.
 * - `answer[born in Silver Vale]` → `born in silver vale`: P = 2/4, R = 2/2, F1 = 2·(1/2)·1/(3/2) = 2/3;
 *   `silver vale` is inside it: substring EM 1; EM 0.
 * - four searches and no answer: 0, 0, 0. The expert's answer: 1, 1, 1.
 * Means over the four hotpotqa episodes: EM 1/4, F1 (1 + 1/2 + 2/3 + 0)/4 = 13/24, substring EM 2/4; with the nq
 * expert episode (1, 1, 1), over five: EM 2/5, F1 (13/6 + 1)/5 = 19/30, substring EM 3/5.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { getEnvSpec } from '../../../src/core/envs/registry';
import { buildTokenizer, createPolicy, disposePolicy } from '../../../src/core/model/policy';
import { runEpisodes } from '../../../src/core/rollout/runner';
import { playScripted } from '../../../src/core/rollout/scripted';
import { metricMeans, summarize } from '../../../src/core/rollout/evaluate';
import { episodeSummary } from '../../../src/core/rollout/eval-job';
import type { TaskRef } from '../../../src/core/envs/types';
import { Rng } from '../../../src/core/rng';
import { useBackend } from '../../helpers/backend';

const spec = getEnvSpec('searchqa');
const BANK: TaskRef = { split: 'test-seen', index: 3 };
const NQ: TaskRef = { split: 'test-seen', index: 0 };

/** Play each ref with its own list of actions, in order. */
const scripted = (runs: [TaskRef, string[]][]) => {
  let k = 0;
  return playScripted(
    spec,
    'default',
    runs.map(([ref]) => ref),
    () => {
      const actions = runs[k++][1];
      let i = 0;
      return () => actions[i++];
    },
  );
};

beforeAll(() => useBackend('wasm'));

describe("an env's metrics in trajectories and evaluations", () => {
  it('a scripted policy: EM, F1 and substring EM per episode, their means per split and task type', () => {
    const trajs = scripted([
      [BANK, ['search[Azure Bank]', 'search[Mira Yarrow]', 'answer[Silver Vale]']],
      [BANK, ['answer[the Silver Harbour]']],
      [BANK, ['search[Azure Bank]', 'answer[born in Silver Vale]']],
      [BANK, ['search[a]', 'search[b]', 'search[c]', 'search[d]']],
      [NQ, ['answer[1866]']],
    ]);
    expect(trajs.map((t) => [t.taskType, t.success, t.steps.length])).toEqual([
      ['hotpotqa', true, 3],
      ['hotpotqa', false, 1],
      ['hotpotqa', false, 2],
      ['hotpotqa', false, 4],
      ['nq', true, 1],
    ]);
    const m = trajs.map((t) => t.metrics!);
    expect(m[0]).toEqual({ em: 1, f1: 1, subEm: 1 });
    expect(m[1]).toEqual({ em: 0, f1: 0.5, subEm: 0 });
    expect(m[2].em).toBe(0);
    expect(m[2].f1).toBeCloseTo(2 / 3, 15);
    expect(m[2].subEm).toBe(1);
    expect(m[3]).toEqual({ em: 0, f1: 0, subEm: 0 });
    expect(m[4]).toEqual({ em: 1, f1: 1, subEm: 1 });
    expect(episodeSummary(trajs[1])).toEqual({
      index: 3,
      taskType: 'hotpotqa',
      success: false,
      reward: 0,
      steps: 1,
      metrics: { em: 0, f1: 0.5, subEm: 0 },
    });

    const s = summarize(trajs);
    expect(s.successRate).toBe(0.4);
    expect(Object.keys(s.metrics!)).toEqual(['em', 'f1', 'subEm']);
    expect(s.metrics!.em).toBeCloseTo(2 / 5, 15);
    expect(s.metrics!.f1).toBeCloseTo(19 / 30, 15);
    expect(s.metrics!.subEm).toBeCloseTo(3 / 5, 15);
    const hotpot = s.byTaskType.hotpotqa;
    expect([hotpot.successRate, hotpot.episodes]).toEqual([0.25, 4]);
    expect(hotpot.metrics!.em).toBeCloseTo(1 / 4, 15);
    expect(hotpot.metrics!.f1).toBeCloseTo(13 / 24, 15);
    expect(hotpot.metrics!.subEm).toBeCloseTo(1 / 2, 15);
    expect(s.byTaskType.nq).toEqual({ successRate: 1, episodes: 1, metrics: { em: 1, f1: 1, subEm: 1 } });
  });

  it('the expert: EM 1 and F1 1 on every subset; an env that reports nothing gets no metrics', () => {
    const refs = Array.from({ length: 40 }, (_, index) => ({ split: 'test-unseen' as const, index }));
    const expert = playScripted(spec, 'default', refs, (env) => {
      const e = spec.expert(env);
      return () => e.act();
    });
    const s = summarize(expert);
    expect(s.metrics).toEqual({ em: 1, f1: 1, subEm: 1 });
    expect(Object.keys(s.byTaskType).length).toBe(7);
    for (const v of Object.values(s.byTaskType)) expect(v.metrics).toEqual({ em: 1, f1: 1, subEm: 1 });

    const household = getEnvSpec('household');
    const h = playScripted(household, 'easy', refs.slice(0, 3), (env) => {
      const e = household.expert(env);
      return () => e.act();
    });
    expect(h.every((t) => !('metrics' in t))).toBe(true);
    const hs = summarize(h);
    expect('metrics' in hs).toBe(false);
    expect(Object.values(hs.byTaskType).every((v) => !('metrics' in v))).toBe(true);
    expect(metricMeans(h)).toBeUndefined();
    expect(metricMeans([])).toBeUndefined();
  });

  it("a model's rollout carries the last step's info, as the env gives it on a replay", async () => {
    const tok = buildTokenizer(spec);
    const policy = createPolicy('nano', tok, new Rng(4).fork('init'));
    const refs = Array.from({ length: 8 }, (_, index) => ({ split: 'train' as const, index }));
    const roll = await runEpisodes(policy, spec, 'default', refs, {
      decoding: 'admissible',
      temperature: 1,
      historyTurns: 3,
      maxActionTokens: spec.maxActionTokens!,
      rng: new Rng(9),
    });
    for (const t of roll.trajectories) {
      const env = spec.create('default');
      env.reset(t.ref);
      let last;
      for (const s of t.steps) last = env.step(s.action);
      expect(last!.done).toBe(true);
      expect(t.metrics).toEqual(last!.info);
      expect(Object.keys(t.metrics!)).toEqual(['em', 'f1', 'subEm']);
    }
    disposePolicy(policy);
  });
});
