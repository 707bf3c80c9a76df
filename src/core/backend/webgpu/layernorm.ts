/**
 * Fused LayerNorm for tfjs' webgpu backend (tfjs-backend-webgpu 4.22), forward and backward, as one differentiable
 * op (`fusedLayerNorm`, a tf.customGrad) that model/ops.ts `layerNorm` uses whenever the webgpu backend is active.
 *
 * Forward, one dispatch instead of the nine of `moments` + normalise + scale + shift (Mean, SquaredDifference, Mean,
 * Sub, Add, Rsqrt, Mul, Mul, Add): y = (x − μ)·r·γ + β over the last axis with r = rsqrt(σ² + ε) (Ba et al.
 * 2016; ε = 1e-5, PyTorch's default), μ and σ² the row's mean and (biased) variance in two passes like tf.moments:
 * σ² = mean((x − μ)²). One workgroup of 64 invocations per row; each sums a strided slice of the row, then a tree
 * reduction in workgroup memory.
 *
 * Backward, four dispatches, the closed form of model/ops.ts `layerNorm` with x̂ = (x − μ)·r and g = dy·γ:
 * (1) the rows' μ and r again ([rows, 2], the forward's own code), (2) dx = r·(g − mean(g) − x̂·mean(g·x̂)),
 *     one workgroup per row, (3) dγ = Σ_rows dy·x̂ and (4) dβ = Σ_rows dy, one workgroup per column.
 *
 * The summation order differs from tfjs' kernels, so results agree with the composed ops to float32 rounding
 * (test/core/backend/webgpu/layernorm.test.ts bounds it against the cpu backend), not bit for bit. Every sum runs in
 * a fixed order, so the kernels themselves are deterministic.
 */
import * as tf from '../../tf';
import {
  asRows,
  BLOCK,
  registerWebGpuKernel,
  runProgram,
  treeSum,
  webGpuFits,
  withShape,
  type KernelArgs,
  type WebGpuProgram,
} from './program';

/** tfjs kernel name of the fused LayerNorm forward. */
export const FUSED_LAYER_NORM = 'OpdFusedLayerNorm';
/** Kernel names of the backward pieces: row statistics, dx, and the parameter gradients. */
const LN_STATS = 'OpdLayerNormStats',
  LN_DX = 'OpdLayerNormDx',
  LN_DPARAM = 'OpdLayerNormDParam';
/** ε of the fused LayerNorm (as model/ops.ts `layerNorm`). */
export const LAYER_NORM_EPS = 1e-5;

/** WGSL: the row's mean and rstd into the workgroup variables meanShared and rstdShared (every invocation calls it). */
const ROW_STATS = `
      var s = 0.0;
      for (var col = tid; col < cols; col += ${BLOCK}) { s += getX(row, col); }
      buf[tid] = s;
      workgroupBarrier();
      ${treeSum('buf')}
      if (tid == 0) { meanShared = buf[0] / f32(cols); }
      workgroupBarrier();
      var q = 0.0;
      for (var col = tid; col < cols; col += ${BLOCK}) { let c = getX(row, col) - meanShared; q += c * c; }
      buf[tid] = q;
      workgroupBarrier();
      ${treeSum('buf')}
      if (tid == 0) { rstdShared = inverseSqrt(buf[0] / f32(cols) + ${LAYER_NORM_EPS}); }
      workgroupBarrier();`;

const ROW_HEADER = `
    var<workgroup> buf : array<f32, ${BLOCK}>;
    var<workgroup> meanShared : f32;
    var<workgroup> rstdShared : f32;`;

/** A program with one workgroup of BLOCK invocations per row of a [rows, ·] output, or per element of a [n] output. */
abstract class RowProgram implements WebGpuProgram {
  abstract variableNames: string[];
  abstract shaderKey: string;
  outputShape: number[];
  dispatchLayout: { x: number[] };
  dispatch: [number, number, number];
  workgroupSize: [number, number, number] = [BLOCK, 1, 1];
  constructor(outputShape: number[], groups: number) {
    this.outputShape = outputShape;
    this.dispatchLayout = { x: outputShape.map((_, i) => i) };
    this.dispatch = [groups, 1, 1];
  }
  abstract getUserCode(): string;
}

