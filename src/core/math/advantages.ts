/**
 * Outcome advantages, looked up by name (as verl registers its advantage estimators).
 *
 * GRPO (Shao et al. 2024, eq. for outcome supervision): every trajectory τ of a group (same task) gets
 * A_ep(τ) = (S(τ) − μ_q) / (σ_q + ε)   (`mean-std`)   or   A_ep(τ) = S(τ) − μ_q   (`mean-only`, Dr. GRPO),
 * broadcast to every action token of every step of τ. σ_q is the unbiased (n−1) standard deviation, as verl's
 * `compute_grpo_outcome_advantage`; a singleton group gets A = 0, and a group of equal scores gets exactly 0
 * (not the ±1e-11 a float mean would leave).
 *
 * `groupBy: 'step'` takes μ_q, σ_q over the group's step-samples instead of its trajectories (OPID's reference
 * code): each trajectory's score counts once per step, so long trajectories weigh more.
 */

import { discountedReturns } from './returns';

/** Advantage normalisation modes (RunConfig.advNorm). */
export const ADV_NORMS = ['mean-std', 'mean-only'] as const;
/** Advantage normalisation mode. */
export type AdvNorm = (typeof ADV_NORMS)[number];
/** What μ and σ are taken over (RunConfig.advGroupBy). */
export const ADV_GROUP_BYS = ['trajectory', 'step'] as const;
/** What μ and σ are taken over. */
export type AdvGroupBy = (typeof ADV_GROUP_BYS)[number];

/** Input of an outcome-advantage estimator: one entry per trajectory. */
export interface OutcomeInput {
  /** Score S per trajectory (outcome reward minus penalties). */
  scores: readonly number[];
  /** Group id per trajectory (trajectories of one task share an id). */
  groups: readonly number[];
  /** Steps (samples) per trajectory; used when groupBy = 'step'. */
  lengths: readonly number[];
}

/** Options of an outcome-advantage estimator. */
export interface OutcomeOptions {
  norm: AdvNorm;
  groupBy: AdvGroupBy;
  /** ε in σ + ε. */
  eps: number;
}

/** An advantage estimator: per-trajectory advantages (float64 numbers), same order as the input. */
export type OutcomeEstimator = (x: OutcomeInput, o: OutcomeOptions) => number[];

/** GRPO group-relative outcome advantage (see file doc). @throws Error if input arrays differ in length. */
export const grpoAdvantage: OutcomeEstimator = (x, o) => {
  const n = x.scores.length;
  if (x.groups.length !== n || x.lengths.length !== n)
    throw new Error('grpoAdvantage: scores, groups and lengths must have the same length');
  const members = new Map<number, number[]>();
  x.groups.forEach((g, i) => (members.get(g) ?? members.set(g, []).get(g)!).push(i));
  const out = new Array<number>(n).fill(0);
  for (const idx of members.values()) {
    // Weighted sample: each trajectory counts once (trajectory) or once per step (step).
    const w = idx.map((i) => (o.groupBy === 'step' ? x.lengths[i] : 1));
    const W = w.reduce((a, b) => a + b, 0);
    if (idx.length < 2 || W < 2) continue; // singleton group → 0
    // Equal scores → exactly 0 (the float mean of equal values may differ from them by an ulp: [0.1, 0.1, 0.1]).
    if (idx.every((i) => x.scores[i] === x.scores[idx[0]])) continue;
    const mu = idx.reduce((s, i, k) => s + w[k] * x.scores[i], 0) / W;
    const varU = idx.reduce((s, i, k) => s + w[k] * (x.scores[i] - mu) ** 2, 0) / (W - 1);
    const sd = Math.sqrt(varU);
    for (const i of idx) {
      const d = x.scores[i] - mu;
      out[i] = o.norm === 'mean-std' ? d / (sd + o.eps) : d;
    }
  }
  return out;
};

