/**
 * Undoing a step's update when it moved the policy too far (the sudden from-scratch collapses of
 * docs/experiments/from-scratch-history.md#collapse). As TRPO rejects a step that breaks its KL constraint (Schulman et
 * al. 2015, line search), the trainer measures the approximate KL(π_old ‖ π_new) on the step's own samples after
 * the update and, above `maxStepKl`, restores the weights and the Adam state from before the update — or, with
 * `klBacktracks` > 0, first tries the shrunk steps θ_old + 0.5ᵏ·(θ_new − θ_old) as TRPO's line search does
 * (`blendWeights`), keeping the Adam state the update left.
 *
 * The Adam state (first and second moments, β₁ᵗ and β₂ᵗ accumulators, iteration count) is restored too:
 * keeping the rejected step's moments would push the next step the same way. Reads tfjs 4.22 AdamOptimizer's fields
 * (`accumulatedFirstMoment`, `accumulatedSecondMoment`, `accBeta1`, `accBeta2`, `iterations_`).
 */
import * as tf from '../tf';
import type { Params } from '../model/params';

interface AdamState {
  accumulatedFirstMoment: ({ variable: tf.Variable } | undefined)[];
  accumulatedSecondMoment: ({ variable: tf.Variable } | undefined)[];
  accBeta1: tf.Variable;
  accBeta2: tf.Variable;
  iterations_: number;
}

/** Copies of the policy weights and Adam state (kept tensors; free with `disposeSnapshot`). */
export interface Snapshot {
  params: Record<string, tf.Tensor>;
  m1: tf.Tensor[];
  m2: tf.Tensor[];
  accBeta1: tf.Tensor;
  accBeta2: tf.Tensor;
  iterations: number;
}

function adamState(opt: tf.Optimizer): AdamState {
  const s = opt as unknown as AdamState;
  if (!Array.isArray(s.accumulatedFirstMoment) || !s.accBeta1)
    throw new Error('rollback: the optimizer is not tfjs Adam; maxStepKl needs Adam');
  return s;
}

/** Copy the weights and the Adam state. @throws Error if `opt` is not a tfjs Adam optimizer. */
export function takeSnapshot(params: Params, opt: tf.Optimizer): Snapshot {
  const s = adamState(opt);
  return {
    params: copyWeights(params),
    m1: s.accumulatedFirstMoment.filter((x) => x).map((x) => tf.keep(tf.clone(x!.variable))),
    m2: s.accumulatedSecondMoment.filter((x) => x).map((x) => tf.keep(tf.clone(x!.variable))),
    accBeta1: tf.keep(tf.clone(s.accBeta1)),
    accBeta2: tf.keep(tf.clone(s.accBeta2)),
    iterations: s.iterations_,
  };
}

/** Put back the weights and the Adam state of `snap` (moments created after it are zeroed, as Adam starts them). */
export function restoreSnapshot(snap: Snapshot, params: Params, opt: tf.Optimizer): void {
  const s = adamState(opt);
  for (const [k, v] of Object.entries(params)) (v as tf.Variable).assign(snap.params[k]);
  const put = (vars: AdamState['accumulatedFirstMoment'], saved: tf.Tensor[]) =>
    vars.forEach(
      (x, i) =>
        x &&
        (i < saved.length ? x.variable.assign(saved[i]) : tf.tidy(() => x.variable.assign(tf.zerosLike(x.variable)))),
    );
  put(s.accumulatedFirstMoment, snap.m1);
  put(s.accumulatedSecondMoment, snap.m2);
  s.accBeta1.assign(snap.accBeta1);
  s.accBeta2.assign(snap.accBeta2);
  s.iterations_ = snap.iterations;
}

/**
 * Copy of the current weights (kept tensors, same shapes and dtypes as `params`; free with `disposeWeights`).
 * Used to hold θ_new while the line search tries shrunk steps.
 */
export function copyWeights(params: Params): Record<string, tf.Tensor> {
  return Object.fromEntries(Object.entries(params).map(([k, v]) => [k, tf.keep(tf.clone(v))]));
}

/** Free a `copyWeights` result. */
export function disposeWeights(w: Record<string, tf.Tensor>): void {
  tf.dispose(Object.values(w));
}

/**
 * Set every weight to θ_old + α·(θ_new − θ_old) (TRPO's backtracking line search; config `klBacktracks`), where
 * θ_old is the snapshot's and θ_new the `full` copy. The Adam state is left as it is. α = 1 gives θ_new exactly,
 * α = 0 θ_old exactly. @throws Error if α is outside [0, 1] or a weight is missing from either copy.
 */