/** Forward: x [rows, d], gamma [d], beta [d] → y [rows, d]. */
class LayerNormProgram extends RowProgram {
  variableNames = ['x', 'gamma', 'beta'];
  shaderKey = 'opdFusedLayerNorm';
  constructor(rows: number, d: number) {
    super([rows, d], rows);
  }
  getUserCode(): string {
    return `${ROW_HEADER}
    fn main(index : i32) {
      let row = index / ${BLOCK};
      let tid = i32(localId.x);
      let cols = uniforms.outShape[1];
      ${ROW_STATS}
      for (var col = tid; col < cols; col += ${BLOCK}) {
        setOutputAtCoords(row, col, (getX(row, col) - meanShared) * rstdShared * getGamma(col) + getBeta(col));
      }
    }`;
  }
}

/** Row statistics: x [rows, d] → [rows, 2] holding (μ, r) per row, as the forward computes them. */
class LayerNormStatsProgram extends RowProgram {
  variableNames = ['x'];
  shaderKey = 'opdLayerNormStats';
  constructor(rows: number) {
    super([rows, 2], rows);
  }
  getUserCode(): string {
    return `${ROW_HEADER}
    fn main(index : i32) {
      let row = index / ${BLOCK};
      let tid = i32(localId.x);
      let cols = uniforms.xShape[1];
      ${ROW_STATS}
      if (tid == 0) { setOutputAtCoords(row, 0, meanShared); setOutputAtCoords(row, 1, rstdShared); }
    }`;
  }
}

/**
 * dx: x [rows, d], gamma [d], dy [rows, d], stats [rows, 2] → dx = r·(g − mean(g) − x̂·mean(g·x̂)) [rows,
 * d].
 */
class LayerNormDxProgram extends RowProgram {
  variableNames = ['x', 'gamma', 'dy', 'stats'];
  shaderKey = 'opdLayerNormDx';
  constructor(rows: number, d: number) {
    super([rows, d], rows);
  }
  getUserCode(): string {
    return `
    var<workgroup> b1 : array<f32, ${BLOCK}>;
    var<workgroup> b2 : array<f32, ${BLOCK}>;
    fn main(index : i32) {
      let row = index / ${BLOCK};
      let tid = i32(localId.x);
      let cols = uniforms.outShape[1];
      let mu = getStats(row, 0);
      let r = getStats(row, 1);
      var s1 = 0.0;
      var s2 = 0.0;
      for (var col = tid; col < cols; col += ${BLOCK}) {
        let g = getDy(row, col) * getGamma(col);
        s1 += g;
        s2 += g * ((getX(row, col) - mu) * r);
      }
      b1[tid] = s1;
      b2[tid] = s2;
      workgroupBarrier();
      ${treeSum('b1', 'b2')}
      let m1 = b1[0] / f32(cols);
      let m2 = b2[0] / f32(cols);
      for (var col = tid; col < cols; col += ${BLOCK}) {
        let g = getDy(row, col) * getGamma(col);
        let xh = (getX(row, col) - mu) * r;
        setOutputAtCoords(row, col, r * (g - m1 - xh * m2));
      }
    }`;
  }
}

/** dγ (dy [rows, d], x, stats → Σ_rows dy·x̂ [d]) or dβ (dy → Σ_rows dy [d]); one workgroup per column. */
class LayerNormDParamProgram extends RowProgram {
  variableNames: string[];
  shaderKey: string;
  constructor(
    private readonly gamma: boolean,
    d: number,
  ) {
    super([d], d);
    this.variableNames = gamma ? ['dy', 'x', 'stats'] : ['dy'];
    this.shaderKey = gamma ? 'opdLayerNormDGamma' : 'opdLayerNormDBeta';
  }
  getUserCode(): string {
    const term = this.gamma
      ? 'getDy(row, col) * ((getX(row, col) - getStats(row, 0)) * getStats(row, 1))'
      : 'getDy(row, col)';
    return `
    var<workgroup> buf : array<f32, ${BLOCK}>;
    fn main(index : i32) {
      let col = index / ${BLOCK};
      let tid = i32(localId.x);
      let rows = uniforms.dyShape[0];
      var s = 0.0;
      for (var row = tid; row < rows; row += ${BLOCK}) { s += ${term}; }
      buf[tid] = s;
      workgroupBarrier();
      ${treeSum('buf')}
      if (tid == 0) { setOutputAtIndex(col, buf[0]); }
    }`;
  }
}

