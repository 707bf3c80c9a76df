/**
 * Learning-rate schedules over the run's steps, as verl's `optim.lr_scheduler_type` (constant | cosine, with
 * `min_lr_ratio`) and TRL's `lr_scheduler_type` (linear). (from-scratch runs drifted
 * down from their peak at a constant 1e-3; a decaying rate is the standard remedy).
 */

/** Schedule names accepted by RunConfig.lrSchedule. */
export const LR_SCHEDULES = ['constant', 'linear', 'cosine'] as const;
/** One of LR_SCHEDULES. */
export type LrSchedule = (typeof LR_SCHEDULES)[number];

/**
 * The Adam learning rate for one training step.
 *
 * With progress p = (step − 1) / (totalSteps − 1) (p = 0 when totalSteps is 1), r = minLrRatio:
 * - `constant`: base (r is ignored);
 * - `linear`:   base · (r + (1 − r) · (1 − p));
 * - `cosine`:   base · (r + (1 − r) · ½(1 + cos πp)).
 * So step 1 always uses `base` and the last step `base · r` (linear, cosine).
 *
 * @param base the configured learning rate (> 0).
 * @param schedule one of LR_SCHEDULES.
 * @param minLrRatio r in [0, 1]: the final rate as a fraction of `base`.
 * @param step 1-based step index, 1 ≤ step ≤ totalSteps.
 * @param totalSteps the run's step count (≥ 1).
 * @returns the learning rate for that step (same units as `base`).
 * @throws Error naming the argument when base ≤ 0, r ∉ [0, 1], the schedule is unknown, or step ∉ [1,
 * totalSteps].
 */
export function learningRateAt(
  base: number,
  schedule: LrSchedule,
  minLrRatio: number,
  step: number,
  totalSteps: number,
): number {
  if (!(base > 0)) throw new Error(`learningRateAt: base must be > 0, got ${base}`);
  if (!(minLrRatio >= 0 && minLrRatio <= 1))
    throw new Error(`learningRateAt: minLrRatio must be in [0, 1], got ${minLrRatio}`);
  if (!Number.isInteger(totalSteps) || totalSteps < 1)
    throw new Error(`learningRateAt: totalSteps must be an integer ≥ 1, got ${totalSteps}`);
  if (!Number.isInteger(step) || step < 1 || step > totalSteps)
    throw new Error(`learningRateAt: step must be an integer in [1, ${totalSteps}], got ${step}`);
  const p = totalSteps === 1 ? 0 : (step - 1) / (totalSteps - 1);
  switch (schedule) {
    case 'constant':
      return base;
    case 'linear':
      return base * (minLrRatio + (1 - minLrRatio) * (1 - p));
    case 'cosine':
      return base * (minLrRatio + (1 - minLrRatio) * 0.5 * (1 + Math.cos(Math.PI * p)));
    default:
      throw new Error(`learningRateAt: unknown schedule "${String(schedule)}"; accepted: ${LR_SCHEDULES.join(', ')}`);
  }
}
