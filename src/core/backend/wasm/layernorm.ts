/**
 * LayerNorm's forward and closed-form backward (model/ops.ts `composedLayerNorm`) as one kernel each on tfjs' wasm
 * backend (tfjs 4.22), instead of the composed chains: forward `moments`, Sub, Add, Rsqrt and three element-wise
 * kernels with their broadcasts; backward 9 element-wise and Mean kernels. In the `small` training step (9 LayerNorms
 * over [4096, 128]) those were ≈ 150 kernel calls per step (docs/experiments/speed.md).
 *
 * Same bits as the composed ops. Per row of d floats, the forward computes, in float32 with one rounding per
 * operation as tfjs' kernels do (their Sum and Mean add the row's elements in order from 0; Mean divides the sum by
 * d; Rsqrt is 1 / sqrt(v) with the square root rounded first):
 *   μ = (Σ x) / d, xc = x − μ, σ² = (Σ xc·xc) / d, r = 1 / √(σ² + 1e-5), value = ((xc·r)·γ) + β;
 * and the backward, from the saved xc and r, with x̂ = xc·r and g = dy·γ:
 *   dx = r·((g − (Σ g)/d) − x̂·((Σ g·x̂)/d)), and dy·x̂ for dγ's column sums.
 * The row sums run as scalar float32 additions in order (their rounding depends on it), the rest as f32x4 SIMD in a
 * module generated at start-up (`wasm/emit.ts`): IEEE 754 float32 lanes, no fused multiply-add, the same results.
 * test/core/backend/wasm/layernorm.test.ts compares values and gradients with the composed ops word for word.
 */
import * as tf from '../../tf';
import { emitBump as bump, emitLoop as loop, FuncBuilder, F32, I32, Op, V128, moduleOver } from './emit';
import { heapOf, type WasmBackend } from './heap';
import { registerKernels } from '../register';

/** Kernel names registered for the wasm backend. */
export const LAYERNORM_KERNELS = { forward: 'OpdLayerNorm', backward: 'OpdLayerNormGrad' } as const;

/** Scalar f32 opcodes not in wasm-emit's Op table (WebAssembly Core §5.4.7). */
const F = { sub: 0x93, mul: 0x94, add: 0x92, div: 0x95, sqrt: 0x91, convertI32U: 0xb3 } as const;
/** f32x4 opcodes after the 0xfd prefix. */
const V = { load: 0x00, store: 0x0b, splat: 0x13, add: 0xe4, sub: 0xe5, mul: 0xe6 } as const;

const f32Bytes = (v: number) => [...new Uint8Array(new Float32Array([v]).buffer)];

/** ln(x, g, b, out, xc, r, rows, d4): the forward over `rows` rows of d = 4·d4 floats (byte addresses). */
function forwardFunc(): FuncBuilder {
  const f = new FuncBuilder([I32, I32, I32, I32, I32, I32, I32, I32]);
  const [x, g, b, out, xc, rp, rows, d4] = [0, 1, 2, 3, 4, 5, 6, 7];
  const row = f.local(I32),
    i = f.local(I32),
    d = f.local(I32),
    p = f.local(I32),
    q = f.local(I32),
    pg = f.local(I32),
    pb = f.local(I32);
  const s = f.local(F32),
    mu = f.local(F32),
    c = f.local(F32),
    dF = f.local(F32),
    rr = f.local(F32);
  const vr = f.local(V128);
  f.get(d4).i32(4).op(Op.i32Mul).set(d);
  f.get(d).op(F.convertI32U).set(dF);
  loop(f, row, rows, () => {
    // μ = (Σ x) / d, in order
    f.op(Op.f32Const, ...f32Bytes(0)).set(s);
    f.get(x).set(p);
    loop(f, i, d, () => {
      f.get(s).get(p).mem(Op.f32Load).op(F.add).set(s);
      bump(f, p, 4);
    });
    f.get(s).get(dF).op(F.div).set(mu);
    // xc = x − μ; Σ xc·xc in order
    f.op(Op.f32Const, ...f32Bytes(0)).set(s);
    f.get(x).set(p);
    f.get(xc).set(q);
    loop(f, i, d, () => {
      f.get(p).mem(Op.f32Load).get(mu).op(F.sub).set(c);
      f.get(q).get(c).mem(Op.f32Store);
      f.get(s).get(c).get(c).op(F.mul).op(F.add).set(s);
      bump(f, p, 4);
      bump(f, q, 4);
    });
    // r = 1 / √(σ² + 1e-5)
    f.op(Op.f32Const, ...f32Bytes(1))
      .get(s)
      .get(dF)
      .op(F.div)
      .op(Op.f32Const, ...f32Bytes(1e-5))
      .op(F.add)
      .op(F.sqrt)
      .op(F.div)
      .set(rr);
    f.get(rp).get(rr).mem(Op.f32Store);
    // value = ((xc·r)·γ) + β, four at a time
    f.get(rr).simd(V.splat).set(vr);
    f.get(xc).set(q);
    f.get(g).set(pg);
    f.get(b).set(pb);
    loop(f, i, d4, () => {
      f.get(out)
        .get(q)
        .simd(V.load, 0)
        .get(vr)
        .simd(V.mul)
        .get(pg)
        .simd(V.load, 0)
        .simd(V.mul)
        .get(pb)
        .simd(V.load, 0)
        .simd(V.add)
        .simd(V.store, 0);
      bump(f, out, 16);
      bump(f, q, 16);
      bump(f, pg, 16);
      bump(f, pb, 16);
    });
    f.get(d).i32(4).op(Op.i32Mul).set(p);
    f.get(x).get(p).op(Op.i32Add).set(x);
    f.get(xc).get(p).op(Op.i32Add).set(xc);
    bump(f, rp, 4);
  });
  return f;
}

