/**
 * Faster kernels for tfjs' wasm backend (tfjs 4.22), registered over the stock ones: BatchMatMul's batched and
 * transposed cases run the SIMD kernel of `wasm/batch-matmul.ts` (same bits as the stock loop, ~5–10× faster at the
 * attention shapes; docs/experiments/speed.md); Transpose and GatherV2 run the word copies of
 * `wasm/copy-kernels.ts`; GELU's element-wise chains (model/ops.ts) the kernels of `wasm/gelu.ts`; Identity and
 * same-dtype Cast share their input's data (`wasm/alias-kernels.ts`); bias gradients' column sums run
 * `wasm/colsum.ts`, LayerNorm's chains `wasm/layernorm.ts`, the attention softmax's `wasm/softmax.ts`; Tanh and Exp
 * run `wasm/tanh.ts` and `wasm/exp.ts`; optim/adam.ts's Adam update `wasm/adam.ts`. Call `registerWasmKernels()` before
 * `tf.setBackend('wasm')`: the kernel is set up with the backend (its memory), in tfjs' `setupFunc`.
 */
import * as tf from '../../tf';
import { DEFAULT_TILE, instantiateMatMul, type MatMulModule, type TileShape } from './batch-matmul';
import { registerWasmAdamKernel } from './adam';
import { registerWasmAliasKernels } from './alias-kernels';
import { registerWasmBroadcastRowsKernel } from './broadcast';
import { registerWasmColSumKernel } from './colsum';
import { registerWasmCopyKernels } from './copy-kernels';
import { registerWasmExpKernel } from './exp';
import { registerWasmGeluKernels } from './gelu';
import { registerWasmLayerNormKernels } from './layernorm';
import { registerWasmGemmKernel } from './gemm';
import { registerWasmSoftmaxKernels } from './softmax';
import { registerWasmTanhKernel } from './tanh';
import { heapOf, type WasmBackend } from './heap';

export { heapOf, type WasmBackend } from './heap';

interface MatMulArgs {
  inputs: { a: tf.TensorInfo; b: tf.TensorInfo };
  backend: WasmBackend;
  attrs: { transposeA: boolean; transposeB: boolean };
}

/** The SIMD kernel of each started backend (null: not usable there, the stock kernel runs). */
const modules = new WeakMap<object, MatMulModule | null>();
let registered = false;
let enabled = true;

const size = (s: number[]) => s.reduce((p, c) => p * c, 1);

/**
 * The SIMD BatchMatMul, or null when the stock kernel should run: dtypes other than float32, the plain 2-D case
 * (XNNPACK), an empty dimension, or batch shapes other than equal or one of them 1.
 */
function simdBatchMatMul(args: MatMulArgs, mod: MatMulModule): tf.TensorInfo | null {
  const { a, b } = args.inputs;
  const { transposeA, transposeB } = args.attrs;
  if (a.dtype !== 'float32' || b.dtype !== 'float32' || a.shape.length < 2 || b.shape.length < 2) return null;
  const ra = a.shape.length,
    rb = b.shape.length;
  const K = transposeA ? a.shape[ra - 2] : a.shape[ra - 1];
  const M = transposeA ? a.shape[ra - 1] : a.shape[ra - 2];
  const N = transposeB ? b.shape[rb - 2] : b.shape[rb - 1];
  const Kb = transposeB ? b.shape[rb - 1] : b.shape[rb - 2];
  const outerA = a.shape.slice(0, -2),
    outerB = b.shape.slice(0, -2);
  const batchA = size(outerA),
    batchB = size(outerB);
  if (K !== Kb || K === 0 || M === 0 || N === 0) return null;
  if (!transposeA && !transposeB && batchA === 1 && batchB === 1) return null;
  let outer: number[];
  if (batchA === batchB && outerA.length === outerB.length && outerA.every((d, i) => d === outerB[i])) outer = outerA;
  else if (batchB === 1 && outerB.every((d) => d === 1) && outerA.length >= outerB.length) outer = outerA;
  else if (batchA === 1 && outerA.every((d) => d === 1) && outerB.length >= outerA.length) outer = outerB;
  else return null;
  const batch = Math.max(batchA, batchB);
  const be = args.backend;
  const out = be.makeOutput([...outer, M, N], 'float32');
  const pa = be.dataIdMap.get(a.dataId).memoryOffset,
    pOut = be.dataIdMap.get(out.dataId).memoryOffset;
  let pb = be.dataIdMap.get(b.dataId).memoryOffset,
    scratch = 0;
  if (transposeB) {
    scratch = be.wasm._malloc(batchB * K * N * 4);
    mod.tr(pb, scratch, batchB, N, K);
    pb = scratch;
  }
  const aBatch = batchA === 1 ? 0 : M * K * 4,
    bBatch = batchB === 1 ? 0 : K * N * 4;
  mod.mm(pa, pb, pOut, batch, M, N, K, aBatch, transposeA ? 4 : K * 4, transposeA ? M * 4 : 4, bBatch);
  if (scratch) be.wasm._free(scratch);
  return out;
}

