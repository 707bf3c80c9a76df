/**
 * The next-action distribution of core/rollout/act-topk.ts, checked by hand with the shipped household/default base
 * policy on a train task's second turn: each admissible action's full-sequence log-prob equals the sum, over its
 * tokens ␣a <eos>, of log softmax(logits / T + mask) computed here in float64 from the model's raw logits (one
 * forward pass per action, the trie's allowed set under admissible decoding, the free set under free decoding); under
 * admissible decoding the masked distributions sum to 1 over the list's complete actions (so normalising changes p by
 * rounding only) and the top-k probabilities are exp(ℓ − log Σ exp ℓ); under free decoding p = exp(ℓ). Top-k
 * sums are ≤ 1; no tensor is left behind.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '../../../src/core/tf';
import { getEnvSpec } from '../../../src/core/envs/registry';
import { buildTokenizer, loadPolicy, type PolicyHandle } from '../../../src/core/model/policy';
import { forward, logits } from '../../../src/core/model/transformer';
import { actionTokens, buildPrompt } from '../../../src/core/rollout/prompt';
import { ActionTrie } from '../../../src/core/rollout/trie';
import { actionSamples, rankActions, scoreActions, topActions } from '../../../src/core/rollout/act-topk';
import { loadBaseFiles } from '../../../cli/base';
import { useBackend } from '../../helpers/backend';

const spec = getEnvSpec('household');
const tok = buildTokenizer(spec);
let policy: PolicyHandle;
let prompt: number[];
let admissible: string[];
const T = 0.7;
const MAX = 12;

beforeAll(async () => {
  await useBackend('wasm');
  policy = loadPolicy((await loadBaseFiles(spec, 'default', tok)).bytes, tok);
  // household/default train task 3 after the expert's first action: 15 admissible actions of 1 to 6 tokens.
  const env = spec.create('default');
  const r = env.reset({ split: 'train', index: 3 });
  const first = spec.expert(env).act();
  const st = env.step(first);
  admissible = env.admissibleActions();
  prompt = buildPrompt(
    tok,
    {
      task: r.task,
      history: [{ action: first, observation: st.observation }],
      observation: st.observation,
      admissible,
      historyTurns: 3,
    },
    policy.cfg.maxSeq - MAX,
  );
});

/**
 * ℓ(a) by hand: one forward pass over prompt + ␣a <eos>, then a float64 log-softmax of logits / T over the allowed
 * set.
 */
function handLogp(action: string, decoding: 'admissible' | 'free'): number {
  const eos = tok.special('<eos>');
  const trie = new ActionTrie(
    admissible.map((a) => actionTokens(tok, a)),
    eos,
  );
  const response = [...actionTokens(tok, action), eos];
  const ids = [...prompt, ...response];
  const L = ids.length;
  const lg = tf.tidy(() => {
    const { hidden } = forward(
      policy.params,
      policy.cfg,
      tf.tensor2d(ids, [1, L], 'int32'),
      tf.tensor2d([...Array(L).keys()], [1, L], 'int32'),
    );
    return logits(policy.params, tf.reshape(hidden, [L, -1]) as tf.Tensor2D);
  });
  const all = lg.dataSync() as Float32Array;
  lg.dispose();
  const V = policy.cfg.vocabSize;
  let sum = 0;
  for (let t = 0; t < response.length; t++) {
    const row = all.subarray((prompt.length - 1 + t) * V, (prompt.length + t) * V);
    const allowed =
      decoding === 'admissible'
        ? Array.from(trie.allowed(response.slice(0, t)))
        : [...Array(V).keys()].filter((v) => policy.freeRow[v] === 0);
    const xs = allowed.map((v) => row[v] / T);
    const m = Math.max(...xs);
    const lse = m + Math.log(xs.reduce((z, x) => z + Math.exp(x - m), 0));
    sum += row[response[t]] / T - lse;
  }
  return sum;
}

