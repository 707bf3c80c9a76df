/**
 * Typed events the trainer yields (The trainer is an async generator of typed events).
 * Consumed by the CLI (one JSON line each) and by the worker (forwarded to the page). Plain data only:
 * structured-cloneable, no tensors, no functions.
 */
import type { RunConfig } from '../run/config';
import type { Split } from '../envs/types';
import type { AlgorithmMetrics } from '../algorithms/types';
import type { SplitEval } from '../rollout/evaluate';
import type { DivergenceSettings, NonFiniteQuantity } from './finite';

export type { SplitEval };

/** One policy update round. Metric units: rates in [0,1], losses dimensionless, KL in nats/token, time in ms. */
/**
 * The algorithm's metrics (AlgorithmMetrics: teacher share, skill-active tokens, sign agreement, analyzer calls,
 * failures, latency and reasons, ranAsGrpo) are part of every step event; 0 / {} / false for algorithms without skills.
 */
export interface StepEvent extends AlgorithmMetrics {
  event: 'step';
  /** 1-based index of the completed step. */
  step: number;
  /** Fraction of this step's B·G training trajectories that succeeded (R ≥ 1). */
  successRate: number;
  /** Mean outcome reward R over the trajectories. */
  rewardMean: number;
  /** Mean score S = R − invalidPenalty·#invalid used for the advantage. */
  scoreMean: number;
  /** Token-mean PPO-clip policy loss (without the KL term), averaged over mini-batches. */
  policyLoss: number;
  /**
   * KL to the reference (initial) policy by the k3 estimator (Schulman 2020: exp(δ) − δ − 1, δ = ℓ_ref −
   * ℓ, clamped to [−10, 10] per token), in nats/token. With β > 0 (the KL term is in the loss): KL(π ‖ π_ref),
   * token mean over the step's updates. With β = 0 it is sampled, not exact: KL(π_old ‖ π_ref) over the first
   * group's action tokens (the reference is then scored on that group only, which the viewer shows).
   */
  kl: number;
  /** Fraction of action tokens where the ordinary PPO clip was active (verl's pg_clipfrac). */
  clipFraction: number;
  /** Fraction of action tokens where the dual-clip bound −A·c was active (A < 0; verl's pg_clipfrac_lower). */
  clipFractionLower: number;
  /** Token-mean entropy of the sampling distribution (nats). */
  entropy: number;
  /** Adam learning rate used for this step's updates (RunConfig.lrSchedule applied). */
  learningRate: number;
  /** Global L2 grad norm before clipping, mean over mini-batches. */
  gradNorm: number;
  /**
   * KL(π_old ‖ π) by the k3 estimator with samples from π_old ((r − 1) − log r, r = π/π_old; SB3's
   * approx_kl), in nats, token mean over the mini-batches measured, each before its own update (core/train/update.ts).
   */
  approxKl: number;
  /**
   * Approximate KL(π_old ‖ π_new) on the step's samples after its full update (nats), measured before any shrink or
   * undo — the value compared with maxStepKl; null unless maxStepKl > 0.
   */
  stepKl: number | null;
  /**
   * The same KL for what was kept (nats): stepKl when the update was kept whole, the shrunk step's KL when the line
   * search (klBacktracks) kept one, 0 when the update was undone; null unless maxStepKl > 0.
   */
  keptStepKl: number | null;
  /**
   * True when the update was undone because stepKl exceeded maxStepKl (the step's rollouts still count in its metrics).
   */
  rolledBack: boolean;
  /**
   * Fraction of the step's update kept: 1 when it met maxStepKl (or the bound is off), 0.5ᵏ when the k-th halving of
   * the line search met it (config klBacktracks), 0 when it was undone.
   */
  stepScale: number;
  /** Mini-batch (Adam) updates applied this step: miniBatches·ppoEpochs, fewer when target KL stopped the update. */
  updates: number;
  /** Mean |A| over action tokens. */
  advantageAbsMean: number;
  /** Fraction of steps whose action was inadmissible. */
  invalidRate: number;
  /** Mean trajectory length (env steps). */
  episodeLength: number;
  /** Step-samples (env steps) trained on. */
  samples: number;
  /** Action tokens trained on. */
  actionTokens: number;
  /** Tokens processed per second of wall time this step (rollout prompts + scoring + training forward/backward). */
  tokensPerSecond: number;
  /** Wall time of this step (ms). */
  stepMs: number;
  /** Wall time since training started (ms). */
  elapsedMs: number;
  /**
   * Where this step's wall time went (ms): sampling (model), environment and prompts, old-policy and reference
   * scoring, the algorithm's own work (analyzer and skill re-scoring), the update, the KL guard (max step KL).
   * Evaluation time is in the eval event (evalMs). Only with TrainOptions.profile (`train --profile`): wall times
   * differ between identical runs, and step events are otherwise identical for the same seed and backend.
   */
  phaseMs?: { sample: number; env: number; old: number; ref: number; algorithm: number; update: number; guard: number };
  /** tf.memory().numTensors after the step (must stay constant after the first step). */
  numTensors: number;
  /** Agentic-OPD: the teacher (checkpoint step) this step distilled from; null under the union ablation. */
  teacherId?: number | null;
  /** Agentic-OPD: the teacher's HCN score when it was chosen. */
  teacherScore?: number;
  /** Agentic-OPD: fraction of the step's rollouts the LAD gate distilled. */
  ladShare?: number;
  /** Agentic-OPD: token mean of ℓ_student − ℓ_teacher over the distilled tokens (nats; a reverse-KL sample). */
  reverseKl?: number;
  /**
   * Agentic-OPD with opdTopK = K > 0: token mean over the distilled tokens of the reverse KL over the student's top K
   * tokens, both distributions renormalised over them (nats; pre-update student; math/agentic.ts topKReverseKl).
   */
  topkReverseKl?: number;
  /**
   * Agentic-OPD: teacher episodes started this step, in calls of G episodes each (the LAD gate's teacher pass rates on
   * training tasks and the union rule's search; memoised tasks cost none). The work the step spent outside the student.
   */
  teacherRolloutCalls?: number;
  /** Agentic-OPD: action tokens the teacher scored this step (the LAD-gated trajectories' tokens). */
  gatedTokens?: number;
  /** Agentic-OPD: teacher-selection round (a new round after each validation of the student). */
  teacherRound?: number;
  /**
   * Tokens through the model this step by phase: rollout (prefill + decode), old and ref re-scoring, skill
   * re-scoring (OPID only), and update (forward+backward). OPID = GRPO + skill (cost accounting).
   */
  forwardTokens: { rollout: number; old: number; ref: number; skill: number; update: number };
  /** Sequences through the model this step by phase (same phases; rollout counts one prefill per env step). */
  forwardSequences: { rollout: number; old: number; ref: number; skill: number; update: number };
}

