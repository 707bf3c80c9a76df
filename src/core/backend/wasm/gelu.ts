/**
 * GELU's element-wise chains as single kernels on tfjs' wasm backend, for the training step (model/ops.ts `gelu`):
 * the forward's polynomial before tfjs' Tanh (5 kernels: Multiply, Multiply, Multiply, Add, Multiply), its value
 * after it (3 kernels: Multiply, Add, Multiply), and the closed-form backward (12 kernels: 8 Multiply, 3 Add, 1 Sub)
 * — 20 passes over [B·T, 4d] floats (2 M for `small` at B 32 × T 128) become 3.
 *
 * Each runs as f32x4 SIMD in a small module generated at start-up (`wasm/emit.ts`, over the backend's heap), with
 * the last n mod 4 elements (and everything, where the engine lacks SIMD) in JavaScript; a JavaScript loop alone was
 * slower than tfjs' composed kernels (182 against ~130 ms of CPU time per small step).
 *
 * Same bits as the composed ops: each kernel runs the same float32 operations in the same order as tfjs' wasm kernels
 * (an f32x4 lane and `Math.fround(a ∘ b)` of two float32 values both give the correctly rounded float32 result, as
 * the C++ kernels compute it; WebAssembly has no fused multiply-add; scalar constants are the float32 values tfjs
 * makes of them). tfjs' own Tanh stays. Only a NaN's payload bits may differ (WebAssembly leaves them open).
 * test/core/backend/wasm/gelu.test.ts compares forward values and gradients with the composed ops bit for bit.
 */
import * as tf from '../../tf';
import { FuncBuilder, I32, Op, V128, moduleOver } from './emit';
import { heapOf, type WasmBackend } from './heap';
import { registerKernels } from '../register';

const f = Math.fround;
/** √(2/π) and the cubic coefficient as float32 (model/ops.ts GELU_C, 0.044715). */
const C = f(Math.sqrt(2 / Math.PI)),
  A = f(0.044715);
/** The backward's scalars as ops.ts passes them: 0.5·√(2/π) and 3·0.044715, rounded to float32 once. */
const HALF_C = f(0.5 * Math.sqrt(2 / Math.PI)),
  THREE_A = f(3 * 0.044715);

/** Kernel names registered for the wasm backend. */
export const GELU_KERNELS = { inner: 'OpdGeluPoly', out: 'OpdGeluValue', grad: 'OpdGeluGrad' } as const;

type Args<K extends string> = { inputs: Record<K, tf.TensorInfo>; backend: WasmBackend };

/** f32x4 opcodes after the 0xfd prefix (WebAssembly SIMD): load, store, splat, add, sub, mul. */
const V = { load: 0x00, store: 0x0b, splat: 0x13, add: 0xe4, sub: 0xe5, mul: 0xe6 } as const;

/** Expression of one element: a stack program over the loaded inputs (by index) and constants. */
type Expr = { in: number } | { c: number } | [typeof V.add | typeof V.sub | typeof V.mul, Expr, Expr];

/**
 * A function (inputs…, out, n4) that evaluates `e` on n4 vectors of 4 floats: each input and the output advance 16
 * bytes per vector. f32x4 lanes round as scalar float32 operations do (IEEE 754, no fused multiply-add).
 */
function vecFunc(inputs: number, e: Expr): FuncBuilder {
  const f = new FuncBuilder(Array<typeof I32>(inputs + 2).fill(I32));
  const out = inputs,
    n4 = inputs + 1,
    i = f.local(I32);
  const loaded = Array.from({ length: inputs }, () => f.local(V128));
  const consts = new Map<number, number>();
  const collect = (x: Expr): void => {
    if (Array.isArray(x)) return void (collect(x[1]), collect(x[2]));
    if ('c' in x && !consts.has(x.c)) {
      const l = f.local(V128);
      consts.set(x.c, l);
      const b = new Uint8Array(new Float32Array([x.c]).buffer);
      f.op(Op.f32Const, ...b)
        .simd(V.splat)
        .set(l);
    }
  };
  collect(e);
  const emit = (x: Expr): void => {
    if (Array.isArray(x)) return void (emit(x[1]), emit(x[2]), f.simd(x[0]));
    f.get('in' in x ? loaded[x.in] : (consts.get(x.c) as number));
  };
  f.op(Op.block, 0x40, Op.loop, 0x40);
  f.get(i).get(n4).op(Op.i32GeU, Op.brIf, 1);
  for (let k = 0; k < inputs; k++) f.get(k).simd(V.load, 0).set(loaded[k]);
  f.get(out);
  emit(e);
  f.simd(V.store, 0);
  for (let k = 0; k <= inputs; k++) f.get(k).i32(16).op(Op.i32Add).set(k);
  f.get(i).i32(1).op(Op.i32Add).set(i);
  f.op(Op.br, 0, Op.end, Op.end);
  return f;
}

const add = (a: Expr, b: Expr): Expr => [V.add, a, b],
  sub = (a: Expr, b: Expr): Expr => [V.sub, a, b],
  mul = (a: Expr, b: Expr): Expr => [V.mul, a, b];
const X: Expr = { in: 0 },
  T: Expr = { in: 1 },
  DY: Expr = { in: 2 },
  k = (c: number): Expr => ({ c });
/** The three chains as expressions, in ops.ts' order of operations (see the kernels below). */
const POLY = mul(add(X, mul(mul(mul(X, X), X), k(A))), k(C));
const VALUE = mul(mul(X, k(0.5)), add(T, k(1)));
const GRAD = mul(
  DY,
  add(
    mul(add(T, k(1)), k(0.5)),
    mul(mul(sub(k(1), mul(T, T)), mul(X, k(HALF_C))), add(mul(mul(X, X), k(THREE_A)), k(1))),
  ),
);

