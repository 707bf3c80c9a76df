/**
 * The outcome advantage every algorithm builds on: scores S = R − invalidPenalty·#invalid, the group advantage A_ep
 * (GRPO, Shao et al. 2024) broadcast to every action token of every step, plus GiGPO's step-level term ω·A_step
 * (Feng et al. 2025, eq. 8) when ω > 0; and the packing of trajectories into step-samples.
 */
import type { Trajectory } from '../rollout/types';
import type { ScoreSample } from '../model/scoring';
import { getOutcomeEstimator, stepGroupAdvantages, type AdvNorm, type OutcomeOptions } from '../math/advantages';

/** Samples of a batch of trajectories, packed (see model/scoring), with their bookkeeping. */
export interface PackedSamples {
  samples: ScoreSample[];
  /** Trajectory index of each sample. */
  sampleTraj: number[];
  /** Offset of each sample's tokens in packed vectors. */
  offsets: number[];
  /** Total action tokens M. */
  tokens: number;
}

/** Flatten trajectories into step-samples (one per env step). */
export function packSamples(trajs: readonly Trajectory[]): PackedSamples {
  const samples: ScoreSample[] = [],
    sampleTraj: number[] = [],
    offsets: number[] = [];
  let M = 0;
  trajs.forEach((t, ti) =>
    t.steps.forEach((s) => {
      samples.push({ prompt: s.prompt, response: s.response, allowed: s.allowed });
      sampleTraj.push(ti);
      offsets.push(M);
      M += s.response.length;
    }),
  );
  return { samples, sampleTraj, offsets, tokens: M };
}

/**
 * Per-token advantages [M] float32: A = A_ep(τ) + ω·A_step(τ, t) (GiGPO, Feng et al. 2025, eq. 8), where A_step
 * comes from `stepGroupAdvantages` with the anchor state = the step's observation and admissible actions, and the step
 * reward = env reward − `invalidPenalty` for an inadmissible action. ω = 0 gives `broadcastToTokens(p, perTraj)`.
 */
export function tokenAdvantages(
  p: PackedSamples,
  trajs: readonly Trajectory[],
  groupOf: readonly number[],
  perTraj: readonly number[],
  o: { stepAdvWeight: number; stepAdvGamma: number; invalidPenalty: number; advNorm: AdvNorm; advEps: number },
): Float32Array {
  if (o.stepAdvWeight === 0) return broadcastToTokens(p, perTraj);
  const step = stepGroupAdvantages(
    {
      groups: groupOf,
      anchors: trajs.map((t) => t.steps.map((s) => `${s.observation}\u0000${s.admissible.join('\u0001')}`)),
      rewards: trajs.map((t) => t.steps.map((s) => s.reward - (s.valid ? 0 : o.invalidPenalty))),
    },
    { gamma: o.stepAdvGamma, norm: o.advNorm, eps: o.advEps },
  );
  const out = new Float32Array(p.tokens);
  let prev = -1,
    t = 0;
  p.samples.forEach((s, i) => {
    const ti = p.sampleTraj[i];
    t = ti === prev ? t + 1 : 0;
    prev = ti;
    out.fill(perTraj[ti] + o.stepAdvWeight * step[ti][t], p.offsets[i], p.offsets[i] + s.response.length);
  });
  return out;
}

/** Score S of a trajectory: outcome reward minus the invalid-action penalty. */
export function trajectoryScore(t: Trajectory, invalidPenalty: number): number {
  return t.reward - invalidPenalty * t.invalidCount;
}

/**
 * Per-trajectory outcome advantages for trajectories grouped by `groupOf` (e.g. the task slot), using the
 * estimator registered under `estimator` (math/advantages.ts OUTCOME_ESTIMATORS).
 * @throws Error naming the known estimators for an unknown name.
 */
export function outcomeAdvantages(
  trajs: readonly Trajectory[],
  groupOf: readonly number[],
  invalidPenalty: number,
  estimator: string,
  o: OutcomeOptions,
): { scores: number[]; adv: number[] } {
  const scores = trajs.map((t) => trajectoryScore(t, invalidPenalty));
  const adv = getOutcomeEstimator(estimator)({ scores, groups: groupOf, lengths: trajs.map((t) => t.steps.length) }, o);
  return { scores, adv };
}

/** Broadcast per-trajectory values to a packed per-token vector float32 [M]. */
export function broadcastToTokens(p: PackedSamples, perTraj: readonly number[]): Float32Array {
  const out = new Float32Array(p.tokens);
  p.samples.forEach((s, i) => out.fill(perTraj[p.sampleTraj[i]], p.offsets[i], p.offsets[i] + s.response.length));
  return out;
}
