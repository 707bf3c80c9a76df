/**
 * The trainer loop as an async generator of typed events (docs/architecture.md). Pulling `next()` advances
 * training: pausing is not pulling, "step once" is pulling until the next `step` event. Every random draw comes
 * from streams forked off one `Rng(seed)` by purpose and step (`init`, `tasks/s`, `rollout/s`, `minibatch/s`,
 * `eval/s`), so the evaluation schedule never shifts the training stream.
 *
 * Per step: sample B train tasks → G rollouts each → scores and group advantages → old and reference
 * log-probs re-scored → PPO-clip + KL update over mini-batches → events.
 */
import * as tf from '../tf';
import { Rng } from '../rng';
import { parseRunConfig, type RunConfig } from '../run/config';
import { getEnvSpec } from '../envs/registry';
import type { EnvSpec, TaskRef } from '../envs/types';
import { cloneFrozen, countParams, type Params } from '../model/params';
import { scoreSamples } from '../model/scoring';
import { buildTokenizer, createPolicy, loadPolicy, type PolicyHandle } from '../model/policy';
import { runEpisodes } from '../rollout/runner';
import type { Trajectory } from '../rollout/types';
import { evaluatePolicy } from '../rollout/evaluate';
import { learningRateAt } from '../optim/schedule';
import { getAlgorithm } from '../algorithms/registry';
import { outcomeAdvantages, packSamples, tokenAdvantages, type PackedSamples } from '../algorithms/outcome';
import type { AlgorithmRun, AlgorithmViews } from '../algorithms/types';
import type { Analyzer } from '../analyzer/types';
import { ppoUpdate } from './update';
import type { EvalEvent, StepEvent, TrainEvent, TrajectoryView } from './events';
import { disposeSnapshot, guardStep, takeSnapshot, type StepGuard } from './rollback';

/** Options of `train` that are not part of the run config. */
export interface TrainOptions {
  /** Name of the active tfjs backend (reported in the start event). */
  backend: string;
  /** Set `aborted` to stop after the current step (the generator then returns without a `done` event). */
  signal?: { aborted: boolean };
  /** Called with the live policy once built (e.g. to save weights at the end, before the generator finishes). */
  onPolicy?: (p: PolicyHandle) => void;
  /** Start from these weights (safetensors bytes) instead of a fresh init; must match the config's model size. */
  initWeights?: Uint8Array;
  /**
   * The analyzer for `opid` / `skill-grpo`. Default: built from the config (`heuristic`, or `http` with
   * `analyzerApiKey`). Tests inject their own.
   */
  analyzer?: Analyzer;
  /** API key for the http analyzer; never stored in the config, a link, an export or a log. */
  analyzerApiKey?: string;
  /** Add `phaseMs` (where each step's wall time went) to step events. Default false. */
  profile?: boolean;
}

const now = () => (typeof performance !== 'undefined' ? performance.now() : Date.now());

/**
 * Train per `config` (validated here; throws ConfigError naming bad fields). Yields start, eval (step 0), then per
 * step: step, trajectories, and eval every `evalEvery` steps and at the last step; finally done.
 * Disposes every tensor it made when the generator finishes or is closed early.
 */
