/**
 * `npm run eval`'s jobs sample actions up to the env's own longest action (EnvSpec.maxActionTokens), as pretraining
 * and training do: shop's searches are up to 17 tokens with <eos>, beyond the 12 the command used for every env.
 */
import { describe, expect, it } from 'vitest';
import { evalJobs, type EvalJobFlags } from '../../cli/eval-jobs';
import { ENV_SPECS, getEnvSpec } from '../../src/core/envs/registry';

const FLAGS: EvalJobFlags = {
  env: 'shop',
  preset: 'default',
  'first-task': 3,
  episodes: 5,
  temperature: 0.4,
  decoding: 'admissible',
  hints: 'none',
  seed: 7,
};

describe('eval jobs', () => {
  it("take the env's longest action: 20 tokens for shop, 12 for household (which names none)", () => {
    const [seen, unseen] = evalJobs(FLAGS, getEnvSpec('shop'), ['test-seen', 'test-unseen'], 3);
    expect(seen).toEqual({
      env: 'shop',
      preset: 'default',
      split: 'test-seen',
      firstTask: 3,
      episodes: 5,
      temperature: 0.4,
      decoding: 'admissible',
      historyTurns: 3,
      maxActionTokens: 20,
      seed: 7,
      streams: [],
      hints: 'none',
      episodeSkills: null,
    });
    expect(unseen.split).toBe('test-unseen');
    const household = { ...FLAGS, env: 'household', preset: 'easy' };
    expect(evalJobs(household, getEnvSpec('household'), ['val'], 5)[0].maxActionTokens).toBe(12);
    for (const spec of ENV_SPECS) {
      expect(evalJobs(FLAGS, spec, ['train'], 3)[0].maxActionTokens).toBe(spec.maxActionTokens ?? 12);
    }
  });
});