/** One token of an action, for the rollout viewer. Log-probs in nats. */
export interface TokenView {
  text: string;
  /** Old-policy log-prob of this token (pre-update re-score). */
  logpOld: number;
  /** Reference-policy log-prob. */
  logpRef: number;
  /** Advantage applied to this token (A_ep for GRPO). */
  adv: number;
  /** Entropy of the sampling distribution at this token (nats). */
  entropy: number;
  /** OPID: old-policy log-prob with the routed skill in the prompt (additive: sum of gains + logpOld). */
  logpSkill?: number;
  /** OPID: A_skill used for this token (after z-score/clip, before λ). */
  advSkill?: number;
  /**
   * OPID: this token's outcome advantage A_ep, so that A = A_ep + λ·A_skill splits exactly whatever λ the token got.
   */
  advEp?: number;
}

/** One env step of a trajectory, for display. */
export interface StepView {
  /** The observation the action answered (before the action); the env's reply is the next step's observation. */
  observation: string;
  action: string;
  valid: boolean;
  tokens: TokenView[];
  /** OPID: the step is in the critical set C_τ (it has a step skill). */
  critical?: boolean;
  /** OPID: the step skill, if any. */
  stepSkill?: string;
}

/** One trajectory, for display. */
export interface TrajectoryView {
  task: string;
  taskType: string;
  success: boolean;
  reward: number;
  /** S used for the advantage. */
  score: number;
  /** Trajectory-level advantage A_ep. */
  advantage: number;
  /** Initial observation. */
  initialObservation: string;
  steps: StepView[];
  /** OPID / Skill-GRPO: the trajectory's episode skill (analyzer output, or the injected memory skill). */
  episodeSkill?: string;
  /** OPID: why the analysis failed, in words (no skill signal for this trajectory). */
  analyzerError?: string;
}

