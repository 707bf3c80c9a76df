/**
 * Fused causal-masked attention softmax for tfjs' webgpu backend (tfjs-backend-webgpu 4.22), forward and backward,
 * as one differentiable op (`fusedAttentionSoftmax`) that model/ops.ts `attentionSoftmax` uses on webgpu.
 *
 * Forward, one dispatch for scale + mask + max + exp + sum + divide (the composed path is a Multiply, an Add of the
 * additive mask and tfjs' Softmax, after the mask itself was uploaded and added up). For attention row (b·h + head,
 * t) and key j, with T queries, Tk keys and the KV-cache offset o = Tk − T (0 in a full forward, Tk − 1 when
 * decoding one token):
 *   z_j = s_j·scale + (c_j + kb[b, j]),  c_j = MASK_NEG if j > t + o (a future key) else 0,
 *   y_j = exp(z_j − max z) / Σ exp(z − max z),
 * the same additive mask and the same order of additions as model/transformer.ts (scores·scale + (causal + key bias)),
 * so a row whose every key is masked gets the same (uniform) weights as there. kb is the key bias [B, Tk] (0 for real
 * tokens, MASK_NEG for padding), or absent.
 *
 * Backward, one dispatch: ds_j = scale·(y_j·dy_j − y_j·Σ_k y_k·dy_k) (the softmax Jacobian-vector product times
 * the scale; no gradient flows to the mask). One workgroup of 64 invocations per row; sums and maxima by a fixed tree,
 * so the kernels are deterministic. Exp and the summation order differ from the cpu backend's, so results agree to
 * float32 rounding (test/core/backend/webgpu/softmax.test.ts), not bit for bit.
 */
import * as tf from '../../tf';
import {
  BLOCK,
  registerWebGpuKernel,
  runProgram,
  treeMax,
  treeSum,
  webGpuFits,
  type KernelArgs,
  type WebGpuProgram,
} from './program';

/** Additive bias of a masked key (equals model/transformer.ts NEG: finite, so no NaN appears). */
export const MASK_NEG = -1e9;
/** tfjs kernel names of the forward and backward. */
const SOFTMAX_FWD = 'OpdAttnSoftmax',
  SOFTMAX_BWD = 'OpdAttnSoftmaxGrad';

/** Forward: s [BH, T, Tk] (raw q·kᵀ), optional kb [B, Tk] → y [BH, T, Tk]; uniforms scale, heads. */
class AttnSoftmaxProgram implements WebGpuProgram {
  variableNames: string[];
  outputShape: number[];
  dispatchLayout = { x: [0, 1, 2] };
  dispatch: [number, number, number];
  workgroupSize: [number, number, number] = [BLOCK, 1, 1];
  shaderKey: string;
  uniforms = 'scale : f32, heads : i32,';
  constructor(
    shape: number[],
    private readonly withKeyBias: boolean,
  ) {
    this.outputShape = shape;
    this.dispatch = [shape[0] * shape[1], 1, 1];
    this.variableNames = withKeyBias ? ['s', 'kb'] : ['s'];
    this.shaderKey = withKeyBias ? 'opdAttnSoftmaxKb' : 'opdAttnSoftmax';
  }
  getUserCode(): string {
    const kb = this.withKeyBias ? ' + getKb(bh / uniforms.heads, j)' : '';
    return `
    var<workgroup> buf : array<f32, ${BLOCK}>;
    fn z(bh : i32, t : i32, j : i32, o : i32) -> f32 {
      var c = 0.0;
      if (j > t + o) { c = ${MASK_NEG.toExponential()}; }
      return getS(bh, t, j) * uniforms.scale + (c${kb});
    }
    fn main(index : i32) {
      let row = index / ${BLOCK};
      let tid = i32(localId.x);
      let T = uniforms.sShape[1];
      let Tk = uniforms.sShape[2];
      let bh = row / T;
      let t = row - bh * T;
      let o = Tk - T;
      var m = -3.402823e+38;
      for (var j = tid; j < Tk; j += ${BLOCK}) { m = max(m, z(bh, t, j, o)); }
      buf[tid] = m;
      workgroupBarrier();
      ${treeMax('buf')}
      let rowMax = buf[0];
      workgroupBarrier();
      var s = 0.0;
      for (var j = tid; j < Tk; j += ${BLOCK}) { s += exp(z(bh, t, j, o) - rowMax); }
      buf[tid] = s;
      workgroupBarrier();
      ${treeSum('buf')}
      let rowSum = buf[0];
      for (var j = tid; j < Tk; j += ${BLOCK}) { setOutputAtCoords(bh, t, j, exp(z(bh, t, j, o) - rowMax) / rowSum); }
    }`;
  }
}