/** lng(dy, xc, r, g, dx, dyxh, rows, d4): the backward over `rows` rows of d = 4·d4 floats (byte addresses). */
function backwardFunc(): FuncBuilder {
  const f = new FuncBuilder([I32, I32, I32, I32, I32, I32, I32, I32]);
  const [dy, xc, rp, g, dx, dyxh, rows, d4] = [0, 1, 2, 3, 4, 5, 6, 7];
  const row = f.local(I32),
    i = f.local(I32),
    d = f.local(I32),
    pd = f.local(I32),
    pc = f.local(I32),
    pg = f.local(I32),
    bytes = f.local(I32);
  const s1 = f.local(F32),
    s2 = f.local(F32),
    gi = f.local(F32),
    rr = f.local(F32),
    dF = f.local(F32);
  const vr = f.local(V128),
    vmg = f.local(V128),
    vmgx = f.local(V128),
    vxh = f.local(V128),
    vdy = f.local(V128),
    vg = f.local(V128);
  f.get(d4).i32(4).op(Op.i32Mul).set(d);
  f.get(d).op(F.convertI32U).set(dF);
  f.get(d).i32(4).op(Op.i32Mul).set(bytes);
  loop(f, row, rows, () => {
    f.get(rp).mem(Op.f32Load).set(rr);
    // Σ g and Σ g·x̂ in order, g = dy·γ, x̂ = xc·r
    f.op(Op.f32Const, ...f32Bytes(0)).set(s1);
    f.op(Op.f32Const, ...f32Bytes(0)).set(s2);
    f.get(dy).set(pd);
    f.get(xc).set(pc);
    f.get(g).set(pg);
    loop(f, i, d, () => {
      f.get(pd).mem(Op.f32Load).get(pg).mem(Op.f32Load).op(F.mul).set(gi);
      f.get(s1).get(gi).op(F.add).set(s1);
      f.get(s2).get(gi).get(pc).mem(Op.f32Load).get(rr).op(F.mul).op(F.mul).op(F.add).set(s2);
      bump(f, pd, 4);
      bump(f, pc, 4);
      bump(f, pg, 4);
    });
    f.get(rr).simd(V.splat).set(vr);
    f.get(s1).get(dF).op(F.div).simd(V.splat).set(vmg);
    f.get(s2).get(dF).op(F.div).simd(V.splat).set(vmgx);
    // dx = r·((g − mean g) − x̂·mean(g·x̂)); dy·x̂
    f.get(dy).set(pd);
    f.get(xc).set(pc);
    f.get(g).set(pg);
    loop(f, i, d4, () => {
      f.get(pd).simd(V.load, 0).set(vdy);
      f.get(pc).simd(V.load, 0).get(vr).simd(V.mul).set(vxh);
      f.get(vdy).get(pg).simd(V.load, 0).simd(V.mul).set(vg);
      f.get(dx)
        .get(vr)
        .get(vg)
        .get(vmg)
        .simd(V.sub)
        .get(vxh)
        .get(vmgx)
        .simd(V.mul)
        .simd(V.sub)
        .simd(V.mul)
        .simd(V.store, 0);
      f.get(dyxh).get(vdy).get(vxh).simd(V.mul).simd(V.store, 0);
      bump(f, pd, 16);
      bump(f, pc, 16);
      bump(f, pg, 16);
      bump(f, dx, 16);
      bump(f, dyxh, 16);
    });
    f.get(dy).get(bytes).op(Op.i32Add).set(dy);
    f.get(xc).get(bytes).op(Op.i32Add).set(xc);
    bump(f, rp, 4);
  });
  return f;
}

type LayerNormModule = {
  ln(x: number, g: number, b: number, out: number, xc: number, r: number, rows: number, d4: number): void;
  lng(dy: number, xc: number, r: number, g: number, dx: number, dyxh: number, rows: number, d4: number): void;
};
/** The module over `mem` (built once per heap), or null where the engine lacks WebAssembly SIMD. */
const moduleFor = moduleOver<LayerNormModule>(() => [forwardFunc(), backwardFunc()], { ln: 0, lng: 1 });

