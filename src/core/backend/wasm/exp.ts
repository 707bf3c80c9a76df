/**
 * exp on tfjs' wasm backend (tfjs 4.22) in JavaScript over the backend's heap, registered over the stock Exp kernel
 * for float32 inputs. The stock kernel calls the C library's scalar `expf` per element through a function pointer
 * (musl's, from ARM's optimized-routines: exp(x) = 2^(k/32)·2^(r/32) with a 32-entry table and a cubic in double
 * precision); the `small` bench step's log-softmax runs it twice over [4096, 1024], ≈ 70 ms of CPU time
 * (docs/experiments/speed.md), and the trainers' log-softmax and entropy over [tokens, vocabulary] likewise.
 *
 * Same bits: this is the same algorithm in the same double-precision operations (JavaScript numbers are IEEE 754
 * doubles and V8 fuses no multiply-add), rounded once to float32 at the end as `expf` does; its special cases
 * (|x| ≥ 88, ±∞, NaN) follow `expf`'s. The table holds 2^(i/32) rounded to the nearest double (each checked
 * exactly when it was written). V8 runs this loop about twice as fast as the stock kernel.
 * test/core/backend/wasm/exp.test.ts compares it with the stock kernel word for word on 2^20 random bit patterns and
 * around every threshold; scripts/wasm-unary-exhaustive.ts compares all 2^32 float32 inputs (0 differ;
 * docs/experiments/speed.md).
 */
import * as tf from '../../tf';
import { heapOf, type WasmBackend } from './heap';
import { wrapStockKernel } from '../register';

/** 2^(i/32), i = 0…31, the nearest doubles (musl src/math/exp2f_data.c's table before its index is folded in). */
const TAB = Float64Array.of(
  1.0,
  1.0218971486541166,
  1.0442737824274138,
  1.0671404006768237,
  1.0905077326652577,
  1.1143867425958924,
  1.1387886347566916,
  1.1637248587775775,
  1.189207115002721,
  1.215247359980469,
  1.241857812073484,
  1.2690509571917332,
  1.2968395546510096,
  1.3252366431597413,
  1.3542555469368927,
  1.383909881963832,
  1.4142135623730951,
  1.4451808069770467,
  1.4768261459394993,
  1.5091644275934228,
  1.5422108254079407,
  1.5759808451078865,
  1.6104903319492543,
  1.6457554781539649,
  1.681792830507429,
  1.7186192981224779,
  1.7562521603732995,
  1.7947090750031072,
  1.8340080864093424,
  1.8741676341103,
  1.9152065613971474,
  1.9571441241754002,
);
/** 2^(j − 170), j = 0…319: exact powers of two for 2^⌊k/32⌋. */
const POW2 = Float64Array.from({ length: 320 }, (_, j) => 2 ** (j - 170));
const N = 32;
/** 32/ln 2, 1.5·2^52 (rounds to an integer when added), and the cubic's coefficients scaled by 1/32ⁿ, as in musl. */
const INVLN2N = 0x171547652b82fe * 2 ** -52 * N,
  SHIFT = 1.5 * 2 ** 52;
const C0 = (0x1c6af84b912394 * 2 ** -57) / N / N / N,
  C1 = (0x1ebfce50fac4f3 * 2 ** -55) / N / N,
  C2 = (0x162e42ff0c52d6 * 2 ** -53) / N;
/** log(2^128) and log(2^-150) as float32 (0x1.62e42ep6f, 0x1.9fe368p6f): beyond them expf overflows / underflows. */
const OFLOW = 0x162e42e * 2 ** -18,
  UFLOW = -(0x19fe368 * 2 ** -18);

/** The special cases of musl's expf, for |x| ≥ 88 or NaN: a result, or NaN to go on with the main path. */
function special(x: number): number {
  if (x === -Infinity) return 0;
  if (!Number.isFinite(x)) return x + x; // +∞, NaN
  if (x > OFLOW) return Infinity;
  if (x < UFLOW) return 0;
  return NaN; // in range: the main path
}

/** expf(x) for float32 x as a double (assigning it to a Float32Array rounds it as expf's final conversion does). */
export function expf(x: number): number {
  if (!(Math.abs(x) < 88)) {
    const s = special(x);
    if (!Number.isNaN(s) || Number.isNaN(x)) return s;
  }
  const z = INVLN2N * x;
  const k = z + SHIFT - SHIFT;
  const r = z - k;
  const s = TAB[k & 31] * POW2[(k >> 5) + 170];
  return ((C0 * r + C1) * (r * r) + (C2 * r + 1)) * s;
}

/** out[i] = expf(src[i]) over `n` float32 words of the heap (word offsets). */
function expLoop(H: Float32Array, src: number, dst: number, n: number): void {
  for (let i = 0; i < n; i++) {
    const x = H[src + i];
    if (!(Math.abs(x) < 88)) {
      H[dst + i] = expf(x);
      continue;
    }
    const z = INVLN2N * x;
    const k = z + SHIFT - SHIFT;
    const r = z - k;
    H[dst + i] = ((C0 * r + C1) * (r * r) + (C2 * r + 1)) * (TAB[k & 31] * POW2[(k >> 5) + 170]);
  }
}

let enabled = true;

/** Switch the kernel off (false: the stock Exp runs) or back on, to compare the two. Returns the previous setting. */
export function setWasmExpEnabled(on: boolean): boolean {
  const was = enabled;
  enabled = on;
  return was;
}

/** exp of a float32 tensor, or null when the stock kernel should run (switched off, other dtypes, no heap). */
function fastExp(args: { inputs: { x: tf.TensorInfo }; backend: WasmBackend }): tf.TensorInfo | null {
  const { x } = args.inputs,
    be = args.backend;
  if (!enabled || x.dtype !== 'float32') return null;
  const mem = heapOf(be);
  if (!mem) return null;
  const n = tf.util.sizeFromShape(x.shape),
    out = be.makeOutput(x.shape, 'float32');
  const H = new Float32Array(mem.buffer); // after makeOutput: a growing heap replaces its buffer
  expLoop(H, be.dataIdMap.get(x.dataId).memoryOffset >>> 2, be.dataIdMap.get(out.dataId).memoryOffset >>> 2, n);
  return out;
}

/**
 * Register this Exp over the stock kernel of the wasm backend (falls back to it where it does not apply). Called by
 * `registerWasmKernels` before `tf.setBackend('wasm')`; idempotent.
 */
export function registerWasmExpKernel(): void {
  wrapStockKernel('Exp', 'wasm', fastExp);
}
