/**
 * Differentiable building blocks with hand-written gradients where tfjs' defaults are slow or missing.
 *
 * - `matmul`/`bmm`: the backward pass materialises transposes and calls plain matMul. On wasm (tfjs 4.22)
 *   matMul with transposeA/transposeB — what autograd's default MatMul gradient uses — runs 10–30× slower
 *   (DEVELOPERS.md "speed traps").
 * - `gatherRows`: tf.gather's gradient needs UnsortedSegmentSum, which the wasm backend lacks; ours
 *   scatters with scatterND (duplicates summed), which every backend has.
 * - `gelu`: tfjs core has no GELU; the tanh approximation (as GPT-2 and peer_torch.py) with x·x·x, not pow.
 */
import * as tf from '../tf';

// tfjs' CustomGradientFunc type is not exported from the package root; this is its shape.
type CGF = (...args: (tf.Tensor | tf.GradSaveFunc)[]) => { value: tf.Tensor; gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => tf.Tensor | tf.Tensor[] };

/** a: [M, K] float32, b: [K, N] float32 → [M, N]. Gradients via plain (non-transposed) matMuls. */
export const matmul = tf.customGrad(((a: tf.Tensor, b: tf.Tensor, save: tf.GradSaveFunc) => {
  save([a, b]);
  return {
    value: tf.matMul(a as tf.Tensor2D, b as tf.Tensor2D),
    gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
      const [sa, sb] = saved;
      return [tf.matMul(dy as tf.Tensor2D, tf.transpose(sb) as tf.Tensor2D), tf.matMul(tf.transpose(sa) as tf.Tensor2D, dy as tf.Tensor2D)];
    },
  };
}) as unknown as CGF) as unknown as (a: tf.Tensor2D, b: tf.Tensor2D) => tf.Tensor2D;

/** a: [B, M, K], b: [B, K, N] → [B, M, N] (batched). Gradients via plain batched matMuls. */
export const bmm = tf.customGrad(((a: tf.Tensor, b: tf.Tensor, save: tf.GradSaveFunc) => {
  save([a, b]);
  return {
    value: tf.matMul(a as tf.Tensor3D, b as tf.Tensor3D),
    gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
      const [sa, sb] = saved;
      return [
        tf.matMul(dy as tf.Tensor3D, tf.transpose(sb, [0, 2, 1]) as tf.Tensor3D),
        tf.matMul(tf.transpose(sa, [0, 2, 1]) as tf.Tensor3D, dy as tf.Tensor3D),
      ];
    },
  };
}) as unknown as CGF) as unknown as (a: tf.Tensor3D, b: tf.Tensor3D) => tf.Tensor3D;

/**
 * Rows of `table` at `indices`: table [R, C] float32, indices [n] int32 → [n, C].
 * Gradient w.r.t. table: scatterND of dy into [R, C] (rows hit twice are summed). No gradient to indices.
 */
export function gatherRows(table: tf.Tensor2D, indices: tf.Tensor1D): tf.Tensor2D {
  const f = tf.customGrad(((t: tf.Tensor, save: tf.GradSaveFunc) => {
    save([]);
    return {
      value: tf.gather(t, indices),
      gradFunc: (dy: tf.Tensor) => [tf.scatterND(tf.expandDims(indices, 1), dy, t.shape)],
    };
  }) as unknown as CGF) as unknown as (t: tf.Tensor2D) => tf.Tensor2D;
  return f(table);
}

/** GELU, tanh form: 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))). Same shape as x. */
export function gelu(x: tf.Tensor): tf.Tensor {
  const inner = tf.mul(tf.add(x, tf.mul(tf.mul(tf.mul(x, x), x), 0.044715)), Math.sqrt(2 / Math.PI));
  return tf.mul(tf.mul(x, 0.5), tf.add(tf.tanh(inner), 1));
}

/** LayerNorm over the last axis: x [..., d], gamma/beta [d]; ε = 1e-5 (PyTorch default). */
export function layerNorm(x: tf.Tensor, gamma: tf.Tensor, beta: tf.Tensor): tf.Tensor {
  const { mean, variance } = tf.moments(x, -1, true);
  return tf.add(tf.mul(tf.mul(tf.sub(x, mean), tf.rsqrt(tf.add(variance, 1e-5))), gamma), beta);
}

/** x [..., K] times W [K, N] plus b [N]: reshapes to 2-D for `matmul` and back. */
export function linear(x: tf.Tensor, w: tf.Tensor2D, b?: tf.Tensor): tf.Tensor {
  const k = x.shape[x.shape.length - 1];
  const lead = x.shape.slice(0, -1);
  const y = matmul(tf.reshape(x, [-1, k]) as tf.Tensor2D, w);
  const yb = b ? tf.add(y, b) : y;
  return tf.reshape(yb, [...lead, w.shape[1]]);
}
