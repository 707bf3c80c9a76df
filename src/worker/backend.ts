/**
 * tfjs backend selection inside the training worker (worker layer, docs/architecture.md).
 *
 * Order for `auto`: webgpu → webgl → wasm → cpu. A forced backend is tried first and, if it cannot start,
 * the ones after it in that order. Every backend skipped on the way is recorded with the reason, so the page's
 * badge can say *why* a user is not on their GPU. Each candidate must also pass a tiny smoke test (an op
 * whose result is read back), because a backend can register and still fail on first use.
 *
 * Importing this module registers all four tfjs backends.
 */
import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-cpu';
import '@tensorflow/tfjs-backend-webgl';
import '@tensorflow/tfjs-backend-webgpu';
import { getThreadsCount, setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import wasmPlain from '@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm?url';
import wasmSimd from '@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm-simd.wasm?url';
import wasmThreadedSimd from '@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm-threaded-simd.wasm?url';
import type { BackendInfo, BackendPref } from './api';
import { registerFastCpuKernels } from '../core/backend/cpu-fast';
import { boundFreePool } from '../core/backend/buffer-pool';

/** Backends in the order `auto` tries them. */
export const BACKEND_ORDER = ['webgpu', 'webgl', 'wasm', 'cpu'] as const;
/** One concrete tfjs backend name. */
export type BackendName = (typeof BACKEND_ORDER)[number];

/** Outcome of trying one backend: the adapter text (and whether it is a software rasteriser), or why it was skipped. */
type Attempt = { ok: true; adapter: string; software?: boolean } | { ok: false; reason: string };

/**
 * Adapter or renderer names of software GPUs: CPU emulations of WebGPU/WebGL (SwiftShader, llvmpipe, Microsoft's
 * Basic Render Driver), measured ~60× slower than wasm for our models.
 */
export const SOFTWARE_ADAPTER = /swiftshader|llvmpipe|softpipe|software|basic render/i;

// Minimal WebGPU shapes we read (the DOM lib of this TypeScript may not ship WebGPU types).
interface GpuAdapterInfoLike { vendor?: string; architecture?: string; description?: string; device?: string; isFallbackAdapter?: boolean }
interface GpuAdapterLike { info?: GpuAdapterInfoLike; isFallbackAdapter?: boolean }
interface GpuLike { requestAdapter(opts?: { powerPreference?: string }): Promise<GpuAdapterLike | null> }

setWasmPaths({
  'tfjs-backend-wasm.wasm': wasmPlain,
  'tfjs-backend-wasm-simd.wasm': wasmSimd,
  'tfjs-backend-wasm-threaded-simd.wasm': wasmThreadedSimd,
});

/** Text of an unknown thrown value. */
function errText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Runs x² summed over [1, 2, 3] on the active backend and checks it reads back 14. */
async function smokeTest(): Promise<string | null> {
  const y = tf.tidy(() => tf.sum(tf.square(tf.tensor1d([1, 2, 3]))));
  try {
    const v = (await y.data())[0];
    return v === 14 ? null : `smoke test returned ${v}, expected 14`;
  } finally {
    y.dispose();
  }
}

/** Activates `name` through tf.setBackend, then smoke-tests it. Returns a failure reason or null. */
async function activate(name: BackendName): Promise<string | null> {
  if (!tf.findBackendFactory(name)) return `tfjs ${name} backend is not registered in this context`;
  if (name === 'cpu') registerFastCpuKernels(); // the same faster float32 kernels the CLI uses
  let ok: boolean;
  try {
    ok = await tf.setBackend(name);
  } catch (e) {
    return `tf.setBackend('${name}') threw: ${errText(e)}`;
  }
  if (!ok) return `tf.setBackend('${name}') returned false (backend initialisation failed)`;
  try {
    return await smokeTest();
  } catch (e) {
    return `smoke test threw: ${errText(e)}`;
  }
}

async function tryWebgpu(): Promise<Attempt> {
  const gpu = (navigator as unknown as { gpu?: GpuLike }).gpu;
  if (!gpu) return { ok: false, reason: 'navigator.gpu missing (WebGPU disabled or unsupported in this browser)' };
  let adapter: GpuAdapterLike | null;
  try {
    adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
  } catch (e) {
    return { ok: false, reason: `requestAdapter threw: ${errText(e)}` };
  }
  if (!adapter) return { ok: false, reason: 'requestAdapter returned null (no usable GPU adapter)' };
  const info = adapter.info ?? {};
  const fallback = info.isFallbackAdapter ?? adapter.isFallbackAdapter ?? false;
  const text = [info.vendor, info.architecture, info.device, info.description].filter((s) => s).join(' · ');
  // Keep every op on the GPU: by default tfjs-webgpu runs small ops on the CPU, which hides GPU cost and
  // makes results depend on tensor size.
  tf.env().set('WEBGPU_CPU_FORWARD', false);
  const reason = await activate('webgpu');
  if (reason) return { ok: false, reason };
  boundFreePool(); // tfjs-webgpu keeps every freed buffer for reuse by exact size: bound that pool (core/backend/buffer-pool.ts)
  const software = fallback || SOFTWARE_ADAPTER.test(text);
  return { ok: true, adapter: (text || 'unknown adapter') + (software ? ' (software adapter)' : ''), software };
}

async function tryWebgl(): Promise<Attempt> {
  if (typeof OffscreenCanvas === 'undefined' && typeof document === 'undefined')
    return { ok: false, reason: 'OffscreenCanvas missing (WebGL unavailable in workers here)' };
  const reason = await activate('webgl');
  if (reason) return { ok: false, reason };
  let renderer = '';
  try {
    const gl = (tf.backend() as unknown as { gpgpu?: { gl?: WebGLRenderingContext } }).gpgpu?.gl;
    if (gl) {
      const ext = gl.getExtension('WEBGL_debug_renderer_info');
      renderer = String(gl.getParameter(ext ? ext.UNMASKED_RENDERER_WEBGL : gl.RENDERER));
    }
  } catch {
    // The renderer string is informational only.
  }
  return { ok: true, adapter: `WebGL ${tf.env().getNumber('WEBGL_VERSION')}${renderer ? ' · ' + renderer : ''}`, software: SOFTWARE_ADAPTER.test(renderer) };
}

async function tryWasm(): Promise<Attempt> {
  const reason = await activate('wasm');
  if (reason) return { ok: false, reason };
  const simd = await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT');
  const threads = await tf.env().getAsync('WASM_HAS_MULTITHREAD_SUPPORT');
  const isolated = (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated === true;
  const threadText = threads ? `${getThreadsCount()} thread${getThreadsCount() === 1 ? '' : 's'}` : `1 thread${isolated ? '' : ' (page not cross-origin isolated)'}`;
  return { ok: true, adapter: `WebAssembly · ${simd ? 'SIMD' : 'no SIMD'} · ${threadText}` };
}

async function tryCpu(): Promise<Attempt> {
  const reason = await activate('cpu');
  return reason ? { ok: false, reason } : { ok: true, adapter: 'plain JavaScript' };
}

const TRY: Record<BackendName, () => Promise<Attempt>> = { webgpu: tryWebgpu, webgl: tryWebgl, wasm: tryWasm, cpu: tryCpu };

/**
 * Picks and activates a tfjs backend.
 * @param pref `auto` (webgpu → webgl → wasm → cpu, skipping a WebGPU or WebGL that runs on a software adapter, which
 *   is far slower than wasm) or a backend to force (a software adapter is then used, and named); if the forced one
 *   fails, the ones after it in that order are tried.
 * @returns the backend in use, its adapter text, and each skipped backend with its reason.
 * @throws Error listing every reason if no backend works (not expected: cpu always works).
 */
export async function selectBackend(pref: BackendPref): Promise<BackendInfo> {
  const start = pref === 'auto' ? 0 : BACKEND_ORDER.indexOf(pref);
  const fallbacks: BackendInfo['fallbacks'] = [];
  for (const name of BACKEND_ORDER.slice(Math.max(0, start))) {
    let attempt: Attempt;
    try {
      attempt = await TRY[name]();
    } catch (e) {
      attempt = { ok: false, reason: errText(e) };
    }
    if (attempt.ok && attempt.software && pref === 'auto' && (name === 'webgpu' || name === 'webgl')) {
      fallbacks.push({ backend: name, reason: `software adapter (${attempt.adapter.replace(/ \(software adapter\)$/, '')}): a CPU emulation, about 60× slower than wasm; choose ${name} in Settings to use it anyway` });
      continue;
    }
    if (attempt.ok) return { backend: name, adapter: attempt.adapter, fallbacks };
    fallbacks.push({ backend: name, reason: attempt.reason });
  }
  throw new Error(`no tfjs backend works: ${fallbacks.map((f) => `${f.backend}: ${f.reason}`).join('; ')}`);
}
