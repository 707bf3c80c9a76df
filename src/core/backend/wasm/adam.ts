/**
 * The Adam update of one parameter tensor as one kernel on tfjs' wasm backend (tfjs 4.22), for optim/adam.ts
 * `applyAdam`, where tfjs' AdamOptimizer.applyGradients runs 14 element-wise kernels per tensor (Mul, Mul, Add;
 * Square, Mul, Mul, Add; Div, Div; Sqrt, Add, Div, Mul, Add) and the clipped trainers one more (the gradient times the
 * clip scale): ≈ 730 kernel calls per `small` training step, most of their CPU time op dispatch
 * (docs/experiments/speed.md).
 *
 * Same bits as that path. Per element, in float32 with one rounding per operation, in tfjs' order
 * (tfjs-core/src/optimizers/adam_optimizer.ts; Kingma & Ba 2015, Algorithm 1), every scalar constant a float32 as
 * tfjs' scalar tensors make them:
 *   ĝ  = g·s                                   (s the global-norm clip scale; the composed path multiplies first too)
 *   m' = m·β₁ + ĝ·f32(1 − β₁)
 *   v' = v·β₂ + (ĝ·ĝ)·f32(1 − β₂)
 *   w' = ((m' / c₁) / (√(v' / c₂) + ε))·f32(−lr) + w, c₁ = f32(1 − β₁ᵗ), c₂ = f32(1 − β₂ᵗ).
 * Groups of four run as f32x4 SIMD lanes and the last n mod 4 elements as scalar f32 instructions, in a module
 * generated at start-up (`wasm/emit.ts`): WebAssembly's f32 add, mul, div and sqrt are IEEE 754 correctly rounded,
 * as tfjs' own wasm kernels are, and there is no fused multiply-add, so the same order gives the same words (only a
 * NaN's payload could differ, which WebAssembly leaves open). s·1 is exact, so s = 1 changes nothing.
 * test/core/backend/wasm/adam.test.ts compares weights and moments with tfjs' applyGradients word for word.
 */
import * as tf from '../../tf';
import { emitLoop as loop, FuncBuilder, F32, I32, Op, V128, moduleOver } from './emit';
import { heapOf, type WasmBackend } from './heap';
import { registerKernels } from '../register';

/** Kernel name registered for the wasm backend. */
export const WASM_ADAM_KERNEL = 'OpdWasmAdamUpdate';

/** Scalar f32 opcodes (WebAssembly Core §5.4.7). */
const F = { sqrt: 0x91, add: 0x92, mul: 0x94, div: 0x95 } as const;
/** f32x4 opcodes after the 0xfd prefix. */
const V = { load: 0x00, store: 0x0b, splat: 0x13, sqrt: 0xe3, add: 0xe4, mul: 0xe6, div: 0xe7 } as const;

/** Hyper-parameters of one update; every number becomes a float32 (round to nearest) as tfjs' scalars do. */
export interface WasmAdamHyper {
  /** Learning rate (> 0; the update multiplies by f32(−lr)). */
  lr: number;
  beta1: number;
  beta2: number;
  eps: number;
  /** Global-norm clip scale multiplied into the gradient first (1 = unclipped). */
  gradScale: number;
  /**
   * Bias corrections f32(1 − β₁ᵗ), f32(1 − β₂ᵗ), from the optimizer's accumulators (see
   * `adamCorrections`).
   */
  c1: number;
  c2: number;
}

/**
 * adam(w, m, v, g, wOut, mOut, vOut, n, s, β₁, 1−β₁, β₂, 1−β₂, c₁, c₂, ε, −lr): the update of n
 * floats (byte addresses; the f32 parameters already rounded by the call).
 */
