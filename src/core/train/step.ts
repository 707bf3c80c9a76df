/**
 * One training step of the trainer (core/train/trainer.ts; docs/architecture.md, "One training step"): sample B train
 * tasks → G rollouts each → scores and group advantages → old and reference log-probs → the algorithm's
 * per-token advantages → PPO-clip + KL update over mini-batches (with the max-step-KL guard) → the step event, the
 * first group's trajectory views and, when asked, every group's detail for the explorer. Also what the trainer and its
 * evaluations share: `StepHooks`, `AlgorithmState`, `now` and `mean`.
 */
import * as tf from '../tf';
import type { Rng } from '../rng';
import type { RunConfig } from '../run/config';
import { TRAIN_TASK_INDICES, type EnvSpec, type TaskRef } from '../envs/types';
import type { Params } from '../model/params';
import { scoreSamples } from '../model/scoring';
import type { PolicyHandle } from '../model/policy';
import { runEpisodes } from '../rollout/runner';
import type { Trajectory } from '../rollout/types';
import { learningRateAt } from '../optim/schedule';
import { outcomeAdvantages, packSamples, tokenAdvantages, type PackedSamples } from '../algorithms/outcome';
import type { AlgorithmRun, AlgorithmViews } from '../algorithms/types';
import { algorithmTraits } from '../algorithm-catalog';
import { ppoUpdate } from './update';
import type { StepEvent, TrajectoryView } from './events';
import { disposeSnapshot, guardStep, restoreSnapshot, takeSnapshot, type StepGuard } from './rollback';
import { checkCancelled, isCancelled, type CancelSignal, type ProgressSink } from '../cancel';
import { buildStepDetail, type StepDetail } from './step-detail';

/** What one step's work may be told besides its inputs (TrainOptions). */
export interface StepHooks {
  cancel?: CancelSignal;
  onProgress?: ProgressSink;
  /** Build the step's `StepDetail`. */
  detail: boolean;
}

/** The run's algorithm instance and the outcome estimator it builds on. */
export interface AlgorithmState {
  algo: AlgorithmRun;
  estimator: string;
}

/** Wall-clock time in ms: `performance.now()` where there is one, else `Date.now()`. */
export const now = () => (typeof performance !== 'undefined' ? performance.now() : Date.now());

/** Arithmetic mean of `xs`; 0 for an empty list. */
export function mean(xs: readonly number[]): number {
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0;
}

/**
 * One training step; returns its event (timing fields filled by the caller), the tokens it processed and, when
 * `hooks.detail`, every group of the step.
 * @throws RunCancelled when `hooks.cancel` is set at a safe point; the weights and Adam state are then as before the
 *   step (the caller puts back the algorithm's state).
 */
