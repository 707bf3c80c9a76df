/**
 * The gradient of a row gather (embedding lookup) for tfjs' webgpu backend (tfjs-backend-webgpu 4.22), in a fixed
 * summation order.
 *
 * model/ops.ts `gatherRows` takes rows of a table [R, C] at indices [n]; its gradient sums the upstream rows dy [n, C]
 * into the table's shape, adding the rows of repeated indices (tokens and positions repeat in every batch). tfjs'
 * `scatterND` on webgpu does those adds with an atomic compare-exchange loop, so their order — and the float32
 * rounding of the sums — depends on GPU thread scheduling: two identical runs, or a run and its resume from a
 * checkpoint, then differ in the last bits of the embedding tables after an update. Here each output element [r, c] is
 * one invocation that adds dy[k, c] for every k with indices[k] = r in increasing k, so the result is the same on
 * every call (test/core/backend/webgpu/rows-grad.test.ts: repeated calls bit-identical, within float32 rounding of
 * the cpu backend's scatterND).
 *
 * Cost: R·C invocations, each reading all n indices — n·R·C index reads (for the nano model's token table 529 ×
 * 48 and 4 096 batch rows, ~10^8 reads, a few ms on a GPU); the deterministic order is what the replay contract needs
 * (docs/architecture.md).
 */
import * as tf from '../../tf';
import { registerWebGpuKernel, runProgram, webGpuFits, type KernelArgs, type WebGpuProgram } from './program';

/** tfjs kernel name of the ordered row-gather gradient. */
export const ROWS_GRAD = 'OpdGatherRowsGrad';
/** Invocations per workgroup. */
const WG = 64;

/**
 * dy [n, C] float32, indices [n] int32 → [R, C] float32: out[r, c] = Σ_{k: indices[k] = r} dy[k, c], k ascending.
 */
class RowsGradProgram implements WebGpuProgram {
  variableNames = ['dy', 'indices'];
  shaderKey = 'opdGatherRowsGrad';
  outputShape: number[];
  dispatchLayout: { x: number[] };
  dispatch: [number, number, number];
  workgroupSize: [number, number, number] = [WG, 1, 1];
  constructor(rows: number, cols: number) {
    this.outputShape = [rows, cols];
    this.dispatchLayout = { x: [0, 1] };
    this.dispatch = [Math.ceil((rows * cols) / WG), 1, 1];
  }
  getUserCode(): string {
    return `
    fn main(index : i32) {
      let cols = uniforms.outShape[1];
      if (index >= uniforms.outShape[0] * cols) { return; }
      let r = index / cols;
      let c = index - r * cols;
      let n = uniforms.indicesShape;
      var s = 0.0;
      for (var k = 0; k < n; k++) {
        if (i32(getIndices(k)) == r) { s += getDy(k, c); }
      }
      setOutputAtIndex(index, s);
    }`;
  }
}

/** Register the kernel for the webgpu backend (idempotent; `rowsGradUsable` calls it). */
export function registerWebGpuRowsGrad(): void {
  registerWebGpuKernel(ROWS_GRAD, ({ inputs, backend, attrs }: KernelArgs) => {
    const { dy, indices } = inputs as Record<string, tf.TensorInfo>;
    const rows = Number(attrs?.rows);
    return runProgram(backend, new RowsGradProgram(rows, dy.shape[1]), [dy, indices]);
  });
}

/**
 * True when `rowsGrad` can run: the webgpu backend is active (the kernel is registered on first ask) and the R·C
 * invocations fit one dispatch dimension of 64-wide workgroups. False on every other backend.
 */
export function rowsGradUsable(rows: number, cols: number): boolean {
  if (!webGpuFits(Math.ceil((rows * cols) / WG))) return false;
  registerWebGpuRowsGrad();
  return true;
}

/**
 * The gradient of gathering rows of an [rows, C] table: dy [n, C] float32, indices [n] int32 (each in 0..rows−1) →
 * [rows, C] float32, rows hit several times summed in increasing order of their position in `indices`.
 * @throws Error when the kernel cannot run (check `rowsGradUsable`; model/ops.ts `gatherRows` falls back to scatterND).
 */
export function rowsGrad(dy: tf.Tensor2D, indices: tf.Tensor1D, rows: number): tf.Tensor2D {
  if (!rowsGradUsable(rows, dy.shape[1]))
    throw new Error(
      'rowsGrad: needs the webgpu backend and rows·C/64 workgroups within one dispatch dimension (check ' +
        'rowsGradUsable); use tf.scatterND instead',
    );
  if (indices.dtype !== 'int32') throw new Error(`rowsGrad: indices must be int32, got ${indices.dtype}`);
  return tf
    .engine()
    .runKernel(
      ROWS_GRAD,
      { dy, indices } as unknown as tf.NamedTensorMap,
      { rows } as unknown as tf.NamedAttrMap,
    ) as tf.Tensor2D;
}
