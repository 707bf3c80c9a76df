/**
 * Behaviour-cloning pretraining of the base policy (docs/architecture.md): demonstrations from
 * `makeDemos`, loss = token-mean negative log-likelihood (nats) of the demonstrated action tokens under the
 * admissible-masked distribution (the one admissible decoding samples from), Adam, grad-norm clip 1.0.
 * An async generator of progress events, like `train`; deterministic for a given config on one backend.
 */
import * as tf from '../tf';
import { Rng } from '../rng';
import type { EnvSpec, NoiseActions, RenameNames } from '../envs/types';
import { DEFAULT_ENV, getEnvSpec } from '../envs/registry';
import { buildScoreBatch, disposeBatch, tokenLogProbs, type ScoreSample } from '../model/scoring';
import { activationScale } from '../model/config';
import type { PolicyHandle } from '../model/policy';
import { accumulate, applyClipped, microBatches } from '../optim/gradients';
import { makeDemos, DEFAULT_MIX, type DemoMix } from './demos';
import type { TypeWeights } from './task-pick';

/** Pretraining settings. Defaults are the shipped base policy's. */
export interface PretrainConfig {
  preset: string;
  /** Train-split tasks used for demonstrations (one episode each). */
  tasks: number;
  /** Optimiser iterations. */
  iters: number;
  /** Samples (env steps) per iteration. */
  batch: number;
  learningRate: number;
  /** Noisy demonstrator's random-action probability. */
  noise: number;
  stepHintRate: number;
  /** Random, undemonstrated steps in step-skill episodes (so hinted steps also come from off-path states). */
  stepNoise: number;
  /** Random, undemonstrated steps in episode-skill episodes (so a plan is also followed after a detour); 0 = none. */
  episodeNoise: number;
  mix: DemoMix;
  /**
   * Weight per task type of the demonstrated tasks (pretrain/task-pick.ts); a type left out weighs 1. Undefined (the
   * default): train tasks 0..tasks−1.
   */
  typeWeights?: TypeWeights;
  /**
   * Share of demonstration episodes whose entities are renamed (EnvSpec `demoRenamer`; pretrain/demos.ts). Undefined
   * (the default): 0, none.
   */
  rename?: number;
  /** Where renamed episodes' names come from (envs/types.ts `RenameNames`). Undefined (the default): `seen`. */
  renameNames?: RenameNames;
  /** What the noisy demonstrator's random steps take (envs/types.ts `NoiseActions`). Undefined: `random`. */
  noiseActions?: NoiseActions;
  historyTurns: number;
  maxActionTokens: number;
  seed: number;
}

/** The shipped base policy's pretraining settings (the default env's default preset). */
export const DEFAULT_PRETRAIN: PretrainConfig = {
  preset: getEnvSpec(DEFAULT_ENV).defaultPreset,
  tasks: 4000,
  iters: 2200,
  batch: 64,
  learningRate: 2e-3,
  noise: 0.5,
  stepHintRate: 1,
  stepNoise: 0.4,
  episodeNoise: 0,
  mix: DEFAULT_MIX,
  historyTurns: 3,
  maxActionTokens: 12,
  seed: 1,
};

/**
 * Refuses demonstrations whose action (tokens, <eos> included) is longer than a policy may sample: training on them
 * would teach actions the sampler can never finish. @throws Error naming the env, the longest action's length and
 * the fix.
 */
function checkActionLengths(samples: readonly ScoreSample[], maxActionTokens: number, env: string): void {
  const longest = samples.reduce((m, s) => Math.max(m, s.response.length), 0);
  if (longest > maxActionTokens)
    throw new Error(
      `pretrain: a demonstrated ${env} action is ${longest} tokens (<eos> included) but actions may be at most ` +
        `maxActionTokens = ${maxActionTokens}: raise the env's maxActionTokens (EnvSpec) or shorten its expert's ` +
        'actions',
    );
}

/**
 * The longest action a policy samples on `spec`'s env (tokens, <eos> included): the env's own `maxActionTokens`, else
 * DEFAULT_PRETRAIN's 12 (the run schema's default). Pretraining, its measurements and the page's pretraining use it.
 */
export function maxActionTokensFor(spec: Pick<EnvSpec, 'maxActionTokens'>): number {
  return spec.maxActionTokens ?? DEFAULT_PRETRAIN.maxActionTokens;
}