export async function trainStep(
  policy: PolicyHandle,
  ref: Params,
  optimizer: tf.Optimizer,
  spec: EnvSpec,
  cfg: RunConfig,
  root: Rng,
  step: number,
  skill: AlgorithmState,
  profile: boolean,
  hooks: StepHooks,
): Promise<{ event: StepEvent; group: TrajectoryView[]; tokens: number; detail?: StepDetail }> {
  const { cancel, onProgress } = hooks;
  const lr = learningRateAt(cfg.learningRate, cfg.lrSchedule, cfg.minLrRatio, step, cfg.steps);
  (optimizer as unknown as { learningRate: number }).learningRate = lr; // tfjs Adam reads it at every applyGradients
  const taskRng = root.fork(`tasks/${step}`);
  const refs: TaskRef[] = [],
    groupOf: number[] = [];
  for (let b = 0; b < cfg.tasksPerStep; b++) {
    const index = taskRng.int(TRAIN_TASK_INDICES);
    for (let g = 0; g < cfg.groupSize; g++) {
      refs.push({ split: 'train', index });
      groupOf.push(b);
    }
  }
  const roll = await runEpisodes(policy, spec, cfg.preset, refs, {
    decoding: cfg.decoding,
    temperature: cfg.temperature,
    historyTurns: cfg.historyTurns,
    maxActionTokens: cfg.maxActionTokens,
    rng: root.fork(`rollout/${step}`),
    episodeSkill: skill.algo.episodeSkill ? (_i, type) => skill.algo.episodeSkill!(type) : undefined,
    cancel,
    onTurn:
      onProgress &&
      ((done, total, fraction) => onProgress({ phase: 'rollout', step, done, total, unit: 'episodes', fraction })),
  });
  await checkCancelled(cancel, 'after the rollouts');
  const trajs = roll.trajectories;
  let tp = now();
  const lap = () => {
    const t = now(),
      d = t - tp;
    tp = t;
    return d;
  };
  const { scores, adv } = outcomeAdvantages(trajs, groupOf, cfg.invalidPenalty, skill.estimator, {
    norm: cfg.advNorm,
    groupBy: cfg.advGroupBy,
    eps: cfg.advEps,
  });
  const packed = packSamples(trajs);
  // Every log-prob is of the distribution that sampled: the rollout temperature T (model/scoring.ts).
  const T = { temperature: cfg.temperature };
  // Old log-probs: the sampler's own (the rollout policy is the pre-update policy), or one more pass (oldLogProbs).
  const old =
    cfg.oldLogProbs === 'rescore'
      ? await scoreSamples(policy.params, policy.cfg, packed.samples, policy.freeRow, T)
      : samplerScores(trajs, packed.tokens);
  const oldMs = lap();
  // Reference log-probs feed the KL term. With β = 0 they only feed the kl metric and the viewer: score the first
  // group only, and report its KL (a sample of the step's tokens) instead of a full pass over the batch.
  const viewCount = trajs.slice(0, cfg.groupSize).reduce((n, t) => n + t.steps.length, 0);
  const refS = await scoreSamples(
    ref,
    policy.cfg,
    cfg.klBeta > 0 ? packed.samples : packed.samples.slice(0, viewCount),
    policy.freeRow,
    T,
  );
  const refMs = lap();
  await checkCancelled(cancel, 'after scoring');
  const aEpTok = tokenAdvantages(packed, trajs, groupOf, adv, cfg);
  // The algorithm's per-token advantage (GRPO: A_ep; OPID: A_ep + λ·A_skill; algorithms/registry.ts).
  const a = await skill.algo.advantages({ policy, trajs, groupOf, packed, aEpTraj: adv, aEpTok, oldLogp: old.logp });
  const advTok = a.adv;
  const algorithmMs = lap();
  await checkCancelled(cancel, 'after the advantages');
  // The weights and Adam state before the update: for the max-step-KL guard, and to put back a cut update.
  const snap = cfg.maxStepKl > 0 || cancel ? takeSnapshot(policy.params, optimizer) : null;
  let m: Awaited<ReturnType<typeof ppoUpdate>>;
  // The explorer's per-token PPO ratio as the update computed it (NaN where no applied mini-batch used the token).
  const ratio = hooks.detail ? new Float32Array(packed.tokens).fill(NaN) : undefined;
  try {
    m = await ppoUpdate(
      policy.params,
      policy.cfg,
      optimizer,
      {
        samples: packed.samples,
        adv: advTok,
        oldLogp: old.logp,
        refLogp: cfg.klBeta > 0 ? refS.logp : null,
        freeRow: policy.freeRow,
        ...(a.topK ? { topK: a.topK } : {}),
      },
      cfg,
      root.fork(`minibatch/${step}`),
      {
        cancel,
        ratio,
        onMiniBatch:
          onProgress &&
          ((done, total) =>
            onProgress({ phase: 'update', step, done, total, unit: 'mini-batches', fraction: done / total })),
      },
    );
  } catch (e) {
    if (snap) {
      if (isCancelled(e)) restoreSnapshot(snap, policy.params, optimizer);
      disposeSnapshot(snap);
    }
    throw e;
  }
  const updateMs = lap();
  let guard: StepGuard | null = null;
  if (snap && cfg.maxStepKl > 0) {
    guard = await guardStep(
      policy.params,
      optimizer,
      snap,
      () => scoreSamples(policy.params, policy.cfg, packed.samples, policy.freeRow, T),
      old.logp,
      cfg.maxStepKl,
      cfg.klBacktracks,
    );
  }
  if (snap) disposeSnapshot(snap);
  const guardMs = lap();
  const nSteps = packed.samples.length;
  const event: StepEvent = {
    event: 'step',
    step,
    successRate: trajs.filter((t) => t.success).length / trajs.length,
    rewardMean: mean(trajs.map((t) => t.reward)),
    scoreMean: mean(scores),
    policyLoss: m.policyLoss,
    kl: cfg.klBeta > 0 ? m.kl : sampledKl(old.logp, refS.logp),
    clipFraction: m.clipFraction,
    clipFractionLower: m.clipFractionLower,
    entropy: m.entropy,
    gradNorm: m.gradNorm,
    approxKl: m.approxKl,
    updates: m.updates,
    stepKl: guard?.stepKl ?? null,
    keptStepKl: guard?.keptStepKl ?? null,
    rolledBack: guard?.rolledBack ?? false,
    stepScale: guard?.stepScale ?? 1,
    advantageAbsMean: mean(Array.from(advTok, Math.abs)),
    invalidRate: trajs.reduce((s, t) => s + t.invalidCount, 0) / Math.max(nSteps, 1),
    episodeLength: nSteps / trajs.length,
    samples: nSteps,
    actionTokens: packed.tokens,
    tokensPerSecond: 0,
    learningRate: lr,
    stepMs: 0,
    elapsedMs: 0,
    numTensors: 0,
    ...(profile
      ? {
          phaseMs: {
            sample: roll.sampleMs,
            env: roll.envMs,
            old: oldMs,
            ref: refMs,
            algorithm: algorithmMs,
            update: updateMs,
            guard: guardMs,
          },
        }
      : {}),
    ...a.metrics,
    ...stepExtra(algorithmTraits(cfg.algo).metricKeys, a.extra),
    forwardTokens: { rollout: roll.tokens, old: old.tokens, ref: refS.tokens, skill: a.cost.tokens, update: m.tokens },
    forwardSequences: {
      rollout: nSteps,
      old: old.tokens ? nSteps : 0,
      ref: cfg.klBeta > 0 ? nSteps : viewCount,
      skill: a.cost.sequences,
      update: nSteps * cfg.ppoEpochs,
    },
  };
  const group = trajectoryViews(
    trajs.slice(0, cfg.groupSize),
    scores,
    adv,
    packed,
    old.logp,
    refS.logp,
    old.entropy,
    advTok,
    policy,
    a.views,
  );
  const detail = hooks.detail
    ? buildStepDetail(
        step,
        trajs,
        cfg.groupSize,
        scores,
        adv,
        packed,
        { adv: advTok, aEp: aEpTok, oldLogp: old.logp, refLogp: refS.logp, entropy: old.entropy, ratio },
        a.views,
      )
    : undefined;
  return {
    event,
    group,
    tokens: roll.tokens + old.tokens + refS.tokens + a.cost.tokens + m.tokens + (guard?.tokens ?? 0),
    detail,
  };
}

