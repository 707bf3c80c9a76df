/**
 * "Act with the current policy" (src/worker/act.ts) with the shipped base policy on a household/easy train task: each
 * turn lists the top-5 admissible actions with the probabilities core/rollout/act-topk.ts gives for the prompt a
 * rollout would build (recomputed here), greedy takes the first row, sampling replays exactly with the same seed and
 * weights, the episode follows the environment (reply, reward, done) and ends at success; the API refuses what it
 * cannot do, saying why. No tensor is left behind. On searchqa, whose admissible actions are the open forms `search[`
 * and `answer[`, greedy plays the most probable form filled with its most probable tokens (not the bare form), and a
 * sampled response cut before its `]` is named as no action (a sampled action closed in a form, which carries the form
 * and its rank, needs trained weights: test/e2e/searchqa.test.ts).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '../../src/core/tf';
import { getEnvSpec } from '../../src/core/envs/registry';
import {
  buildTokenizer,
  createPolicy,
  disposePolicy,
  loadPolicy,
  type PolicyHandle,
} from '../../src/core/model/policy';
import { Rng } from '../../src/core/rng';
import { buildPrompt } from '../../src/core/rollout/prompt';
import { rankActions, scoreActions } from '../../src/core/rollout/act-topk';
import { parseRunConfig } from '../../src/core/run/config';
import type { GroupDetail } from '../../src/core/train/step-detail';
import { ACT_TOP_K, ActEpisode, actApi, openFormOf } from '../../src/worker/act';
import type { LivePolicy } from '../../src/worker/session';
import { loadBaseFiles } from '../../cli/base';
import { useBackend } from '../helpers/backend';

const spec = getEnvSpec('household');
const tok = buildTokenizer(spec);
let policy: PolicyHandle;
const config = parseRunConfig({ preset: 'easy', model: 'nano', seed: 5, temperature: 1, historyTurns: 3 });
const TASK = 11;

beforeAll(async () => {
  await useBackend('wasm');
  policy = loadPolicy((await loadBaseFiles(spec, 'easy', tok)).bytes, tok);
});

/** A stored group of one trajectory on train task TASK (only what the act panel reads: task index, first prompt). */
function group(episodeSkill?: string): GroupDetail {
  const env = spec.create('easy');
  const r = env.reset({ split: 'train', index: TASK });
  const prompt = Int32Array.from(
    buildPrompt(
      tok,
      {
        task: r.task,
        history: [],
        observation: r.observation,
        admissible: env.admissibleActions(),
        historyTurns: 3,
        episodeSkill,
      },
      200,
    ),
  );
  return {
    step: 4,
    group: 1,
    task: r.task,
    taskType: r.taskType,
    taskIndex: TASK,
    trajectories: [
      {
        success: false,
        reward: 0,
        score: 0,
        advantage: 0,
        invalidCount: 0,
        initialObservation: r.observation,
        turns: [
          {
            prompt,
            observation: r.observation,
            reply: '',
            action: 'look',
            valid: true,
            reward: 0,
            done: false,
            tokenStart: 0,
            tokenCount: 2,
          },
        ],
      },
    ],
    tokens: {
      ids: new Int32Array(2),
      adv: new Float32Array(2),
      aEp: new Float32Array(2),
      aSkill: null,
      logpSkill: null,
      logpOld: new Float32Array(2),
      logpRef: null,
      entropy: new Float32Array(2),
      ratio: null,
    },
  };
}

