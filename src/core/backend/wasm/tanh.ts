/**
 * tanh on tfjs' wasm backend (tfjs 4.22) as f32x4 SIMD, registered over the stock Tanh kernel for float32 inputs.
 * The stock kernel calls the C library's scalar `tanhf` per element (musl's, which the wasm build links: FreeBSD's
 * s_tanhf.c as musl revised it, over s_expm1f.c); in the `small` training step GELU's 4 Tanh calls over [4096, 512]
 * took ≈ 140 ms of CPU time (docs/experiments/speed.md).
 *
 * Same bits: this runs musl's algorithm in every lane — the same float32 operations in the same order, each rounded
 * once (WebAssembly has no fused multiply-add), its branches taken as lane selects — so it returns what `tanhf`
 * returns (only a NaN's payload may differ): the same words on 2^20 random bit patterns and at every branch edge
 * (test/core/backend/wasm/tanh.test.ts); scripts/wasm-unary-exhaustive.ts compares all 2^32 float32 inputs (0 differ;
 * docs/experiments/speed.md).
 * With t the result before the sign:
 *   |x| > 10 (or NaN): t = 1 + 0/|x|;  |x| > 0.5493: t = 1 − 2/(e + 2), e = expm1f(2|x|);
 *   |x| > 0.2554: t = e/(e + 2), e = expm1f(2|x|); |x| ≥ 2⁻¹²⁶: t = −e/(e + 2), e = expm1f(−2|x|); else t =
 *   |x|;
 * and expm1f's reduction y = k·ln2 + r (k = ±1 near 0.5 ln2 … 1.5 ln2, k = trunc(y/ln2 ± ½) beyond, k = 0 below
 * 0.5 ln2), its rational approximation and its reconstruction for k = 0, −1, 1, 2…22 and ≥ 23 (the arguments here
 * lie in [−1.1, 20], so k ≤ 29 and its other branches never apply). The last n mod 4 elements, and all of them
 * where the engine lacks WebAssembly SIMD, run the same algorithm in JavaScript (`tanhf`), which the test checks too.
 */
import * as tf from '../../tf';
import { FuncBuilder, I32, Op, V128, moduleOver } from './emit';
import { heapOf, type WasmBackend } from './heap';
import { wrapStockKernel } from '../register';

const f = Math.fround;
/** expm1f's constants (musl src/math/expm1f.c), as float32. */
const LN2_HI = f(6.9313812256e-1),
  LN2_LO = f(9.0580006145e-6),
  INVLN2 = f(1.4426950216),
  Q1 = f(-3.3333212137e-2),
  Q2 = f(1.5807170421e-3);

/** SIMD opcodes after the 0xfd prefix (WebAssembly SIMD). */
const S = {
  load: 0x00,
  store: 0x0b,
  i32splat: 0x11,
  f32splat: 0x13,
  i32eq: 0x37,
  i32ltU: 0x3a,
  i32gtU: 0x3c,
  i32leU: 0x3e,
  i32geU: 0x40,
  i32ltS: 0x39,
  i32gtS: 0x3b,
  f32lt: 0x43,
  and: 0x4e,
  or: 0x50,
  xor: 0x51,
  bitselect: 0x52,
  shl: 0xab,
  shrS: 0xac,
  i32add: 0xae,
  i32sub: 0xb1,
  add: 0xe4,
  sub: 0xe5,
  mul: 0xe6,
  div: 0xe7,
  truncS: 0xf8,
  convertS: 0xfa,
} as const;

/** A tiny SSA-style writer over v128 locals: each operation stores its result in a fresh local. */
class Vec {
  constructor(readonly fb: FuncBuilder) {}
  private fresh(): number {
    return this.fb.local(V128);
  }
  /** A float32 constant in every lane. */
  fc(v: number): number {
    const l = this.fresh();
    this.fb
      .op(Op.f32Const, ...new Uint8Array(new Float32Array([v]).buffer))
      .simd(S.f32splat)
      .set(l);
    return l;
  }
  /** An int32 constant in every lane. */
  ic(v: number): number {
    const l = this.fresh();
    this.fb
      .i32(v | 0)
      .simd(S.i32splat)
      .set(l);
    return l;
  }
  /** op(a, b) (or op(a) with b omitted) into a fresh local. */
  op(code: number, a: number, b?: number): number {
    const l = this.fresh();
    this.fb.get(a);
    if (b !== undefined) this.fb.get(b);
    this.fb.simd(code).set(l);
    return l;
  }
  /** Lanes of `a` where mask `m` is set, of `b` elsewhere. */
  sel(a: number, b: number, m: number): number {
    const l = this.fresh();
    this.fb.get(a).get(b).get(m).simd(S.bitselect).set(l);
    return l;
  }
  /** i32 shift of every lane by a constant count. */
  shift(code: number, a: number, n: number): number {
    const l = this.fresh();
    this.fb.get(a).i32(n).simd(code).set(l);
    return l;
  }
}

