/**
 * Faster data-movement kernels for tfjs' wasm backend (tfjs 4.22), registered over the stock Transpose and GatherV2
 * by `registerWasmKernels` (wasm/kernels.ts). They move 32-bit words without arithmetic, so outputs are the same bits
 * as the stock kernels' (test/core/backend/wasm/copy-kernels.test.ts compares them word for word).
 *
 * - Transpose: the stock C++ kernel walks the output with a general N-d index; a [4096, 128] float32 transpose took
 *   ~5–8 ms there (measured in the `small` training step, where the weight gradients xᵀ·dy transpose activations
 *   25 times per step; 1.4 ms here). Here a 2-D (or batched 2-D) transpose copies 4×4 blocks with WebAssembly SIMD
 *   (wasm/transpose.ts) when both sides are multiples of 4, else 8×8 blocks in JavaScript. Permutations that
 *   move runs of several words (attention's head split [B, T, h, hs] → [B, h, T, hs]) keep the stock kernel, which
 *   copies them about as fast (0.2–0.5 ms against 0.3–0.8 ms for the same runs copied here).
 * - GatherV2 on axis 0 without batch dimensions (the token and position embeddings): copies whole rows, where the
 *   stock kernel indexes every element.
 *
 * Any other case (other dtypes, other permutations, out-of-range indices — whose error the stock kernel raises)
 * runs the stock kernel.
 */
import * as tf from '../../tf';
import { heapOf, type WasmBackend } from './heap';
import { simdSwapCopy } from './transpose';
import { wrapStockKernel } from '../register';

interface TransposeArgs {
  inputs: { x: tf.TensorInfo };
  backend: WasmBackend & { readSync(dataId: object): ArrayLike<number> };
  attrs: { perm: number[] };
}
interface GatherArgs {
  inputs: { x: tf.TensorInfo; indices: tf.TensorInfo };
  backend: WasmBackend & { readSync(dataId: object): ArrayLike<number> };
  attrs: { axis: number; batchDims: number };
}

/**
 * Side of the square blocks the 2-D transpose copies (words); 8 was the fastest of 8, 16, 32 and 64 at [4096,
 * 128..1024].
 */
const BLOCK = 8;

/**
 * A permutation reduced to the form [batch, R, C, W] → [batch, C, R, W]: `batch` leading axes kept in place, then
 * two groups of axes swapped (R rows of C columns), each element a run of W contiguous words. Null when `perm` is
 * not of that form once axes of size 1 are dropped and axes adjacent in both orders are merged.
 * @param shape the input's shape; perm: output axis i is input axis perm[i].
 */
export function swapForm(
  shape: readonly number[],
  perm: readonly number[],
): { batch: number; R: number; C: number; W: number } | null {
  // Drop size-1 axes, renumber the rest in input order.
  const kept = shape.map((d, i) => (d === 1 ? -1 : i)).filter((i) => i >= 0);
  const rank = new Map(kept.map((axis, j) => [axis, j]));
  const p = perm.filter((a) => shape[a] !== 1).map((a) => rank.get(a) as number);
  const dims = kept.map((a) => shape[a]);
  // Merge runs of consecutive input axes that stay consecutive in the output: groups of input axes, in output order.
  const groups: number[][] = [];
  for (const a of p) {
    const g = groups[groups.length - 1];
    if (g && g[g.length - 1] + 1 === a) g.push(a);
    else groups.push([a]);
  }
  const sizeOf = (g: number[]) => g.reduce((s, a) => s * dims[a], 1);
  const first = (g: number[]) => g[0];
  // groups in output order; their input order is by first axis.
  const inputOrder = [...groups].sort((x, y) => first(x) - first(y));
  const pos = groups.map((g) => inputOrder.indexOf(g)); // output slot j holds input group pos[j]
  const n = groups.length;
  if (n <= 1) return null; // no data moves: the stock kernel's identity path
  const id = (j: number) => pos[j] === j;
  // Forms: [R, C] → [C, R]; [b, R, C] → [b, C, R]; [R, C, W] → [C, R, W]; [b, R, C, W] → [b, C, R, W].
  const sz = (j: number) => sizeOf(inputOrder[j]);
  if (n === 2 && pos[0] === 1 && pos[1] === 0) return { batch: 1, R: sz(0), C: sz(1), W: 1 };
  if (n === 3 && id(0) && pos[1] === 2 && pos[2] === 1) return { batch: sz(0), R: sz(1), C: sz(2), W: 1 };
  if (n === 3 && pos[0] === 1 && pos[1] === 0 && id(2)) return { batch: 1, R: sz(0), C: sz(1), W: sz(2) };
  if (n === 4 && id(0) && pos[1] === 2 && pos[2] === 1 && id(3)) return { batch: sz(0), R: sz(1), C: sz(2), W: sz(3) };
  return null;
}

/**
 * dst[b, c, r] = src[b, r, c] over 32-bit words of `heap` (src and dst are word offsets; batch, R, C ≥ 1), copied in
 * BLOCK×BLOCK blocks so that reads and writes both stay within a few cache lines.
 */
