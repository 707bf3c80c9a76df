/**
 * The jobs of `npm run eval` with a model policy (src/core/rollout/eval-job.ts `EvalJob`), one per split: apart from
 * cli/eval.ts so that tests can build them without running the command.
 */
import type { EnvSpec, Split } from '../src/core/envs/types';
import { parseHintMode, type HintMode } from '../src/core/envs/expert-hints';
import { maxActionTokensFor } from '../src/core/pretrain/pretrain';
import type { EvalJob } from '../src/core/rollout/eval-job';

/** The flags of `npm run eval` a job is made from (their values as parsed). */
export interface EvalJobFlags {
  env: string;
  preset: string;
  'first-task': number;
  episodes: number;
  temperature: number;
  decoding: string;
  hints: string;
  seed: number;
}

/**
 * The evaluation's jobs: one per split, each with the root stream Rng(seed) (as a run with that split alone), sampling
 * actions up to the env's own longest action (`EnvSpec.maxActionTokens`, tokens with <eos>; 12 when it names none),
 * as pretraining and training do. `history` is H, the past turns in the prompt.
 * @throws Error from `parseHintMode` on an unknown hint mode.
 */
export function evalJobs(a: EvalJobFlags, spec: EnvSpec, splits: readonly Split[], history: number): EvalJob[] {
  return splits.map((split) => ({
    env: a.env,
    preset: a.preset,
    split,
    firstTask: a['first-task'],
    episodes: a.episodes,
    temperature: a.temperature,
    decoding: a.decoding as EvalJob['decoding'],
    historyTurns: history,
    maxActionTokens: maxActionTokensFor(spec),
    seed: a.seed,
    streams: [],
    hints: parseHintMode(a.hints) as HintMode,
    episodeSkills: null,
  }));
}
