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

/**
 * transpose4(src, dst, batch, R, C): byte addresses src, dst; R, C multiples of 4 (words). For each of `batch` planes
 * of R×C words, dst plane [C, R] = src plane [R, C] transposed.
 */
function transposeFunc(): FuncBuilder {
  const f = new FuncBuilder([I32, I32, I32, I32, I32]);
  const src = 0,
    dst = 1,
    batch = 2,
    R = 3,
    C = 4;
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
  // rs = 4·C (bytes per source row), ds = 4·R (bytes per output row), plane = 4·R·C
  f.get(C).i32(4).op(Op.i32Mul).set(rs);
  f.get(R).i32(4).op(Op.i32Mul).set(ds);
  f.get(rs).get(R).op(Op.i32Mul).set(plane);
  const loop = (i: number, end: () => void, step: number, body: () => void) => {
    f.op(Op.block, 0x40, Op.loop, 0x40);
    f.get(i);
    end();
    f.op(Op.i32GeU, Op.brIf, 1);
    body();
    f.get(i).i32(step).op(Op.i32Add).set(i);
    f.op(Op.br, 0, Op.end, Op.end);
  };
  f.i32(0).set(b);
  loop(
    b,
    () => f.get(batch),
    1,
    () => {
      f.i32(0).set(c0);
      loop(
        c0,
        () => f.get(C),
        TILE,
        () => {
          // cEnd = min(C, c0 + TILE)
          f.get(c0).i32(TILE).op(Op.i32Add).set(cEnd);
          f.get(cEnd).get(C).get(cEnd).get(C).op(Op.i32LtU, Op.select).set(cEnd);
          f.i32(0).set(r);
          loop(
            r,
            () => f.get(R),
            4,
            () => {
              f.get(c0).set(c);
              loop(
                c,
                () => f.get(cEnd),
                4,
                () => {
                  // s = src + 4·(r·C + c); d = dst + 4·(c·R + r)
                  f.get(src)
                    .get(r)
                    .get(rs)
                    .op(Op.i32Mul)
                    .op(Op.i32Add)
                    .get(c)
                    .i32(4)
                    .op(Op.i32Mul)
                    .op(Op.i32Add)
                    .set(s);
                  f.get(dst)
                    .get(c)
                    .get(ds)
                    .op(Op.i32Mul)
                    .op(Op.i32Add)
                    .get(r)
                    .i32(4)
                    .op(Op.i32Mul)
                    .op(Op.i32Add)
                    .set(d);
                  for (let k = 0; k < 4; k++) {
                    f.get(s).simd(V.load, 0).set(v[k]);
                    if (k < 3) f.get(s).get(rs).op(Op.i32Add).set(s);
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
                    f.get(d)
                      .get(lo)
                      .get(lo === t[0] ? t[2] : t[3])
                      .simd(V.shuffle)
                      .op(...sel)
                      .simd(V.store, 0);
                    if (k < 3) f.get(d).get(ds).op(Op.i32Add).set(d);
                  });
                },
              );
            },
          );
        },
      );
      f.get(src).get(plane).op(Op.i32Add).set(src);
      f.get(dst).get(plane).op(Op.i32Add).set(dst);
    },
  );
  return f;
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
