/**
 * Gradient plumbing shared by every trainer of the project (the RL update and behaviour cloning): micro-batches of
 * bounded padded size, gradient accumulation, and global-norm clipping before the optimizer step.
 */
import * as tf from '../tf';
import type { ScoreSample } from '../model/scoring';
import { applyAdam } from './adam';

/**
 * Split sample indices into runs whose padded size (count × longest) stays ≤ maxTokens (at least one sample each).
 */
export function microBatches(idx: readonly number[], samples: readonly ScoreSample[], maxTokens: number): number[][] {
  const out: number[][] = [];
  let cur: number[] = [],
    longest = 0;
  const len = (i: number) => samples[i].prompt.length + samples[i].response.length;
  // Shortest first, so each micro-batch pads little (the summed gradient does not depend on the order).
  for (const i of [...idx].sort((a, b) => len(a) - len(b) || a - b)) {
    const L = samples[i].prompt.length + samples[i].response.length;
    const nextLongest = Math.max(longest, L);
    if (cur.length && (cur.length + 1) * nextLongest > maxTokens) {
      out.push(cur);
      cur = [];
      longest = 0;
    }
    cur.push(i);
    longest = Math.max(longest, L);
  }
  if (cur.length) out.push(cur);
  return out;
}

/** Add micro-batch gradients `g` into `acc` (null = first), disposing the inputs it replaces. Returns the sum. */
export function accumulate(
  acc: Record<string, tf.Tensor> | null,
  g: Record<string, tf.Tensor>,
): Record<string, tf.Tensor> {
  if (!acc) return g;
  for (const k of Object.keys(acc)) {
    const prev = acc[k];
    acc[k] = tf.add(prev, g[k]);
    tf.dispose([prev, g[k]]);
  }
  return acc;
}

/**
 * Clip gradients to a global L2 norm and apply them with the optimizer (`applyAdam`: fused on webgpu and wasm, the clip
 * scale folded into the update); disposes `grads`. Returns the norm before clipping. `maxNorm` ≤ 0 disables clipping.
 * With `skipNonFinite`, a norm that is NaN or ±Infinity applies nothing (the weights and Adam state stay as they are);
 * the caller reads the returned norm.
 */
export async function applyClipped(
  optimizer: tf.Optimizer,
  grads: Record<string, tf.Tensor>,
  maxNorm: number,
  skipNonFinite = false,
): Promise<number> {
  const g = grads;
  // Pairwise adds, not tf.addN: webgpu's AddN binds one storage buffer per input, and 28+ inputs exceed the
  // per-stage limit (8 on many devices) — the pipeline is then invalid and the norm is garbage.
  const normT = tf.tidy(() =>
    tf.sqrt(
      Object.values(g)
        .map((t) => tf.sum(tf.square(t)))
        .reduce((a, b) => tf.add(a, b)),
    ),
  );
  const norm = (await normT.data())[0];
  normT.dispose();
  if (skipNonFinite && !Number.isFinite(norm)) {
    tf.dispose(Object.values(g));
    return norm;
  }
  const scale = maxNorm > 0 && norm > maxNorm ? maxNorm / (norm + 1e-6) : 1;
  // Composed (scale, then applyGradients) on every backend but webgpu and wasm, where Adam is fused (optim/adam.ts).
  applyAdam(optimizer, g, scale);
  tf.dispose(Object.values(g));
  return norm;
}
