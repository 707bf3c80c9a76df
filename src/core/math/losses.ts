/**
 * Policy losses, pure tensor functions on *packed* action tokens:
 * every input is float32 [M] (M = action tokens in the mini-batch; prompt tokens are not in the vectors at all,
 * which is how they get zero gradient).
 *
 * - PPO-clip with dual-clip (Schulman et al. 2017; Ye et al. 2020, as verl's `compute_policy_loss`):
 *   ρ = exp(ℓ − ℓ_old); L1 = −A·ρ; L2 = −A·clip(ρ, 1−ε, 1+ε); Lc = max(L1, L2);
 *   for A < 0 and c > 1: L = min(Lc, −A·c), else L = Lc.
 * - KL k3 ("low-var KL", Schulman 2020): with δ = ℓ_ref − ℓ, k3 = exp(δ) − δ − 1 ≥ 0, clamped to [−10,
 *   10].
 * - `aggLoss`: one aggregation for every mode (see its doc).
 */
import * as tf from '../tf';

/**
 * Per-token PPO-clip loss (float32 [M]) and clip indicators, as verl's `compute_policy_loss`: `clipped` = 1 where the
 * clipped term wins (verl's pg_clipfrac), `clippedLower` = 1 where the dual-clip bound −A·c applies (A < 0, verl's
 * pg_clipfrac_lower). The upper clip bound is 1+clipEpsHigh (DAPO clip-higher, Yu et al. 2025; defaults to ε). ρ is
 * clamped in the exponent to avoid overflow (|ℓ−ℓ_old| ≤ 20). Inputs float32 [M]: log-probs in nats,
 * advantages.
 */
export function ppoClipLoss(
  logp: tf.Tensor1D,
  oldLogp: tf.Tensor1D,
  adv: tf.Tensor1D,
  clipEps: number,
  dualClip: number,
  clipEpsHigh = clipEps,
): { loss: tf.Tensor1D; clipped: tf.Tensor1D; clippedLower: tf.Tensor1D; ratio: tf.Tensor1D } {
  const ratio = tf.exp(tf.clipByValue(tf.sub(logp, oldLogp), -20, 20)) as tf.Tensor1D;
  const negA = tf.neg(adv);
  const l1 = tf.mul(negA, ratio);
  const l2 = tf.mul(negA, tf.clipByValue(ratio, 1 - clipEps, 1 + clipEpsHigh));
  const lc = tf.maximum(l1, l2);
  const clipped = tf.cast(tf.greater(l2, l1), 'float32');
  let loss = lc,
    clippedLower = tf.zerosLike(clipped);
  if (dualClip > 1) {
    const l3 = tf.mul(negA, dualClip);
    const neg = tf.less(adv, 0);
    loss = tf.where(neg, tf.minimum(lc, l3), lc);
    clippedLower = tf.cast(tf.logicalAnd(neg, tf.greater(lc, l3)), 'float32');
  }
  return {
    loss: loss as tf.Tensor1D,
    clipped: clipped as tf.Tensor1D,
    clippedLower: clippedLower as tf.Tensor1D,
    ratio,
  };
}

/**
 * The k3 KL estimate of one token (Schulman 2020, "Approximating KL Divergence"): with δ = ℓ_ref − ℓ (nats)
 * at a token sampled from π, exp(δ) − δ − 1 ≥ 0, an unbiased estimate of KL(π ‖ π_ref), clamped to
 * [−10, 10] as `klK3` clamps each token. In nats; float64 arithmetic.
 */
export function k3(delta: number): number {
  return Math.min(10, Math.max(-10, Math.exp(delta) - delta - 1));
}

/** k3 KL estimate per token (nats), clamped to [−10, 10]: logp, refLogp float32 [M]. */
export function klK3(logp: tf.Tensor1D, refLogp: tf.Tensor1D): tf.Tensor1D {
  const d = tf.sub(refLogp, logp);
  return tf.clipByValue(tf.sub(tf.sub(tf.exp(d), d), 1), -10, 10) as tf.Tensor1D;
}

/**
 * Approximate KL(π_old ‖ π) per token (nats), the estimator Stable-Baselines3's PPO uses for `target_kl`
 * (Schulman 2020, k3 with samples from π_old): with r = exp(ℓ − ℓ_old), (r − 1) − log r ≥ 0. logp, oldLogp
 * float32 [M]; the log-ratio is clamped to [−20, 20] as in `ppoClipLoss`. Used only as a metric and stopping rule.
 */
export function approxKlOld(logp: tf.Tensor1D, oldLogp: tf.Tensor1D): tf.Tensor1D {
  const d = tf.clipByValue(tf.sub(logp, oldLogp), -20, 20);
  return tf.sub(tf.sub(tf.exp(d), 1), d) as tf.Tensor1D;
}

/** Loss aggregation modes, as verl's `loss_agg_mode` (RunConfig.lossAgg). */
export const AGG_MODES = [
  'token-mean',
  'seq-mean-token-mean',
  'seq-mean-token-sum',
  'seq-mean-token-sum-norm',
] as const;
/** One of AGG_MODES. */
export type AggMode = (typeof AGG_MODES)[number];

