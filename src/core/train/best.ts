/**
 * Best-checkpoint selection on evaluation events , as Stable-Baselines3's
 * `EvalCallback(best_model_save_path=…)` and TRL's `metric_for_best_model`: the score of an evaluation is the mean
 * success rate over its splits (test-seen and test-unseen, equal weight, in [0, 1]); a new evaluation is the best
 * when its score is strictly higher than every earlier one (ties keep the earlier, smaller step).
 *
 * Because the same evaluation both selects and scores the checkpoint, its score is optimistic: re-evaluate the kept
 * weights on other tasks (`npm run eval -- --first-task 100 …`) for an unbiased figure.
 */
import type { EvalEvent } from './events';

/** Mean success rate over an evaluation's splits, in [0, 1]. @throws Error if the event has no split. */
export function evalScore(ev: Pick<EvalEvent, 'splits'>): number {
  const rates = Object.values(ev.splits).map((s) => s!.successRate);
  if (!rates.length) throw new Error('evalScore: the eval event has no splits; evaluate at least one split');
  return rates.reduce((a, b) => a + b, 0) / rates.length;
}

/** Tracks the best evaluation seen so far. */
export class BestEval {
  /** Step of the best evaluation (−1 before any). */
  step = -1;
  /** Its score (mean success over splits, in [0, 1]; −1 before any). */
  score = -1;
  /** Success rate per split of the best evaluation. */
  splits: Record<string, number> = {};

  /** Offer an evaluation; returns true when it is the new best (the caller then saves the weights). */
  offer(ev: Pick<EvalEvent, 'splits' | 'step'>): boolean {
    const s = evalScore(ev);
    if (s <= this.score) return false;
    this.score = s;
    this.step = ev.step;
    this.splits = Object.fromEntries(Object.entries(ev.splits).map(([k, v]) => [k, v!.successRate]));
    return true;
  }
}
