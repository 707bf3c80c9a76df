/**
 * A SIMD BatchMatMul for tfjs' wasm backend (tfjs 4.22), registered over the stock kernel.
 *
 * The stock kernel (tfjs-backend-wasm/src/cc/batch_mat_mul_impl.cc) calls XNNPACK only for a plain 2-D product: no
 * transposeA/transposeB and batch 1 on both operands. Everything else — every attention product (batch B·h) and
 * every flagged product of its gradients — runs `slow_batch_matmul`, a scalar loop (~1 GFLOP/s here against
 * XNNPACK's 9–35). This kernel runs those cases as f32x4 SIMD in a small WebAssembly module generated at start-up
 * (`wasm/emit.ts`) that imports the backend's own memory, so operands are read where tfjs keeps them.
 *
 * Same bits as the stock loop: SIMD runs across four output columns, never along the shared dimension, so every
 * output element is summed exactly as `slow_batch_matmul` sums it — float32 products added in order of k from 0 in
 * blocks of 48 (its kBlockSize), each block's sum then added to the output, which starts at +0. WebAssembly has no
 * fused multiply-add, so each product and each sum rounds as in the C++ loop.
 * test/core/backend/wasm/batch-matmul.test.ts checks bit equality with the stock kernel on every flag combination and
 * ragged shapes.
 *
 * Plain 2-D products keep the stock kernel (XNNPACK). Operands with a transposed `b` are first transposed into a
 * scratch buffer ([K, N] per batch) so that SIMD loads of b are contiguous; a transposed `a` is read in place.
 * Batch broadcasting is supported when one operand has batch 1. Without SIMD in the engine, or without access to the
 * backend's memory, the stock kernel runs.
 */
import { encodeModule, F32, FuncBuilder, I32, Op, SimdOp, V128 } from './emit';
import { emitTileWalk, tileKinds, type TileShape } from './tiles';

/** Products summed per block along the shared dimension, as tfjs' `kBlockSize` (batch_mat_mul_impl.cc). */
export const K_BLOCK = 48;

/** Output tile of the kernel's inner loop: `rows` rows × `vecs` f32x4 vectors of columns. */
export type { TileShape };
/** The shipped tile (chosen with scripts/wasm-matmul-bench.ts: see docs/experiments/speed.md). */
export const DEFAULT_TILE: TileShape = { rows: 4, vecs: 2 };

/**
 * The kernel's exports. Pointers and strides are byte offsets into the backend's memory (i32).
 * `mm`: out[bt, i, j] = Σ_k a[bt·aBatch + i·aRow + k·aK] · b[bt·bBatch + (k·N + j)·4], out [batch, M, N]
 * contiguous.
 * `tr`: dst[bt, c, r] = src[bt, r, c] for src [batch, R, C] (32-bit words, copied bit for bit).
 */
export interface MatMulModule {
  mm(
    a: number,
    b: number,
    out: number,
    batch: number,
    M: number,
    N: number,
    K: number,
    aBatch: number,
    aRow: number,
    aK: number,
    bBatch: number,
  ): void;
  tr(src: number, dst: number, batch: number, R: number, C: number): void;
  /**
   * `mm` with b's row stride given (`bRow`, bytes) instead of N·4: b[bt·bBatch + k·bRow + j·4], so b may be the
   * first N columns of a wider buffer (the decode step's key cache, model/decode-wasm.ts). Same sums as `mm`.
   */
  mmb(
    a: number,
    b: number,
    out: number,
    batch: number,
    M: number,
    N: number,
    K: number,
    aBatch: number,
    aRow: number,
    aK: number,
    bBatch: number,
    bRow: number,
  ): void;
}

/** Emitters of a tile's lane type: f32x4 (v128 loads and stores, 16 bytes) when `vec`, else scalar f32. */
function laneOps(f: FuncBuilder, vec: boolean) {
  return {
    /** Push +0 (splat over the four lanes when `vec`). */
    zero: () => (vec ? f.op(Op.f32Const, 0, 0, 0, 0).simd(SimdOp.f32x4Splat) : f.op(Op.f32Const, 0, 0, 0, 0)),
    add: () => (vec ? f.simd(SimdOp.f32x4Add) : f.op(Op.f32Add)),
    mul: () => (vec ? f.simd(SimdOp.f32x4Mul) : f.op(Op.f32Mul)),
    /** Load from the address on the stack plus `off` bytes. */
    load: (off: number) => (vec ? f.simd(SimdOp.v128Load, off) : f.mem(Op.f32Load, off)),
    /** Store to the address under the value plus `off` bytes. */
    store: (off: number) => (vec ? f.simd(SimdOp.v128Store, off) : f.mem(Op.f32Store, off)),
  };
}

/**
 * Emit the end of one k block of a tile: out[r][c] = (first block, k0 = 0 ? +0 : out[r][c]) + s[r][c] for the tile's
 * rows × vecs sums `s` (locals), row r of the output at byte pout + r·outRow, vector c at 16·c bytes.
 */