/**
 * The constants of one step's aggregation, fixed before its first mini-batch so that every mini-batch divides by the
 * same number (a short mini-batch does not get a larger per-token weight), and the summed gradient of the mini-batches
 * equals the whole step's.
 */
export interface AggPlan {
  mode: AggMode;
  /** Divisor of every mini-batch's weighted sum: tokens (token-mean) or samples (seq-mean-*) per mini-batch. */
  divisor: number;
  /** seq-mean-token-sum-norm: the constant length L_max (tokens) each sample's token sum is divided by. */
  normLength: number;
  /** What a reported loss is averaged over: action tokens (token-mean) or samples (seq-mean-*). */
  per: 'token' | 'sample';
}

/**
 * Plan a step's aggregation (verl `agg_loss`, with one constant divisor across mini-batches). With n samples of
 * lengths L_i, M = ΣL_i tokens and k mini-batches, the step's loss is Σ over mini-batches of Σ_m w_m·v_m / divisor:
 * - `token-mean`: w = 1, divisor = M/k — every token weighs the same, so long responses weigh more (DAPO's choice;
 *   no length bias per token).
 * - `seq-mean-token-mean`: w = 1/L_i, divisor = n/k — every sample weighs the same, so a token of a short response
 *   weighs more than one of a long response (GRPO's original length bias, Liu et al. 2025 "Dr. GRPO" §3).
 * - `seq-mean-token-sum`: w = 1, divisor = n/k — the mean over samples of each sample's token sum: longer responses
 *   get proportionally larger losses (and gradients).
 * - `seq-mean-token-sum-norm`: w = 1/L_max, divisor = n/k — token sums divided by one constant L_max (Dr. GRPO's
 *   unbiased form): no per-sample length normalisation, so no length bias, at a scale independent of the batch.
 * @param lengths response lengths (tokens) of every sample of the step.
 * @param miniBatches k ≥ 1 (capped at n).
 * @param normLength L_max for `seq-mean-token-sum-norm` (e.g. the longest action allowed, RunConfig.maxActionTokens).
 * @throws Error for an unknown mode or a non-positive normLength.
 */
export function aggPlan(mode: AggMode, lengths: readonly number[], miniBatches: number, normLength: number): AggPlan {
  if (!(AGG_MODES as readonly string[]).includes(mode))
    throw new Error(`unknown loss aggregation "${mode}"; known: ${AGG_MODES.join(', ')}`);
  if (!(normLength > 0)) throw new Error(`aggPlan: normLength must be > 0 tokens, got ${normLength}`);
  const n = lengths.length,
    k = Math.min(Math.max(1, miniBatches), Math.max(n, 1));
  const M = lengths.reduce((a, b) => a + b, 0);
  return mode === 'token-mean'
    ? { mode, divisor: M / k, normLength, per: 'token' }
    : { mode, divisor: n / k, normLength, per: 'sample' };
}

/** Per-token weights [M] (float32) of a plan for samples of the given response lengths (see `aggPlan`). */
export function aggWeights(lengths: readonly number[], plan: AggPlan): Float32Array {
  const M = lengths.reduce((a, b) => a + b, 0);
  const w = new Float32Array(M);
  let o = 0;
  for (const L of lengths) {
    w.fill(
      plan.mode === 'seq-mean-token-mean' ? 1 / L : plan.mode === 'seq-mean-token-sum-norm' ? 1 / plan.normLength : 1,
      o,
      o + L,
    );
    o += L;
  }
  return w;
}

/**
 * Aggregate per-token values [M] (float32, packed action tokens of one mini-batch) to a scalar:
 * Σ_m values[m]·weights[m] / plan.divisor, with `weights` from `aggWeights` (float32 [M]).
 */
export function aggLoss(values: tf.Tensor1D, weights: tf.Tensor1D, plan: AggPlan): tf.Scalar {
  return tf.div(tf.sum(tf.mul(values, weights)), plan.divisor) as tf.Scalar;
}

/**
 * Top-k reverse KL per position (Agentic-OPD 2026, docs/references.md#agentic-opd; the tensor form of math/agentic.ts
 * `topKReverseKl`): with the student's log-probs `studentTop` [M, K] at its top-K token ids v (differentiable) and the
 * teacher's log-probs of the same ids `teacherTop` [M, K] (a constant: the teacher is frozen), both renormalised over
 * the K ids, ℓ̃(v) = ℓ(v) − log Σ_{u ∈ top-K} exp ℓ(u), returns KL_m = Σ_v exp(ℓ̃_s(v))·(ℓ̃_s(v)
 * − ℓ̃_t(v)) ≥ 0 per position, float32 [M], in nats. Masked ids (log-prob ≈ −1e9, model/transformer.ts NEG)
 * get p̃_s ≈ 0 and add nothing.
 */
export function topKReverseKlLoss(studentTop: tf.Tensor2D, teacherTop: tf.Tensor2D): tf.Tensor1D {
  const ls = tf.sub(studentTop, tf.logSumExp(studentTop, 1, true));
  const lt = tf.sub(teacherTop, tf.logSumExp(teacherTop, 1, true));
  return tf.sum(tf.mul(tf.exp(ls), tf.sub(ls, lt)), 1) as tf.Tensor1D;
}