export async function* train(config: Partial<RunConfig>, opts: TrainOptions): AsyncGenerator<TrainEvent> {
  const cfg = parseRunConfig(config);
  const spec = getEnvSpec(cfg.env);
  const root = new Rng(cfg.seed);
  const tok = buildTokenizer(spec);
  if (!opts.initWeights && cfg.init === 'base')
    throw new Error("train: config.init is 'base' but no base weights were passed (opts.initWeights); load the shipped base policy first, or set init to 'scratch'");
  const policy = opts.initWeights ? loadPolicy(opts.initWeights, tok) : createPolicy(cfg.model, tok, root.fork('init'));
  if ('size' in policy && policy.size !== cfg.model) {
    tf.dispose(Object.values(policy.params));
    throw new Error(`initial weights are model size ${policy.size} but the config asks for ${cfg.model}; set model to ${policy.size}`);
  }
  const paramCount = countParams(policy.cfg);
  const ref: Params = cloneFrozen(policy.params);
  const optimizer = tf.train.adam(cfg.learningRate, cfg.adamBeta1, cfg.adamBeta2, cfg.adamEps);
  const algo = getAlgorithm(cfg.algo);
  const method = algo.create({ cfg, env: spec.name, analyzer: opts.analyzer, analyzerApiKey: opts.analyzerApiKey });
  const skill = { algo: method, estimator: algo.outcomeEstimator };
  opts.onPolicy?.(policy);
  const t0 = now();
  let undoneSteps = 0, shrunkSteps = 0;
  try {
    const envVersions = { [spec.name]: spec.version };
    yield { event: 'start', config: cfg, backend: opts.backend, params: paramCount, vocabSize: tok.size, envVersions };
    if (cfg.evalEvery > 0) yield await evalEvent(policy, spec, cfg, root, 0, skill);
    for (let step = 1; step <= cfg.steps; step++) {
      if (opts.signal?.aborted) return;
      const ts = now();
      const { event, group, tokens } = await trainStep(policy, ref, optimizer, spec, cfg, root, step, skill, opts.profile ?? false);
      event.stepMs = now() - ts;
      event.elapsedMs = now() - t0;
      event.tokensPerSecond = (tokens * 1000) / Math.max(event.stepMs, 1e-3);
      event.numTensors = tf.memory().numTensors;
      if (event.rolledBack) undoneSteps++;
      else if (event.stepScale < 1) shrunkSteps++;
      yield event;
      yield { event: 'trajectories', step, group };
      if (cfg.evalEvery > 0 && (step % cfg.evalEvery === 0 || step === cfg.steps)) yield await evalEvent(policy, spec, cfg, root, step, skill);
    }
    yield { event: 'done', steps: cfg.steps, elapsedMs: now() - t0, undoneSteps, shrunkSteps, envVersions };
  } finally {
    optimizer.dispose();
    tf.dispose(Object.values(ref));
    tf.dispose(Object.values(policy.params));
  }
}

async function evalEvent(policy: PolicyHandle, spec: EnvSpec, cfg: RunConfig, root: Rng, step: number, skill: SkillState): Promise<EvalEvent> {
  const t = now();
  const r = await evaluatePolicy(policy, spec, {
    preset: cfg.preset, splits: ['test-seen', 'test-unseen'], episodes: cfg.evalEpisodes, temperature: cfg.evalTemperature,
    decoding: cfg.decoding, historyTurns: cfg.historyTurns, maxActionTokens: cfg.maxActionTokens, rng: root.fork(`eval/${step}`),
    // An algorithm that puts skills in the prompt (Skill-GRPO) evaluates with them, as it acts at rollout.
    episodeSkillFor: skill.algo.episodeSkill ? (type) => skill.algo.episodeSkill!(type) : undefined,
  });
  return { event: 'eval', step, splits: r.splits, evalMs: now() - t };
}