/** Registered outcome estimators by name (an Algorithm names the one it uses). */
export const OUTCOME_ESTIMATORS: Readonly<Record<string, OutcomeEstimator>> = { grpo: grpoAdvantage };

/** Look up an estimator. @throws Error listing the known names. */
export function getOutcomeEstimator(name: string): OutcomeEstimator {
  const f = Object.hasOwn(OUTCOME_ESTIMATORS, name) ? OUTCOME_ESTIMATORS[name] : undefined;
  if (!f)
    throw new Error(`unknown advantage estimator "${name}"; known: ${Object.keys(OUTCOME_ESTIMATORS).join(', ')}`);
  return f;
}

/** Input of the step-level (anchor-state) advantage: one entry per trajectory. */
export interface StepGroupInput {
  /** Group id per trajectory (trajectories of one task share an id). */
  groups: readonly number[];
  /** Per trajectory, per step: the anchor-state key (what the environment showed before the action). */
  anchors: readonly (readonly string[])[];
  /** Per trajectory, per step: the step reward (env reward minus any per-step penalty). */
  rewards: readonly (readonly number[])[];
}

/**
 * GiGPO step-level advantage (Feng et al. 2025, "Group-in-Group Policy Optimization for LLM Agent Training",
 * §3.2, eq. 5–7; verl-agent's `gigpo`): inside each group, the step-samples whose anchor state is identical form a
 * step group; each step t gets its discounted return R_t = Σ_k γ^k r_{t+k} (γ = `gamma`), and
 * A_step = (R_t − μ_s) / (σ_s + ε) (`mean-std`, σ unbiased) or R_t − μ_s (`mean-only`) over its step group. A
 * step group of one sample gets 0. Combined with the episode advantage as A = A_ep + ω·A_step (see
 * `RunConfig.stepAdvWeight`). This gives the same state's different actions a direct comparison: e.g. at a receptacle
 * showing the task's object and a distractor, `take` of the right one against `take` of the other. Returns per
 * trajectory, per step (float64 numbers).
 * @throws Error if the arrays differ in length (per trajectory or per step), or gamma is outside [0, 1].
 */
export function stepGroupAdvantages(x: StepGroupInput, o: { gamma: number; norm: AdvNorm; eps: number }): number[][] {
  const n = x.groups.length;
  if (x.anchors.length !== n || x.rewards.length !== n)
    throw new Error('stepGroupAdvantages: groups, anchors and rewards must have the same length');
  if (!(o.gamma >= 0 && o.gamma <= 1)) throw new Error(`stepGroupAdvantages: gamma must be in [0, 1], got ${o.gamma}`);
  const returns = x.rewards.map((r, i) => {
    if (r.length !== x.anchors[i].length)
      throw new Error(
        `stepGroupAdvantages: trajectory ${i} has ${x.anchors[i].length} anchors but ${r.length} rewards`,
      );
    return discountedReturns(r, o.gamma);
  });
  const members = new Map<string, [number, number][]>();
  x.anchors.forEach((steps, i) =>
    steps.forEach((a, t) => {
      const key = `${x.groups[i]}\u0000${a}`;
      (members.get(key) ?? members.set(key, []).get(key)!).push([i, t]);
    }),
  );
  const out = x.anchors.map((s) => new Array<number>(s.length).fill(0));
  for (const m of members.values()) {
    if (m.length < 2) continue;
    const vals = m.map(([i, t]) => returns[i][t]);
    if (vals.every((v) => v === vals[0])) continue; // equal returns → exactly 0
    const mu = vals.reduce((a, b) => a + b, 0) / vals.length;
    const sd = Math.sqrt(vals.reduce((a, v) => a + (v - mu) ** 2, 0) / (vals.length - 1));
    m.forEach(([i, t], k) => (out[i][t] = o.norm === 'mean-std' ? (vals[k] - mu) / (sd + o.eps) : vals[k] - mu));
  }
  return out;
}
