/**
 * A fused LayerNorm forward kernel for tfjs' webgpu backend (tfjs-backend-webgpu 4.22): one compute dispatch instead
 * of the nine of `moments` + normalise + scale + shift (Mean, SquaredDifference, Mean, Sub, Add, Rsqrt, Mul, Mul, Add).
 *
 * y = (x − μ)·rsqrt(σ² + ε)·γ + β over the last axis (Ba et al. 2016; ε = 1e-5, PyTorch's default), with μ and σ²
 * the row's mean and (biased) variance, computed in two passes like tf.moments: σ² = mean((x − μ)²). One workgroup of
 * 64 invocations per row; each sums a strided slice of the row, then a tree reduction in workgroup memory. The
 * summation order differs from tfjs' Mean kernel, so results agree with the composed ops to float32 rounding (the
 * test bounds it at 1e-5 absolute on unit-scale rows), not bit for bit.
 *
 * Forward only: the kernel has no gradient, so use it where nothing is differentiated (sampling, scoring without a
 * tape). `fusedLayerNorm` throws inside a gradient tape rather than silently breaking backpropagation.
 */
import * as tf from '../tf';

/** tfjs kernel name of the fused LayerNorm forward. */
export const FUSED_LAYER_NORM = 'OpdFusedLayerNorm';
/** ε of the fused LayerNorm (as ops.ts `layerNorm`). */
export const LAYER_NORM_EPS = 1e-5;

const BLOCK = 64;

/** The WGSL program: outputShape [rows, d]; inputs x [rows, d], gamma [d], beta [d] (float32). */
class LayerNormProgram {
  variableNames = ['x', 'gamma', 'beta'];
  outputShape: number[];
  dispatchLayout: { x: number[] };
  dispatch: [number, number, number];
  workgroupSize: [number, number, number] = [BLOCK, 1, 1];
  shaderKey = 'opdFusedLayerNorm';

  constructor(rows: number, d: number) {
    this.outputShape = [rows, d];
    this.dispatchLayout = { x: [0, 1] };
    this.dispatch = [rows, 1, 1];
  }

  getUserCode(): string {
    const reduce = `
      for (var half = ${BLOCK / 2}; half > 0; half = half >> 1) {
        if (tid < half) { buf[tid] = buf[tid] + buf[tid + half]; }
        workgroupBarrier();
      }`;
    return `
    var<workgroup> buf : array<f32, ${BLOCK}>;
    var<workgroup> meanShared : f32;
    var<workgroup> rstdShared : f32;
    fn main(index : i32) {
      let row = index / ${BLOCK};
      let tid = i32(localId.x);
      let cols = uniforms.outShape[1];
      var s = 0.0;
      for (var col = tid; col < cols; col += ${BLOCK}) { s += getX(row, col); }
      buf[tid] = s;
      workgroupBarrier();
      ${reduce}
      if (tid == 0) { meanShared = buf[0] / f32(cols); }
      workgroupBarrier();
      var q = 0.0;
      for (var col = tid; col < cols; col += ${BLOCK}) { let c = getX(row, col) - meanShared; q += c * c; }
      buf[tid] = q;
      workgroupBarrier();
      ${reduce}
      if (tid == 0) { rstdShared = inverseSqrt(buf[0] / f32(cols) + ${LAYER_NORM_EPS}); }
      workgroupBarrier();
      for (var col = tid; col < cols; col += ${BLOCK}) {
        setOutputAtCoords(row, col, (getX(row, col) - meanShared) * rstdShared * getGamma(col) + getBeta(col));
      }
    }`;
  }
}

interface WebGpuRunner {
  runWebGPUProgram(program: LayerNormProgram, inputs: tf.TensorInfo[], dtype: 'float32'): tf.TensorInfo;
  device: { limits: { maxComputeWorkgroupsPerDimension: number } };
}

function kernelFunc({ inputs, backend }: { inputs: tf.NamedTensorInfoMap; backend: unknown }): tf.TensorInfo {
  const { x, gamma, beta } = inputs as { x: tf.TensorInfo; gamma: tf.TensorInfo; beta: tf.TensorInfo };
  const d = x.shape[x.shape.length - 1];
  const rows = x.shape.reduce((a, b) => a * b, 1) / d;
  const out = (backend as WebGpuRunner).runWebGPUProgram(new LayerNormProgram(rows, d), [{ ...x, shape: [rows, d] }, gamma, beta], 'float32');
  return { dataId: out.dataId, shape: x.shape, dtype: 'float32' };
}

/** Register the kernel for the webgpu backend (idempotent; `fusedLayerNormUsable` calls it). */
export function registerWebGpuLayerNorm(): void {
  if (tf.getKernel(FUSED_LAYER_NORM, 'webgpu')) return;
  tf.registerKernel({ kernelName: FUSED_LAYER_NORM, backendName: 'webgpu', kernelFunc: kernelFunc as unknown as tf.KernelFunc });
}

/**
 * True when `fusedLayerNorm` can run: the webgpu backend is active (the kernel is registered on first ask) and `rows`
 * fit one dispatch dimension. False on every other backend.
 */
export function fusedLayerNormUsable(rows: number): boolean {
  if (tf.getBackend() !== 'webgpu') return false;
  registerWebGpuLayerNorm();
  return rows <= (tf.backend() as unknown as WebGpuRunner).device.limits.maxComputeWorkgroupsPerDimension;
}

/**
 * LayerNorm forward over the last axis with the fused kernel: x [..., d] float32, gamma/beta [d] → [..., d].
 * @throws Error when the kernel cannot run (not webgpu, too many rows: check `fusedLayerNormUsable`)
 *   or inside a gradient tape (the kernel has no gradient).
 */
export function fusedLayerNorm(x: tf.Tensor, gamma: tf.Tensor, beta: tf.Tensor): tf.Tensor {
  const d = x.shape[x.shape.length - 1];
  if (!fusedLayerNormUsable(x.size / d)) throw new Error('fusedLayerNorm: needs the webgpu backend and at most maxComputeWorkgroupsPerDimension rows (check fusedLayerNormUsable); use ops.ts layerNorm instead');
  if ((tf.engine() as unknown as { isTapeOn(): boolean }).isTapeOn()) throw new Error('fusedLayerNorm: called inside a gradient tape, but the fused kernel has no gradient; use ops.ts layerNorm where gradients flow');
  return tf.engine().runKernel(FUSED_LAYER_NORM, { x, gamma, beta } as unknown as tf.NamedTensorMap) as tf.Tensor;
}