/** One training step; returns its event (timing fields filled by the caller) and the tokens it processed. */
async function trainStep(
  policy: PolicyHandle, ref: Params, optimizer: tf.Optimizer, spec: EnvSpec, cfg: RunConfig, root: Rng, step: number, skill: SkillState, profile: boolean,
): Promise<{ event: StepEvent; group: TrajectoryView[]; tokens: number }> {
  const lr = learningRateAt(cfg.learningRate, cfg.lrSchedule, cfg.minLrRatio, step, cfg.steps);
  (optimizer as unknown as { learningRate: number }).learningRate = lr; // tfjs Adam reads it at every applyGradients
  const taskRng = root.fork(`tasks/${step}`);
  const refs: TaskRef[] = [], groupOf: number[] = [];
  for (let b = 0; b < cfg.tasksPerStep; b++) {
    const index = taskRng.int(1_000_000);
    for (let g = 0; g < cfg.groupSize; g++) {
      refs.push({ split: 'train', index });
      groupOf.push(b);
    }
  }
  const roll = await runEpisodes(policy, spec, cfg.preset, refs, {
    decoding: cfg.decoding, temperature: cfg.temperature, historyTurns: cfg.historyTurns, maxActionTokens: cfg.maxActionTokens, rng: root.fork(`rollout/${step}`),
    episodeSkill: skill.algo.episodeSkill ? (_i, type) => skill.algo.episodeSkill!(type) : undefined,
  });
  const trajs = roll.trajectories;
  let tp = now();
  const lap = () => { const t = now(), d = t - tp; tp = t; return d; };
  const { scores, adv } = outcomeAdvantages(trajs, groupOf, cfg.invalidPenalty, skill.estimator, { norm: cfg.advNorm, groupBy: cfg.advGroupBy, eps: cfg.advEps });
  const packed = packSamples(trajs);
  // Every log-prob is of the distribution that sampled: the rollout temperature T (scoring.ts).
  const T = { temperature: cfg.temperature };
  // Old log-probs: the sampler's own (the rollout policy is the pre-update policy), or one more pass (oldLogProbs).
  const old = cfg.oldLogProbs === 'rescore' ? await scoreSamples(policy.params, policy.cfg, packed.samples, policy.freeRow, T) : samplerScores(trajs, packed.tokens);
  const oldMs = lap();
  // Reference log-probs feed the KL term. With β = 0 they only feed the kl metric and the viewer: score the first
  // group only, and report its KL (a sample of the step's tokens) instead of a full pass over the batch.
  const viewCount = packSamples(trajs.slice(0, cfg.groupSize)).samples.length;
  const refS = await scoreSamples(ref, policy.cfg, cfg.klBeta > 0 ? packed.samples : packed.samples.slice(0, viewCount), policy.freeRow, T);
  const refMs = lap();
  const aEpTok = tokenAdvantages(packed, trajs, groupOf, adv, cfg);
  // The algorithm's per-token advantage (GRPO: A_ep; OPID: A_ep + λ·A_skill; registry.ts).
  const a = await skill.algo.advantages({ policy, trajs, groupOf, packed, aEpTraj: adv, aEpTok, oldLogp: old.logp });
  const advTok = a.adv;
  const algorithmMs = lap();
  const snap = cfg.maxStepKl > 0 ? takeSnapshot(policy.params, optimizer) : null;
  const m = await ppoUpdate(policy.params, policy.cfg, optimizer, { samples: packed.samples, adv: advTok, oldLogp: old.logp, refLogp: cfg.klBeta > 0 ? refS.logp : null, freeRow: policy.freeRow }, cfg, root.fork(`minibatch/${step}`));
  const updateMs = lap();
  let guard: StepGuard | null = null;
  if (snap) {
    guard = await guardStep(policy.params, optimizer, snap, () => scoreSamples(policy.params, policy.cfg, packed.samples, policy.freeRow, T), old.logp, cfg.maxStepKl, cfg.klBacktracks);
    disposeSnapshot(snap);
  }
  const guardMs = lap();
  const nSteps = packed.samples.length;
  const event: StepEvent = {
    event: 'step', step,
    successRate: trajs.filter((t) => t.success).length / trajs.length,
    rewardMean: mean(trajs.map((t) => t.reward)),
    scoreMean: mean(scores),
    policyLoss: m.policyLoss, kl: cfg.klBeta > 0 ? m.kl : sampledKl(old.logp, refS.logp), clipFraction: m.clipFraction, clipFractionLower: m.clipFractionLower, entropy: m.entropy, gradNorm: m.gradNorm, approxKl: m.approxKl, updates: m.updates,
    stepKl: guard?.stepKl ?? null, keptStepKl: guard?.keptStepKl ?? null, rolledBack: guard?.rolledBack ?? false, stepScale: guard?.stepScale ?? 1,
    advantageAbsMean: mean(Array.from(advTok, Math.abs)),
    invalidRate: trajs.reduce((s, t) => s + t.invalidCount, 0) / Math.max(nSteps, 1),
    episodeLength: nSteps / trajs.length,
    samples: nSteps, actionTokens: packed.tokens,
    tokensPerSecond: 0, learningRate: lr, stepMs: 0, elapsedMs: 0, numTensors: 0,
    ...(profile ? { phaseMs: { sample: roll.sampleMs, env: roll.envMs, old: oldMs, ref: refMs, algorithm: algorithmMs, update: updateMs, guard: guardMs } } : {}),
    ...a.metrics,
    forwardTokens: { rollout: roll.tokens, old: old.tokens, ref: refS.tokens, skill: a.cost.tokens, update: m.tokens },
    forwardSequences: { rollout: nSteps, old: old.tokens ? nSteps : 0, ref: cfg.klBeta > 0 ? nSteps : viewCount, skill: a.cost.sequences, update: nSteps * cfg.ppoEpochs },
  };
  const group = trajectoryViews(trajs.slice(0, cfg.groupSize), scores, adv, packed, old.logp, refS.logp, old.entropy, advTok, policy, a.views);
  return { event, group, tokens: roll.tokens + old.tokens + refS.tokens + a.cost.tokens + m.tokens + (guard?.tokens ?? 0) };
}