describe('ActEpisode', () => {
  it(
    "greedy: top-5 of the rollout prompt's action distribution, the first row taken, the environment " + 'followed',
    async () => {
      const n0 = tf.memory().numTensors;
      const ep = new ActEpisode(config, group(), 0, tok);
      const env = spec.create('easy');
      env.reset({ split: 'train', index: TASK });
      const hist: { action: string; observation: string }[] = [];
      let obs = ep.view.initialObservation;
      for (let k = 0; k < 3 && !ep.view.done; k++) {
        const turn = await ep.step(policy, 7, true);
        // The same numbers from the prompt a rollout builds at this state.
        const adm = env.admissibleActions();
        const prompt = buildPrompt(
          tok,
          { task: ep.view.task, history: hist, observation: obs, admissible: adm, historyTurns: 3 },
          policy.cfg.maxSeq - config.maxActionTokens,
        );
        const ranked = rankActions(
          await scoreActions(policy, prompt, adm, {
            decoding: 'admissible',
            temperature: 1,
            maxActionTokens: config.maxActionTokens,
          }),
        );
        expect(turn.top).toEqual(ranked.slice(0, ACT_TOP_K));
        expect(turn.top.reduce((s, a) => s + a.prob, 0)).toBeLessThanOrEqual(1 + 1e-12);
        expect(turn.rest).toBeCloseTo(1 - turn.top.reduce((s, a) => s + a.prob, 0), 12);
        expect(turn.chosen).toMatchObject({
          action: ranked[0].action,
          how: 'greedy',
          rank: 1,
          prob: ranked[0].prob,
          valid: true,
        });
        expect(turn).toMatchObject({ turn: k + 1, observation: obs, admissibleCount: adm.length, weightsStep: 7 });
        const st = env.step(turn.chosen.action);
        expect(turn).toMatchObject({ reply: st.observation, reward: st.reward, done: st.done });
        hist.push({ action: turn.chosen.action, observation: st.observation });
        obs = st.observation;
      }
      expect(tf.memory().numTensors).toBe(n0);
    },
  );

  it(
    'sampled: admissible actions drawn with the seeded generator replay exactly; the episode ends and ' +
      'then refuses',
    async () => {
      const n0 = tf.memory().numTensors;
      const play = async () => {
        const ep = new ActEpisode(config, group(), 0, tok);
        const taken: string[] = [];
        while (!ep.view.done) taken.push((await ep.step(policy, 0, false)).chosen.action);
        for (const t of ep.view.turns) {
          expect(t.chosen.how).toBe('sampled');
          expect(t.chosen.rank).not.toBeNull(); // admissible decoding only emits admissible actions
          if (t.chosen.rank! <= ACT_TOP_K)
            expect(t.top[t.chosen.rank! - 1]).toMatchObject({ action: t.chosen.action, prob: t.chosen.prob });
          expect(t.chosen.valid).toBe(true);
        }
        await expect(ep.step(policy, 0, false)).rejects.toThrow(/the episode is over/);
        return { taken, view: ep.view };
      };
      const a = await play(),
        b = await play();
      expect(b.taken).toEqual(a.taken);
      expect(a.view.turns.length).toBeLessThanOrEqual(a.view.maxSteps);
      expect(a.view.success).toBe(a.view.turns.at(-1)!.reward >= 1);
      expect(tf.memory().numTensors).toBe(n0);
    },
    120_000,
  );

  it("keeps the rollout's episode skill in every prompt; refuses a trajectory the group lacks", () => {
    const ep = new ActEpisode(config, group('clean it first.'), 0, tok);
    expect(ep.view.episodeSkill).toBe('clean it first.');
    expect(() => new ActEpisode(config, group(), 3, tok)).toThrow(/group 1 of step 4 has no trajectory 3 \(it has 1\)/);
  });
});

describe('actApi', () => {
  it('starts on a held group, steps with the live weights, and says why it cannot', async () => {
    let live: LivePolicy | null = { policy, config, step: 2 };
    const held = group();
    const api = actApi({
      withPolicy: async (read) => {
        if (!live) throw new Error('training is running; pause it (or let it finish) first');
        return read(live);
      },
      group: (s, g) => (s === 4 && g === 1 ? held : null),
    });
    await expect(api.actStep(true)).rejects.toThrow(/press Act first/);
    await expect(api.actStart(3, 0, 0)).rejects.toThrow(/holds no group 0 of step 3/);
    const v0 = await api.actStart(4, 1, 0);
    expect(v0).toMatchObject({
      from: { step: 4, group: 1, trajectory: 0 },
      taskIndex: TASK,
      turns: [],
      done: false,
      k: ACT_TOP_K,
      decoding: 'admissible',
      temperature: 1,
    });
    const v1 = await api.actStep(true);
    const v2 = await api.actStep(false);
    expect(v2.turns.map((t) => t.chosen.how)).toEqual(['greedy', 'sampled']);
    expect(v2.turns[0]).toEqual(v1.turns[0]);
    expect(v2.turns.every((t) => t.weightsStep === 2)).toBe(true);
    live = null;
    await expect(api.actStep(true)).rejects.toThrow(/training is running/);
    live = { policy, config: parseRunConfig({ ...config }), step: 3 };
    await expect(api.actStep(true)).rejects.toThrow(/the run has changed since Act was pressed/);
  }, 120_000);
});

