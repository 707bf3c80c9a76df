/**
 * tfjs backend setup for Node. `webgpu` also works in Node through
 * the `webgpu` package (Dawn), which supplies `navigator.gpu`; on a machine without a GPU set
 * VK_ICD_FILENAMES to a SwiftShader ICD (see README).
 */
import path from 'node:path';
import { createRequire } from 'node:module';
import * as tf from '../src/core/tf';
import { registerFastCpuKernels } from '../src/core/backend/cpu-fast';
import { registerWasmKernels } from '../src/core/backend/wasm/kernels';
import { boundFreePool } from '../src/core/backend/buffer-pool';

/** Backends the CLI accepts. */
export const NODE_BACKENDS = ['cpu', 'wasm', 'webgpu'] as const;
/** One of NODE_BACKENDS. */
export type NodeBackend = (typeof NODE_BACKENDS)[number];

/**
 * Activate a backend. @throws Error naming the backend and the reason when it cannot start.
 */
export async function setupBackend(name: NodeBackend): Promise<string> {
  tf.env().set('PROD', true); // silence the "install tfjs-node" banner; we choose our backends deliberately
  if (name === 'cpu') registerFastCpuKernels();
  if (name === 'wasm') {
    const wasm = await import('@tensorflow/tfjs-backend-wasm');
    const require = createRequire(import.meta.url);
    const dist = path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm'));
    wasm.setWasmPaths(dist + path.sep);
    registerWasmKernels(); // SIMD BatchMatMul for the batched and transposed cases (src/core/backend/wasm/kernels.ts)
  } else if (name === 'webgpu') {
    // One Dawn instance per process: creating a second one (e.g. switching back to webgpu) crashes Dawn.
    if (!(globalThis as { navigator?: { gpu?: unknown } }).navigator?.gpu) {
      const { create, globals } = await import('webgpu');
      Object.assign(globalThis, globals);
      Object.defineProperty(globalThis, 'navigator', { value: { gpu: create([]) }, configurable: true });
    }
    await import('@tensorflow/tfjs-backend-webgpu');
    tf.env().set('WEBGPU_CPU_FORWARD', false);
  }
  const ok = await tf.setBackend(name);
  if (!ok && name === 'webgpu')
    throw new Error(
      'backend webgpu failed to initialise: no WebGPU adapter. Without a GPU, use SwiftShader: ' +
        "VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json XDG_RUNTIME_DIR=/tmp (needs Debian's " +
        'chromium and libvulkan1)',
    );
  if (!ok) throw new Error(`backend ${name} failed to initialise`);
  await tf.ready();
  if (name === 'webgpu') boundFreePool(); // tfjs-webgpu's pool of freed buffers would otherwise grow every step
  return tf.getBackend();
}