function adamFunc(): FuncBuilder {
  const f = new FuncBuilder([I32, I32, I32, I32, I32, I32, I32, I32, F32, F32, F32, F32, F32, F32, F32, F32, F32]);
  const [w, m, v, g, wo, mo, vo, n] = [0, 1, 2, 3, 4, 5, 6, 7];
  const scalars = [8, 9, 10, 11, 12, 13, 14, 15, 16]; // s, b1, omb1, b2, omb2, c1, c2, eps, negLr
  const [s, b1, omb1, b2, omb2, c1, c2, eps, negLr] = scalars;
  const i = f.local(I32),
    n4 = f.local(I32),
    rem = f.local(I32),
    o = f.local(I32);
  const vec = scalars.map(() => f.local(V128));
  const [vs, vb1, vomb1, vb2, vomb2, vc1, vc2, veps, vlr] = vec;
  const vg = f.local(V128),
    vm = f.local(V128),
    vv = f.local(V128);
  const sg = f.local(F32),
    sm = f.local(F32),
    sv = f.local(F32);
  scalars.forEach((p, k) => f.get(p).simd(V.splat).set(vec[k]));
  f.get(n).i32(2).op(0x76 /* i32.shr_u */).set(n4);
  f.get(n).i32(3).op(0x71 /* i32.and */).set(rem);
  f.i32(0).set(o);
  const at = (base: number) => f.get(base).get(o).op(Op.i32Add);
  // Four at a time.
  loop(f, i, n4, () => {
    at(g).simd(V.load, 0).get(vs).simd(V.mul).set(vg);
    at(m).simd(V.load, 0).get(vb1).simd(V.mul).get(vg).get(vomb1).simd(V.mul).simd(V.add).set(vm);
    at(v).simd(V.load, 0).get(vb2).simd(V.mul).get(vg).get(vg).simd(V.mul).get(vomb2).simd(V.mul).simd(V.add).set(vv);
    at(mo).get(vm).simd(V.store, 0);
    at(vo).get(vv).simd(V.store, 0);
    at(wo);
    f.get(vm)
      .get(vc1)
      .simd(V.div)
      .get(vv)
      .get(vc2)
      .simd(V.div)
      .simd(V.sqrt)
      .get(veps)
      .simd(V.add)
      .simd(V.div)
      .get(vlr)
      .simd(V.mul);
    at(w).simd(V.load, 0).simd(V.add).simd(V.store, 0);
    f.get(o).i32(16).op(Op.i32Add).set(o);
  });
  // The last n mod 4, one at a time, the same operations on scalars.
  loop(f, i, rem, () => {
    at(g).mem(Op.f32Load).get(s).op(F.mul).set(sg);
    at(m).mem(Op.f32Load).get(b1).op(F.mul).get(sg).get(omb1).op(F.mul).op(F.add).set(sm);
    at(v).mem(Op.f32Load).get(b2).op(F.mul).get(sg).get(sg).op(F.mul).get(omb2).op(F.mul).op(F.add).set(sv);
    at(mo).get(sm).mem(Op.f32Store);
    at(vo).get(sv).mem(Op.f32Store);
    at(wo);
    f.get(sm).get(c1).op(F.div).get(sv).get(c2).op(F.div).op(F.sqrt).get(eps).op(F.add).op(F.div).get(negLr).op(F.mul);
    at(w).mem(Op.f32Load).op(F.add).mem(Op.f32Store);
    f.get(o).i32(4).op(Op.i32Add).set(o);
  });
  return f;
}

type AdamModule = {
  adam(
    w: number,
    m: number,
    v: number,
    g: number,
    wo: number,
    mo: number,
    vo: number,
    n: number,
    s: number,
    b1: number,
    omb1: number,
    b2: number,
    omb2: number,
    c1: number,
    c2: number,
    eps: number,
    negLr: number,
  ): void;
};
/** The module over `mem` (built once per heap), or null where the engine lacks WebAssembly SIMD. */
const moduleFor = moduleOver<AdamModule>(() => [adamFunc()], { adam: 0 });

type Args = { inputs: Record<'w' | 'm' | 'v' | 'g', tf.TensorInfo>; backend: WasmBackend; attrs: WasmAdamHyper };

/** w, m, v, g float32 of one shape → [w', m', v'] (fresh, that shape). */
function adamKernel({ inputs: { w, m, v, g }, backend, attrs: h }: Args): tf.TensorInfo[] {
  const mem = heapOf(backend),
    mod = mem && moduleFor(mem);
  if (!mod)
    throw new Error(
      `${WASM_ADAM_KERNEL}: the wasm backend's heap is not reachable or the engine lacks WebAssembly SIMD ` +
        `(check wasmAdamUsable first)`,
    );
  const n = w.shape.reduce((a, b) => a * b, 1);
  const addr = (t: tf.TensorInfo) => backend.dataIdMap.get(t.dataId).memoryOffset;
  const outs = [0, 1, 2].map(() => backend.makeOutput(w.shape, 'float32'));
  mod.adam(
    addr(w),
    addr(m),
    addr(v),
    addr(g),
    addr(outs[0]),
    addr(outs[1]),
    addr(outs[2]),
    n,
    h.gradScale,
    h.beta1,
    1 - h.beta1,
    h.beta2,
    1 - h.beta2,
    h.c1,
    h.c2,
    h.eps,
    -h.lr,
  );
  return outs;
}

