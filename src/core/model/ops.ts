/**
 * Differentiable building blocks with hand-written gradients where tfjs' defaults are slow or missing.
 *
 * - `matmul`/`bmm`/`bmmNT`: the backward pass never calls a transposing 2-D matMul. On wasm (tfjs 4.22) a 2-D matMul
 *   without transposes and with batch 1 runs in XNNPACK; with transposeA/transposeB — what autograd's default MatMul
 *   gradient uses — it falls back to a scalar loop that runs 10–30× slower (docs/experiments/speed.md, "wasm: a
 *   SIMD kernel for the batched and transposed matMuls"). A batched matMul (attention) always takes that scalar loop,
 *   whose inner loop runs along the shared dimension: it is fastest when both operands are contiguous there (`bmmNT`,
 *   a·bᵀ), and the loop sums in the same order whatever the flags, so passing flags instead of materialising 3-D
 *   transposes changes no bit.
 * - `linear`: x·W + b with the bias gradient as ones[1,M]·dy (an XNNPACK matMul) instead of autograd's
 *   transpose-then-Sum over the rows, and W's gradient transposing whichever of x and dy is smaller.
 * - `layerNorm`, `gelu`: closed-form backward passes (a few fused-shape ops) instead of autograd through ~10 ops,
 *   each of whose Multiply gradients copies its inputs (Cast/Identity kernels).
 * - `gatherRows`: tf.gather's gradient needs UnsortedSegmentSum, which the wasm backend lacks; ours
 *   scatters with scatterND (duplicates summed), which every backend has.
 * - `gelu`: tfjs core has no GELU; the tanh approximation (as GPT-2 and peer_torch.py) with x·x·x, not pow.
 * - On the webgpu backend, `layerNorm` and `attentionSoftmax` run fused kernels with hand-written gradients instead
 *   (src/core/backend/webgpu/layernorm.ts, webgpu/softmax.ts: one dispatch for a LayerNorm forward, one for the
 *   attention softmax forward and one for its backward); every other backend runs the composed ops below, wasm with
 *   their element-wise chains, LayerNorm's and the attention softmax's, and the bias gradients' column sums as single
 *   kernels that compute the same float32 operations in the same order (backend/wasm/layernorm.ts, wasm/softmax.ts,
 *   wasm/colsum.ts: same bits).
 *
 * Every forward pass computes exactly what the plain formula computes (same ops, same order) on every backend but
 * webgpu: sampling and scoring are unchanged to the bit there. The hand-written backward passes sum in another order
 * than autograd's, so gradients differ from autograd's in the last float32 bits (test/core/model/ops-grad.test.ts
 * bounds the difference; test/core/backend/webgpu/*.test.ts bound the fused kernels against the cpu backend).
 */
import * as tf from '../tf';
import { fusedLayerNorm, fusedLayerNormUsable } from '../backend/webgpu/layernorm';
import { rowsGrad, rowsGradUsable } from '../backend/webgpu/rows-grad';
import { fusedAttentionSoftmax, fusedAttentionSoftmaxUsable } from '../backend/webgpu/softmax';
import { GELU_KERNELS, runGeluKernel, wasmGeluUsable } from '../backend/wasm/gelu';
import { wasmColSum, wasmColSumUsable } from '../backend/wasm/colsum';
import { wasmLayerNormBackward, wasmLayerNormForward, wasmLayerNormUsable } from '../backend/wasm/layernorm';
import { wasmScaleBias, wasmScaledSoftmaxGrad, wasmSoftmaxUsable } from '../backend/wasm/softmax';
import { wasmGemm, wasmGemmUsable } from '../backend/wasm/gemm';
import './sum-grad'; // Sum's gradient without a tensor of ones on wasm (same values)

// tfjs' CustomGradientFunc type is not exported from the package root; this is its shape.
type CGF = (...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
  value: tf.Tensor;
  gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => tf.Tensor | tf.Tensor[];
};

/**
 * a [M, K] · b [K, N] float32 → [M, N]: tfjs' matMul, or on wasm the project's kernel in XNNPACK's order (same bits,
 * no repacking of b; backend/wasm/gemm.ts). Not differentiable: the custom gradients below call it.
 */
function mm(a: tf.Tensor2D, b: tf.Tensor2D): tf.Tensor2D {
  return wasmGemmUsable('nn') ? wasmGemm(a, b, false) : tf.matMul(a, b);
}

