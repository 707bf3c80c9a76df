/**
 * Counters of GPU work on tfjs' webgpu backend (tfjs-backend-webgpu 4.22), read by `npm run bench -- --backend
 * webgpu` and by tests. Installing wraps four methods of the active backend object (own properties that shadow the
 * prototype's; uninstalling deletes them again), so nothing changes in what is computed:
 *
 * - **dispatches**: calls of `recordAndSubmit`, i.e. compute-shader dispatches actually recorded (one
 *   `dispatchWorkgroups` each; a program whose output is empty is short-circuited by tfjs and not counted). tfjs
 *   groups up to `WEBGPU_DEFERRED_SUBMIT_BATCH_SIZE` (15) dispatches in one compute pass and submit; this counts
 *   dispatches, not passes. Per program class in `byProgram` (e.g. `MatMulPackedProgram`, `BinaryOpProgram`).
 * - **readbacks**: GPU→CPU reads: calls of `getBufferData` (the asynchronous path behind `data()`/`array()`: a copy
 *   into a MAP_READ staging buffer, a queue submit and a `mapAsync` wait) plus calls of `readSync` on a tensor whose
 *   values are not already cached on the CPU (`dataSync()`/`arraySync()`). A second `data()` of the same tensor
 *   reads the CPU cache and is not counted. `readbackBytes` sums the GPU buffer sizes read.
 * - **uploads**: CPU→GPU writes of tensor values (`uploadToGPU` of a tensor that holds CPU values and no GPU
 *   buffer yet), with `uploadBytes`; uniform buffers of each dispatch are not counted.
 *
 * Memory (`gpuMemory`) is read from the backend's buffer manager: `bytesAllocated` (every live GPUBuffer it
 * created: buffers in use plus its pool of freed buffers kept for reuse, keyed by exact byte size and usage),
 * `bytesInUse` (buffers held by live tensors, uniforms and staging), their difference `bytesFree`, the number of
 * pooled free buffers and of distinct (size, usage) keys, and the number of compiled compute pipelines tfjs caches.
 */
import * as tf from '../tf';

/** Cumulative counts since a `GpuStats` handle was made (or last reset). */
export interface GpuCounters {
  /** Compute dispatches recorded (see the module docstring). */
  dispatches: number;
  /** GPU→CPU read-backs (asynchronous `data()` reads plus uncached `dataSync()` reads). */
  readbacks: number;
  /** Bytes of GPU buffers read back (bytes). */
  readbackBytes: number;
  /** CPU→GPU uploads of tensor values. */
  uploads: number;
  /** Bytes uploaded (bytes). */
  uploadBytes: number;
  /** Dispatches per tfjs program class name. */
  byProgram: Record<string, number>;
}

/** The webgpu backend's GPU memory at one moment (bytes and counts). */
export interface GpuMemory {
  /** Bytes of every GPUBuffer the buffer manager holds: in use plus its free pool (numBytesAllocated). */
  bytesAllocated: number;
  /** Bytes of buffers in use (numBytesUsed). */
  bytesInUse: number;
  /** bytesAllocated − bytesInUse: the free pool kept for reuse (bytes). */
  bytesFree: number;
  /** Buffers in the free pool. */
  freeBuffers: number;
  /** Distinct (byte size, usage) keys the pool has seen. */
  poolKeys: number;
  /** Compiled compute pipelines in tfjs' pipeline cache. */
  pipelines: number;
}

/** The parts of tfjs-backend-webgpu's BufferManager read here (its fields in 4.22). */
export interface BufferManagerLike {
  numBytesAllocated: number;
  numBytesUsed: number;
  numFreeBuffers: number;
  freeBuffers: Map<string, { size: number; destroy(): void }[]>;
  usedBuffers: Map<string, unknown[]>;
  acquireBuffer(size: number, usage: number, mappedAtCreation?: boolean, reuse?: boolean): unknown;
}

/** The parts of tfjs-backend-webgpu's WebGPUBackend wrapped or read here (4.22). */
export interface WebGpuBackendLike {
  bufferManager: BufferManagerLike;
  pipelineCache: Record<string, unknown>;
  tensorMap: {
    get(
      dataId: unknown,
    ): { values?: unknown; resource?: { size: number } | null; dtype: string; shape: number[] } | undefined;
  };
  recordAndSubmit(program: { constructor: { name: string } }, ...rest: unknown[]): unknown;
  getBufferData(buffer: { size: number }): Promise<ArrayBuffer | null>;
  readSync(dataId: unknown): unknown;
  uploadToGPU(dataId: unknown): void;
}

/** The active backend as a webgpu backend, or null when the active backend is not webgpu. */
export function activeWebGpuBackend(): WebGpuBackendLike | null {
  if (tf.getBackend() !== 'webgpu') return null;
  const b = tf.backend() as unknown as Partial<WebGpuBackendLike>;
  if (!b.bufferManager || typeof b.recordAndSubmit !== 'function' || typeof b.getBufferData !== 'function')
    throw new Error(
      'gpu-stats: the webgpu backend lacks bufferManager/recordAndSubmit/getBufferData ' +
        '(tfjs-backend-webgpu 4.22 is required)',
    );
  return b as WebGpuBackendLike;
}

