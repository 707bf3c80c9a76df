/**
 * The parts of tfjs' wasm backend (tfjs-backend-wasm 4.22) that this project's wasm kernels read: its heap, malloc,
 * and where each tensor's data lives in the heap. Shared by wasm/kernels.ts, wasm/copy-kernels.ts and wasm/decode.ts.
 */
import type * as tf from '../../tf';

/** The parts of tfjs' BackendWasm (tfjs-backend-wasm/dist/backend_wasm.js) the project's wasm kernels use. */
export interface WasmBackend {
  wasm: {
    _malloc(bytes: number): number;
    _free(ptr: number): void;
    wasmMemory?: WebAssembly.Memory;
    asm?: { memory?: WebAssembly.Memory };
    /** The build's exported helpers; `getThreadsCount` is the thread pool's size (1 in Node and without threads). */
    tfjs?: { getThreadsCount?(): number };
  };
  dataIdMap: { get(dataId: object): { memoryOffset: number } };
  makeOutput(shape: number[], dtype: 'float32'): tf.TensorInfo;
}

/** The backend's heap: the threaded build keeps it in `Module.wasmMemory`, the others export it as `asm.memory`. */
export function heapOf(backend: WasmBackend): WebAssembly.Memory | null {
  const m = backend.wasm.wasmMemory ?? backend.wasm.asm?.memory;
  return m instanceof WebAssembly.Memory ? m : null;
}

/** Threads of the backend's pool (tfjs' threaded wasm build in a cross-origin isolated page); 1 where it has none. */
export function threadsOf(backend: WasmBackend): number {
  const n = backend.wasm.tfjs?.getThreadsCount?.();
  return typeof n === 'number' && n > 1 ? n : 1;
}