type Args<K extends string> = { inputs: Record<K, tf.TensorInfo>; backend: WasmBackend };
const addr = (backend: WasmBackend, t: tf.TensorInfo) => backend.dataIdMap.get(t.dataId).memoryOffset;

function moduleOf(backend: WasmBackend): LayerNormModule {
  const mem = heapOf(backend),
    mod = mem && moduleFor(mem);
  if (!mod)
    throw new Error(
      "wasm LayerNorm kernels: the wasm backend's heap is not reachable or the engine lacks WebAssembly " +
        'SIMD (check wasmLayerNormUsable first)',
    );
  return mod;
}

/** x [R, d], γ [d], β [d] → [value [R, d], xc [R, d], r [R, 1]] (float32). */
function layerNormForward({ inputs: { x, gamma, beta }, backend }: Args<'x' | 'gamma' | 'beta'>): tf.TensorInfo[] {
  const [R, d] = x.shape;
  const value = backend.makeOutput([R, d], 'float32'),
    xc = backend.makeOutput([R, d], 'float32'),
    r = backend.makeOutput([R, 1], 'float32');
  moduleOf(backend).ln(
    addr(backend, x),
    addr(backend, gamma),
    addr(backend, beta),
    addr(backend, value),
    addr(backend, xc),
    addr(backend, r),
    R,
    d / 4,
  );
  return [value, xc, r];
}

/** dy [R, d], xc [R, d], r [R, 1], γ [d] → [dx [R, d], dy·x̂ [R, d]] (float32). */
function layerNormBackward({
  inputs: { dy, xc, r, gamma },
  backend,
}: Args<'dy' | 'xc' | 'r' | 'gamma'>): tf.TensorInfo[] {
  const [R, d] = dy.shape;
  const dx = backend.makeOutput([R, d], 'float32'),
    dyxh = backend.makeOutput([R, d], 'float32');
  moduleOf(backend).lng(
    addr(backend, dy),
    addr(backend, xc),
    addr(backend, r),
    addr(backend, gamma),
    addr(backend, dx),
    addr(backend, dyxh),
    R,
    d / 4,
  );
  return [dx, dyxh];
}

let registered = false;
let enabled = true;

/** Register the LayerNorm kernels for the wasm backend (idempotent; no set-up, so any time). */
export function registerWasmLayerNormKernels(): void {
  if (registered) return;
  registered = true;
  registerKernels('wasm', {
    [LAYERNORM_KERNELS.forward]: layerNormForward,
    [LAYERNORM_KERNELS.backward]: layerNormBackward,
  });
}

/**
 * Whether model/ops.ts `layerNorm` runs these kernels for rows of width d: registered, switched on, the wasm backend
 * active with WebAssembly SIMD, and d a positive multiple of 4.
 */
export function wasmLayerNormUsable(d: number): boolean {
  if (!(registered && enabled && tf.getBackend() === 'wasm' && d > 0 && d % 4 === 0)) return false;
  const mem = heapOf(tf.backend() as unknown as WasmBackend);
  return !!mem && !!moduleFor(mem);
}

/**
 * Switch the kernels off (false: the composed ops run) or back on, to compare the two. Returns the previous setting.
 */
export function setWasmLayerNormEnabled(on: boolean): boolean {
  const was = enabled;
  enabled = on;
  return was;
}

/** The forward kernel: x [R, d], γ, β [d] float32 → [value [R, d], xc [R, d], r [R, 1]]. Not differentiable. */
export function wasmLayerNormForward(
  x: tf.Tensor2D,
  gamma: tf.Tensor,
  beta: tf.Tensor,
): [tf.Tensor2D, tf.Tensor2D, tf.Tensor2D] {
  return tf
    .engine()
    .runKernel(LAYERNORM_KERNELS.forward, { x, gamma, beta } as unknown as tf.NamedTensorMap, {}) as unknown as [
    tf.Tensor2D,
    tf.Tensor2D,
    tf.Tensor2D,
  ];
}

/** The backward kernel: dy, xc [R, d], r [R, 1], γ [d] float32 → [dx [R, d], dy·x̂ [R, d]]. Not differentiable. */
export function wasmLayerNormBackward(
  dy: tf.Tensor2D,
  xc: tf.Tensor2D,
  r: tf.Tensor2D,
  gamma: tf.Tensor,
): [tf.Tensor2D, tf.Tensor2D] {
  return tf
    .engine()
    .runKernel(LAYERNORM_KERNELS.backward, { dy, xc, r, gamma } as unknown as tf.NamedTensorMap, {}) as unknown as [
    tf.Tensor2D,
    tf.Tensor2D,
  ];
}
