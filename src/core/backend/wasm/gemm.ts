/**
 * 2-D float32 products on tfjs' wasm backend (tfjs 4.22) in XNNPACK's order of operations, for model/ops.ts:
 * `tn`: aᵀ·b without materialising aᵀ (a [R, P], b [R, N] → [P, N]; the weight gradients xᵀ·dy, R rows of a
 * batch);
 * `nn`: a·b (a [M, K], b [K, N] → [M, N]; the linear layers' forward products and input gradients dy·Wᵀ).
 * Before, each weight gradient transposed one operand in memory ([4096, 512] words for the MLP's), and XNNPACK (tfjs'
 * matMul) repacked its right operand on every call with a new tensor — for a weight gradient as long as the product
 * itself (docs/experiments/speed.md).
 *
 * Same bits as XNNPACK's f32 GEMM: it starts each output from the packed bias (+0 when there is none) and adds
 * a·b along the shared dimension k = 0, 1, …, K − 1 in order, one float32 rounding for the product and one for the
 * sum (WebAssembly has no fused multiply-add). Here out[i, j] = (…((+0 + a(i, 0)·b[0, j]) + a(i, 1)·b[1, j]) +
 * …), the same operations in the same order (a·b = b·a exactly, so the (bᵀ·a)ᵀ that model/ops.ts `tMatmul`
 * used to compute is the same too). SIMD runs across four output columns, never along k. The shared dimension is walked
 * in chunks of `R_CHUNK` steps so a chunk of a and b stays in cache while every output tile takes its share; a tile's
 * running sums are stored after one chunk and loaded before the next, which leaves every sum as one pass makes it (a
 * float32 is stored and loaded exactly). The one difference: a NaN sum, which XNNPACK's output clamp to [−∞, +∞]
 * may turn into an infinity — a NaN in a product is lost either way. test/core/backend/wasm/gemm.test.ts compares the
 * words with tfjs' matMul (and transpose-then-matMul) on ragged shapes; test/cli/golden.test.ts's recorded step events
 * are unchanged with it.
 *
 * Generated at start-up (`wasm/emit.ts`) over the backend's heap; where the engine lacks WebAssembly SIMD, the heap is
 * unreachable or the backend has a thread pool (XNNPACK then splits each product over the threads), `wasmGemmUsable`
 * is false and tfjs' matMul runs as before — the same bits either way.
 */
import * as tf from '../../tf';
import { FuncBuilder, I32, F32, Op, SimdOp, V128, emitBump, moduleOver } from './emit';
import { heapOf, threadsOf, type WasmBackend } from './heap';
import { emitTileWalk, tileKinds, type TileShape } from './tiles';
import { registerKernels } from '../register';

/** Kernel name registered for the wasm backend. */
export const GEMM_KERNEL = 'OpdGemm';

/**
 * Steps of the shared dimension per chunk (64: 128-column b chunks of 32 KB stay in the L1 cache; 32–256 measured,
 * docs/experiments/speed.md).
 */
export const R_CHUNK = 64;

/** Output tile: `rows` output rows × `vecs` f32x4 vectors of output columns. */
export type GemmTile = TileShape;
/** The shipped tile, 6 × 8 outputs: 12 v128 sums, two b vectors and one broadcast a fit x64's 16 vector registers. */
export const GEMM_TILE: GemmTile = { rows: 6, vecs: 2 };

/** How a tile reads a: `tn` (a [R, P] read as aᵀ: a tile's rows are adjacent words of one row of a), `nn` (a [P, R]:
 * a
 * tile's rows are rows of a, each read along its length). */
type Mode = 'tn' | 'nn';

/**
 * Tile function (pa, aI, aK, pb, bRow, pout, outRow, count, first): for `count` steps k of the shared dimension,
 * sums[i][j] += a(i, k)·b[k, j] over the tile's `rows` × (vec ? 4·vecs : 1) outputs, where a(i, k) is at
 * pa + 4·i + k·aK (`tn`) or pa + i·aI + 4·k (`nn`) and b[k, ·] at pb + k·bRow (byte addresses and strides). The
 * sums start from +0 when `first` is 1, else from the values in out (row stride outRow bytes); they are stored to out.
 */
