/**
 * A bound on the pool of freed GPU buffers that tfjs' webgpu backend keeps for reuse (tfjs-backend-webgpu 4.22).
 *
 * Why: the backend's BufferManager never destroys a freed buffer; it keeps it in a free list keyed by the exact
 * (byte size, usage) and hands it out again only for the same key. A training step's tensor shapes follow the
 * step's sequence lengths (longest prompt + response, response-token counts), which differ from step to step, so
 * almost every step adds buffers of new sizes that are never asked for again: the pool, and the GPU memory it holds,
 * grows without end while tf.memory().numTensors stays constant (measured in Node with Dawn on SwiftShader: nano,
 * B 4, a training step at T = 33, 34, 35, 36 adds ~15 MB of free buffers per step with 1.5 MB in use).
 *
 * What: `boundFreePool(bytes)` wraps the manager's `acquireBuffer` and `releaseBuffer` (own properties shadowing its
 * prototype; `null` removes them) so that after every acquire and release the pooled free bytes stay ≤ `bytes`:
 * when they exceed it, free buffers of the least recently acquired (size, usage) keys are destroyed until the free
 * bytes are ≤ `bytes / 2` (hysteresis, so trimming is rare). Shapes that recur (weights, gradients, Adam moments,
 * the sampler's [B, V] logits) keep being reused; sizes not asked for recently are given back to the device. So
 * `bytesAllocated ≤ bytesInUse + bytes` at every moment. The arithmetic is untouched: only which GPUBuffer object
 * holds a tensor changes, never its contents.
 *
 * Safety: a buffer in the free list is referenced by no unsubmitted command (tfjs frees a buffer used by the pending
 * command encoder only after submitting it), and WebGPU lets a buffer used by submitted work be destroyed (the
 * device frees it once that work completes).
 */
import { activeWebGpuBackend, type BufferManagerLike } from './gpu-stats';

/** Default bound on pooled free GPU buffers (bytes): 256 MiB. */
export const DEFAULT_FREE_POOL_BYTES = 256 * 1024 * 1024;

interface GpuBufferLike {
  size: number;
  usage: number;
  destroy(): void;
}
interface PoolManager extends BufferManagerLike {
  releaseBuffer(buffer: GpuBufferLike, reuse?: boolean): void;
}

/** State of the bound on one buffer manager. */
interface Bound {
  m: PoolManager;
  bytes: number;
  lru: Map<string, true>;
  trimmedBytes: number;
  trims: number;
}
let bound: Bound | null = null;

const keyOf = (size: number, usage: number) => `${size}_${usage}`; // tfjs' getBufferKey

/**
 * Destroy free buffers of the least recently acquired keys until the pool's free bytes are ≤ `target` (bytes).
 * Keys left with no free and no used buffer are removed from the manager's maps. Returns the bytes destroyed.
 */
export function trimFreeBuffers(m: BufferManagerLike, lru: Iterable<string>, target: number): number {
  let freed = 0;
  const pool = m.freeBuffers;
  const order = [...lru, ...pool.keys()]; // keys never acquired through the wrapper come last
  for (const key of order) {
    if (m.numBytesAllocated - m.numBytesUsed <= target) break;
    const list = pool.get(key);
    if (!list) continue;
    while (list.length > 0 && m.numBytesAllocated - m.numBytesUsed > target) {
      const buf = list.pop()!;
      buf.destroy();
      m.numBytesAllocated -= buf.size;
      m.numFreeBuffers--;
      freed += buf.size;
    }
    if (list.length === 0 && !m.usedBuffers.get(key)?.length) {
      // Safe: a release needs a used buffer of this key, and an acquire re-creates the key.
      pool.delete(key);
      m.usedBuffers.delete(key);
    }
  }
  return freed;
}

function check(b: Bound): void {
  const m = b.m;
  if (m.numBytesAllocated - m.numBytesUsed <= b.bytes) return;
  const freed = trimFreeBuffers(m, b.lru.keys(), b.bytes / 2);
  for (const k of [...b.lru.keys()]) if (!m.freeBuffers.has(k)) b.lru.delete(k);
  b.trimmedBytes += freed;
  b.trims++;
}

/**
 * Bound the active webgpu backend's pool of free buffers to `bytes` (≥ 0), or remove the bound with `null`.
 * Calling again replaces the bound. A no-op (returns false) when the active backend is not webgpu.
 * @throws Error if bytes is negative or not finite.
 */
export function boundFreePool(bytes: number | null = DEFAULT_FREE_POOL_BYTES): boolean {
  if (bytes !== null && !(Number.isFinite(bytes) && bytes >= 0))
    throw new Error(`boundFreePool: bytes must be a finite number ≥ 0 (got ${bytes}); pass null to remove the bound`);
  const backend = activeWebGpuBackend();
  if (bound) {
    delete (bound.m as unknown as Record<string, unknown>).acquireBuffer;
    delete (bound.m as unknown as Record<string, unknown>).releaseBuffer;
    bound = null;
  }
  if (!backend || bytes === null) return backend !== null;
  const m = backend.bufferManager as PoolManager;
  const b: Bound = { m, bytes, lru: new Map(), trimmedBytes: 0, trims: 0 };
  const proto = Object.getPrototypeOf(m) as PoolManager;
  m.acquireBuffer = function (
    this: PoolManager,
    size: number,
    usage: number,
    mappedAtCreation?: boolean,
    reuse?: boolean,
  ) {
    const key = keyOf(size, usage);
    b.lru.delete(key);
    b.lru.set(key, true); // most recent last
    const buf = proto.acquireBuffer.call(this, size, usage, mappedAtCreation, reuse);
    check(b);
    return buf;
  };
  m.releaseBuffer = function (this: PoolManager, buffer: GpuBufferLike, reuse?: boolean) {
    proto.releaseBuffer.call(this, buffer, reuse);
    check(b);
  };
  bound = b;
  check(b);
  return true;
}

/** The bound in force (bytes) and how much it has destroyed so far (bytes, trims), or null when none. */
export function freePoolBound(): { bytes: number; trimmedBytes: number; trims: number } | null {
  return bound ? { bytes: bound.bytes, trimmedBytes: bound.trimmedBytes, trims: bound.trims } : null;
}