/** The run's algorithm instance and the outcome estimator it builds on. */
interface SkillState {
  algo: AlgorithmRun;
  estimator: string;
}

/** The sampler's log-probs and entropies of a step's trajectories, packed like `packSamples` (float32 [M], nats). */
function samplerScores(trajs: readonly Trajectory[], M: number): { logp: Float32Array; entropy: Float32Array; tokens: number } {
  const logp = new Float32Array(M), entropy = new Float32Array(M);
  let o = 0;
  for (const t of trajs) for (const s of t.steps) {
    logp.set(s.sampleLogp, o);
    entropy.set(s.sampleEntropy, o);
    o += s.sampleLogp.length;
  }
  return { logp, entropy, tokens: 0 };
}

/**
 * k3 estimate of KL(π_old ‖ π_ref) (Schulman 2020; δ = ℓ_ref − ℓ_old, exp(δ) − δ − 1, clamped to [−10, 10] per token),
 * token mean over the first `ref.length` tokens (the first group's), in nats. The β = 0 kl metric.
 */
function sampledKl(oldLogp: Float32Array, refLogp: Float32Array): number {
  let s = 0;
  for (let i = 0; i < refLogp.length; i++) {
    const d = refLogp[i] - oldLogp[i];
    s += Math.min(10, Math.max(-10, Math.exp(d) - d - 1));
  }
  return refLogp.length ? s / refLogp.length : 0;
}

function mean(xs: readonly number[]): number {
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0;
}

/** Display records of the first group (trajectories 0..G−1), with per-token numbers and the algorithm's fields. */
function trajectoryViews(
  trajs: readonly Trajectory[], scores: number[], adv: number[], packed: PackedSamples,
  oldLogp: Float32Array, refLogp: Float32Array, entropy: Float32Array, advTok: Float32Array, policy: PolicyHandle, views: AlgorithmViews | undefined,
): TrajectoryView[] {
  let sample = 0;
  return trajs.map((t, ti) => ({
    task: t.task, taskType: t.taskType, success: t.success, reward: t.reward, score: scores[ti], advantage: adv[ti],
    initialObservation: t.initialObservation,
    ...(views?.trajectory(ti) ?? {}),
    steps: t.steps.map((s) => {
      const i = sample++;
      const off = packed.offsets[i];
      return {
        observation: s.observation, action: s.action, valid: s.valid,
        ...(views?.sample(i) ?? {}),
        tokens: s.response.map((id, k) => ({
          text: policy.tok.tokenText(id), logpOld: oldLogp[off + k], logpRef: refLogp[off + k], adv: advTok[off + k], entropy: entropy[off + k],
          ...(views?.token(off + k) ?? {}),
        })),
      };
    }),
  }));
}