describe('scoreActions / topActions', () => {
  it(
    'admissible decoding: ℓ(a) by hand, a proper distribution over the list, top-5 = exp(ℓ − log ' +
      'Σ exp ℓ), sum ≤ 1',
    async () => {
      expect(admissible.length).toBeGreaterThan(5);
      const n0 = tf.memory().numTensors;
      const scores = await scoreActions(policy, prompt, admissible, {
        decoding: 'admissible',
        temperature: T,
        maxActionTokens: MAX,
      });
      expect(tf.memory().numTensors).toBe(n0);
      const hand = admissible.map((a) => handLogp(a, 'admissible'));
      scores.forEach((s, i) => {
        expect(s.action).toBe(admissible[i]);
        expect(s.logp, s.action).toBeCloseTo(hand[i], 4);
      });
      // The trie-masked token distributions leave no mass outside the list's complete actions.
      expect(hand.reduce((z, l) => z + Math.exp(l), 0)).toBeCloseTo(1, 4);
      const lse = Math.log(hand.reduce((z, l) => z + Math.exp(l), 0));
      const top = topActions(scores, 5);
      expect(top).toHaveLength(5);
      for (const a of top) expect(a.prob, a.action).toBeCloseTo(Math.exp(hand[a.index] - lse), 5);
      for (let j = 1; j < top.length; j++) expect(top[j].prob).toBeLessThanOrEqual(top[j - 1].prob);
      expect(top[0].prob).toBe(Math.max(...scores.map((s) => s.prob)));
      expect(top.reduce((z, a) => z + a.prob, 0)).toBeLessThanOrEqual(1);
      expect(rankActions(scores).reduce((z, a) => z + a.prob, 0)).toBeCloseTo(1, 12);
    },
  );

  it('free decoding: p = exp(ℓ) with ℓ by hand over the free set, unnormalised, sum ≤ 1', async () => {
    const n0 = tf.memory().numTensors;
    const scores = await scoreActions(policy, prompt, admissible, {
      decoding: 'free',
      temperature: T,
      maxActionTokens: MAX,
    });
    expect(tf.memory().numTensors).toBe(n0);
    for (const s of scores) {
      const h = handLogp(s.action, 'free');
      expect(s.logp, s.action).toBeCloseTo(h, 4);
      expect(s.prob).toBeCloseTo(Math.exp(h), 5);
    }
    const top = topActions(scores, 5);
    expect(top.reduce((z, a) => z + a.prob, 0)).toBeLessThanOrEqual(1);
    expect(scores.reduce((z, a) => z + a.prob, 0)).toBeLessThanOrEqual(1);
  });

  it(
    'an action longer than maxActionTokens cannot be completed: probability 0, not scored; bad options ' +
      'are refused',
    async () => {
      const long = admissible.reduce((a, b) => (actionTokens(tok, a).length >= actionTokens(tok, b).length ? a : b));
      const n = actionTokens(tok, long).length; // response = n + 1 tokens with <eos>
      const { samples, index } = actionSamples(policy, prompt, admissible, {
        decoding: 'admissible',
        temperature: T,
        maxActionTokens: n,
      });
      expect(index).not.toContain(admissible.indexOf(long));
      expect(samples.every((s) => s.response.length <= n)).toBe(true);
      const scores = await scoreActions(policy, prompt, admissible, {
        decoding: 'admissible',
        temperature: T,
        maxActionTokens: n,
      });
      expect(scores[admissible.indexOf(long)]).toMatchObject({ logp: -Infinity, prob: 0 });
      await expect(
        scoreActions(policy, prompt, admissible, { decoding: 'admissible', temperature: 0, maxActionTokens: MAX }),
      ).rejects.toThrow(/temperature must be > 0/);
      await expect(
        scoreActions(policy, prompt, admissible, { decoding: 'admissible', temperature: T, maxActionTokens: 1 }),
      ).rejects.toThrow(/no admissible action fits in maxActionTokens = 1/);
      expect(() => topActions(scores, 0)).toThrow(/k must be a positive integer/);
    },
  );

  it('an open action (search[) is scored as the mass of entering its slot: the list still sums to 1', async () => {
    const withOpen = [...admissible, 'search['];
    const scores = await scoreActions(policy, prompt, withOpen, {
      decoding: 'admissible',
      temperature: T,
      maxActionTokens: MAX,
    });
    const open = scores[withOpen.length - 1];
    expect(open.tokens).toBe(actionTokens(tok, 'search[').length);
    expect(open.logp).toBeLessThan(0);
    expect(open.logp).toBeGreaterThan(-Infinity);
    // ℓ(search[) by hand: the prefix's tokens under the trie's masks (the same forward pass helper, no <eos>)
    const eos = tok.special('<eos>');
    const { samples } = actionSamples(policy, prompt, withOpen, {
      decoding: 'admissible',
      temperature: T,
      maxActionTokens: MAX,
    });
    const last = samples.at(-1);
    expect(last?.response).toEqual(actionTokens(tok, 'search['));
    expect(last?.response).not.toContain(eos);
    // unnormalised masses: the closed actions' and the slot's probabilities add up to 1 before normalising
    const total = scores.reduce((z, a) => z + Math.exp(a.logp), 0);
    expect(total).toBeCloseTo(1, 4);
    expect(scores.reduce((z, a) => z + a.prob, 0)).toBeCloseTo(1, 6);
  });
});
