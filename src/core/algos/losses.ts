/**
 * Policy losses (DESIGN.md §2 step 8; issue #2), pure tensor functions on *packed* action tokens:
 * every input is float32 [M] (M = action tokens in the mini-batch; prompt tokens are not in the vectors at all,
 * which is how they get zero gradient).
 *
 * - PPO-clip with dual-clip (Schulman et al. 2017; Ye et al. 2020, as verl's `compute_policy_loss`):
 *   ρ = exp(ℓ − ℓ_old); L1 = −A·ρ; L2 = −A·clip(ρ, 1−ε, 1+ε); Lc = max(L1, L2);
 *   for A < 0 and c > 1: L = min(Lc, −A·c), else L = Lc.
 * - KL k3 ("low-var KL", Schulman 2020): with δ = ℓ_ref − ℓ, k3 = exp(δ) − δ − 1 ≥ 0, clamped to [−10, 10].
 * - `aggLoss`: one aggregation for every mode (see its doc).
 */
import * as tf from '../tf';

/** Per-token PPO-clip loss and clip indicators; the upper clip bound is 1+clipEpsHigh (DAPO clip-higher; defaults to ε). ρ is clamped in the exponent to avoid overflow (|ℓ−ℓ_old| ≤ 20). */
export function ppoClipLoss(
  logp: tf.Tensor1D, oldLogp: tf.Tensor1D, adv: tf.Tensor1D, clipEps: number, dualClip: number, clipEpsHigh = clipEps,
): { loss: tf.Tensor1D; clipped: tf.Tensor1D; ratio: tf.Tensor1D } {
  const ratio = tf.exp(tf.clipByValue(tf.sub(logp, oldLogp), -20, 20)) as tf.Tensor1D;
  const negA = tf.neg(adv);
  const l1 = tf.mul(negA, ratio);
  const l2 = tf.mul(negA, tf.clipByValue(ratio, 1 - clipEps, 1 + clipEpsHigh));
  const lc = tf.maximum(l1, l2);
  let loss = lc, clipped = tf.cast(tf.greater(l2, l1), 'float32');
  if (dualClip > 1) {
    const l3 = tf.mul(negA, dualClip);
    const neg = tf.less(adv, 0);
    loss = tf.where(neg, tf.minimum(lc, l3), lc);
    clipped = tf.maximum(clipped, tf.cast(tf.logicalAnd(neg, tf.greater(lc, l3)), 'float32'));
  }
  return { loss: loss as tf.Tensor1D, clipped: clipped as tf.Tensor1D, ratio };
}

/** k3 KL estimate per token (nats), clamped to [−10, 10]: logp, refLogp float32 [M]. */
export function klK3(logp: tf.Tensor1D, refLogp: tf.Tensor1D): tf.Tensor1D {
  const d = tf.sub(refLogp, logp);
  return tf.clipByValue(tf.sub(tf.sub(tf.exp(d), d), 1), -10, 10) as tf.Tensor1D;
}

/**
 * Approximate KL(π_old ‖ π) per token (nats), the estimator Stable-Baselines3's PPO uses for `target_kl`
 * (Schulman 2020, k3 with samples from π_old): with r = exp(ℓ − ℓ_old), (r − 1) − log r ≥ 0. logp, oldLogp float32
 * [M]; the log-ratio is clamped to [−20, 20] as in `ppoClipLoss`. Used only as a metric and stopping rule.
 */
export function approxKlOld(logp: tf.Tensor1D, oldLogp: tf.Tensor1D): tf.Tensor1D {
  const d = tf.clipByValue(tf.sub(logp, oldLogp), -20, 20);
  return tf.sub(tf.sub(tf.exp(d), 1), d) as tf.Tensor1D;
}

/**
 * Aggregate per-token values [M] to a scalar: Σ_m values[m]·weights[m] / divisor.
 * Modes are expressed through (weights, divisor) by `aggWeights`:
 * - `token-mean`: weights 1, divisor = a constant token count for every mini-batch of the step (so a short
 *   mini-batch does not get a larger per-token weight; longer responses weigh more — DAPO's choice).
 * - `seq-mean-token-mean`: weights 1/len(sample), divisor = a constant sample count (each sample weighs the same,
 *   so tokens of short responses weigh more — GRPO's original length bias).
 */
export function aggLoss(values: tf.Tensor1D, weights: tf.Tensor1D, divisor: number): tf.Scalar {
  return tf.div(tf.sum(tf.mul(values, weights)), divisor) as tf.Scalar;
}

/** Aggregation modes of `aggLoss`. */
export type AggMode = 'token-mean' | 'seq-mean-token-mean';

/** Per-token weights [M] (plain numbers) for a mode, given each sample's response length. */
export function aggWeights(lengths: readonly number[], mode: AggMode): Float32Array {
  const M = lengths.reduce((a, b) => a + b, 0);
  const w = new Float32Array(M);
  let o = 0;
  for (const L of lengths) {
    w.fill(mode === 'token-mean' ? 1 : 1 / L, o, o + L);
    o += L;
  }
  return w;
}