/**
 * a: [M, K] float32, b: [K, N] float32 → [M, N]. Gradients via plain (non-transposed) matMuls (aᵀ·dy as `tMatmul`
 * orders it).
 */
export const matmul = tf.customGrad(((a: tf.Tensor, b: tf.Tensor, save: tf.GradSaveFunc) => {
  save([a, b]);
  return {
    value: mm(a as tf.Tensor2D, b as tf.Tensor2D),
    gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
      const [sa, sb] = saved;
      return [mm(dy as tf.Tensor2D, tf.transpose(sb) as tf.Tensor2D), tMatmul(sa as tf.Tensor2D, dy as tf.Tensor2D)];
    },
  };
}) as unknown as CGF) as unknown as (a: tf.Tensor2D, b: tf.Tensor2D) => tf.Tensor2D;

/**
 * a: [B, M, K], b: [B, K, N] → [B, M, N] (batched). Gradients: dA = dC·bᵀ and dB = aᵀ·dC as flagged batched
 * matMuls (no 3-D transpose is materialised; the scalar loop reads the flagged operand in place, same sums).
 */
export const bmm = tf.customGrad(((a: tf.Tensor, b: tf.Tensor, save: tf.GradSaveFunc) => {
  save([a, b]);
  return {
    value: tf.matMul(a as tf.Tensor3D, b as tf.Tensor3D),
    gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
      const [sa, sb] = saved;
      return [
        tf.matMul(dy as tf.Tensor3D, sb as tf.Tensor3D, false, true),
        tf.matMul(sa as tf.Tensor3D, dy as tf.Tensor3D, true, false),
      ];
    },
  };
}) as unknown as CGF) as unknown as (a: tf.Tensor3D, b: tf.Tensor3D) => tf.Tensor3D;

/**
 * a: [B, M, K], b: [B, N, K] → a·bᵀ [B, M, N] (batched; attention scores q·kᵀ with keys stored [B, N, K]).
 * Both operands are read contiguously along K. Gradients: dA = dC·b, dB = dCᵀ·a.
 */
export const bmmNT = tf.customGrad(((a: tf.Tensor, b: tf.Tensor, save: tf.GradSaveFunc) => {
  save([a, b]);
  return {
    value: tf.matMul(a as tf.Tensor3D, b as tf.Tensor3D, false, true),
    gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
      const [sa, sb] = saved;
      return [
        tf.matMul(dy as tf.Tensor3D, sb as tf.Tensor3D),
        tf.matMul(dy as tf.Tensor3D, sa as tf.Tensor3D, true, false),
      ];
    },
  };
}) as unknown as CGF) as unknown as (a: tf.Tensor3D, b: tf.Tensor3D) => tf.Tensor3D;

/**
 * Rows of `table` at `indices`: table [R, C] float32, indices [n] int32 → [n, C].
 * Gradient w.r.t. table: dy [n, C] summed into [R, C] (rows hit twice are summed) — scatterND, except on webgpu,
 * whose scatterND adds with atomics in a scheduling-dependent order; there backend/webgpu/rows-grad.ts sums in index
 * order, so a run and its resume give the same bits. No gradient to indices.
 */
export function gatherRows(table: tf.Tensor2D, indices: tf.Tensor1D): tf.Tensor2D {
  const f = tf.customGrad(((t: tf.Tensor, save: tf.GradSaveFunc) => {
    save([]);
    return {
      value: tf.gather(t, indices),
      gradFunc: (dy: tf.Tensor) => [
        indices.dtype === 'int32' && rowsGradUsable(t.shape[0], t.shape[1] ?? 0)
          ? rowsGrad(dy as tf.Tensor2D, indices, t.shape[0])
          : tf.scatterND(tf.expandDims(indices, 1), dy, t.shape),
      ],
    };
  }) as unknown as CGF) as unknown as (t: tf.Tensor2D) => tf.Tensor2D;
  return f(table);
}

/** √(2/π), GELU's tanh-form constant. */
const GELU_C = Math.sqrt(2 / Math.PI);