let registered = false;
let enabled = true;

/** Register the kernel for the wasm backend (idempotent; no set-up, so any time). */
export function registerWasmAdamKernel(): void {
  if (registered) return;
  registered = true;
  registerKernels('wasm', {
    [WASM_ADAM_KERNEL]: adamKernel,
  });
}

/**
 * Whether optim/adam.ts `applyAdam` runs this kernel: registered (by `registerWasmKernels`), switched on, the wasm
 * backend active with its heap reachable and WebAssembly SIMD.
 */
export function wasmAdamUsable(): boolean {
  if (!(registered && enabled && tf.getBackend() === 'wasm')) return false;
  const mem = heapOf(tf.backend() as unknown as WasmBackend);
  return !!mem && !!moduleFor(mem);
}

/**
 * Switch the kernel off (false: tfjs' applyGradients runs) or back on, to compare the two. Returns the previous
 * setting.
 */
export function setWasmAdamEnabled(on: boolean): boolean {
  const was = enabled;
  enabled = on;
  return was;
}

/**
 * The bias corrections c₁ = f32(1 − β₁ᵗ), c₂ = f32(1 − β₂ᵗ) and the advanced accumulators
 * f32(β₁ᵗ·β₁), f32(β₂ᵗ·β₂) from the float32 accumulators acc1 = β₁ᵗ, acc2 = β₂ᵗ, as tfjs'
 * Sub and Mul kernels compute them: the double-precision result of one +, −, × of float32s rounded to float32 is the
 * correctly rounded float32 result (53 ≥ 2·24 + 2 bits; Figueroa 1995, "When is double rounding innocuous?"), and
 * the product of two float32s is exact in double. Returns [c₁, c₂, β₁ᵗ⁺¹, β₂ᵗ⁺¹] (plain numbers,
 * each a float32 value).
 */
export function adamCorrections(
  acc1: number,
  acc2: number,
  beta1: number,
  beta2: number,
): [number, number, number, number] {
  const r = Math.fround;
  return [r(1 - acc1), r(1 - acc2), r(acc1 * r(beta1)), r(acc2 * r(beta2))];
}

/**
 * One Adam update of one tensor: weight w, moments m, v and gradient g (float32, one shape, any length) → fresh
 * [w', m', v'] of w's shape (formula in the module docstring). Not differentiable; one kernel call.
 * @throws Error when a tensor is not float32 or its shape differs from w's (name the tensor), or when the kernel
 * cannot run (check `wasmAdamUsable`).
 */
export function wasmAdamUpdate(
  w: tf.Tensor,
  m: tf.Tensor,
  v: tf.Tensor,
  g: tf.Tensor,
  h: WasmAdamHyper,
): [tf.Tensor, tf.Tensor, tf.Tensor] {
  if (!wasmAdamUsable())
    throw new Error(
      'wasmAdamUpdate: needs the wasm backend with WebAssembly SIMD and registerWasmKernels() (check ' +
        'wasmAdamUsable); use tfjs AdamOptimizer.applyGradients instead',
    );
  for (const [name, t] of [
    ['w', w],
    ['m', m],
    ['v', v],
    ['g', g],
  ] as const) {
    if (t.dtype !== 'float32')
      throw new Error(`wasmAdamUpdate: ${name} is ${t.dtype}; Adam updates float32 tensors only`);
    if (!tf.util.arraysEqual(t.shape, w.shape))
      throw new Error(
        `wasmAdamUpdate: ${name} has shape [${t.shape}] but the weight has [${w.shape}]; pass the ` +
          `weight's own moments and gradient`,
      );
  }
  const out = tf
    .engine()
    .runKernel(
      WASM_ADAM_KERNEL,
      { w, m, v, g } as unknown as tf.NamedTensorMap,
      h as unknown as tf.NamedAttrMap,
    ) as unknown as tf.Tensor[];
  return [out[0], out[1], out[2]];
}
