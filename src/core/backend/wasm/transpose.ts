/**
 * The batched 2-D transpose of wasm/copy-kernels.ts (`swapCopy`: dst[b, c, r] = src[b, r, c] over 32-bit words) with
 * WebAssembly SIMD, for R and C multiples of 4: each 4×4 block is read as four v128 rows and written as four v128
 * columns after eight i8x16.shuffle (the textbook 4×4 transpose by unpacking pairs, then quads). Column tiles of
 * `TILE` keep the written rows within a few dozen cache lines. The module is generated at start-up (`wasm/emit.ts`)
 * over the tfjs wasm backend's heap. Shuffles move bytes, so every word (NaN payloads included) is copied unchanged:
 * the same output as `swapCopy` word for word (test/core/backend/wasm/transpose.test.ts).
 */
import { FuncBuilder, I32, Op, V128, moduleOver } from './emit';

/** Columns per tile (words): the written block is TILE rows of the output. */
const TILE = 64;

/** SIMD opcodes (after the 0xfd prefix): v128.load, v128.store, i8x16.shuffle. */
const V = { load: 0x00, store: 0x0b, shuffle: 0x0d } as const;

/** The 16 lane bytes of an i8x16.shuffle that picks 32-bit lanes `w` (0–3: first operand, 4–7: second). */
function words(...w: number[]): number[] {
  return w.flatMap((i) => [4 * i, 4 * i + 1, 4 * i + 2, 4 * i + 3]);
}
const LO = words(0, 4, 1, 5),
  HI = words(2, 6, 3, 7),
  LOLO = words(0, 1, 4, 5),
  HIHI = words(2, 3, 6, 7);

/** Local indices of transpose4: its five parameters, loop counters, byte strides and addresses, v128 rows. */
interface TransposeLocals {
  /** Parameters: byte addresses src, dst; plane count; R, C (words). */
  src: number;
  dst: number;
  batch: number;
  R: number;
  C: number;
  /** Plane, column-tile start and end, source row and column (words). */
  b: number;
  c0: number;
  cEnd: number;
  r: number;
  c: number;
  /** rs = 4·C (bytes per source row), ds = 4·R (bytes per output row). */
  rs: number;
  ds: number;
  /** Byte addresses of the current 4×4 block's first source row and first output row. */
  s: number;
  d: number;
  /** plane = 4·R·C, the bytes of one plane. */
  plane: number;
  /** The block's four source rows and the four unpacked pairs (v128). */
  v: number[];
  t: number[];
}

/** Declare transpose4's locals on `f`, in the order the function's code entry lists them. */
function transposeLocals(f: FuncBuilder): TransposeLocals {
  const b = f.local(I32),
    c0 = f.local(I32),
    cEnd = f.local(I32),
    r = f.local(I32),
    c = f.local(I32);
  const rs = f.local(I32),
    ds = f.local(I32),
    s = f.local(I32),
    d = f.local(I32),
    plane = f.local(I32);
  const v = [f.local(V128), f.local(V128), f.local(V128), f.local(V128)];
  const t = [f.local(V128), f.local(V128), f.local(V128), f.local(V128)];
  return { src: 0, dst: 1, batch: 2, R: 3, C: 4, b, c0, cEnd, r, c, rs, ds, s, d, plane, v, t };
}

/** Emit `while (local[i] < end()) { body(); local[i] += step }` (unsigned compare; `i` is not reset). */
function stepLoop(f: FuncBuilder, i: number, end: () => void, step: number, body: () => void): void {
  f.op(Op.block, 0x40, Op.loop, 0x40);
  f.get(i);
  end();
  f.op(Op.i32GeU, Op.brIf, 1);
  body();
  f.get(i).i32(step).op(Op.i32Add).set(i);
  f.op(Op.br, 0, Op.end, Op.end);
}

/**
 * transpose4(src, dst, batch, R, C): byte addresses src, dst; R, C multiples of 4 (words). For each of `batch` planes
 * of R×C words, dst plane [C, R] = src plane [R, C] transposed.
 */
function transposeFunc(): FuncBuilder {
  const f = new FuncBuilder([I32, I32, I32, I32, I32]);
  const L = transposeLocals(f);
  // rs = 4·C (bytes per source row), ds = 4·R (bytes per output row), plane = 4·R·C
  f.get(L.C).i32(4).op(Op.i32Mul).set(L.rs);
  f.get(L.R).i32(4).op(Op.i32Mul).set(L.ds);
  f.get(L.rs).get(L.R).op(Op.i32Mul).set(L.plane);
  f.i32(0).set(L.b);
  stepLoop(
    f,
    L.b,
    () => f.get(L.batch),
    1,
    () => {
      f.i32(0).set(L.c0);
      stepLoop(
        f,
        L.c0,
        () => f.get(L.C),
        TILE,
        () => emitColumnTile(f, L),
      );
      f.get(L.src).get(L.plane).op(Op.i32Add).set(L.src);
      f.get(L.dst).get(L.plane).op(Op.i32Add).set(L.dst);
    },
  );
  return f;
}