/**
 * GELU, tanh form: 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))) (Hendrycks and Gimpel 2016, as GPT-2). Same shape
 * as x. Backward in closed form from the saved x and t = tanh(u): dx = dy·(0.5·(1 + t) + 0.5·x·(1 −
 * t²)·√(2/π)·(1 + 3·0.044715·x²)). On wasm the element-wise chains around tfjs' Tanh and the backward run as
 * one kernel each (backend/wasm/gelu.ts, the same float32 operations in the same order: same bits).
 */
export const gelu = tf.customGrad(((x: tf.Tensor, save: tf.GradSaveFunc) => {
  const fused = wasmGeluUsable() && x.dtype === 'float32';
  const inner = fused
    ? runGeluKernel(GELU_KERNELS.inner, { x })
    : tf.mul(tf.add(x, tf.mul(tf.mul(tf.mul(x, x), x), 0.044715)), GELU_C);
  const t = tf.tanh(inner);
  save([x, t]);
  return {
    value: fused ? runGeluKernel(GELU_KERNELS.out, { x, t }) : tf.mul(tf.mul(x, 0.5), tf.add(t, 1)),
    gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
      const [sx, st] = saved;
      if (fused && wasmGeluUsable()) return runGeluKernel(GELU_KERNELS.grad, { x: sx, t: st, dy });
      const x2 = tf.mul(sx, sx);
      const du = tf.mul(
        tf.mul(tf.sub(1, tf.mul(st, st)), tf.mul(sx, 0.5 * GELU_C)),
        tf.add(tf.mul(x2, 3 * 0.044715), 1),
      );
      return tf.mul(dy, tf.add(tf.mul(tf.add(st, 1), 0.5), du));
    },
  };
}) as unknown as CGF) as unknown as (x: tf.Tensor) => tf.Tensor;

/**
 * Column sums of a 2-D tensor [M, N] → [N], as ones[1,M]·x (an XNNPACK matMul on wasm, not a transpose and a Sum);
 * on wasm the column-sum kernel of backend/wasm/colsum.ts, which adds in the product's order (same bits).
 */
function colSum(x: tf.Tensor2D): tf.Tensor1D {
  if (wasmColSumUsable() && x.dtype === 'float32') return wasmColSum(x);
  const [M, N] = x.shape;
  return tf.reshape(tf.matMul(tf.ones([1, M]) as tf.Tensor2D, x), [N]);
}

let packAware = true;

/**
 * Switch `tMatmul`'s wasm order off (false: the smaller operand is transposed on every backend) or back on, to compare
 * the two (scripts/wasm-train-ab.ts; both give the same bits). Returns the previous setting.
 */
export function setPackAwareWeightGrads(on: boolean): boolean {
  const was = packAware;
  packAware = on;
  return was;
}

/**
 * aᵀ·b for a [M, K], b [M, N] → [K, N] (a weight gradient: M rows of a batch, K inputs, N outputs). On wasm with
 * SIMD, the project's GEMM reads a in place (backend/wasm/gemm.ts: no transpose, no repacking, the same sums). Else on
 * wasm as aᵀ·b when K > N, else as (bᵀ·a)ᵀ: the product's right operand is the one of fewer columns, because
 * XNNPACK (tfjs' wasm matMul) repacks the right operand on every call with a new tensor: with M = 4096 and a 128-column
 * left result, repacking costs about as much as the product (measured in docs/experiments/speed.md). On a tie a is the
 * right operand, so the q, k and v projections of one input repack it once (tfjs keeps the packed operand per tensor).
 * Each entry is the same sum Σ_m a[m, k]·b[m, n] in the same order of m either way. Other backends transpose the
 * smaller of a and b.
 */
function tMatmul(a: tf.Tensor2D, b: tf.Tensor2D): tf.Tensor2D {
  if (wasmGemmUsable('tn')) return wasmGemm(a, b, true); // aᵀ·b in place, same bits (backend/wasm/gemm.ts)
  // else: the smaller transpose
  const leftA = packAware && tf.getBackend() === 'wasm' ? a.shape[1] > b.shape[1] : a.shape[1] <= b.shape[1];
  return leftA
    ? tf.matMul(tf.transpose(a) as tf.Tensor2D, b)
    : (tf.transpose(tf.matMul(tf.transpose(b) as tf.Tensor2D, a)) as tf.Tensor2D);
}

