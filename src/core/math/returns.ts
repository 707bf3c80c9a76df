/**
 * Discounted returns of per-step rewards, shared by GiGPO's step advantage (Feng et al. 2025, eq. 5) and the
 * analyzer's view of a trajectory (OPID: G_t shown per step).
 */

/**
 * Discounted returns G_t = r_t + γ·G_{t+1} (G after the last step = 0) for per-step rewards r_t (unitless reward).
 * @param gamma discount γ in [0, 1]; default 0.95 (OPID's and GiGPO's value).
 * @returns float64 numbers, one per step.
 */
export function discountedReturns(rewards: readonly number[], gamma = 0.95): number[] {
  const out = new Array<number>(rewards.length);
  let g = 0;
  for (let t = rewards.length - 1; t >= 0; t--) out[t] = g = rewards[t] + gamma * g;
  return out;
}
