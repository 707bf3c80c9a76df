/**
 * The element-wise chains around the attention softmax (model/ops.ts `attentionSoftmax`) as one kernel each on tfjs'
 * wasm backend (tfjs 4.22); tfjs' own Softmax (XNNPACK) stays. Forward: raw·scale + bias (Multiply and a broadcast
 * Add) in one pass. Backward: autograd's chain — Softmax's gradient dy·y − (Σ dy·y)·y (Multiply, Sum, Multiply,
 * Sub) and the scale's (Multiply) — in one kernel. In the `small` training step these are 5 passes over [128, 128,
 * 128] floats per layer in the backward and 2 in the forward (docs/experiments/speed.md).
 *
 * Same bits as the composed ops: float32 operations in the same order, one rounding each —
 *   forward z = (raw·s) + bias, backward dx = ((t − (Σ t)·y)·s) with t = dy·y and Σ added along the row in
 *   order
 *   from 0 (as tfjs' Sum kernel adds), s the float32 scale;
 * the row sums as scalar float32 additions in order, the rest as f32x4 SIMD (IEEE 754 lanes, no fused multiply-add)
 * in a module generated at start-up (`wasm/emit.ts`). test/core/backend/wasm/softmax.test.ts compares the values
 * and gradients with the composed ops word for word.
 */
import * as tf from '../../tf';
import { emitBump as bump, emitLoop as loop, FuncBuilder, F32, I32, Op, V128, moduleOver } from './emit';
import { heapOf, type WasmBackend } from './heap';
import { registerKernels } from '../register';

/** Kernel names registered for the wasm backend. */
export const SOFTMAX_KERNELS = { scaleBias: 'OpdScaleBias', grad: 'OpdScaledSoftmaxGrad' } as const;

const F = { add: 0x92, sub: 0x93, mul: 0x94 } as const;
const V = { load: 0x00, store: 0x0b, splat: 0x13, add: 0xe4, sub: 0xe5, mul: 0xe6 } as const;

/** sb(x, bias, out, n4, s): out = (x·s) + bias over n4 vectors of 4 floats (byte addresses). */
function scaleBiasFunc(): FuncBuilder {
  const f = new FuncBuilder([I32, I32, I32, I32, F32]);
  const [x, bias, out, n4, s] = [0, 1, 2, 3, 4];
  const i = f.local(I32),
    vs = f.local(V128);
  f.get(s).simd(V.splat).set(vs);
  loop(f, i, n4, () => {
    f.get(out).get(x).simd(V.load, 0).get(vs).simd(V.mul).get(bias).simd(V.load, 0).simd(V.add).simd(V.store, 0);
    bump(f, x, 16);
    bump(f, bias, 16);
    bump(f, out, 16);
  });
  return f;
}

/**
 * sg(dy, y, out, rows, k4, s): per row of k = 4·k4 floats, out = (t − (Σ t)·y)·s with t = dy·y (byte addresses).
 */
function gradFunc(): FuncBuilder {
  const f = new FuncBuilder([I32, I32, I32, I32, I32, F32]);
  const [dy, y, out, rows, k4, s] = [0, 1, 2, 3, 4, 5];
  const row = f.local(I32),
    i = f.local(I32),
    k = f.local(I32),
    pd = f.local(I32),
    py = f.local(I32);
  const sum = f.local(F32),
    vs = f.local(V128),
    vsum = f.local(V128),
    vy = f.local(V128);
  f.get(k4).i32(4).op(Op.i32Mul).set(k);
  f.get(s).simd(V.splat).set(vs);
  loop(f, row, rows, () => {
    f.op(Op.f32Const, 0, 0, 0, 0).set(sum);
    f.get(dy).set(pd);
    f.get(y).set(py);
    loop(f, i, k, () => {
      f.get(sum).get(pd).mem(Op.f32Load).get(py).mem(Op.f32Load).op(F.mul).op(F.add).set(sum);
      bump(f, pd, 4);
      bump(f, py, 4);
    });
    f.get(sum).simd(V.splat).set(vsum);
    loop(f, i, k4, () => {
      f.get(y).simd(V.load, 0).set(vy);
      f.get(out)
        .get(dy)
        .simd(V.load, 0)
        .get(vy)
        .simd(V.mul)
        .get(vsum)
        .get(vy)
        .simd(V.mul)
        .simd(V.sub)
        .get(vs)
        .simd(V.mul)
        .simd(V.store, 0);
      bump(f, dy, 16);
      bump(f, y, 16);
      bump(f, out, 16);
    });
  });
  return f;
}

type SoftmaxModule = {
  sb(x: number, bias: number, out: number, n4: number, s: number): void;
  sg(dy: number, y: number, out: number, rows: number, k4: number, s: number): void;
};
/** The module over `mem` (built once per heap), or null where the engine lacks WebAssembly SIMD. */
const moduleFor = moduleOver<SoftmaxModule>(() => [scaleBiasFunc(), gradFunc()], { sb: 0, sg: 1 });

