/**
 * One training step of the trainer (core/train/trainer.ts; docs/architecture.md, "One training step"): sample B train
 * tasks → G rollouts each → scores and group advantages → old and reference log-probs → the algorithm's
 * per-token advantages → PPO-clip + KL update over mini-batches (with the max-step-KL guard) → the step event, the
 * first group's trajectory views and, when asked, every group's detail for the explorer. Also what the trainer and its
 * evaluations share: `StepHooks`, `AlgorithmState` and `mean`.
 */
import * as tf from '../tf';
import type { Rng } from '../rng';
import type { RunConfig } from '../run/config';
import { TRAIN_TASK_INDICES, type EnvSpec, type TaskRef } from '../envs/types';
import type { Params } from '../model/params';
import { scoreSamples } from '../model/scoring';
import type { PolicyHandle } from '../model/policy';
import { runEpisodes, type RolloutResult } from '../rollout/runner';
import type { Trajectory } from '../rollout/types';
import { learningRateAt } from '../optim/schedule';
import { outcomeAdvantages, packSamples, tokenAdvantages, type PackedSamples } from '../algorithms/outcome';
import type { AlgorithmRun, AlgorithmStep, AlgorithmViews } from '../algorithms/types';
import { algorithmTraits } from '../algorithm-catalog';
import { ppoUpdate, type UpdateMetrics } from './update';
import type { StepEvent, TrajectoryView } from './events';
import { disposeSnapshot, guardStep, restoreSnapshot, takeSnapshot, type StepGuard } from './rollback';
import { checkCancelled, isCancelled, type CancelSignal, type ProgressSink } from '../cancel';
import { buildStepDetail, type StepDetail } from './step-detail';
import { now } from '../clock';
import { k3 } from '../math/losses';
import { isNonFinite, NonFiniteError, weightsFinite } from './finite';

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

/** Arithmetic mean of `xs`; 0 for an empty list. */
export function mean(xs: readonly number[]): number {
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0;
}

/** Log-probs and entropies (nats) of a step's packed action tokens (float32 [M]), and the tokens the pass cost. */
interface TokenScores {
  logp: Float32Array;
  entropy: Float32Array;
  tokens: number;
}

/** A step's rollouts and everything computed from them before the update. */
interface ScoredStep {
  roll: RolloutResult;
  trajs: Trajectory[];
  /** Score and outcome advantage A_ep of each trajectory, [B·G]. */
  scores: number[];
  adv: number[];
  packed: PackedSamples;
  /** Old log-probs (the sampler's or a re-scoring pass), float32 [M]. */
  old: TokenScores;
  /** Reference log-probs: of every token when β > 0, else of the first group's only. */
  refS: TokenScores;
  /** Samples (turns) of the first group: how many the reference scored when β = 0. */
  viewCount: number;
  /** A_ep of every action token, float32 [M]. */
  aEpTok: Float32Array;
  /** The algorithm's per-token advantages, metrics, cost and views. */
  a: AlgorithmStep;
  /** Wall time of the old, ref and algorithm phases, ms. */
  ms: { old: number; ref: number; algorithm: number };
}

/** The update of a step: its metrics, the max-step-KL guard's outcome, the explorer's ratios and timings. */
interface UpdatedStep {
  m: UpdateMetrics;
  guard: StepGuard | null;
  /** Per-token PPO ratio, float32 [M] (NaN where no applied mini-batch used the token); only with `hooks.detail`. */
  ratio: Float32Array | undefined;
  /** Wall time of the update and of the guard, ms. */
  ms: { update: number; guard: number };
}