/**
 * LayerNorm over the last axis (Ba et al. 2016) from composed ops on any backend: x [..., d], gamma/beta [d];
 * ε = 1e-5 (PyTorch default). Backward in closed form with x̂ = (x − μ)·r, r = 1/√(σ² + ε), g = dy·γ:
 * dx = r·(g − mean(g) − x̂·mean(g·x̂)), dγ = Σ_rows dy·x̂, dβ = Σ_rows dy. `layerNorm` uses it off
 * webgpu.
 */
export const composedLayerNorm = tf.customGrad(((
  x: tf.Tensor,
  gamma: tf.Tensor,
  beta: tf.Tensor,
  save: tf.GradSaveFunc,
) => {
  const { mean, variance } = tf.moments(x, -1, true);
  const xc = tf.sub(x, mean);
  const r = tf.rsqrt(tf.add(variance, 1e-5));
  save([xc, r, gamma]);
  return {
    value: tf.add(tf.mul(tf.mul(xc, r), gamma), beta),
    gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
      const [sxc, sr, sg] = saved;
      const d = sg.shape[0];
      const xhat = tf.mul(sxc, sr);
      const g = tf.mul(dy, sg);
      const dx = tf.mul(sr, tf.sub(tf.sub(g, tf.mean(g, -1, true)), tf.mul(xhat, tf.mean(tf.mul(g, xhat), -1, true))));
      return [
        dx,
        colSum(tf.reshape(tf.mul(dy, xhat), [-1, d]) as tf.Tensor2D),
        colSum(tf.reshape(dy, [-1, d]) as tf.Tensor2D),
      ];
    },
  };
}) as unknown as CGF) as unknown as (x: tf.Tensor, gamma: tf.Tensor, beta: tf.Tensor) => tf.Tensor;

/**
 * `composedLayerNorm` with its forward and backward chains as one wasm kernel each (backend/wasm/layernorm.ts: the
 * same float32 operations in the same order, so the same bits); dγ and dβ are the same column sums.
 */
const wasmLayerNorm = tf.customGrad(((x: tf.Tensor, gamma: tf.Tensor, beta: tf.Tensor, save: tf.GradSaveFunc) => {
  const d = x.shape[x.shape.length - 1];
  const [value, xc, r] = wasmLayerNormForward(tf.reshape(x, [-1, d]) as tf.Tensor2D, gamma, beta);
  save([xc, r, gamma]);
  return {
    value: tf.reshape(value, x.shape),
    gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
      const [sxc, sr, sg] = saved;
      const dy2 = tf.reshape(dy, [-1, d]) as tf.Tensor2D;
      const [dx, dyxh] = wasmLayerNormBackward(dy2, sxc as tf.Tensor2D, sr as tf.Tensor2D, sg);
      return [tf.reshape(dx, dy.shape), colSum(dyxh), colSum(dy2)];
    },
  };
}) as unknown as CGF) as unknown as (x: tf.Tensor, gamma: tf.Tensor, beta: tf.Tensor) => tf.Tensor;

/**
 * LayerNorm over the last axis: x [..., d] float32, gamma/beta [d] → [..., d] float32, differentiable w.r.t. all
 * three. On webgpu the fused kernels (backend/webgpu/layernorm.ts, the same closed-form gradient); on wasm (d a
 * multiple of 4) the kernels of backend/wasm/layernorm.ts; elsewhere, or when the rows do not fit one dispatch,
 * `composedLayerNorm` (bit-identical to both).
 */
export function layerNorm(x: tf.Tensor, gamma: tf.Tensor, beta: tf.Tensor): tf.Tensor {
  const d = x.shape[x.shape.length - 1];
  if (fusedLayerNormUsable(x.size / d, d)) return fusedLayerNorm(x, gamma, beta);
  return wasmLayerNormUsable(d) && x.dtype === 'float32'
    ? wasmLayerNorm(x, gamma, beta)
    : composedLayerNorm(x, gamma, beta);
}

/**
 * The additive attention mask of one forward pass. `bias` [B or 1, 1, T, Tk] float32 (0 where attending is allowed,
 * a large negative number where not: causal and padding) is added to the scaled scores; it is null where the fused
 * webgpu kernel applies the causal rule (query t sees keys ≤ t + Tk − T) and `keyBias` [B, Tk] itself.
 */
export interface AttentionMask {
  bias: tf.Tensor | null;
  keyBias?: tf.Tensor2D;
}