/** tanh(x, out, n4): out = tanhf(x) over n4 vectors of 4 floats (byte addresses). */
function tanhFunc(): FuncBuilder {
  const fb = new FuncBuilder([I32, I32, I32]);
  const [px, po, n4] = [0, 1, 2];
  const i = fb.local(I32),
    xin = fb.local(V128);
  const v = new Vec(fb);
  const c = lanesConstants(v); // hoisted out of the loop
  fb.op(Op.block, 0x40, Op.loop, 0x40);
  fb.get(i).get(n4).op(Op.i32GeU, Op.brIf, 1);
  fb.get(px).simd(S.load, 0).set(xin);
  fb.get(po)
    .get(tanhLanes(v, c, xin))
    .simd(S.store, 0);
  fb.get(px).i32(16).op(Op.i32Add).set(px);
  fb.get(po).i32(16).op(Op.i32Add).set(po);
  fb.get(i).i32(1).op(Op.i32Add).set(i);
  fb.op(Op.br, 0, Op.end, Op.end);
  return fb;
}

/** The v128 locals holding the constants of tanhf and expm1f, splat before the loop. */
type LaneConstants = ReturnType<typeof lanesConstants>;

/** Emits the constants of `tanhLanes` and `expm1Lanes` (in this order, so the locals and bytes are fixed). */
function lanesConstants(v: Vec) {
  const absMask = v.ic(0x7fffffff),
    signMask = v.ic(0x80000000 | 0);
  const one = v.fc(1),
    two = v.fc(2),
    mtwo = v.fc(-2),
    half = v.fc(0.5),
    mhalf = v.fc(-0.5),
    zero = v.fc(0),
    three = v.fc(3),
    six = v.fc(6);
  const quarterNeg = v.fc(-0.25),
    ln2hi = v.fc(LN2_HI),
    ln2lo = v.fc(LN2_LO),
    invln2 = v.fc(INVLN2),
    q1 = v.fc(Q1),
    q2 = v.fc(Q2);
  const iOne = v.ic(1),
    iMinusOne = v.ic(-1),
    iZero = v.ic(0),
    i127 = v.ic(0x7f),
    i23 = v.ic(23);
  const wSub = v.ic(0x00800000),
    wD = v.ic(0x3e82c578),
    wC = v.ic(0x3f0c9f54),
    wB = v.ic(0x41200000);
  const hBig = v.ic(0x3eb17218),
    hMid = v.ic(0x3f851592),
    hTiny = v.ic(0x33000000);
  return {
    ...{ absMask, signMask, one, two, mtwo, half, mhalf, zero, three, six },
    ...{ quarterNeg, ln2hi, ln2lo, invln2, q1, q2, iOne, iMinusOne, iZero, i127, i23 },
    ...{ wSub, wD, wC, wB, hBig, hMid, hTiny },
  };
}

/** Emits tanhf of the 4 lanes of local `xin`; returns the local holding the result. */
function tanhLanes(v: Vec, c: LaneConstants, xin: number): number {
  // tanhf: sign, w = |x| bits, x = |x|
  const sign = v.op(S.and, xin, c.signMask),
    w = v.op(S.and, xin, c.absMask),
    x = w;
  // expm1f's argument: −2|x| in case D (w ≤ 0x3e82c578), 2|x| otherwise
  const mD = v.op(S.i32leU, w, c.wD);
  const y = v.sel(v.op(S.mul, c.mtwo, x), v.op(S.mul, c.two, x), mD);
  const em = expm1Lanes(v, c, y);
  // tanhf's cases
  const ep2 = v.op(S.add, em, c.two);
  const tA = v.op(S.add, c.one, v.op(S.div, c.zero, x));
  const tB = v.op(S.sub, c.one, v.op(S.div, c.two, ep2));
  const tC = v.op(S.div, em, ep2);
  const tD = v.op(S.div, v.op(S.xor, em, c.signMask), ep2);
  let tt = v.sel(tA, tB, v.op(S.i32gtU, w, c.wB));
  tt = v.sel(tt, tC, v.op(S.i32gtU, w, c.wC));
  tt = v.sel(tt, tD, v.op(S.i32gtU, w, c.wD));
  tt = v.sel(tt, x, v.op(S.i32geU, w, c.wSub));
  return v.op(S.xor, tt, sign);
}