function tileFunc(rows: number, vecs: number, vec: boolean, mode: Mode): FuncBuilder {
  const f = new FuncBuilder([I32, I32, I32, I32, I32, I32, I32, I32, I32]);
  const [pa, aI, aK, pb, bRow, pout, outRow, count, first] = [0, 1, 2, 3, 4, 5, 6, 7, 8];
  const r = f.local(I32);
  const T = vec ? V128 : F32;
  const s = Array.from({ length: rows }, () => Array.from({ length: vecs }, () => f.local(T)));
  const bv = Array.from({ length: vecs }, () => f.local(T));
  const av = f.local(T);
  const pr = mode === 'nn' ? Array.from({ length: rows }, () => f.local(I32)) : [];
  const add = () => (vec ? f.simd(SimdOp.f32x4Add) : f.op(Op.f32Add));
  const mul = () => (vec ? f.simd(SimdOp.f32x4Mul) : f.op(Op.f32Mul));
  const load = (off: number) => (vec ? f.simd(SimdOp.v128Load, off) : f.mem(Op.f32Load, off));
  const store = (off: number) => (vec ? f.simd(SimdOp.v128Store, off) : f.mem(Op.f32Store, off));
  const width = vec ? 16 : 4;
  const outAddr = (i: number) => {
    f.get(pout);
    if (i > 0) f.get(outRow).i32(i).op(Op.i32Mul, Op.i32Add);
  };
  // sums ← +0 on the first chunk, else the stored running sums
  f.get(first).op(Op.if, 0x40);
  for (const row of s)
    for (const x of row) {
      f.op(Op.f32Const, 0, 0, 0, 0);
      if (vec) f.simd(SimdOp.f32x4Splat);
      f.set(x);
    }
  f.op(Op.else);
  for (let i = 0; i < rows; i++)
    for (let c = 0; c < vecs; c++) {
      outAddr(i);
      load(width * c);
      f.set(s[i][c]);
    }
  f.op(Op.end);
  if (mode === 'nn') {
    f.get(pa).set(pr[0]);
    for (let i = 1; i < rows; i++)
      f.get(pr[i - 1])
        .get(aI)
        .op(Op.i32Add)
        .set(pr[i]);
  }
  f.op(Op.block, 0x40, Op.loop, 0x40);
  f.get(r).get(count).op(Op.i32GeU, Op.brIf, 1);
  for (let c = 0; c < vecs; c++) {
    f.get(pb);
    load(width * c);
    f.set(bv[c]);
  }
  for (let i = 0; i < rows; i++) {
    f.get(mode === 'nn' ? pr[i] : pa);
    const off = mode === 'nn' ? 0 : 4 * i;
    if (vec) f.simd(SimdOp.load32Splat, off);
    else f.mem(Op.f32Load, off);
    f.set(av);
    // sum += a·b: the product rounds to float32, then the sum does (as XNNPACK's multiply-then-add).
    for (let c = 0; c < vecs; c++) {
      f.get(s[i][c]).get(av).get(bv[c]);
      mul();
      add();
      f.set(s[i][c]);
    }
  }
  if (mode === 'nn') for (let i = 0; i < rows; i++) emitBump(f, pr[i], 4);
  else f.addTo(pa, aK);
  f.addTo(pb, bRow);
  f.get(r).i32(1).op(Op.i32Add).set(r);
  f.op(Op.br, 0, Op.end, Op.end);
  for (let i = 0; i < rows; i++)
    for (let c = 0; c < vecs; c++) {
      outAddr(i);
      f.get(s[i][c]);
      store(width * c);
    }
  return f;
}

/**
 * The driver of one mode, (a, b, out, R, P, N): out [P, N] = Σ over the R steps of the shared dimension, for
 * `tn` a [R, P] (out = aᵀ·b) and for `nn` a [P, R] (out = a·b), b [R, N] (byte addresses). Chunks of R_CHUNK steps
 * outer, then tiles of output rows, then tiles of output columns; `first` tells each tile whether to start from +0.
 */