/** Backward: y [BH, T, Tk], dy [BH, T, Tk] → ds = scale·(y·dy − y·Σ y·dy); uniform scale. */
class AttnSoftmaxGradProgram implements WebGpuProgram {
  variableNames = ['y', 'dy'];
  outputShape: number[];
  dispatchLayout = { x: [0, 1, 2] };
  dispatch: [number, number, number];
  workgroupSize: [number, number, number] = [BLOCK, 1, 1];
  shaderKey = 'opdAttnSoftmaxGrad';
  uniforms = 'scale : f32,';
  constructor(shape: number[]) {
    this.outputShape = shape;
    this.dispatch = [shape[0] * shape[1], 1, 1];
  }
  getUserCode(): string {
    return `
    var<workgroup> buf : array<f32, ${BLOCK}>;
    fn main(index : i32) {
      let row = index / ${BLOCK};
      let tid = i32(localId.x);
      let T = uniforms.yShape[1];
      let Tk = uniforms.yShape[2];
      let bh = row / T;
      let t = row - bh * T;
      var s = 0.0;
      for (var j = tid; j < Tk; j += ${BLOCK}) { s += getY(bh, t, j) * getDy(bh, t, j); }
      buf[tid] = s;
      workgroupBarrier();
      ${treeSum('buf')}
      let dot = buf[0];
      for (var j = tid; j < Tk; j += ${BLOCK}) {
        let y = getY(bh, t, j);
        setOutputAtCoords(bh, t, j, uniforms.scale * (y * getDy(bh, t, j) - y * dot));
      }
    }`;
  }
}

/**
 * Register the forward and backward kernels for the webgpu backend (idempotent; `fusedAttentionSoftmaxUsable` calls
 * it).
 */
export function registerWebGpuAttentionSoftmax(): void {
  registerWebGpuKernel(SOFTMAX_FWD, ({ inputs, backend, attrs }: KernelArgs) => {
    const { s, kb } = inputs as Record<string, tf.TensorInfo>;
    const uniforms = [
      { type: 'float32' as const, data: [attrs!.scale as number] },
      { type: 'int32' as const, data: [attrs!.heads as number] },
    ];
    return runProgram(backend, new AttnSoftmaxProgram(s.shape, kb !== undefined), kb ? [s, kb] : [s], uniforms);
  });
  registerWebGpuKernel(SOFTMAX_BWD, ({ inputs, backend, attrs }: KernelArgs) => {
    const { y, dy } = inputs as Record<string, tf.TensorInfo>;
    return runProgram(
      backend,
      new AttnSoftmaxGradProgram(y.shape),
      [y, dy],
      [{ type: 'float32', data: [attrs!.scale as number] }],
    );
  });
}

/**
 * True when `fusedAttentionSoftmax` can run on `rows` = B·h·T attention rows: webgpu is active and they fit one
 * dispatch.
 */
export function fusedAttentionSoftmaxUsable(rows: number): boolean {
  if (!webGpuFits(rows)) return false;
  registerWebGpuAttentionSoftmax();
  return true;
}

// tfjs' CustomGradientFunc type is not exported from the package root; this is its shape.
type CGF = (...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
  value: tf.Tensor;
  gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => tf.Tensor | tf.Tensor[];
};

const run = (name: string, inputs: Record<string, tf.Tensor>, attrs: Record<string, number>) =>
  tf.engine().runKernel(name, inputs as unknown as tf.NamedTensorMap, attrs as unknown as tf.NamedAttrMap) as tf.Tensor;

/**
 * Attention weights from raw scores in one dispatch: s [B·h, T, Tk] float32 (q·kᵀ, not yet scaled), `scale`
 * (1/√hs),
 * `heads` h, optional key bias kb [B, Tk] float32 (0 or MASK_NEG) → y [B·h, T, Tk] float32, each row summing to 1
 * over its unmasked keys (the formula in the module docstring). Differentiable w.r.t. s (not w.r.t. kb).
 * @throws Error when the kernels cannot run (not webgpu, more than maxComputeWorkgroupsPerDimension rows: check
 *   `fusedAttentionSoftmaxUsable`) or when kb's shape is not [B·h / heads, Tk].
 */
export function fusedAttentionSoftmax(
  s: tf.Tensor3D,
  scale: number,
  heads: number,
  keyBias?: tf.Tensor2D,
): tf.Tensor3D {
  const [BH, T, Tk] = s.shape;
  if (!fusedAttentionSoftmaxUsable(BH * T))
    throw new Error(
      'fusedAttentionSoftmax: needs the webgpu backend and at most maxComputeWorkgroupsPerDimension rows ' +
        'B·h·T (check fusedAttentionSoftmaxUsable); use ops.ts attentionSoftmax instead',
    );
  if (keyBias && (keyBias.shape[0] * heads !== BH || keyBias.shape[1] !== Tk))
    throw new Error(
      `fusedAttentionSoftmax: keyBias has shape [${keyBias.shape}] but scores [${s.shape}] with ${heads} ` +
        `heads need [${BH / heads}, ${Tk}]`,
    );
  const f = tf.customGrad(((x: tf.Tensor, save: tf.GradSaveFunc) => {
    const y = run(SOFTMAX_FWD, keyBias ? { s: x, kb: keyBias } : { s: x }, { scale, heads });
    save([y]);
    return {
      value: y,
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => run(SOFTMAX_BWD, { y: saved[0], dy }, { scale }),
    };
  }) as unknown as CGF) as unknown as (x: tf.Tensor3D) => tf.Tensor3D;
  return f(s);
}
