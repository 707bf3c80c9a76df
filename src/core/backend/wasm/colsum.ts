/**
 * Column sums of a float32 matrix on tfjs' wasm backend (tfjs 4.22): x [M, N] → [N], for the bias and LayerNorm
 * gradients of model/ops.ts (`colSum`), which computed them as the 2-D product ones[1, M]·x in XNNPACK — 38 products
 * per `small` training step, ≈ 80 ms of CPU time (docs/experiments/speed.md), most of it XNNPACK packing x as the
 * product's weights each time.
 *
 * Same bits as that product: XNNPACK's f32 GEMM starts each output from the packed bias (+0 when there is none) and
 * adds a·b for k = 0, 1, …, M − 1 in order, one float32 rounding per addition (WebAssembly has no fused
 * multiply-add, and 1·b = b exactly); here out[n] = (…((+0 + x[0, n]) + x[1, n]) + …) + x[M − 1, n], four
 * columns per f32x4 lane group in a module generated at start-up (`wasm/emit.ts`), or in JavaScript with `Math.fround`
 * when N is not a multiple of 4 or the engine lacks WebAssembly SIMD. test/core/backend/wasm/colsum.test.ts compares
 * the two word for word.
 */
import * as tf from '../../tf';
import { FuncBuilder, I32, Op, V128, moduleOver } from './emit';
import { heapOf, type WasmBackend } from './heap';
import { registerKernels } from '../register';

/** Kernel name registered for the wasm backend. */
export const COLSUM_KERNEL = 'OpdColSum';

/** f32x4 opcodes after the 0xfd prefix: load, store, splat, add. */
const V = { load: 0x00, store: 0x0b, splat: 0x13, add: 0xe4 } as const;

/**
 * colsum(src, out, rows, n4): out[0..4·n4) = column sums of `rows` contiguous rows of 4·n4 floats (byte addresses).
 */
function colSumFunc(): FuncBuilder {
  const f = new FuncBuilder([I32, I32, I32, I32]);
  const src = 0,
    out = 1,
    rows = 2,
    n4 = 3;
  const r = f.local(I32),
    j = f.local(I32),
    o = f.local(I32),
    zero = f.local(V128);
  f.op(Op.f32Const, 0, 0, 0, 0).simd(V.splat).set(zero);
  // out ← +0
  f.get(out).set(o);
  f.op(Op.block, 0x40, Op.loop, 0x40);
  f.get(j).get(n4).op(Op.i32GeU, Op.brIf, 1);
  f.get(o).get(zero).simd(V.store, 0);
  f.get(o).i32(16).op(Op.i32Add).set(o);
  f.get(j).i32(1).op(Op.i32Add).set(j);
  f.op(Op.br, 0, Op.end, Op.end);
  // out += row, row by row (src advances through the rows, which are contiguous)
  f.op(Op.block, 0x40, Op.loop, 0x40);
  f.get(r).get(rows).op(Op.i32GeU, Op.brIf, 1);
  f.i32(0).set(j);
  f.get(out).set(o);
  f.op(Op.block, 0x40, Op.loop, 0x40);
  f.get(j).get(n4).op(Op.i32GeU, Op.brIf, 1);
  f.get(o).get(o).simd(V.load, 0).get(src).simd(V.load, 0).simd(V.add).simd(V.store, 0);
  f.get(o).i32(16).op(Op.i32Add).set(o);
  f.get(src).i32(16).op(Op.i32Add).set(src);
  f.get(j).i32(1).op(Op.i32Add).set(j);
  f.op(Op.br, 0, Op.end, Op.end);
  f.get(r).i32(1).op(Op.i32Add).set(r);
  f.op(Op.br, 0, Op.end, Op.end);
  return f;
}

type ColSumModule = { colsum(src: number, out: number, rows: number, n4: number): void };
/** The module over `mem` (built once per heap), or null where the engine lacks WebAssembly SIMD. */
const moduleFor = moduleOver<ColSumModule>(() => [colSumFunc()], { colsum: 0 });

/** x [M, N] float32 → [N]: each column summed from +0 down the rows, in row order (float32 rounding per addition). */
function colSumKernel({
  inputs: { x },
  backend,
}: {
  inputs: { x: tf.TensorInfo };
  backend: WasmBackend;
}): tf.TensorInfo {
  if (x.shape.length !== 2 || x.dtype !== 'float32')
    throw new Error(`${COLSUM_KERNEL}: x must be a float32 matrix [M, N], got ${x.dtype} [${x.shape}]`);
  const [M, N] = x.shape;
  const out = backend.makeOutput([N], 'float32');
  const mem = heapOf(backend);
  if (!mem) throw new Error(`${COLSUM_KERNEL}: the wasm backend's heap is not reachable`);
  const px = backend.dataIdMap.get(x.dataId).memoryOffset,
    po = backend.dataIdMap.get(out.dataId).memoryOffset;
  const mod = N % 4 === 0 ? moduleFor(mem) : null;
  if (mod) {
    mod.colsum(px, po, M, N / 4);
    return out;
  }
  const H = new Float32Array(mem.buffer),
    x0 = px >>> 2,
    o0 = po >>> 2;
  for (let n = 0; n < N; n++) H[o0 + n] = 0;
  for (let m = 0; m < M; m++) for (let n = 0; n < N; n++) H[o0 + n] = Math.fround(H[o0 + n] + H[x0 + m * N + n]);
  return out;
}

let registered = false;
let enabled = true;

/** Register the column-sum kernel for the wasm backend (idempotent; no set-up, so any time). */
export function registerWasmColSumKernel(): void {
  if (registered) return;
  registered = true;
  registerKernels('wasm', {
    [COLSUM_KERNEL]: colSumKernel,
  });
}

/** Whether model/ops.ts `colSum` runs this kernel: registered, switched on, the wasm backend active. */
export function wasmColSumUsable(): boolean {
  return registered && enabled && tf.getBackend() === 'wasm';
}

/** Switch the kernel off (false: ones[1, M]·x runs) or back on, to compare the two. Returns the previous setting. */
export function setWasmColSumEnabled(on: boolean): boolean {
  const was = enabled;
  enabled = on;
  return was;
}

/** Column sums x [M, N] float32 → [N] with the kernel (not differentiable; model/ops.ts uses it inside gradients). */
export function wasmColSum(x: tf.Tensor2D): tf.Tensor1D {
  return tf.engine().runKernel(COLSUM_KERNEL, { x } as unknown as tf.NamedTensorMap, {}) as tf.Tensor1D;
}