function emitAddBlockSums(f: FuncBuilder, vec: boolean, s: number[][], k0: number, pout: number, outRow: number): void {
  const { zero, add, load, store } = laneOps(f, vec);
  const rowAddr = (r: number) => {
    f.get(pout);
    if (r > 0) f.get(outRow).i32(r).op(Op.i32Mul, Op.i32Add);
  };
  f.get(k0).op(Op.i32Eqz, Op.if, 0x40);
  for (let r = 0; r < s.length; r++)
    for (let c = 0; c < s[r].length; c++) {
      rowAddr(r);
      zero();
      f.get(s[r][c]);
      add();
      store(16 * c);
    }
  f.op(Op.else);
  for (let r = 0; r < s.length; r++)
    for (let c = 0; c < s[r].length; c++) {
      rowAddr(r);
      rowAddr(r);
      load(16 * c);
      f.get(s[r][c]);
      add();
      store(16 * c);
    }
  f.op(Op.end);
}

/** Tile function: params pa, aRow, aK, pb, nb, pout, outRow, K (i32). Computes rows × (vec ? 4·vecs : 1) outputs. */
function tileFunc(rows: number, vecs: number, vec: boolean): FuncBuilder {
  const f = new FuncBuilder([I32, I32, I32, I32, I32, I32, I32, I32]);
  const [pa, aRow, aK, pb, nb, pout, outRow, K] = [0, 1, 2, 3, 4, 5, 6, 7];
  const k0 = f.local(I32),
    kEnd = f.local(I32),
    k = f.local(I32),
    pbk = f.local(I32);
  const pr = Array.from({ length: rows }, () => f.local(I32));
  const T = vec ? V128 : F32;
  const s = Array.from({ length: rows }, () => Array.from({ length: vecs }, () => f.local(T)));
  const bv = Array.from({ length: vecs }, () => f.local(T));
  const av = f.local(T);
  const { zero, add, mul, load } = laneOps(f, vec);
  f.op(Op.block, 0x40, Op.loop, 0x40);
  f.get(k0).get(K).op(Op.i32GeU, Op.brIf, 1);
  // kEnd = min(k0 + 48, K)
  f.get(k0)
    .i32(K_BLOCK)
    .op(Op.i32Add)
    .get(K)
    .get(k0)
    .i32(K_BLOCK)
    .op(Op.i32Add)
    .get(K)
    .op(Op.i32LtU, Op.select)
    .set(kEnd);
  f.get(pa).get(k0).get(aK).op(Op.i32Mul, Op.i32Add).set(pr[0]);
  for (let r = 1; r < rows; r++)
    f.get(pr[r - 1])
      .get(aRow)
      .op(Op.i32Add)
      .set(pr[r]);
  f.get(pb).get(k0).get(nb).op(Op.i32Mul, Op.i32Add).set(pbk);
  for (const row of s) for (const x of row) zero().set(x);
  f.get(k0).set(k);
  f.op(Op.loop, 0x40);
  for (let c = 0; c < vecs; c++) {
    f.get(pbk);
    load(16 * c);
    f.set(bv[c]);
  }
  for (let r = 0; r < rows; r++) {
    f.get(pr[r]);
    if (vec) f.simd(SimdOp.load32Splat, 0);
    else f.mem(Op.f32Load, 0);
    f.set(av);
    // sum += a·b, as the C++ loop: the product rounds to float32, then the sum does.
    for (let c = 0; c < vecs; c++) {
      f.get(s[r][c]).get(av).get(bv[c]);
      mul();
      add();
      f.set(s[r][c]);
    }
  }
  for (let r = 0; r < rows; r++) f.addTo(pr[r], aK);
  f.addTo(pbk, nb);
  f.get(k).i32(1).op(Op.i32Add, Op.localTee, k).get(kEnd).op(Op.i32LtU, Op.brIf, 0, Op.end);
  emitAddBlockSums(f, vec, s, k0, pout, outRow);
  f.get(kEnd).set(k0);
  f.op(Op.br, 0, Op.end, Op.end);
  return f;
}

/**
 * `mm` (see MatMulModule): walks batches, row tiles and column tiles and calls the tile functions by index. With
 * `bRowParam`, `mmb`: a 12th parameter is b's row stride (bytes); otherwise it is N·4, as the output's.
 */