/** The SIMD functions: poly(x, out, n4), value(x, t, out, n4), grad(x, t, dy, out, n4). */
interface GeluModule {
  poly(x: number, out: number, n4: number): void;
  value(x: number, t: number, out: number, n4: number): void;
  grad(x: number, t: number, dy: number, out: number, n4: number): void;
}
/** The module over `mem` (built once per heap), or null where the engine lacks WebAssembly SIMD. */
const moduleFor = moduleOver<GeluModule>(() => [vecFunc(1, POLY), vecFunc(2, VALUE), vecFunc(3, GRAD)], {
  poly: 0,
  value: 1,
  grad: 2,
});

function memOf(backend: WasmBackend): WebAssembly.Memory {
  const mem = heapOf(backend);
  if (!mem) throw new Error("wasm GELU kernels: the wasm backend's heap is not reachable");
  return mem;
}
const heap = (backend: WasmBackend) => new Float32Array(memOf(backend).buffer);
/** Elements the SIMD module runs (whole vectors of 4; none without SIMD), the rest run in JavaScript. */
const vecPart = (backend: WasmBackend, n: number) => (moduleFor(memOf(backend)) ? n - (n % 4) : 0);
const at = (backend: WasmBackend, t: tf.TensorInfo) => backend.dataIdMap.get(t.dataId).memoryOffset >>> 2;

/** x → √(2/π)·(x + 0.044715·x·x·x), as ops.ts: mul(add(x, mul(mul(mul(x, x), x), 0.044715)), √(2/π)). */
function geluPoly({ inputs: { x }, backend }: Args<'x'>): tf.TensorInfo {
  const n = tf.util.sizeFromShape(x.shape),
    out = backend.makeOutput(x.shape, 'float32');
  const H = heap(backend),
    px = at(backend, x),
    po = at(backend, out),
    v0 = vecPart(backend, n);
  if (v0) moduleFor(memOf(backend))!.poly(px * 4, po * 4, v0 / 4);
  for (let i = v0; i < n; i++) {
    const v = H[px + i];
    H[po + i] = f(f(v + f(f(f(v * v) * v) * A)) * C);
  }
  return out;
}

/** x, t = tanh(poly) → 0.5·x·(1 + t), as ops.ts: mul(mul(x, 0.5), add(t, 1)). */
function geluValue({ inputs: { x, t }, backend }: Args<'x' | 't'>): tf.TensorInfo {
  const n = tf.util.sizeFromShape(x.shape),
    out = backend.makeOutput(x.shape, 'float32');
  const H = heap(backend),
    px = at(backend, x),
    pt = at(backend, t),
    po = at(backend, out),
    v0 = vecPart(backend, n);
  if (v0) moduleFor(memOf(backend))!.value(px * 4, pt * 4, po * 4, v0 / 4);
  for (let i = v0; i < n; i++) H[po + i] = f(f(H[px + i] * 0.5) * f(H[pt + i] + 1));
  return out;
}

/**
 * x, t, dy → dx = dy·(0.5·(1 + t) + (1 − t²)·(0.5·√(2/π)·x)·(1 + 3·0.044715·x²)), in ops.ts' order:
 * mul(dy, add(mul(add(t, 1), 0.5), mul(mul(sub(1, mul(t, t)), mul(x, 0.5·C)), add(mul(mul(x, x), 3·A), 1)))).
 */
function geluGrad({ inputs: { x, t, dy }, backend }: Args<'x' | 't' | 'dy'>): tf.TensorInfo {
  const n = tf.util.sizeFromShape(x.shape),
    out = backend.makeOutput(x.shape, 'float32');
  const H = heap(backend),
    px = at(backend, x),
    pt = at(backend, t),
    pd = at(backend, dy),
    po = at(backend, out),
    v0 = vecPart(backend, n);
  if (v0) moduleFor(memOf(backend))!.grad(px * 4, pt * 4, pd * 4, po * 4, v0 / 4);
  for (let i = v0; i < n; i++) {
    const v = H[px + i],
      s = H[pt + i];
    const du = f(f(f(1 - f(s * s)) * f(v * HALF_C)) * f(f(f(v * v) * THREE_A) + 1));
    H[po + i] = f(H[pd + i] * f(f(f(s + 1) * 0.5) + du));
  }
  return out;
}

let registered = false;
let enabled = true;

/** Register the GELU kernels for the wasm backend (idempotent; no set-up, so any time). */
export function registerWasmGeluKernels(): void {
  if (registered) return;
  registered = true;
  registerKernels('wasm', {
    [GELU_KERNELS.inner]: geluPoly,
    [GELU_KERNELS.out]: geluValue,
    [GELU_KERNELS.grad]: geluGrad,
  });
}

/** Whether model/ops.ts `gelu` runs these kernels: registered, switched on, the wasm backend active. */
export function wasmGeluUsable(): boolean {
  return registered && enabled && tf.getBackend() === 'wasm';
}

/**
 * Switch the kernels off (false: the composed ops run) or back on, to compare the two. Returns the previous setting.
 */
export function setWasmGeluEnabled(on: boolean): boolean {
  const was = enabled;
  enabled = on;
  return was;
}

/** Runs one of GELU_KERNELS on float32 inputs of one shape. */
export function runGeluKernel(
  name: (typeof GELU_KERNELS)[keyof typeof GELU_KERNELS],
  inputs: Record<string, tf.Tensor>,
): tf.Tensor {
  return tf.engine().runKernel(name, inputs as unknown as tf.NamedTensorMap, {}) as tf.Tensor;
}
