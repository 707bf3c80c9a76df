/**
 * A run never trains on a non-finite value: the checks the trainer makes on every step and the error that ends a run
 * at the first NaN or ±Infinity. The loss and the gradient norm of every mini-batch are checked before its update
 * is applied (core/train/update.ts); the weights once after the step's update, with one reduction read back
 * (`weightsFinite`). The trainer then puts back the weights and Adam state from before the step
 * (core/train/rollback.ts), yields an `error` event (core/train/events.ts) and ends the run, so no checkpoint and no
 * saved weights ever hold a non-finite value.
 */
import * as tf from '../tf';
import type { Params } from '../model/params';
import type { RunConfig } from '../run/config';

/** What turned non-finite: the update's loss, its global gradient norm, or the weights after the update. */
export type NonFiniteQuantity = 'loss' | 'gradNorm' | 'weights';

/** A non-finite value found at a safe point of a step (before the update it would have fed was applied). */
export class NonFiniteError extends Error {
  /**
   * @param quantity what was not finite
   * @param value the value read (NaN, Infinity or −Infinity); NaN for the weights (one of them is not finite)
   */
  constructor(
    readonly quantity: NonFiniteQuantity,
    readonly value: number,
  ) {
    super(`the ${QUANTITY_TEXT[quantity]} is ${valueText(value)}`);
    this.name = 'NonFiniteError';
  }
}

/** True when `e` is a `NonFiniteError`. */
export function isNonFinite(e: unknown): e is NonFiniteError {
  return e instanceof NonFiniteError;
}

/** How a quantity is named in a message. */
const QUANTITY_TEXT: Record<NonFiniteQuantity, string> = {
  loss: 'loss',
  gradNorm: 'gradient norm',
  weights: 'weights',
};

/** A non-finite number in words: `NaN`, `Infinity` or `-Infinity`. */
export function valueText(v: number): string {
  return Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : v < 0 ? '-Infinity' : String(v);
}

/**
 * Whether every weight of `params` is finite: one reduction over all tensors (the minimum of isFinite) and one read
 * back. Leaves no tensor behind.
 */
export async function weightsFinite(params: Params): Promise<boolean> {
  const t = tf.tidy(() =>
    Object.values(params)
      .map((p) => tf.min(tf.cast(tf.isFinite(p), 'float32')))
      .reduce((a, b) => tf.minimum(a, b)),
  );
  const v = (await t.data())[0];
  t.dispose();
  return v === 1;
}

/** The settings that most often make a run diverge, with their values (RunConfig fields). */
export interface DivergenceSettings {
  learningRate: number;
  klBeta: number;
  maxGradNorm: number;
  entropyCoef: number;
}

/** The divergence-prone settings of `cfg`. */
export function divergenceSettings(cfg: RunConfig): DivergenceSettings {
  const { learningRate, klBeta, maxGradNorm, entropyCoef } = cfg;
  return { learningRate, klBeta, maxGradNorm, entropyCoef };
}

/**
 * The message of a run stopped at `step` by a non-finite `quantity`: what happened, that the update was not kept,
 * and the settings most likely to blame with their values (the learning rate, the KL weight β, gradient clipping —
 * `maxGradNorm` 0 = off — and the entropy coefficient).
 */
export function nonFiniteMessage(step: number, e: NonFiniteError, s: DivergenceSettings): string {
  const clip =
    s.maxGradNorm > 0
      ? `lower the max grad norm (${s.maxGradNorm})`
      : 'turn on gradient clipping (max grad norm is 0 = off)';
  return (
    `step ${step}: ${e.message}; the run stopped and the step's update was not kept. The training diverged: ` +
    `lower the learning rate (${s.learningRate}) or the KL weight β (${s.klBeta}), ${clip}, or lower the entropy ` +
    `coefficient (${s.entropyCoef})`
  );
}