function driverFunc(
  tile: TileShape,
  index: (rows: number, vecs: number, vec: boolean) => number,
  bRowParam = false,
): FuncBuilder {
  const f = new FuncBuilder(Array<typeof I32>(bRowParam ? 12 : 11).fill(I32));
  const [a, b, out, batch, M, N, K, aBatch, aRow, aK, bBatch] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
  const bt = f.local(I32),
    i = f.local(I32),
    j = f.local(I32),
    nb = f.local(I32);
  const paI = f.local(I32),
    poI = f.local(I32),
    pbB = f.local(I32),
    pbJ = f.local(I32),
    poJ = f.local(I32);
  const bRow = bRowParam ? 11 : nb;
  f.get(N).i32(4).op(Op.i32Mul).set(nb);
  f.op(Op.block, 0x40, Op.loop, 0x40);
  f.get(bt).get(batch).op(Op.i32GeU, Op.brIf, 1);
  f.get(a).get(bt).get(aBatch).op(Op.i32Mul, Op.i32Add).set(paI);
  f.get(out).get(bt).get(M).op(Op.i32Mul).get(nb).op(Op.i32Mul, Op.i32Add).set(poI);
  f.get(b).get(bt).get(bBatch).op(Op.i32Mul, Op.i32Add).set(pbB);
  emitTileWalk(
    f,
    tile,
    { rows: M, cols: N, i, j, pa: paI, aStep: aRow, pb0: pbB, pb: pbJ, po: poI, poTile: poJ, outRow: nb },
    ([rows, vecs, vec]) => {
      f.get(paI)
        .get(aRow)
        .get(aK)
        .get(pbJ)
        .get(bRow)
        .get(poJ)
        .get(nb)
        .get(K)
        .op(Op.call, index(rows, vecs, vec));
    },
  );
  f.get(bt).i32(1).op(Op.i32Add).set(bt);
  f.op(Op.br, 0, Op.end, Op.end);
  return f;
}

/** `tr` (see MatMulModule): per batch, reads src row by row and writes dst column by column. R, C, batch ≥ 1. */
function transposeFunc(): FuncBuilder {
  const f = new FuncBuilder([I32, I32, I32, I32, I32]);
  const [src, dst, batch, R, C] = [0, 1, 2, 3, 4];
  const bt = f.local(I32),
    r = f.local(I32),
    c = f.local(I32),
    pd = f.local(I32),
    dstB = f.local(I32),
    r4 = f.local(I32);
  f.get(R).i32(4).op(Op.i32Mul).set(r4);
  f.get(dst).set(dstB);
  f.op(Op.loop, 0x40);
  f.i32(0).set(r);
  f.op(Op.loop, 0x40);
  f.get(dstB).get(r).i32(4).op(Op.i32Mul, Op.i32Add).set(pd);
  f.i32(0).set(c);
  f.op(Op.loop, 0x40);
  f.get(pd).get(src).mem(Op.i32Load).mem(Op.i32Store);
  f.get(src).i32(4).op(Op.i32Add).set(src);
  f.addTo(pd, r4);
  f.get(c).i32(1).op(Op.i32Add, Op.localTee, c).get(C).op(Op.i32LtU, Op.brIf, 0, Op.end);
  f.get(r).i32(1).op(Op.i32Add, Op.localTee, r).get(R).op(Op.i32LtU, Op.brIf, 0, Op.end);
  f.get(dstB).get(R).get(C).op(Op.i32Mul).i32(4).op(Op.i32Mul, Op.i32Add).set(dstB);
  f.get(bt).i32(1).op(Op.i32Add, Op.localTee, bt).get(batch).op(Op.i32LtU, Op.brIf, 0, Op.end);
  return f;
}

/** The module's bytes for a tile shape (rows 1–8, vecs 1–6) and a shared or unshared memory. */
export function matMulModuleBytes(tile: TileShape, sharedMemory: boolean): Uint8Array<ArrayBuffer> {
  if (
    !Number.isInteger(tile.rows) ||
    tile.rows < 1 ||
    tile.rows > 8 ||
    !Number.isInteger(tile.vecs) ||
    tile.vecs < 1 ||
    tile.vecs > 6
  )
    throw new Error(`wasm matmul: tile rows must be 1–8 and vecs 1–6, got ${JSON.stringify(tile)}`);
  const kinds = tileKinds(tile);
  const index = (rows: number, vecs: number, vec: boolean) =>
    kinds.findIndex(([r, v, s]) => r === rows && v === vecs && s === vec);
  const funcs = [
    ...kinds.map(([r, v, s]) => tileFunc(r, v, s)),
    driverFunc(tile, index),
    transposeFunc(),
    driverFunc(tile, index, true),
  ];
  return encodeModule(funcs, { mm: kinds.length, tr: kinds.length + 1, mmb: kinds.length + 2 }, sharedMemory);
}

/**
 * Instantiate the kernel module over `memory` (the backend's heap). Returns null where the engine rejects it (no
 * WebAssembly SIMD).
 */
export function instantiateMatMul(memory: WebAssembly.Memory, tile: TileShape = DEFAULT_TILE): MatMulModule | null {
  const shared = typeof SharedArrayBuffer !== 'undefined' && memory.buffer instanceof SharedArrayBuffer;
  const bytes = matMulModuleBytes(tile, shared);
  if (!WebAssembly.validate(bytes)) return null;
  const inst = new WebAssembly.Instance(new WebAssembly.Module(bytes), { env: { mem: memory } });
  return inst.exports as unknown as MatMulModule;
}