/** Emit one column tile of a plane (columns c0 .. min(C, c0 + TILE) − 1): its 4×4 blocks, row quad by row quad. */
function emitColumnTile(f: FuncBuilder, L: TransposeLocals): void {
  // cEnd = min(C, c0 + TILE)
  f.get(L.c0).i32(TILE).op(Op.i32Add).set(L.cEnd);
  f.get(L.cEnd).get(L.C).get(L.cEnd).get(L.C).op(Op.i32LtU, Op.select).set(L.cEnd);
  f.i32(0).set(L.r);
  stepLoop(
    f,
    L.r,
    () => f.get(L.R),
    4,
    () => {
      f.get(L.c0).set(L.c);
      stepLoop(
        f,
        L.c,
        () => f.get(L.cEnd),
        4,
        () => emitBlock(f, L),
      );
    },
  );
}

/** Emit the 4×4 block at source row r, column c: its byte addresses s and d, then the transposed copy. */
function emitBlock(f: FuncBuilder, L: TransposeLocals): void {
  // s = src + 4·(r·C + c); d = dst + 4·(c·R + r)
  f.get(L.src).get(L.r).get(L.rs).op(Op.i32Mul).op(Op.i32Add).get(L.c).i32(4).op(Op.i32Mul).op(Op.i32Add).set(L.s);
  f.get(L.dst).get(L.c).get(L.ds).op(Op.i32Mul).op(Op.i32Add).get(L.r).i32(4).op(Op.i32Mul).op(Op.i32Add).set(L.d);
  emitTranspose4x4(f, L);
}

/**
 * Emit the copy of one 4×4 block of words: four v128 source rows a, b, c, d loaded from s (stride rs), unpacked in
 * pairs, then quads, and stored as four output rows from d (stride ds).
 */
function emitTranspose4x4(f: FuncBuilder, L: TransposeLocals): void {
  const { v, t } = L;
  for (let k = 0; k < 4; k++) {
    f.get(L.s).simd(V.load, 0).set(v[k]);
    if (k < 3) f.get(L.s).get(L.rs).op(Op.i32Add).set(L.s);
  }
  // t0 = a0 b0 a1 b1, t1 = a2 b2 a3 b3, t2 = c0 d0 c1 d1, t3 = c2 d2 c3 d3
  f.get(v[0])
    .get(v[1])
    .simd(V.shuffle)
    .op(...LO)
    .set(t[0]);
  f.get(v[0])
    .get(v[1])
    .simd(V.shuffle)
    .op(...HI)
    .set(t[1]);
  f.get(v[2])
    .get(v[3])
    .simd(V.shuffle)
    .op(...LO)
    .set(t[2]);
  f.get(v[2])
    .get(v[3])
    .simd(V.shuffle)
    .op(...HI)
    .set(t[3]);
  // output rows c..c+3: a_i b_i c_i d_i
  const rows: [number, number[]][] = [
    [t[0], LOLO],
    [t[0], HIHI],
    [t[1], LOLO],
    [t[1], HIHI],
  ];
  rows.forEach(([lo, sel], k) => {
    f.get(L.d)
      .get(lo)
      .get(lo === t[0] ? t[2] : t[3])
      .simd(V.shuffle)
      .op(...sel)
      .simd(V.store, 0);
    if (k < 3) f.get(L.d).get(L.ds).op(Op.i32Add).set(L.d);
  });
}

type TransposeModule = { transpose4(src: number, dst: number, batch: number, R: number, C: number): void };
/** The module over `mem` (built once per heap), or null where the engine lacks WebAssembly SIMD. */
const moduleFor = moduleOver<TransposeModule>(() => [transposeFunc()], { transpose4: 0 });

/**
 * dst[b, c, r] = src[b, r, c] for `batch` planes of R×C 32-bit words in `mem` (src, dst: byte addresses, 16-byte
 * aligned or not; the regions must not overlap) with the SIMD module.
 * @returns false (nothing copied) when R or C is not a multiple of 4 or the engine lacks WebAssembly SIMD: the caller
 *   copies with `swapCopy` instead.
 */
export function simdSwapCopy(
  mem: WebAssembly.Memory,
  src: number,
  dst: number,
  f: { batch: number; R: number; C: number },
): boolean {
  if (f.R % 4 !== 0 || f.C % 4 !== 0) return false;
  const mod = moduleFor(mem);
  if (!mod) return false;
  mod.transpose4(src, dst, f.batch, f.R, f.C);
  return true;
}
