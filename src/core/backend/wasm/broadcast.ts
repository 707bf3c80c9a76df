/**
 * A row broadcast on tfjs' wasm backend (tfjs 4.22): x [M] → [M, n] with out[i, j] = x[i], for the gradient of a Sum
 * over trailing axes (model/sum-grad.ts), which tfjs computes as x × ones([M, n]) — a float32 array of ones filled
 * in JavaScript, uploaded and multiplied. Here each row is one `TypedArray.fill` over the backend's heap. Same values
 * (y·1 = y exactly in IEEE 754 binary32); a NaN stays a NaN, its payload not kept.
 */
import * as tf from '../../tf';
import { heapOf, type WasmBackend } from './heap';
import { registerKernels } from '../register';

/** Kernel name registered for the wasm backend. */
export const BROADCAST_ROWS_KERNEL = 'OpdBroadcastRows';

/**
 * x [M] float32, attrs.n ≥ 1 → [M, n]. @throws Error naming a bad input (not float32 1-D, n not a positive
 * integer).
 */
function broadcastRowsKernel({
  inputs: { x },
  backend,
  attrs,
}: {
  inputs: { x: tf.TensorInfo };
  backend: WasmBackend;
  attrs: { n: number };
}): tf.TensorInfo {
  const n = attrs.n;
  if (x.shape.length !== 1 || x.dtype !== 'float32' || !(Number.isInteger(n) && n >= 1))
    throw new Error(
      `${BROADCAST_ROWS_KERNEL}: x must be float32 [M] and n a positive integer, got ${x.dtype} [${x.shape}], n ${n}`,
    );
  const M = x.shape[0];
  const out = backend.makeOutput([M, n], 'float32');
  const mem = heapOf(backend);
  if (!mem) throw new Error(`${BROADCAST_ROWS_KERNEL}: the wasm backend's heap is not reachable`);
  const H = new Float32Array(mem.buffer); // after makeOutput: a growing heap replaces its buffer
  const s = backend.dataIdMap.get(x.dataId).memoryOffset >>> 2,
    d = backend.dataIdMap.get(out.dataId).memoryOffset >>> 2;
  for (let i = 0; i < M; i++) H.fill(H[s + i], d + i * n, d + (i + 1) * n);
  return out;
}

let registered = false;

/** Register the kernel for the wasm backend (idempotent; no set-up, so any time). */
export function registerWasmBroadcastRowsKernel(): void {
  if (registered) return;
  registered = true;
  registerKernels('wasm', {
    [BROADCAST_ROWS_KERNEL]: broadcastRowsKernel,
  });
}

/** Whether the kernel can run now: registered and the wasm backend active. */
export function wasmBroadcastRowsUsable(): boolean {
  return registered && tf.getBackend() === 'wasm';
}

/** x [M] float32 → [M, n], out[i, j] = x[i] (not differentiable; model/sum-grad.ts uses it inside a gradient). */
export function wasmBroadcastRows(x: tf.Tensor1D, n: number): tf.Tensor2D {
  return tf
    .engine()
    .runKernel(
      BROADCAST_ROWS_KERNEL,
      { x } as unknown as tf.NamedTensorMap,
      { n } as unknown as tf.NamedAttrMap,
    ) as tf.Tensor2D;
}