export function blendWeights(params: Params, snap: Snapshot, full: Record<string, tf.Tensor>, alpha: number): void {
  if (!(alpha >= 0 && alpha <= 1)) throw new Error(`blendWeights: alpha must be in [0, 1], got ${alpha}`);
  for (const [k, v] of Object.entries(params)) {
    const a = snap.params[k],
      b = full[k];
    if (!a || !b) throw new Error(`blendWeights: weight "${k}" is missing from the snapshot or the full-step copy`);
    if (alpha === 1) (v as tf.Variable).assign(b);
    else if (alpha === 0) (v as tf.Variable).assign(a);
    else tf.tidy(() => (v as tf.Variable).assign(tf.add(a, tf.mul(tf.sub(b, a), alpha))));
  }
}

/** Free a snapshot's tensors. */
export function disposeSnapshot(snap: Snapshot): void {
  disposeWeights(snap.params);
  tf.dispose([...snap.m1, ...snap.m2, snap.accBeta1, snap.accBeta2]);
}

/** What `guardStep` did to a step's update. KLs in nats (token-mean approximate KL(π_old ‖ π)). */
export interface StepGuard {
  /** KL of the full update, the value compared with the bound. */
  stepKl: number;
  /** KL of what was kept: stepKl, a shrunk step's KL, or 0 when undone. */
  keptStepKl: number;
  /** 1 kept whole, 0.5ᵏ shrunk by the line search, 0 undone. */
  stepScale: number;
  rolledBack: boolean;
  /** Tokens scored by the checks (one pass per try). */
  tokens: number;
}

/**
 * Enforce `maxStepKl` on an update already applied (config maxStepKl / klBacktracks; TRPO's constraint and line
 * search): score the step's samples (`score`, log-probs float32 [M] in nats, aligned with `oldLogp`); above the bound
 * (or NaN) try θ_old + 0.5ᵏ(θ_new − θ_old) for k = 1 … `backtracks` with the Adam state kept, and restore the
 * snapshot (weights and Adam state) if none fits. The caller still owns and frees `snap`.
 */
export async function guardStep(
  params: Params,
  opt: tf.Optimizer,
  snap: Snapshot,
  score: () => Promise<{ logp: Float32Array; tokens: number }>,
  oldLogp: Float32Array,
  maxStepKl: number,
  backtracks: number,
): Promise<StepGuard> {
  const post = await score();
  const stepKl = meanApproxKl(post.logp, oldLogp);
  const out: StepGuard = { stepKl, keptStepKl: stepKl, stepScale: 1, rolledBack: false, tokens: post.tokens };
  if (stepKl <= maxStepKl) return out; // a NaN KL falls through: it counts as over the bound
  Object.assign(out, { stepScale: 0, keptStepKl: 0 });
  if (backtracks > 0) {
    const full = copyWeights(params);
    for (let k = 1; k <= backtracks && out.stepScale === 0; k++) {
      blendWeights(params, snap, full, 0.5 ** k);
      const tryK = await score();
      out.tokens += tryK.tokens;
      const kl = meanApproxKl(tryK.logp, oldLogp);
      if (kl <= maxStepKl) Object.assign(out, { stepScale: 0.5 ** k, keptStepKl: kl });
    }
    disposeWeights(full);
  }
  if (out.stepScale === 0) {
    restoreSnapshot(snap, params, opt);
    out.rolledBack = true;
  }
  return out;
}

/**
 * Token-mean approximate KL(π_old ‖ π_new) in nats over packed action tokens (float32 [M] log-probs, nats): mean of
 * (r − 1) − log r with r = exp(ℓ_new − ℓ_old), the log-ratio clamped to [−20, 20] (as core/math/losses
 * `approxKlOld`). Returns 0 for M = 0. @throws Error if the lengths differ.
 */
export function meanApproxKl(newLogp: Float32Array, oldLogp: Float32Array): number {
  if (newLogp.length !== oldLogp.length)
    throw new Error(`meanApproxKl: ${newLogp.length} new log-probs but ${oldLogp.length} old ones`);
  let s = 0;
  for (let i = 0; i < newLogp.length; i++) {
    const d = Math.max(-20, Math.min(20, newLogp[i] - oldLogp[i]));
    s += Math.exp(d) - 1 - d;
  }
  return newLogp.length ? s / newLogp.length : 0;
}