type Args<K extends string, A> = { inputs: Record<K, tf.TensorInfo>; backend: WasmBackend; attrs: A };
const addr = (backend: WasmBackend, t: tf.TensorInfo) => backend.dataIdMap.get(t.dataId).memoryOffset;
function moduleOf(backend: WasmBackend): SoftmaxModule {
  const mem = heapOf(backend),
    mod = mem && moduleFor(mem);
  if (!mod)
    throw new Error(
      "wasm softmax kernels: the wasm backend's heap is not reachable or the engine lacks WebAssembly " +
        'SIMD (check wasmSoftmaxUsable first)',
    );
  return mod;
}

/**
 * raw [B·h, T, Tk], bias [Bb, 1, T, Tk] (Bb 1 or B), attrs { scale, h } → (raw·scale) + bias [B·h, T, Tk]; batch
 * row b·h + j adds bias block b (block 0 when Bb = 1).
 */
function scaleBias({
  inputs: { x, bias },
  backend,
  attrs: { scale, h },
}: Args<'x' | 'bias', { scale: number; h: number }>): tf.TensorInfo {
  const [BH, T, Tk] = x.shape,
    plane = T * Tk,
    Bb = bias.shape[0];
  const out = backend.makeOutput(x.shape, 'float32');
  const mod = moduleOf(backend),
    px = addr(backend, x),
    pb = addr(backend, bias),
    po = addr(backend, out);
  for (let bh = 0; bh < BH; bh++)
    mod.sb(
      px + bh * plane * 4,
      pb + (Bb === 1 ? 0 : Math.floor(bh / h)) * plane * 4,
      po + bh * plane * 4,
      plane / 4,
      scale,
    );
  return out;
}

/** dy, y [rows…, Tk], attrs { scale } → (dy·y − (Σ dy·y)·y)·scale, same shape. */
function scaledSoftmaxGrad({
  inputs: { dy, y },
  backend,
  attrs: { scale },
}: Args<'dy' | 'y', { scale: number }>): tf.TensorInfo {
  const Tk = dy.shape[dy.shape.length - 1],
    rows = tf.util.sizeFromShape(dy.shape) / Tk;
  const out = backend.makeOutput(dy.shape, 'float32');
  moduleOf(backend).sg(addr(backend, dy), addr(backend, y), addr(backend, out), rows, Tk / 4, scale);
  return out;
}

let registered = false;
let enabled = true;

/** Register the kernels for the wasm backend (idempotent; no set-up, so any time). */
export function registerWasmSoftmaxKernels(): void {
  if (registered) return;
  registered = true;
  registerKernels('wasm', {
    [SOFTMAX_KERNELS.scaleBias]: scaleBias,
    [SOFTMAX_KERNELS.grad]: scaledSoftmaxGrad,
  });
}

/**
 * Whether model/ops.ts `attentionSoftmax` runs these kernels for scores [B·h, T, Tk] and a bias of shape `biasShape`:
 * registered, switched on, the wasm backend active with WebAssembly SIMD, Tk a multiple of 4, and the bias
 * [1 or B, 1, T, Tk] float32.
 */
export function wasmSoftmaxUsable(B: number, T: number, Tk: number, bias: tf.Tensor): boolean {
  if (!(registered && enabled && tf.getBackend() === 'wasm' && Tk > 0 && Tk % 4 === 0 && bias.dtype === 'float32'))
    return false;
  const s = bias.shape;
  if (!(s.length === 4 && (s[0] === 1 || s[0] === B) && s[1] === 1 && s[2] === T && s[3] === Tk)) return false;
  const mem = heapOf(tf.backend() as unknown as WasmBackend);
  return !!mem && !!moduleFor(mem);
}

/**
 * Switch the kernels off (false: the composed ops run) or back on, to compare the two. Returns the previous setting.
 */
export function setWasmSoftmaxEnabled(on: boolean): boolean {
  const was = enabled;
  enabled = on;
  return was;
}

/**
 * raw [B·h, T, Tk]·scale + bias [1 or B, 1, T, Tk] → [B·h, T, Tk] (the scale rounded to float32). Not
 * differentiable.
 */
export function wasmScaleBias(raw: tf.Tensor3D, bias: tf.Tensor, scale: number, h: number): tf.Tensor3D {
  return tf
    .engine()
    .runKernel(
      SOFTMAX_KERNELS.scaleBias,
      { x: raw, bias } as unknown as tf.NamedTensorMap,
      { scale, h } as unknown as tf.NamedAttrMap,
    ) as tf.Tensor3D;
}

/**
 * The softmax's and the scale's gradient: dy, y [B·h, T, Tk] → (dy·y − (Σ dy·y)·y)·scale. Not differentiable.
 */
export function wasmScaledSoftmaxGrad(dy: tf.Tensor, y: tf.Tensor, scale: number): tf.Tensor {
  return tf
    .engine()
    .runKernel(
      SOFTMAX_KERNELS.grad,
      { dy, y } as unknown as tf.NamedTensorMap,
      { scale } as unknown as tf.NamedAttrMap,
    ) as tf.Tensor;
}