/** Progress events: demos built, one per iteration, done. */
export type PretrainEvent =
  | {
      event: 'demos';
      samples: number;
      hinted: number;
      episodes: Record<string, number>;
      /** Episodes whose entities were renamed (`rename`). */
      renamed: number;
      ms: number;
    }
  | {
      event: 'iter';
      iter: number;
      iters: number;
      loss: number;
      tokensPerSecond: number;
      elapsedMs: number;
      numTensors: number;
    }
  | { event: 'done'; iters: number; loss: number; elapsedMs: number };

/**
 * Pretrain `policy` in place. Yields a `demos` event, one `iter` event per iteration (loss = mean NLL per action
 * token in nats), then `done`. Stops early (after the current iteration) when `signal` aborts.
 * @throws Error from `makeDemos` on bad settings.
 */
export async function* pretrain(
  policy: PolicyHandle,
  spec: EnvSpec,
  c: PretrainConfig,
  signal?: AbortSignal,
): AsyncGenerator<PretrainEvent> {
  const t0 = performance.now();
  const root = new Rng(c.seed);
  const demos = makeDemos(spec, policy.tok, {
    preset: c.preset,
    tasks: c.tasks,
    noise: c.noise,
    stepHintRate: c.stepHintRate,
    stepNoise: c.stepNoise,
    episodeNoise: c.episodeNoise,
    mix: c.mix,
    typeWeights: c.typeWeights,
    rename: c.rename,
    renameNames: c.renameNames,
    noiseActions: c.noiseActions,
    historyTurns: c.historyTurns,
    maxPrompt: policy.cfg.maxSeq - c.maxActionTokens,
    rng: root.fork('demos'),
  });
  checkActionLengths(demos.samples, c.maxActionTokens, spec.name);
  yield {
    event: 'demos',
    samples: demos.samples.length,
    hinted: demos.hinted,
    episodes: demos.episodes,
    renamed: demos.renamed,
    ms: performance.now() - t0,
  };
  const opt = tf.train.adam(c.learningRate);
  const vars = Object.values(policy.params) as tf.Variable[];
  const pick = root.fork('batches');
  const microTokens = Math.max(1024, Math.floor(16384 / activationScale(policy.cfg)));
  let loss = NaN;
  let it = 1;
  try {
    for (; it <= c.iters && !signal?.aborted; it++) {
      const ts = performance.now();
      const idx = Array.from({ length: c.batch }, () => pick.int(demos.samples.length));
      const samples: ScoreSample[] = idx.map((i) => demos.samples[i]);
      const { grads, sum, tokens } = await batchGrads(policy, vars, samples, microTokens);
      await applyClipped(opt, grads!, 1.0);
      loss = sum;
      const now = performance.now();
      yield {
        event: 'iter',
        iter: it,
        iters: c.iters,
        loss,
        tokensPerSecond: tokens / ((now - ts) / 1000),
        elapsedMs: now - t0,
        numTensors: tf.memory().numTensors,
      };
      // Let a pause/abort message reach a worker between iterations (a macrotask, not just a microtask).
      await new Promise((r) => setTimeout(r, 0));
    }
  } finally {
    opt.dispose();
  }
  yield { event: 'done', iters: it - 1, loss, elapsedMs: performance.now() - t0 };
}

/**
 * One iteration's gradient of the token-mean NLL over `samples` (the caller applies it), accumulated over
 * micro-batches of at most `microTokens` padded tokens, each divided by the batch's M action tokens; with the loss
 * (nats per action token) and the tokens pushed through forward+backward.
 */
async function batchGrads(
  policy: PolicyHandle,
  vars: tf.Variable[],
  samples: ScoreSample[],
  microTokens: number,
): Promise<{ grads: Record<string, tf.Tensor> | null; sum: number; tokens: number }> {
  const M = samples.reduce((s, x) => s + x.response.length, 0);
  let grads: Record<string, tf.Tensor> | null = null;
  let sum = 0,
    tokens = 0;
  for (const micro of microBatches(
    samples.map((_, i) => i),
    samples,
    microTokens,
  )) {
    const b = buildScoreBatch(
      micro.map((i) => samples[i]),
      policy.cfg,
      policy.freeRow,
    );
    const { value, grads: g } = tf.variableGrads(
      () => tf.div(tf.neg(tf.sum(tokenLogProbs(policy.params, policy.cfg, b).logp)), M) as tf.Scalar,
      vars,
    );
    sum += (await value.data())[0];
    tokens += b.tokens;
    value.dispose();
    disposeBatch(b);
    grads = accumulate(grads, g);
  }
  return { grads, sum, tokens };
}