/** A sample of the latest step's trajectories: one whole group (G trajectories of one task). */
export interface TrajectoriesEvent {
  event: 'trajectories';
  step: number;
  group: TrajectoryView[];
}

/** Evaluation on test-seen and test-unseen at evalTemperature. `step` 0 = before training. */
export interface EvalEvent {
  event: 'eval';
  step: number;
  splits: Partial<Record<Split, SplitEval>>;
  evalMs: number;
}

/** Start of training: the resolved config and model facts. */
export interface StartEvent {
  event: 'start';
  config: RunConfig;
  backend: string;
  params: number;
  vocabSize: number;
  /** Version of each environment the run uses (env name → its EnvSpec.version). */
  envVersions: Record<string, string>;
  /** Present when training resumed from a checkpoint: its step k (the next step event is k + 1). */
  resumedFrom?: number;
}

/**
 * A resumable checkpoint after step `step` (TrainOptions.checkpoints, every config.checkpointEvery steps and at the
 * last step). Carries bytes (core/train/checkpoint.ts): the CLI writes them to the run directory and writes this
 * event to events.jsonl without them.
 */
export interface CheckpointEvent {
  event: 'checkpoint';
  step: number;
  /** The policy weights: model/policy.ts savePolicy's safetensors format (metadata kind, step, seed). */
  weights: Uint8Array;
  /** What resuming needs besides the weights: Adam state, reference policy, algorithm state, best evaluation. */
  state: Uint8Array;
}

/**
 * Validation before the checkpoint of the same step (config.valTasks > 0): the policy played val tasks 0..n−1
 * valSamples times each at evalTemperature, sampling from the `val/<step>` stream. Rates in [0, 1].
 */
export interface ValidationEvent {
  event: 'validation';
  step: number;
  /** Episodes per task (config.valSamples). */
  samples: number;
  /** Pass rate of val task i (successes / samples), i = 0..n−1. */
  passRates: number[];
  /** Task type of val task i. */
  taskTypes: string[];
  /** Mean of passRates. */
  successRate: number;
  /** Wall time of the validation (ms). */
  valMs: number;
}

/** Training ended (all steps done). */
export interface DoneEvent {
  event: 'done';
  steps: number;
  elapsedMs: number;
  /** Steps whose update was undone by maxStepKl (0 when it is off). */
  undoneSteps: number;
  /** Steps whose update the KL line search (klBacktracks) shrank instead. */
  shrunkSteps: number;
  /** Version of each environment the run used (as in the start event). */
  envVersions: Record<string, string>;
}

/**
 * A step or an evaluation was cut at a safe point (TrainOptions.cancel, core/cancel.ts) and discarded whole: the
 * weights, Adam state and algorithm state are as before it. Pulling the generator again redoes it from its start.
 */
export interface InterruptedEvent {
  event: 'interrupted';
  /** The step that was cut, or the evaluation's step. */
  step: number;
  /** `step`: a training step (rollouts, scoring or update); `eval`: an evaluation. */
  phase: 'step' | 'eval';
}

/**
 * The run stopped at `step` because a value turned non-finite (NaN or ±Infinity; core/train/finite.ts): the
 * update was not kept (the weights and Adam state are as before the step), no later event follows (no `done`), and
 * the last checkpoint yielded before this event is the last good one.
 */
export interface ErrorEvent {
  event: 'error';
  /** The step that was stopped (its step event is not yielded). */
  step: number;
  /** What was not finite: the loss or the gradient norm of a mini-batch, or the weights after the update. */
  quantity: NonFiniteQuantity;
  /** The value read, in words: `NaN`, `Infinity` or `-Infinity` (the weights: `NaN`). */
  value: string;
  /** The settings most likely to blame, with their values. */
  settings: DivergenceSettings;
  /** The step of the last checkpoint yielded (or resumed from); null when the run has none. */
  lastCheckpoint: number | null;
  /** What happened and which settings to change, in words (the CLI prints it, the page shows it). */
  message: string;
}

/** Every event the trainer yields. */
export type TrainEvent =
  | StartEvent
  | StepEvent
  | TrajectoriesEvent
  | EvalEvent
  | ValidationEvent
  | CheckpointEvent
  | DoneEvent
  | InterruptedEvent
  | ErrorEvent;