/** Emits expm1f of the 4 lanes of local `y` (the reduction, approximation and reconstruction as lane selects). */
function expm1Lanes(v: Vec, c: LaneConstants, y: number): number {
  const { one, two, mtwo, half, zero, iOne, iMinusOne, iZero, i127 } = c;
  const hy = v.op(S.and, y, c.absMask),
    ysign = v.shift(S.shrS, y, 31); // all ones where y < 0
  const mBig = v.op(S.i32gtU, hy, c.hBig),
    mMid = v.op(S.i32ltU, hy, c.hMid),
    mTiny = v.op(S.i32ltU, hy, c.hTiny);
  const kForm = v.op(S.truncS, v.op(S.add, v.op(S.mul, c.invln2, y), v.sel(c.mhalf, half, ysign)));
  const kBig = v.sel(v.sel(iMinusOne, iOne, ysign), kForm, mMid);
  const k = v.sel(kBig, iZero, mBig);
  const kf = v.op(S.convertS, k);
  const hi = v.op(S.sub, y, v.op(S.mul, kf, c.ln2hi)),
    lo = v.op(S.mul, kf, c.ln2lo);
  const yrBig = v.op(S.sub, hi, lo);
  const yr = v.sel(yrBig, y, mBig);
  const cc = v.sel(v.op(S.sub, v.op(S.sub, hi, yrBig), lo), zero, mBig);
  const hfx = v.op(S.mul, half, yr),
    hxs = v.op(S.mul, yr, hfx);
  const r1 = v.op(S.add, one, v.op(S.mul, hxs, v.op(S.add, c.q1, v.op(S.mul, hxs, c.q2))));
  const t = v.op(S.sub, c.three, v.op(S.mul, r1, hfx));
  const e = v.op(S.mul, hxs, v.op(S.div, v.op(S.sub, r1, t), v.op(S.sub, c.six, v.op(S.mul, yr, t))));
  const resK0 = v.op(S.sub, yr, v.op(S.sub, v.op(S.mul, yr, e), hxs));
  const e2 = v.op(S.sub, v.op(S.sub, v.op(S.mul, yr, v.op(S.sub, e, cc)), cc), hxs);
  const resKm1 = v.op(S.sub, v.op(S.mul, half, v.op(S.sub, yr, e2)), half);
  const resK1 = v.sel(
    v.op(S.mul, mtwo, v.op(S.sub, e2, v.op(S.add, yr, half))),
    v.op(S.add, one, v.op(S.mul, two, v.op(S.sub, yr, e2))),
    v.op(S.f32lt, yr, c.quarterNeg),
  );
  const twopk = v.shift(S.shl, v.op(S.i32add, i127, k), 23),
    twomk = v.shift(S.shl, v.op(S.i32sub, i127, k), 23);
  const resLt23 = v.op(S.mul, v.op(S.add, v.op(S.sub, yr, e2), v.op(S.sub, one, twomk)), twopk);
  const resGe23 = v.op(S.mul, v.op(S.add, v.op(S.sub, yr, v.op(S.add, e2, twomk)), one), twopk);
  let em = v.sel(resGe23, resLt23, v.op(S.i32geU, k, c.i23)); // k ≥ 2 here (k < 0 is −1 only)
  em = v.sel(resK1, em, v.op(S.i32eq, k, iOne));
  em = v.sel(resKm1, em, v.op(S.i32eq, k, iMinusOne));
  em = v.sel(resK0, em, v.op(S.i32eq, k, iZero));
  return v.sel(y, em, mTiny);
}

const buf = new Float32Array(1),
  bufU = new Uint32Array(buf.buffer);
const bitsOf = (x: number) => ((buf[0] = x), bufU[0]);
const fromBits = (u: number) => ((bufU[0] = u >>> 0), buf[0]);

