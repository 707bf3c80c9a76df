/**
 * The output walk shared by the generated matrix-product modules (wasm/batch-matmul.ts, wasm/gemm.ts): an output of
 * `rows` × `cols` float32 words is covered by tiles of `tile.rows` rows (then single rows for the remainder) and, in
 * each row band, tiles of 4·vecs columns, then 4, then 1 (f32x4 tiles, then scalar ones). Each module has one tile
 * function per kind; `tileKinds` lists the kinds in the order the modules number their functions.
 */
import { FuncBuilder, Op } from './emit';

/** A tile shape: `rows` output rows × `vecs` f32x4 vectors of output columns. */
export interface TileShape {
  rows: number;
  vecs: number;
}

/** One tile kind: [rows, vecs, SIMD (f32x4) or scalar]. */
export type TileKind = [rows: number, vecs: number, vec: boolean];

/** The tile kinds of a shape: full tiles, then one-row tiles, each in widths 4·vecs, 4 and 1 columns. */
export function tileKinds(tile: TileShape): TileKind[] {
  const kinds: TileKind[] = [];
  for (const rows of tile.rows > 1 ? [tile.rows, 1] : [1]) {
    kinds.push([rows, tile.vecs, true]);
    if (tile.vecs > 1) kinds.push([rows, 1, true]);
    kinds.push([rows, 1, false]);
  }
  return kinds;
}

/** The i32 locals (and parameters) of `f` that `emitTileWalk` reads and moves. */
export interface TileWalkLocals {
  /** Output rows and columns (read). */
  rows: number;
  cols: number;
  /** Row and column counters (set here). */
  i: number;
  j: number;
  /** a's address for the current row band (moved by `aStep`·rows per band; set by the caller before the walk). */
  pa: number;
  /** Bytes a moves per output row (read). */
  aStep: number;
  /** b's address of column 0 (read) and of the current column tile (set here). */
  pb0: number;
  pb: number;
  /** The output's address for the current row band (moved per band; set by the caller) and for the current tile. */
  po: number;
  poTile: number;
  /** Bytes per output row (read). */
  outRow: number;
}

/**
 * Emit the walk: for each row band and each column tile, `call(kind)` emits the tile function's call (its arguments
 * read the locals above), then the column addresses move on by the tile's width.
 */
export function emitTileWalk(f: FuncBuilder, tile: TileShape, l: TileWalkLocals, call: (kind: TileKind) => void): void {
  f.i32(0).set(l.i);
  for (const rows of tile.rows > 1 ? [tile.rows, 1] : [1]) {
    f.op(Op.block, 0x40, Op.loop, 0x40);
    f.get(l.i).i32(rows).op(Op.i32Add).get(l.rows).op(Op.i32GtU, Op.brIf, 1);
    f.i32(0).set(l.j).get(l.pb0).set(l.pb).get(l.po).set(l.poTile);
    const widths: [number, TileKind][] = [[4 * tile.vecs, [rows, tile.vecs, true]]];
    if (tile.vecs > 1) widths.push([4, [rows, 1, true]]);
    widths.push([1, [rows, 1, false]]);
    for (const [w, kind] of widths) {
      f.op(Op.block, 0x40, Op.loop, 0x40);
      f.get(l.j).i32(w).op(Op.i32Add).get(l.cols).op(Op.i32GtU, Op.brIf, 1);
      call(kind);
      f.get(l.j).i32(w).op(Op.i32Add).set(l.j);
      f.get(l.pb)
        .i32(4 * w)
        .op(Op.i32Add)
        .set(l.pb);
      f.get(l.poTile)
        .i32(4 * w)
        .op(Op.i32Add)
        .set(l.poTile);
      f.op(Op.br, 0, Op.end, Op.end);
    }
    f.get(l.pa).get(l.aStep).i32(rows).op(Op.i32Mul, Op.i32Add).set(l.pa);
    f.get(l.po).get(l.outRow).i32(rows).op(Op.i32Mul, Op.i32Add).set(l.po);
    f.get(l.i).i32(rows).op(Op.i32Add).set(l.i);
    f.op(Op.br, 0, Op.end, Op.end);
  }
}