export function swapCopy(heap: Int32Array, src: number, dst: number, f: { batch: number; R: number; C: number }): void {
  const { batch, R, C } = f;
  const plane = R * C;
  for (let b = 0; b < batch; b++) {
    const s = src + b * plane,
      d = dst + b * plane;
    for (let r0 = 0; r0 < R; r0 += BLOCK) {
      const r1 = Math.min(R, r0 + BLOCK);
      for (let c0 = 0; c0 < C; c0 += BLOCK) {
        const c1 = Math.min(C, c0 + BLOCK);
        for (let r = r0; r < r1; r++) {
          const sr = s + r * C;
          for (let c = c0; c < c1; c++) heap[d + c * R + r] = heap[sr + c];
        }
      }
    }
  }
}

let enabled = true;

/**
 * Switch the copy kernels off (false: the stock Transpose and GatherV2 run) or back on; for comparing the two in one
 * process. Returns the previous setting.
 */
export function setWasmCopyKernelsEnabled(on: boolean): boolean {
  const was = enabled;
  enabled = on;
  return was;
}

const words = (d: string) => d === 'float32' || d === 'int32';

/** Heap as 32-bit words (taken after every allocation: growing the heap replaces its buffer). */
function heapWords(backend: WasmBackend): Int32Array | null {
  const mem = heapOf(backend);
  return mem ? new Int32Array(mem.buffer) : null;
}

let simd = true;

/**
 * Switch the SIMD transpose (wasm/transpose.ts) off (false: `swapCopy` in JavaScript copies every transpose) or back
 * on, to compare the two. Returns the previous setting.
 */
export function setWasmSimdTransposeEnabled(on: boolean): boolean {
  const was = simd;
  simd = on;
  return was;
}

/**
 * The block-copy Transpose (forms of `swapForm` with W = 1): 4×4 SIMD blocks (wasm/transpose.ts) when R and C are
 * multiples of 4, else `swapCopy`; null when the stock kernel should run.
 */
export function fastTranspose(args: TransposeArgs): tf.TensorInfo | null {
  const { x } = args.inputs,
    perm = args.attrs.perm;
  if (!enabled || !words(x.dtype) || x.shape.some((d) => d === 0)) return null;
  const form = swapForm(x.shape, perm);
  if (!form || form.W !== 1) return null;
  const be = args.backend;
  const out = be.makeOutput(
    perm.map((a) => x.shape[a]),
    x.dtype as 'float32',
  );
  const mem = heapOf(be);
  if (!mem) throw new Error("wasm Transpose: the wasm backend's heap is not reachable");
  const src = be.dataIdMap.get(x.dataId).memoryOffset,
    dst = be.dataIdMap.get(out.dataId).memoryOffset;
  if (!(simd && simdSwapCopy(mem, src, dst, form))) swapCopy(new Int32Array(mem.buffer), src >>> 2, dst >>> 2, form);
  return out;
}

/**
 * The row-copy GatherV2 (axis 0, no batch dimensions, int32 indices in range), or null when the stock kernel should
 * run.
 */
export function fastGather(args: GatherArgs): tf.TensorInfo | null {
  const { x, indices } = args.inputs;
  const axis = args.attrs.axis < 0 ? args.attrs.axis + x.shape.length : args.attrs.axis;
  if (
    !enabled ||
    axis !== 0 ||
    args.attrs.batchDims !== 0 ||
    !words(x.dtype) ||
    indices.dtype !== 'int32' ||
    x.shape.length < 1
  )
    return null;
  const rows = x.shape[0],
    row = x.shape.slice(1).reduce((a, b) => a * b, 1);
  if (row === 0 || rows === 0) return null;
  const be = args.backend;
  const idx = be.readSync(indices.dataId);
  // the stock kernel names the bad index
  for (let i = 0; i < idx.length; i++) if (!(idx[i] >= 0 && idx[i] < rows)) return null;
  const out = be.makeOutput([...indices.shape, ...x.shape.slice(1)], x.dtype as 'float32');
  if (idx.length === 0) return out;
  const heap = heapWords(be);
  if (!heap) throw new Error("wasm GatherV2: the wasm backend's heap is not reachable");
  const src = be.dataIdMap.get(x.dataId).memoryOffset >>> 2,
    dst = be.dataIdMap.get(out.dataId).memoryOffset >>> 2;
  for (let i = 0; i < idx.length; i++) heap.copyWithin(dst + i * row, src + idx[i] * row, src + (idx[i] + 1) * row);
  return out;
}

/**
 * Register the copy kernels over the stock Transpose and GatherV2 of the wasm backend (once; each falls back to the
 * stock kernel where it does not apply). Called by `registerWasmKernels` before `tf.setBackend('wasm')`.
 */
export function registerWasmCopyKernels(): void {
  wrapStockKernel('Transpose', 'wasm', fastTranspose);
  wrapStockKernel('GatherV2', 'wasm', fastGather);
}
