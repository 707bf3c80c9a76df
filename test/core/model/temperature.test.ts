/**
 * Log-probs are of the distribution that sampled: for rollouts at temperature T, the trainer's scoring (old, current,
 * reference and skill re-scoring all go through scoreSamples / tokenLogProbs at T) gives every sampled token the
 * sampler's own log-prob, for T ∈ {0.5, 1, 2} and both decoding modes.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '../../../src/core/tf';
import { useBackend } from '../../helpers/backend';
import { buildTokenizer, createPolicy, disposePolicy } from '../../../src/core/model/policy';
import { getEnvSpec } from '../../../src/core/envs/registry';
import { runEpisodes } from '../../../src/core/rollout/runner';
import { packSamples } from '../../../src/core/algorithms/outcome';
import { buildScoreBatch, disposeBatch, scoreSamples, tokenLogProbs } from '../../../src/core/model/scoring';
import { Rng } from '../../../src/core/rng';

beforeAll(() => useBackend('wasm'));

describe('sampler and trainer log-probs agree at the rollout temperature', () => {
  const spec = getEnvSpec('household');
  const tok = buildTokenizer(spec);
  it.each([
    [0.5, 'admissible'],
    [1, 'admissible'],
    [2, 'admissible'],
    [0.5, 'free'],
    [1, 'free'],
    [2, 'free'],
  ] as const)('T = %s, %s decoding', async (temperature, decoding) => {
    const policy = createPolicy('nano', tok, new Rng(3).fork('init'));
    const refs = [0, 1, 2, 3].map((index) => ({ split: 'train' as const, index }));
    const roll = await runEpisodes(policy, spec, 'easy', refs, {
      decoding,
      temperature,
      historyTurns: 1,
      maxActionTokens: 6,
      rng: new Rng(9),
    });
    const packed = packSamples(roll.trajectories);
    const sampler = roll.trajectories.flatMap((t) => t.steps.flatMap((s) => s.sampleLogp));
    expect(sampler.length).toBe(packed.tokens);
    expect(packed.tokens).toBeGreaterThan(20);
    const before = tf.memory().numTensors;
    const scored = await scoreSamples(policy.params, policy.cfg, packed.samples, policy.freeRow, { temperature });
    let worst = 0;
    sampler.forEach((lp, m) => (worst = Math.max(worst, Math.abs(lp - scored.logp[m]))));
    expect(worst).toBeLessThan(2e-4);
    // The differentiable path the update uses (tokenLogProbs) gives the same numbers.
    const b = buildScoreBatch(packed.samples, policy.cfg, policy.freeRow);
    const lp = tf.tidy(() => tokenLogProbs(policy.params, policy.cfg, b, temperature).logp);
    const arr = await lp.data();
    sampler.forEach((x, m) => expect(Math.abs(x - arr[m])).toBeLessThan(2e-4));
    lp.dispose();
    disposeBatch(b);
    expect(tf.memory().numTensors).toBe(before);
    // At T ≠ 1, scoring at T = 1 would not match (the bug this guards against).
    if (temperature !== 1 && decoding === 'free') {
      const at1 = await scoreSamples(policy.params, policy.cfg, packed.samples, policy.freeRow);
      expect(Math.max(...sampler.map((x, m) => Math.abs(x - at1.logp[m])))).toBeGreaterThan(0.01);
    }
    disposePolicy(policy);
  });
});
