/**
 * Demonstration options for tests of pretraining's noisy demonstrator (src/core/pretrain/demos.ts `makeDemos`): only
 * `noisy` episodes, no step noise, H 3 and nano's prompt budget (384 − maxActionTokens 12), with the env's tokenizer
 * and a decoder of token ids to text (special tokens skipped).
 */
import { DEFAULT_MIX } from '../../src/core/pretrain/demos';
import { buildTokenizer } from '../../src/core/model/policy';
import type { EnvSpec } from '../../src/core/envs/types';

/**
 * `makeDemos` options without `rng` for `tasks` train tasks of `spec`'s default preset, each a `noisy` episode whose
 * steps are random with probability `noise`; `tok` the env's tokenizer, `text` ids → text.
 */
export function noisyDemoSetup(spec: EnvSpec, tasks: number, noise: number) {
  const tok = buildTokenizer(spec);
  const o = {
    preset: 'default',
    tasks,
    noise,
    stepHintRate: 1,
    stepNoise: 0,
    mix: { ...DEFAULT_MIX, noisy: 1, episode: 0, step: 0, failure: 0 },
    historyTurns: 3,
    maxPrompt: 372,
  };
  const text = (ids: readonly number[]) => tok.decode(ids, { skipSpecial: true });
  return { tok, o, text };
}