/** The sampler's log-probs and entropies of a step's trajectories, packed like `packSamples` (float32 [M], nats). */
function samplerScores(
  trajs: readonly Trajectory[],
  M: number,
): { logp: Float32Array; entropy: Float32Array; tokens: number } {
  const logp = new Float32Array(M),
    entropy = new Float32Array(M);
  let o = 0;
  for (const t of trajs)
    for (const s of t.steps) {
      logp.set(s.sampleLogp, o);
      entropy.set(s.sampleEntropy, o);
      o += s.sampleLogp.length;
    }
  return { logp, entropy, tokens: 0 };
}

/**
 * k3 estimate of KL(π_old ‖ π_ref) (Schulman 2020; δ = ℓ_ref − ℓ_old, exp(δ) − δ − 1, clamped to
 * [−10, 10] per token), token mean over the first `ref.length` tokens (the first group's), in nats. The β = 0 kl
 * metric.
 */
function sampledKl(oldLogp: Float32Array, refLogp: Float32Array): number {
  let s = 0;
  for (let i = 0; i < refLogp.length; i++) {
    const d = refLogp[i] - oldLogp[i];
    s += Math.min(10, Math.max(-10, Math.exp(d) - d - 1));
  }
  return refLogp.length ? s / refLogp.length : 0;
}

/**
 * The step-event fields an algorithm's `extra` sets: those of its `metricKeys` (core/algorithm-catalog.ts) that `extra`
 * holds as its own property with a number or null value, in `metricKeys` order; anything else is ignored.
 */
function stepExtra(metricKeys: readonly string[], x: object | undefined): Partial<StepEvent> {
  if (!x) return {};
  const e = x as Record<string, unknown>;
  const out: Record<string, number | null> = {};
  for (const k of metricKeys) {
    if (!Object.hasOwn(e, k)) continue;
    const v = e[k];
    if (typeof v === 'number' || v === null) out[k] = v;
  }
  return out as Partial<StepEvent>;
}

/** Display records of the first group (trajectories 0..G−1), with per-token numbers and the algorithm's fields. */
function trajectoryViews(
  trajs: readonly Trajectory[],
  scores: number[],
  adv: number[],
  packed: PackedSamples,
  oldLogp: Float32Array,
  refLogp: Float32Array,
  entropy: Float32Array,
  advTok: Float32Array,
  policy: PolicyHandle,
  views: AlgorithmViews | undefined,
): TrajectoryView[] {
  let sample = 0;
  return trajs.map((t, ti) => ({
    task: t.task,
    taskType: t.taskType,
    success: t.success,
    reward: t.reward,
    score: scores[ti],
    advantage: adv[ti],
    initialObservation: t.initialObservation,
    ...(views?.trajectory(ti) ?? {}),
    steps: t.steps.map((s) => {
      const i = sample++;
      const off = packed.offsets[i];
      return {
        observation: s.observation,
        action: s.action,
        valid: s.valid,
        ...(views?.sample(i) ?? {}),
        tokens: s.response.map((id, k) => ({
          text: policy.tok.tokenText(id),
          logpOld: oldLogp[off + k],
          logpRef: refLogp[off + k],
          adv: advTok[off + k],
          entropy: entropy[off + k],
          ...(views?.token(off + k) ?? {}),
        })),
      };
    }),
  }));
}