type In = Record<string, tf.TensorInfo>;
const rowsOf = (x: tf.TensorInfo) => asRows(x).shape[0];

/** Register the forward and backward kernels for the webgpu backend (idempotent; `fusedLayerNormUsable` calls it). */
export function registerWebGpuLayerNorm(): void {
  registerWebGpuKernel(FUSED_LAYER_NORM, ({ inputs, backend }: KernelArgs) => {
    const { x, gamma, beta } = inputs as In;
    const xr = asRows(x);
    return withShape(runProgram(backend, new LayerNormProgram(xr.shape[0], xr.shape[1]), [xr, gamma, beta]), x.shape);
  });
  registerWebGpuKernel(LN_STATS, ({ inputs, backend }: KernelArgs) => {
    const { x } = inputs as In;
    return runProgram(backend, new LayerNormStatsProgram(rowsOf(x)), [asRows(x)]);
  });
  registerWebGpuKernel(LN_DX, ({ inputs, backend }: KernelArgs) => {
    const { x, gamma, dy, stats } = inputs as In;
    const xr = asRows(x);
    return withShape(
      runProgram(backend, new LayerNormDxProgram(xr.shape[0], xr.shape[1]), [xr, gamma, asRows(dy), stats]),
      x.shape,
    );
  });
  registerWebGpuKernel(LN_DPARAM, ({ inputs, backend }: KernelArgs) => {
    const { dy, x, stats } = inputs as In;
    const dyr = asRows(dy),
      d = dyr.shape[1];
    return x
      ? runProgram(backend, new LayerNormDParamProgram(true, d), [dyr, asRows(x), stats])
      : runProgram(backend, new LayerNormDParamProgram(false, d), [dyr]);
  });
}

/**
 * True when `fusedLayerNorm` can run: the webgpu backend is active (the kernels are registered on first ask) and
 * `rows` (and the width) fit one dispatch dimension. False on every other backend.
 */
export function fusedLayerNormUsable(rows: number, d = 1): boolean {
  if (!webGpuFits(Math.max(rows, d))) return false;
  registerWebGpuLayerNorm();
  return true;
}

const run = (name: string, inputs: Record<string, tf.Tensor>) =>
  tf.engine().runKernel(name, inputs as unknown as tf.NamedTensorMap) as tf.Tensor;

// tfjs' CustomGradientFunc type is not exported from the package root; this is its shape.
type CGF = (...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
  value: tf.Tensor;
  gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => tf.Tensor | tf.Tensor[];
};

const op = tf.customGrad(((x: tf.Tensor, gamma: tf.Tensor, beta: tf.Tensor, save: tf.GradSaveFunc) => {
  save([x, gamma]);
  return {
    value: run(FUSED_LAYER_NORM, { x, gamma, beta }),
    gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
      const [sx, sg] = saved;
      const stats = run(LN_STATS, { x: sx });
      const grads = [
        run(LN_DX, { x: sx, gamma: sg, dy, stats }),
        run(LN_DPARAM, { dy, x: sx, stats }),
        run(LN_DPARAM, { dy }),
      ];
      stats.dispose();
      return grads;
    },
  };
}) as unknown as CGF) as unknown as (x: tf.Tensor, gamma: tf.Tensor, beta: tf.Tensor) => tf.Tensor;

/**
 * LayerNorm over the last axis with the fused kernels, differentiable: x [..., d] float32, gamma/beta [d] → [..., d]
 * float32. Gradients for x, gamma and beta (the closed form in the module docstring).
 * @throws Error when the kernels cannot run (not webgpu, more rows or columns than one dispatch dimension holds:
 *   check `fusedLayerNormUsable`; model/ops.ts `layerNorm` falls back to the composed ops itself).
 */
export function fusedLayerNorm(x: tf.Tensor, gamma: tf.Tensor, beta: tf.Tensor): tf.Tensor {
  const d = x.shape[x.shape.length - 1];
  if (!fusedLayerNormUsable(x.size / d, d))
    throw new Error(
      'fusedLayerNorm: needs the webgpu backend and at most maxComputeWorkgroupsPerDimension rows and ' +
        'columns (check fusedLayerNormUsable); use ops.ts layerNorm instead',
    );
  return op(x, gamma, beta);
}