/**
 * The mask for `rows` = B·h·T attention rows: `makeBias()` (the composed additive bias) unless the fused webgpu
 * softmax will run, which needs only `keyBias` [B, Tk] (or nothing) and so saves building and uploading the bias.
 */
export function attentionMask(rows: number, makeBias: () => tf.Tensor, keyBias?: tf.Tensor2D): AttentionMask {
  return fusedAttentionSoftmaxUsable(rows) ? { bias: null, keyBias } : { bias: makeBias(), keyBias };
}

/**
 * Attention weights: raw scores q·kᵀ [B·h, T, Tk] float32 → softmax(raw·scale + bias) over the keys [B·h, T,
 * Tk]. With a composed `mask.bias`: Multiply, Add and Softmax (autograd's gradients), or on wasm the same arithmetic
 * with the element-wise chains as single kernels (`wasmAttentionSoftmax`); with `bias` null: the fused webgpu kernel
 * (one dispatch forward, one backward; backend/webgpu/softmax.ts).
 */
export function attentionSoftmax(
  raw: tf.Tensor3D,
  scale: number,
  B: number,
  h: number,
  mask: AttentionMask,
): tf.Tensor3D {
  const [BH, T, Tk] = raw.shape;
  if (mask.bias === null) return fusedAttentionSoftmax(raw, scale, h, mask.keyBias);
  if (raw.dtype === 'float32' && wasmSoftmaxUsable(B, T, Tk, mask.bias))
    return wasmAttentionSoftmax(raw, scale, h, mask.bias);
  return tf.reshape(tf.softmax(tf.add(tf.reshape(tf.mul(raw, scale), [B, h, T, Tk]), mask.bias)), [
    BH,
    T,
    Tk,
  ]) as tf.Tensor3D;
}

/**
 * `attentionSoftmax`'s composed chain with the scale and bias as one wasm kernel before tfjs' Softmax, and the
 * Softmax's and the scale's gradients as one (backend/wasm/softmax.ts: the same float32 operations in the same order,
 * so the same bits). raw [B·h, T, Tk], bias [1 or B, 1, T, Tk] → [B·h, T, Tk].
 */
function wasmAttentionSoftmax(raw: tf.Tensor3D, scale: number, h: number, bias: tf.Tensor): tf.Tensor3D {
  const f = tf.customGrad(((r: tf.Tensor, save: tf.GradSaveFunc) => {
    const y = tf.softmax(wasmScaleBias(r as tf.Tensor3D, bias, scale, h));
    save([y]);
    return { value: y, gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => wasmScaledSoftmaxGrad(dy, saved[0], scale) };
  }) as unknown as CGF) as unknown as (r: tf.Tensor3D) => tf.Tensor3D;
  return f(raw);
}

/**
 * x [M, K]·W [K, N] + b [N] → [M, N]. Gradients: dx = dy·Wᵀ, dW = xᵀ·dy (as `tMatmul` orders it),
 * db = ones[1,M]·dy.
 */
const affine = tf.customGrad(((x: tf.Tensor, w: tf.Tensor, b: tf.Tensor, save: tf.GradSaveFunc) => {
  save([x, w]);
  return {
    value: tf.add(mm(x as tf.Tensor2D, w as tf.Tensor2D), b),
    gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
      const [sx, sw] = saved;
      return [
        mm(dy as tf.Tensor2D, tf.transpose(sw) as tf.Tensor2D),
        tMatmul(sx as tf.Tensor2D, dy as tf.Tensor2D),
        colSum(dy as tf.Tensor2D),
      ];
    },
  };
}) as unknown as CGF) as unknown as (x: tf.Tensor2D, w: tf.Tensor2D, b: tf.Tensor1D) => tf.Tensor2D;

/** x [..., K] times W [K, N] plus b [N]: reshapes to 2-D for `matmul` (or the fused affine op) and back. */
export function linear(x: tf.Tensor, w: tf.Tensor2D, b?: tf.Tensor): tf.Tensor {
  const k = x.shape[x.shape.length - 1];
  const lead = x.shape.slice(0, -1);
  const x2 = tf.reshape(x, [-1, k]) as tf.Tensor2D;
  const y = b ? affine(x2, w, b as tf.Tensor1D) : matmul(x2, w);
  return tf.reshape(y, [...lead, w.shape[1]]);
}