function driverFunc(
  tile: GemmTile,
  mode: Mode,
  index: (rows: number, vecs: number, vec: boolean) => number,
): FuncBuilder {
  const f = new FuncBuilder([I32, I32, I32, I32, I32, I32]);
  const [a, b, out, R, P, N] = [0, 1, 2, 3, 4, 5];
  const r0 = f.local(I32),
    count = f.local(I32),
    first = f.local(I32),
    i = f.local(I32),
    j = f.local(I32);
  const aI = f.local(I32),
    aK = f.local(I32),
    bRow = f.local(I32),
    paC = f.local(I32),
    pbC = f.local(I32),
    paI = f.local(I32),
    poI = f.local(I32);
  const pbJ = f.local(I32),
    poJ = f.local(I32);
  // aI: bytes between a tile's rows; aK: bytes between steps of the shared dimension
  if (mode === 'tn') f.i32(4).set(aI).get(P).i32(4).op(Op.i32Mul).set(aK);
  else f.get(R).i32(4).op(Op.i32Mul).set(aI).i32(4).set(aK);
  f.get(N).i32(4).op(Op.i32Mul).set(bRow);
  f.get(a).set(paC).get(b).set(pbC);
  f.op(Op.block, 0x40, Op.loop, 0x40);
  f.get(r0).get(R).op(Op.i32GeU, Op.brIf, 1);
  // count = min(R_CHUNK, R − r0); first = r0 == 0
  f.get(R).get(r0).op(Op.i32Sub).set(count);
  f.i32(R_CHUNK).get(count).get(count).i32(R_CHUNK).op(Op.i32GtU, Op.select).set(count);
  f.get(r0).op(Op.i32Eqz).set(first);
  f.get(paC).set(paI).get(out).set(poI);
  emitTileWalk(
    f,
    tile,
    { rows: P, cols: N, i, j, pa: paI, aStep: aI, pb0: pbC, pb: pbJ, po: poI, poTile: poJ, outRow: bRow },
    ([rows, vecs, vec]) => {
      f.get(paI)
        .get(aI)
        .get(aK)
        .get(pbJ)
        .get(bRow)
        .get(poJ)
        .get(bRow)
        .get(count)
        .get(first)
        .op(Op.call, index(rows, vecs, vec));
    },
  );
  f.get(paC).get(aK).get(count).op(Op.i32Mul, Op.i32Add).set(paC);
  f.get(pbC).get(bRow).get(count).op(Op.i32Mul, Op.i32Add).set(pbC);
  f.get(r0).get(count).op(Op.i32Add).set(r0);
  f.op(Op.br, 0, Op.end, Op.end);
  return f;
}

/**
 * The module's functions for a tile shape (rows 1–8, vecs 1–4): the tile kinds of `tn`, those of `nn`, then the
 * drivers `tn` and `nn`. @throws Error for a tile shape outside those ranges.
 */
export function gemmFuncs(tile: GemmTile = GEMM_TILE): FuncBuilder[] {
  if (
    !Number.isInteger(tile.rows) ||
    tile.rows < 1 ||
    tile.rows > 8 ||
    !Number.isInteger(tile.vecs) ||
    tile.vecs < 1 ||
    tile.vecs > 4
  )
    throw new Error(`wasm gemm: tile rows must be 1–8 and vecs 1–4, got ${JSON.stringify(tile)}`);
  const kinds = tileKinds(tile),
    n = kinds.length;
  const at = (base: number) => (rows: number, vecs: number, vec: boolean) =>
    base + kinds.findIndex(([r, v, s]) => r === rows && v === vecs && s === vec);
  return [
    ...kinds.map(([r, v, s]) => tileFunc(r, v, s, 'tn')),
    ...kinds.map(([r, v, s]) => tileFunc(r, v, s, 'nn')),
    driverFunc(tile, 'tn', at(0)),
    driverFunc(tile, 'nn', at(n)),
  ];
}

/**
 * The module's exports (byte addresses): `tn(a, b, out, R, P, N)`: out [P, N] = aᵀ·b for a [R, P], b [R, N];
 * `nn(a, b, out, K, M, N)`: out [M, N] = a·b for a [M, K], b [K, N].
 */
export type GemmModule = {
  tn(a: number, b: number, out: number, R: number, P: number, N: number): void;
  nn(a: number, b: number, out: number, K: number, M: number, N: number): void;
};

let tile: GemmTile = GEMM_TILE;
const exportsOf = (t: GemmTile) => ({ tn: 2 * tileKinds(t).length, nn: 2 * tileKinds(t).length + 1 });
let moduleFor = moduleOver<GemmModule>(() => gemmFuncs(tile), exportsOf(tile));

/**
 * Use another tile shape from now on (scripts/wasm-matmul-bench.ts compares them; every shape gives the same bits).
 * @throws Error for rows outside 1–8 or vecs outside 1–4.
 */
export function setGemmTile(t: GemmTile = GEMM_TILE): void {
  gemmFuncs(t);
  tile = t;
  moduleFor = moduleOver<GemmModule>(() => gemmFuncs(tile), exportsOf(tile));
}