/**
 * One training step; returns its event (timing fields filled by the caller), the tokens it processed and, when
 * `hooks.detail`, every group of the step.
 * @throws RunCancelled when `hooks.cancel` is set at a safe point; the weights and Adam state are then as before the
 *   step (the caller puts back the algorithm's state).
 * @throws NonFiniteError when the update met a NaN or ±Infinity (loss, gradient norm or weights); the weights and
 *   Adam state are then as before the step.
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
  const lr = learningRateAt(cfg.learningRate, cfg.lrSchedule, cfg.minLrRatio, step, cfg.steps);
  (optimizer as unknown as { learningRate: number }).learningRate = lr; // tfjs Adam reads it at every applyGradients
  const { refs, groupOf } = sampleTasks(root, cfg, step);
  const roll = await rollOut(policy, spec, cfg, root, step, skill, refs, hooks);
  await checkCancelled(hooks.cancel, 'after the rollouts');
  const lap = stopwatch();
  const s = await scoreStep(policy, ref, cfg, skill, roll, groupOf, hooks.cancel, lap);
  await checkCancelled(hooks.cancel, 'after the advantages');
  const u = await updateStep(policy, optimizer, cfg, root, step, s, hooks, lap);
  const event = stepEvent(cfg, step, lr, profile, s, u);
  const { trajs, scores, adv, packed, old, refS, a } = s;
  const group = trajectoryViews(
    trajs.slice(0, cfg.groupSize),
    scores,
    adv,
    packed,
    old.logp,
    refS.logp,
    old.entropy,
    a.adv,
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
        { adv: a.adv, aEp: s.aEpTok, oldLogp: old.logp, refLogp: refS.logp, entropy: old.entropy, ratio: u.ratio },
        a.views,
      )
    : undefined;
  return {
    event,
    group,
    tokens: roll.tokens + old.tokens + refS.tokens + a.cost.tokens + u.m.tokens + (u.guard?.tokens ?? 0),
    detail,
  };
}

/**
 * The step's train tasks: B = cfg.tasksPerStep indices drawn from the `tasks/<step>` stream, each repeated
 * G = cfg.groupSize times; `groupOf` [B·G] is each episode's task (group) index.
 */
function sampleTasks(root: Rng, cfg: RunConfig, step: number): { refs: TaskRef[]; groupOf: number[] } {
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
  return { refs, groupOf };
}