describe('ActEpisode on an env whose every action is an open form (searchqa, fresh nano weights)', () => {
  const qa = getEnvSpec('searchqa');
  const qaTok = buildTokenizer(qa);
  const qaConfig = parseRunConfig({ env: 'searchqa', model: 'nano', seed: 5, temperature: 1, historyTurns: 3 });
  const QA_TASK = 7;
  /** A group of one stored trajectory (no turns kept) on searchqa train task QA_TASK. */
  function qaGroup(): GroupDetail {
    const r = qa.create('default').reset({ split: 'train', index: QA_TASK });
    const g = group();
    return {
      ...g,
      task: r.task,
      taskType: r.taskType,
      taskIndex: QA_TASK,
      trajectories: [{ ...g.trajectories[0], initialObservation: r.observation, turns: [] }],
    };
  }

  it('greedy fills the most probable form with its most probable tokens, not the bare form', async () => {
    const n0 = tf.memory().numTensors;
    const policy = createPolicy('nano', qaTok, new Rng(3));
    const play = async () => (await new ActEpisode(qaConfig, qaGroup(), 0, qaTok).step(policy, 0, true)).chosen;
    const ep = new ActEpisode(qaConfig, qaGroup(), 0, qaTok);
    const t = await ep.step(policy, 0, true);
    expect(t.top.map((a) => a.action).sort()).toEqual(['answer[', 'search[']);
    const form = t.top[0].action;
    expect(t.chosen).toMatchObject({ how: 'greedy', rank: 1, form });
    expect(t.chosen.action.startsWith(form)).toBe(true);
    expect(t.chosen.action.length).toBeGreaterThan(form.length);
    // ℓ of the whole action: the form's own ℓ plus its words' (each < 0), at the run's temperature.
    expect(t.chosen.logp).toBeLessThan(t.top[0].logp);
    expect(t.chosen.prob).toBeCloseTo(Math.exp(t.chosen.logp), 12);
    const env = qa.create('default');
    env.reset({ split: 'train', index: QA_TASK });
    const st = env.step(t.chosen.action);
    expect(t).toMatchObject({ reply: st.observation, done: st.done, chosen: { valid: st.valid } });
    expect((await play()).action).toBe(t.chosen.action); // greedy: the same action every time
    disposePolicy(policy);
    expect(tf.memory().numTensors).toBe(n0);
  }, 120_000);

  it('sampled: a response cut before its ] (fresh weights) is played as is, with no form and no rank', async () => {
    const policy = createPolicy('nano', qaTok, new Rng(3));
    const ep = new ActEpisode(qaConfig, qaGroup(), 0, qaTok);
    while (!ep.view.done) await ep.step(policy, 0, false);
    // Fresh weights never close a form within maxActionTokens (16): each response is cut, and the env refuses it.
    expect(ep.view.turns.length).toBe(ep.view.maxSteps);
    for (const t of ep.view.turns) {
      expect(t.chosen).toMatchObject({ how: 'sampled', rank: null, valid: false });
      expect(t.chosen.form).toBeUndefined();
      expect(openFormOf(t.chosen.action, ['search[', 'answer['])).toBeNull();
      expect(t.chosen.prob).toBeCloseTo(Math.exp(t.chosen.logp), 12);
      expect(t.reply).toMatch(/^My previous action is invalid\./);
    }
    disposePolicy(policy);
  }, 120_000);

  it('openFormOf: the admissible open form an action fills with words and a closing ]', () => {
    const adm = ['search[', 'answer['];
    expect(openFormOf('Search[Red shoes]', adm)).toBe('search[');
    expect(openFormOf('answer[Silver Vale]', adm)).toBe('answer[');
    for (const a of ['search[', 'search[]', 'search[red', 'click[red]', 'research[x]'])
      expect(openFormOf(a, adm), a).toBeNull();
    expect(openFormOf('search[red]', ['answer['])).toBeNull();
  });
});