/**
 * Register the wasm kernels once (idempotent), over the stock ones; each falls back to the stock kernel where it
 * does not apply. Must run before `tf.setBackend('wasm')` (tfjs runs kernel set-up when a backend is activated).
 */
export function registerWasmKernels(): void {
  if (registered) return;
  const stock = tf.getKernel('BatchMatMul', 'wasm');
  if (!stock) return; // the wasm backend is not loaded in this bundle
  registered = true;
  const stockFunc = stock.kernelFunc as (args: unknown) => tf.TensorInfo;
  const warn = console.warn;
  console.warn = () => {}; // tfjs warns that a registered kernel is being overwritten: that is the point here
  try {
    tf.registerKernel({
      kernelName: 'BatchMatMul',
      backendName: 'wasm',
      setupFunc: (backend: object) => {
        stock.setupFunc?.(backend as tf.KernelBackend);
        if (modules.has(backend)) return;
        const heap = heapOf(backend as WasmBackend);
        let mod: MatMulModule | null;
        try {
          mod = heap ? instantiateMatMul(heap) : null;
        } catch {
          mod = null; // an engine without WebAssembly SIMD or shared memory: the stock kernel runs
        }
        modules.set(backend, mod);
      },
      kernelFunc: ((args: MatMulArgs) => {
        const mod = enabled ? modules.get(args.backend) : null;
        return (mod && simdBatchMatMul(args, mod)) ?? stockFunc(args);
      }) as unknown as tf.KernelFunc,
    });
  } finally {
    console.warn = warn;
  }
  registerWasmCopyKernels(); // Transpose and GatherV2 as word copies (wasm/copy-kernels.ts)
  registerWasmGeluKernels(); // GELU's element-wise chains for model/ops.ts gelu (wasm/gelu.ts)
  registerWasmAliasKernels(); // Identity and same-dtype Cast as references, not copies (wasm/alias-kernels.ts)
  registerWasmColSumKernel(); // column sums for model/ops.ts colSum (wasm/colsum.ts)
  registerWasmBroadcastRowsKernel(); // Sum's gradient over trailing axes for model/sum-grad.ts (wasm/broadcast.ts)
  registerWasmLayerNormKernels(); // LayerNorm's forward and backward for model/ops.ts layerNorm (wasm/layernorm.ts)
  registerWasmSoftmaxKernels(); // the attention softmax's element-wise chains (wasm/softmax.ts)
  registerWasmTanhKernel(); // Tanh as SIMD lanes of the C library's tanhf (wasm/tanh.ts)
  registerWasmExpKernel(); // Exp as the C library's expf in JavaScript (wasm/exp.ts)
  // 2-D products and weight gradients aᵀ·b in XNNPACK's order, no transposes or repacking (wasm/gemm.ts)
  registerWasmGemmKernel();
  registerWasmAdamKernel(); // one Adam update per parameter tensor for optim/adam.ts applyAdam (wasm/adam.ts)
}

/**
 * Whether the SIMD BatchMatMul runs on the active wasm backend (false before `registerWasmKernels`, on another
 * backend, or where the engine lacks WebAssembly SIMD).
 */
export function wasmMatMulActive(): boolean {
  return enabled && tf.getBackend() === 'wasm' && !!modules.get(tf.backend());
}

/**
 * The SIMD module instantiated over `backend`'s heap, whatever `setWasmMatMulEnabled` says (wasm/decode.ts calls
 * its products directly); null before `registerWasmKernels`, off wasm, or where the engine lacks WebAssembly SIMD.
 */
export function simdModuleOf(backend: object): MatMulModule | null {
  return modules.get(backend) ?? null;
}

/**
 * Switch the SIMD BatchMatMul off (false: the stock kernel runs everywhere) or back on; for comparing the two in
 * one process (tests and scripts/wasm-matmul-bench.ts). Returns the previous setting.
 */
export function setWasmMatMulEnabled(on: boolean): boolean {
  const was = enabled;
  enabled = on;
  return was;
}

/**
 * Rebuild the active wasm backend's SIMD BatchMatMul with another output tile (scripts/wasm-matmul-bench.ts compares
 * tiles; results are the same bits whatever the tile). @throws Error when the kernel is not active.
 */
export function setWasmMatMulTile(tile: TileShape = DEFAULT_TILE): void {
  const backend = tf.backend() as unknown as WasmBackend;
  const heap = tf.getBackend() === 'wasm' ? heapOf(backend) : null;
  if (!heap || !modules.get(backend))
    throw new Error(
      "setWasmMatMulTile: the SIMD BatchMatMul is not active (call registerWasmKernels() before tf.setBackend('wasm'))",
    );
  modules.set(backend, instantiateMatMul(heap, tile));
}