/** musl's expm1f (src/math/expm1f.c) in float32 arithmetic, for float32 x. */
export function expm1f(x: number): number {
  const u = bitsOf(x),
    hx = u & 0x7fffffff,
    sign = u >>> 31;
  if (hx >= 0x4195b844) {
    if (hx > 0x7f800000) return x;
    if (sign) return -1;
    if (x > f(8.8721679688e1)) return Infinity;
  }
  let k: number,
    c = 0;
  if (hx > 0x3eb17218) {
    let hi: number, lo: number;
    if (hx < 0x3f851592) {
      k = sign ? -1 : 1;
      hi = sign ? f(x + LN2_HI) : f(x - LN2_HI);
      lo = sign ? -LN2_LO : LN2_LO;
    } else {
      k = Math.trunc(f(f(INVLN2 * x) + (sign ? -0.5 : 0.5)));
      hi = f(x - f(k * LN2_HI));
      lo = f(k * LN2_LO);
    }
    x = f(hi - lo);
    c = f(f(hi - x) - lo);
  } else if (hx < 0x33000000) return x;
  else k = 0;
  const hfx = f(0.5 * x),
    hxs = f(x * hfx);
  const r1 = f(1 + f(hxs * f(Q1 + f(hxs * Q2))));
  const t = f(3 - f(r1 * hfx));
  let e = f(hxs * f(f(r1 - t) / f(6 - f(x * t))));
  if (k === 0) return f(x - f(f(x * e) - hxs));
  e = f(f(f(x * f(e - c)) - c) - hxs);
  if (k === -1) return f(f(0.5 * f(x - e)) - 0.5);
  if (k === 1) return x < -0.25 ? f(-2 * f(e - f(x + 0.5))) : f(1 + f(2 * f(x - e)));
  const twopk = fromBits((0x7f + k) << 23);
  if (k < 0 || k > 56) {
    const y = f(f(x - e) + 1);
    return f((k === 128 ? f(f(y * 2) * 1.7014118346046923e38) : f(y * twopk)) - 1);
  }
  const twomk = fromBits((0x7f - k) << 23);
  return k < 23 ? f(f(f(x - e) + f(1 - twomk)) * twopk) : f(f(f(x - f(e + twomk)) + 1) * twopk);
}

/** musl's tanhf (src/math/tanhf.c) in float32 arithmetic, for float32 x. */
export function tanhf(x0: number): number {
  const u = bitsOf(x0),
    w = u & 0x7fffffff,
    x = fromBits(w);
  let t: number;
  if (w > 0x3f0c9f54) t = w > 0x41200000 ? f(1 + f(0 / x)) : f(1 - f(2 / f(expm1f(f(2 * x)) + 2)));
  else if (w > 0x3e82c578) {
    const e = expm1f(f(2 * x));
    t = f(e / f(e + 2));
  } else if (w >= 0x00800000) {
    const e = expm1f(f(-2 * x));
    t = f(-e / f(e + 2));
  } else t = x;
  return u >>> 31 ? -t : t;
}

type TanhModule = { tanh(x: number, out: number, n4: number): void };
/** The module over `mem` (built once per heap), or null where the engine lacks WebAssembly SIMD. */
const moduleFor = moduleOver<TanhModule>(() => [tanhFunc()], { tanh: 0 });

let enabled = true;

/** Switch the kernel off (false: the stock Tanh runs) or back on, to compare the two. Returns the previous setting. */
export function setWasmTanhEnabled(on: boolean): boolean {
  const was = enabled;
  enabled = on;
  return was;
}

/** tanh of a float32 tensor with this kernel, or null when the stock kernel should run (off, other dtypes, no heap). */
function fastTanh(args: { inputs: { x: tf.TensorInfo }; backend: WasmBackend }): tf.TensorInfo | null {
  const { x } = args.inputs,
    be = args.backend;
  if (!enabled || x.dtype !== 'float32') return null;
  const mem = heapOf(be);
  if (!mem) return null;
  const n = tf.util.sizeFromShape(x.shape),
    out = be.makeOutput(x.shape, 'float32');
  const px = be.dataIdMap.get(x.dataId).memoryOffset,
    po = be.dataIdMap.get(out.dataId).memoryOffset;
  const mod = moduleFor(mem),
    v0 = mod ? n - (n % 4) : 0;
  if (mod && v0) mod.tanh(px, po, v0 / 4);
  const H = new Float32Array(mem.buffer),
    x0 = px >>> 2,
    o0 = po >>> 2;
  for (let j = v0; j < n; j++) H[o0 + j] = tanhf(H[x0 + j]);
  return out;
}

/**
 * Register the SIMD Tanh over the stock kernel of the wasm backend (falls back to it where it does not apply).
 * Called by `registerWasmKernels` before `tf.setBackend('wasm')`; idempotent.
 */
export function registerWasmTanhKernel(): void {
  wrapStockKernel('Tanh', 'wasm', fastTanh);
}