/** Which products run this module: `tn` the weight gradients aᵀ·b, `nn` plain products a·b. */
export type GemmUse = 'tn' | 'nn';

/**
 * a [R, P], b [R, N] float32 → aᵀ·b [P, N] (attr transposeA true), or a [M, K], b [K, N] → a·b [M, N] (false).
 * @throws Error for other ranks or dtypes, unequal shared dimensions, or no heap/SIMD.
 */
function gemmKernel({
  inputs: { a, b },
  backend,
  attrs,
}: {
  inputs: { a: tf.TensorInfo; b: tf.TensorInfo };
  backend: WasmBackend;
  attrs: { transposeA: boolean };
}): tf.TensorInfo {
  const tn = attrs.transposeA;
  const shared = (t: tf.TensorInfo, first: boolean) => (first ? t.shape[0] : t.shape[1]);
  if (
    a.shape.length !== 2 ||
    b.shape.length !== 2 ||
    a.dtype !== 'float32' ||
    b.dtype !== 'float32' ||
    shared(a, tn) !== b.shape[0]
  )
    throw new Error(
      `${GEMM_KERNEL}: a ${tn ? '[R, P]' : '[M, K]'} and b ${tn ? '[R, N]' : '[K, N]'} must be float32 ` +
        `matrices with the same ${tn ? 'R' : 'K'}, got ${a.dtype} [${a.shape}] and ${b.dtype} [${b.shape}]`,
    );
  const R = b.shape[0],
    P = tn ? a.shape[1] : a.shape[0],
    N = b.shape[1];
  const out = backend.makeOutput([P, N], 'float32');
  const mem = heapOf(backend);
  const mod = mem ? moduleFor(mem) : null;
  if (!mem || !mod)
    throw new Error(`${GEMM_KERNEL}: needs WebAssembly SIMD and the wasm backend's heap (check wasmGemmUsable first)`);
  const pa = backend.dataIdMap.get(a.dataId).memoryOffset,
    pb = backend.dataIdMap.get(b.dataId).memoryOffset;
  const po = backend.dataIdMap.get(out.dataId).memoryOffset;
  if (R === 0) new Float32Array(mem.buffer, po, P * N).fill(0);
  else if (P > 0 && N > 0) (tn ? mod.tn : mod.nn)(pa, pb, po, R, P, N);
  return out;
}

let registered = false;
const enabled: Record<GemmUse, boolean> = { tn: true, nn: true };

/** Register the kernel for the wasm backend (idempotent; no set-up, so any time). */
export function registerWasmGemmKernel(): void {
  if (registered) return;
  registered = true;
  registerKernels('wasm', {
    [GEMM_KERNEL]: gemmKernel,
  });
}

/**
 * Whether model/ops.ts runs this kernel for `use`: registered, switched on, the wasm backend active with SIMD and one
 * thread. With a thread pool (the page's threaded build on several cores) XNNPACK splits each product over the
 * threads, which one thread of this kernel does not beat, so tfjs' matMul keeps those products (the same bits).
 */
export function wasmGemmUsable(use: GemmUse): boolean {
  if (!registered || !enabled[use] || tf.getBackend() !== 'wasm') return false;
  const be = tf.backend() as unknown as WasmBackend;
  if (threadsOf(be) > 1) return false;
  const mem = heapOf(be);
  return !!mem && moduleFor(mem) !== null;
}

/**
 * Switch the kernel off for `use` (false: tfjs' matMul — XNNPACK — runs, after a transpose for `tn`) or back on, to
 * compare the two (scripts/wasm-train-ab.ts). Returns the previous setting.
 */
export function setWasmGemmEnabled(use: GemmUse, on: boolean): boolean {
  const was = enabled[use];
  enabled[use] = on;
  return was;
}

/**
 * With the kernel (not differentiable; model/ops.ts uses it inside its own gradients): `transposeA` true: aᵀ·b for
 * a [R, P], b [R, N] float32 → [P, N]; false: a·b for a [M, K], b [K, N] → [M, N].
 */
export function wasmGemm(a: tf.Tensor2D, b: tf.Tensor2D, transposeA: boolean): tf.Tensor2D {
  return tf
    .engine()
    .runKernel(
      GEMM_KERNEL,
      { a, b } as unknown as tf.NamedTensorMap,
      { transposeA } as unknown as tf.NamedAttrMap,
    ) as tf.Tensor2D;
}