/** Read the buffer manager and pipeline cache of a webgpu backend. */
export function gpuMemory(b: WebGpuBackendLike): GpuMemory {
  const m = b.bufferManager;
  return {
    bytesAllocated: m.numBytesAllocated,
    bytesInUse: m.numBytesUsed,
    bytesFree: m.numBytesAllocated - m.numBytesUsed,
    freeBuffers: m.numFreeBuffers,
    poolKeys: m.freeBuffers.size,
    pipelines: Object.keys(b.pipelineCache).length,
  };
}

type Totals = Omit<GpuCounters, 'byProgram'> & { byProgram: Map<string, number> };
interface Installed {
  backend: WebGpuBackendLike;
  totals: Totals;
  users: number;
}
const WRAPPED = ['recordAndSubmit', 'getBufferData', 'readSync', 'uploadToGPU'] as const;
let installed: Installed | null = null;

function wrap(b: WebGpuBackendLike, t: Totals): void {
  const proto = Object.getPrototypeOf(b) as WebGpuBackendLike;
  b.recordAndSubmit = function (this: WebGpuBackendLike, program, ...rest) {
    t.dispatches++;
    const name = program.constructor.name;
    t.byProgram.set(name, (t.byProgram.get(name) ?? 0) + 1);
    return proto.recordAndSubmit.call(this, program, ...rest);
  };
  b.getBufferData = function (this: WebGpuBackendLike, buffer) {
    t.readbacks++;
    t.readbackBytes += buffer.size;
    return proto.getBufferData.call(this, buffer);
  };
  b.readSync = function (this: WebGpuBackendLike, dataId) {
    const d = this.tensorMap.get(dataId);
    if (d && d.values == null && d.dtype !== 'string' && d.resource) {
      t.readbacks++;
      t.readbackBytes += d.resource.size;
    }
    return proto.readSync.call(this, dataId);
  };
  b.uploadToGPU = function (this: WebGpuBackendLike, dataId) {
    const d = this.tensorMap.get(dataId);
    if (d && d.resource == null && d.values != null) {
      t.uploads++;
      t.uploadBytes += (d.values as ArrayLike<number>).length * 4;
    }
    return proto.uploadToGPU.call(this, dataId);
  };
}

/** A handle on the counters; counts are since the handle was made or last reset. */
export interface GpuStats {
  /** Counts since the handle was made or last `reset()`. */
  counters(): GpuCounters;
  /** Start counting from zero again. */
  reset(): void;
  /** The backend's GPU memory now. */
  memory(): GpuMemory;
  /** Stop counting; the last handle to uninstall removes the wrappers from the backend. Idempotent. */
  uninstall(): void;
}

function snapshot(t: Totals): GpuCounters {
  return {
    dispatches: t.dispatches,
    readbacks: t.readbacks,
    readbackBytes: t.readbackBytes,
    uploads: t.uploads,
    uploadBytes: t.uploadBytes,
    byProgram: Object.fromEntries(t.byProgram),
  };
}

/**
 * Start counting GPU work on the active webgpu backend. Several handles may be live at once (they share one set of
 * wrappers). Returns null when the active backend is not webgpu.
 * @throws Error when counters are installed on another backend object (switching backends with handles live).
 */
export function installGpuStats(): GpuStats | null {
  const b = activeWebGpuBackend();
  if (!b) return null;
  if (installed && installed.backend !== b)
    throw new Error(
      'gpu-stats: counters are still installed on an earlier webgpu backend; uninstall every GpuStats ' +
        'handle before switching backends',
    );
  if (!installed) {
    installed = {
      backend: b,
      users: 0,
      totals: { dispatches: 0, readbacks: 0, readbackBytes: 0, uploads: 0, uploadBytes: 0, byProgram: new Map() },
    };
    wrap(b, installed.totals);
  }
  const inst = installed;
  inst.users++;
  let base = snapshot(inst.totals);
  let live = true;
  return {
    counters() {
      const now = snapshot(inst.totals);
      const byProgram: Record<string, number> = {};
      for (const [k, v] of Object.entries(now.byProgram))
        if (v - (base.byProgram[k] ?? 0) > 0) byProgram[k] = v - (base.byProgram[k] ?? 0);
      return {
        dispatches: now.dispatches - base.dispatches,
        readbacks: now.readbacks - base.readbacks,
        readbackBytes: now.readbackBytes - base.readbackBytes,
        uploads: now.uploads - base.uploads,
        uploadBytes: now.uploadBytes - base.uploadBytes,
        byProgram,
      };
    },
    reset() {
      base = snapshot(inst.totals);
    },
    memory: () => gpuMemory(inst.backend),
    uninstall() {
      if (!live) return;
      live = false;
      if (--inst.users > 0) return;
      for (const k of WRAPPED) delete (inst.backend as unknown as Record<string, unknown>)[k];
      installed = null;
    },
  };
}