/** The step's episodes, one per task ref, drawn from the `rollout/<step>` stream (progress in episodes). */
function rollOut(
  policy: PolicyHandle,
  spec: EnvSpec,
  cfg: RunConfig,
  root: Rng,
  step: number,
  skill: AlgorithmState,
  refs: TaskRef[],
  hooks: StepHooks,
): Promise<RolloutResult> {
  const { cancel, onProgress } = hooks;
  return runEpisodes(policy, spec, cfg.preset, refs, {
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
}

/** A lap timer started now: each call returns the wall time (ms) since the previous call (or the start). */
function stopwatch(): () => number {
  let tp = now();
  return () => {
    const t = now(),
      d = t - tp;
    tp = t;
    return d;
  };
}

/**
 * Scores and A_ep of the step's trajectories, their packed samples, the old and reference log-probs (nats) and the
 * algorithm's per-token advantages; `lap` times the old, ref and algorithm phases (ms).
 * @throws RunCancelled when `cancel` is set after scoring.
 */
async function scoreStep(
  policy: PolicyHandle,
  ref: Params,
  cfg: RunConfig,
  skill: AlgorithmState,
  roll: RolloutResult,
  groupOf: number[],
  cancel: CancelSignal | undefined,
  lap: () => number,
): Promise<ScoredStep> {
  const trajs = roll.trajectories;
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
  const algorithmMs = lap();
  const ms = { old: oldMs, ref: refMs, algorithm: algorithmMs };
  return { roll, trajs, scores, adv, packed, old, refS, viewCount, aEpTok, a, ms };
}

/**
 * The PPO update of a scored step (mini-batches from the `minibatch/<step>` stream), then the max-step-KL guard when
 * cfg.maxStepKl > 0, then one check that every weight is finite; `lap` times the update and the guard (ms).
 * @throws RunCancelled when `hooks.cancel` is set before a mini-batch; the weights and Adam state are put back first.
 * @throws NonFiniteError (core/train/finite.ts) when a mini-batch's loss or gradient norm, or a weight after the
 *   update, is NaN or ±Infinity; the weights and Adam state are put back first (as before the step).
 */
async function updateStep(
  policy: PolicyHandle,
  optimizer: tf.Optimizer,
  cfg: RunConfig,
  root: Rng,
  step: number,
  s: ScoredStep,
  hooks: StepHooks,
  lap: () => number,
): Promise<UpdatedStep> {
  const { packed, old } = s;
  // The weights and Adam state before the update: for the max-step-KL guard, to put back a cut update, and to put
  // back an update that met a non-finite value.
  const snap = takeSnapshot(policy.params, optimizer);
  // The explorer's per-token PPO ratio as the update computed it (NaN where no applied mini-batch used the token).
  const ratio = hooks.detail ? new Float32Array(packed.tokens).fill(NaN) : undefined;
  try {
    const m = await runUpdate(policy, optimizer, cfg, root, step, s, hooks, ratio);
    const updateMs = lap();
    let guard: StepGuard | null = null;
    if (cfg.maxStepKl > 0) {
      guard = await guardStep(
        policy.params,
        optimizer,
        snap,
        () => scoreSamples(policy.params, policy.cfg, packed.samples, policy.freeRow, { temperature: cfg.temperature }),
        old.logp,
        cfg.maxStepKl,
        cfg.klBacktracks,
      );
    }
    if (!(await weightsFinite(policy.params))) throw new NonFiniteError('weights', NaN);
    const guardMs = lap();
    return { m, guard, ratio, ms: { update: updateMs, guard: guardMs } };
  } catch (e) {
    if (isCancelled(e) || isNonFinite(e)) restoreSnapshot(snap, policy.params, optimizer);
    throw e;
  } finally {
    disposeSnapshot(snap);
  }
}

/** The step's PPO update (`ppoUpdate`) over its packed samples, with the step's safe points and progress. */
function runUpdate(
  policy: PolicyHandle,
  optimizer: tf.Optimizer,
  cfg: RunConfig,
  root: Rng,
  step: number,
  s: ScoredStep,
  hooks: StepHooks,
  ratio: Float32Array | undefined,
): Promise<UpdateMetrics> {
  const { cancel, onProgress } = hooks;
  const { packed, old, refS, a } = s;
  return ppoUpdate(
    policy.params,
    policy.cfg,
    optimizer,
    {
      samples: packed.samples,
      adv: a.adv,
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
}

/**
 * The step event of a scored and updated step (timing fields 0, filled by the caller; `phaseMs` when `profile`):
 * rates over the B·G trajectories, means over them and over the action tokens, the update's and the guard's
 * numbers, the algorithm's metrics and extras, and the forward passes' tokens and sequences.
 */
function stepEvent(
  cfg: RunConfig,
  step: number,
  lr: number,
  profile: boolean,
  s: ScoredStep,
  u: UpdatedStep,
): StepEvent {
  const { roll, trajs, scores, packed, old, refS, a } = s;
  const { m, guard } = u;
  const nSteps = packed.samples.length;
  return {
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
    advantageAbsMean: mean(Array.from(a.adv, Math.abs)),
    invalidRate: trajs.reduce((n, t) => n + t.invalidCount, 0) / Math.max(nSteps, 1),
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
            old: s.ms.old,
            ref: s.ms.ref,
            algorithm: s.ms.algorithm,
            update: u.ms.update,
            guard: u.ms.guard,
          },
        }
      : {}),
    ...a.metrics,
    ...stepExtra(algorithmTraits(cfg.algo).metricKeys, a.extra),
    forwardTokens: { rollout: roll.tokens, old: old.tokens, ref: refS.tokens, skill: a.cost.tokens, update: m.tokens },
    forwardSequences: {
      rollout: nSteps,
      old: old.tokens ? nSteps : 0,
      ref: cfg.klBeta > 0 ? nSteps : s.viewCount,
      skill: a.cost.sequences,
      update: nSteps * cfg.ppoEpochs,
    },
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
 * k3 estimate of KL(π_old ‖ π_ref) (`k3` of math/losses.ts at δ = ℓ_ref − ℓ_old, clamped to
 * [−10, 10] per token), token mean over the first `ref.length` tokens (the first group's), in nats. The
 * β = 0 kl metric.
 */
function sampledKl(oldLogp: Float32Array, refLogp: Float32Array): number {
  let s = 0;
  for (let i = 0; i < refLogp.length; i++) s += k3(refLogp[i] - oldLogp[i]);
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
