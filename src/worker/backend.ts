/**
 * tfjs backend selection inside the training worker (worker layer, docs/architecture.md).
 *
 * `auto` times a short probe on every backend that works (a few training steps of a tiny nano model, each backend
 * at most PROBE_BUDGET_MS, stopped early when clearly slower; src/core/bench/probe.ts) and keeps the fastest. A
 * WebGPU or WebGL on a software adapter (SwiftShader, llvmpipe, Basic Render) is never probed nor chosen by `auto`.
 * The choice is remembered in IndexedDB (src/worker/backend-choice.ts) under a key of the browser and its adapters,
 * so later visits skip the probe; a corrupted or foreign record means probing again. A forced backend is tried
 * first and, if it cannot start, the ones after it in the order webgpu → webgl → wasm → cpu. Every backend
 * skipped on the way is recorded with the reason, so the page's badge can say *why* a user is not on their GPU. Each
 * candidate must also pass a tiny smoke test (an op whose result is read back), because a backend can register and
 * still fail on first use.
 *
 * wasm runs on tfjs' threaded SIMD build when the page is cross-origin isolated: its default thread count is
 * ⌊navigator.hardwareConcurrency / 2⌋ clamped to 1…4 (tfjs-backend-wasm's backend.cc assumes 2 hyper-threads per
 * core), i.e. 1 thread on a 2-core machine, so the count is set to the logical cores (at most 8, the size of its
 * pthread pool) before the backend starts.
 *
 * Importing this module registers all four tfjs backends.
 */
import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-cpu';
import '@tensorflow/tfjs-backend-webgl';
import '@tensorflow/tfjs-backend-webgpu';
import { getThreadsCount, setThreadsCount, setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import wasmPlain from '@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm?url';
import wasmSimd from '@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm-simd.wasm?url';
import wasmThreadedSimd from '@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm-threaded-simd.wasm?url';
import type { BackendInfo, BackendPref } from './api';
import { registerFastCpuKernels } from '../core/backend/cpu-fast';
import { registerWasmKernels } from '../core/backend/wasm/kernels';
import { boundFreePool } from '../core/backend/buffer-pool';
import {
  chooseFastest,
  probeKey,
  probeReason,
  readProbeRecord,
  shouldStopProbe,
  PROBE_RECORD_VERSION,
  type ProbeTiming,
} from '../core/bench/probe';
import { disposeBenchModel, makeBenchModel, trainStep, type BenchSize } from '../core/bench/workloads';
import { loadBackendChoice, saveBackendChoice } from './backend-choice';
import { CONCRETE_BACKENDS, type ConcreteBackend } from '../core/backend/names';
import { DeadlineError, withDeadline } from './deadline';

/** Backends in the order `auto` tries them. */
export const BACKEND_ORDER = CONCRETE_BACKENDS;
/** One concrete tfjs backend name. */
export type BackendName = ConcreteBackend;

/**
 * Outcome of trying one backend: the adapter text (whether it is a software rasteriser; for wasm its thread count),
 * or why it was skipped.
 */
export type Attempt =
  { ok: true; adapter: string; software?: boolean; threads?: number } | { ok: false; reason: string };

/**
 * Adapter or renderer names of software GPUs: CPU emulations of WebGPU/WebGL (SwiftShader, llvmpipe, Microsoft's
 * Basic Render Driver), measured ~60× slower than wasm for our models.
 */
export const SOFTWARE_ADAPTER = /swiftshader|llvmpipe|softpipe|software|basic render/i;

// Minimal WebGPU shapes we read (the DOM lib of this TypeScript may not ship WebGPU types).
interface GpuAdapterInfoLike {
  vendor?: string;
  architecture?: string;
  description?: string;
  device?: string;
  isFallbackAdapter?: boolean;
}
interface GpuAdapterLike {
  info?: GpuAdapterInfoLike;
  isFallbackAdapter?: boolean;
}
interface GpuLike {
  requestAdapter(opts?: { powerPreference?: string }): Promise<GpuAdapterLike | null>;
}

setWasmPaths({
  'tfjs-backend-wasm.wasm': wasmPlain,
  'tfjs-backend-wasm-simd.wasm': wasmSimd,
  'tfjs-backend-wasm-threaded-simd.wasm': wasmThreadedSimd,
});

/** Logical cores the browser reports (navigator.hardwareConcurrency), at least 1. */
function logicalCores(): number {
  const n = (globalThis as { navigator?: { hardwareConcurrency?: number } }).navigator?.hardwareConcurrency;
  return typeof n === 'number' && Number.isInteger(n) && n > 0 ? n : 1;
}

/** Threads of tfjs' wasm thread pool: every logical core, at most the 8 pthread workers its build starts. */
export const WASM_THREADS = Math.min(8, logicalCores());
setThreadsCount(WASM_THREADS);

/**
 * How long a WebGPU adapter request or a backend's start may take before the probe gives up on it (ms): a stuck GPU
 * process otherwise leaves the page without a backend forever.
 */
export const GPU_CALL_DEADLINE_MS = 15_000;

/** `navigator.gpu.requestAdapter()` with GPU_CALL_DEADLINE_MS. @throws DeadlineError, or what the browser throws. */
function requestAdapter(gpu: GpuLike): Promise<GpuAdapterLike | null> {
  return withDeadline(
    gpu.requestAdapter({ powerPreference: 'high-performance' }),
    GPU_CALL_DEADLINE_MS,
    'navigator.gpu.requestAdapter()',
  );
}

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
    ok = await withDeadline(tf.setBackend(name), GPU_CALL_DEADLINE_MS, `tf.setBackend('${name}')`);
  } catch (e) {
    return e instanceof DeadlineError ? e.message : `tf.setBackend('${name}') threw: ${errText(e)}`;
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
    adapter = await requestAdapter(gpu);
  } catch (e) {
    return { ok: false, reason: `requestAdapter failed: ${errText(e)}` };
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
  // tfjs-webgpu keeps every freed buffer for reuse by exact size: bound that pool (core/backend/buffer-pool.ts)
  boundFreePool();
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
  return {
    ok: true,
    adapter: `WebGL ${tf.env().getNumber('WEBGL_VERSION')}${renderer ? ' · ' + renderer : ''}`,
    software: SOFTWARE_ADAPTER.test(renderer),
  };
}

/**
 * Starts tfjs' wasm backend on WASM_THREADS threads. tfjs 4.22 caps its thread count at
 * ⌊navigator.hardwareConcurrency / 2⌋ (read once, when its module starts), so while it starts the worker reports
 * twice WASM_THREADS logical cores; the browser's own value is restored right after.
 */
async function activateWasm(): Promise<string | null> {
  const nav = (globalThis as { navigator?: object }).navigator;
  const shadow = nav && logicalCores() < 2 * WASM_THREADS && !Object.hasOwn(nav, 'hardwareConcurrency');
  if (shadow) Object.defineProperty(nav, 'hardwareConcurrency', { value: 2 * WASM_THREADS, configurable: true });
  registerWasmKernels(); // SIMD BatchMatMul for the batched and transposed cases (core/backend/wasm/kernels.ts)
  try {
    return await activate('wasm');
  } finally {
    if (shadow) delete (nav as { hardwareConcurrency?: number }).hardwareConcurrency;
  }
}

async function tryWasm(): Promise<Attempt> {
  const reason = await activateWasm();
  if (reason) return { ok: false, reason };
  const simd = await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT');
  const multi = await tf.env().getAsync('WASM_HAS_MULTITHREAD_SUPPORT');
  const isolated = (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated === true;
  const threads = multi ? getThreadsCount() : 1;
  const why = multi
    ? threads === 1
      ? ' (1 logical core)'
      : ''
    : isolated
      ? ' (no shared-memory WebAssembly threads in this browser)'
      : ' (page not cross-origin isolated)';
  return {
    ok: true,
    adapter: `WebAssembly · ${simd ? 'SIMD' : 'no SIMD'} · ${threads} thread${threads === 1 ? '' : 's'}${why}`,
    threads,
  };
}

async function tryCpu(): Promise<Attempt> {
  const reason = await activate('cpu');
  return reason ? { ok: false, reason } : { ok: true, adapter: 'plain JavaScript' };
}

const TRY: Record<BackendName, () => Promise<Attempt>> = {
  webgpu: tryWebgpu,
  webgl: tryWebgl,
  wasm: tryWasm,
  cpu: tryCpu,
};

/**
 * Activates one backend (smoke-tested) and describes it; never throws.
 * @returns its adapter text (a software adapter is named as such; wasm with its thread count), or why it failed.
 */
export async function tryBackend(name: BackendName): Promise<Attempt> {
  try {
    return await TRY[name]();
  } catch (e) {
    return { ok: false, reason: errText(e) };
  }
}

/** The badge's reason for skipping a backend on a software adapter. */
function softwareReason(name: BackendName, adapter: string): string {
  return (
    `software adapter (${adapter.replace(/ \(software adapter\)$/, '')}): a CPU emulation, about ` +
    `60× slower than wasm; choose ${name} in Settings to use it anyway`
  );
}

/** What the browser offers before any backend starts: the WebGPU adapter and the WebGL renderer, '' when none. */
interface Adapters {
  webgpu: string;
  webgpuSoftware: boolean;
  webgl: string;
}

/** Reads the WebGPU adapter info and the WebGL renderer without starting a tfjs backend; never throws. */
async function peekAdapters(): Promise<Adapters> {
  const out: Adapters = { webgpu: '', webgpuSoftware: false, webgl: '' };
  try {
    const gpu = (navigator as unknown as { gpu?: GpuLike }).gpu;
    const adapter = gpu ? await requestAdapter(gpu) : null;
    const info = adapter?.info ?? {};
    out.webgpu =
      [info.vendor, info.architecture, info.device, info.description].filter((s) => s).join(' · ') ||
      (adapter ? 'unknown adapter' : '');
    out.webgpuSoftware =
      !!adapter &&
      ((info.isFallbackAdapter ?? adapter.isFallbackAdapter ?? false) || SOFTWARE_ADAPTER.test(out.webgpu));
  } catch {
    // no WebGPU: the probe says why when it tries it
  }
  try {
    if (typeof OffscreenCanvas !== 'undefined') {
      const gl = (new OffscreenCanvas(1, 1).getContext('webgl2') ??
        new OffscreenCanvas(1, 1).getContext('webgl')) as WebGLRenderingContext | null;
      const ext = gl?.getExtension('WEBGL_debug_renderer_info');
      if (gl) out.webgl = String(gl.getParameter(ext ? ext.UNMASKED_RENDERER_WEBGL : gl.RENDERER));
      gl?.getExtension('WEBGL_lose_context')?.loseContext();
    }
  } catch {
    // no WebGL: the probe says why when it tries it
  }
  return out;
}

/** The probe's workload: training steps of a tiny nano model (B 4 × T 32, vocabulary 256) on random tokens. */
export const PROBE_SIZE: BenchSize = {
  model: 'nano',
  seq: 32,
  batch: 4,
  vocab: 256,
  steps: 3,
  warmup: 1,
  newTokens: 1,
  matmulN: 1,
  matmulReps: 1,
  kvCache: false,
};

/**
 * Times the probe on the active backend: one untimed warm-up step (shader compilation, first allocations), then
 * timed steps until `shouldStopProbe` says stop (all steps, PROBE_BUDGET_MS spent, or clearly slower than `bestMs`).
 * Frees the probe model. @throws Error when the backend fails mid-probe.
 */
async function timeProbe(name: BackendName, bestMs: number | null): Promise<ProbeTiming> {
  const m = makeBenchModel(PROBE_SIZE);
  try {
    const t0 = performance.now();
    await trainStep(m);
    let steps = 0,
      timedMs = 0;
    while (!shouldStopProbe(performance.now() - t0, timedMs, steps, bestMs)) {
      const t = performance.now();
      await trainStep(m);
      timedMs += performance.now() - t;
      steps++;
    }
    return {
      backend: name,
      msPerStep: steps ? timedMs / steps : performance.now() - t0,
      steps,
      complete: steps >= PROBE_SIZE.steps,
    };
  } finally {
    disposeBenchModel(m);
  }
}

/**
 * `auto`: the remembered choice when one was stored for this browser and its adapters (and still starts), else the
 * timed probe over every backend that works, software adapters skipped. Stores what the probe chose.
 */
async function selectAuto(): Promise<BackendInfo> {
  const adapters = await peekAdapters();
  const key = probeKey({
    userAgent: navigator.userAgent,
    cores: logicalCores(),
    webgpu: adapters.webgpu,
    webgl: adapters.webgl,
  });
  const stored = readProbeRecord(await loadBackendChoice(), key);
  const fallbacks: BackendInfo['fallbacks'] = [];
  if (stored.ok) {
    const { record } = stored;
    const attempt = await tryBackend(record.choice);
    if (attempt.ok) {
      return {
        backend: record.choice,
        adapter: attempt.adapter,
        fallbacks: record.skipped,
        ...(attempt.threads ? { threads: attempt.threads } : {}),
        choice: {
          how: 'remembered',
          reason: probeReason(record.choice, record.timings),
          timings: record.timings,
          at: record.at,
        },
      };
    }
    fallbacks.push({
      backend: record.choice,
      reason: `remembered choice no longer starts (${attempt.reason}); probed again`,
    });
  }
  const timings: ProbeTiming[] = [],
    described = new Map<BackendName, Attempt & { ok: true }>();
  for (const name of BACKEND_ORDER) {
    if (name === 'webgpu' && adapters.webgpuSoftware) {
      fallbacks.push({ backend: name, reason: softwareReason(name, adapters.webgpu) });
      continue;
    }
    if (name === 'webgl' && SOFTWARE_ADAPTER.test(adapters.webgl)) {
      fallbacks.push({ backend: name, reason: softwareReason(name, `WebGL · ${adapters.webgl}`) });
      continue;
    }
    const attempt = await tryBackend(name);
    if (!attempt.ok) {
      fallbacks.push({ backend: name, reason: attempt.reason });
      continue;
    }
    if (attempt.software && (name === 'webgpu' || name === 'webgl')) {
      fallbacks.push({ backend: name, reason: softwareReason(name, attempt.adapter) });
      continue;
    }
    try {
      const best = chooseFastest(timings);
      timings.push(await timeProbe(name, best && best.steps > 0 ? best.msPerStep : null));
      described.set(name, attempt);
    } catch (e) {
      fallbacks.push({ backend: name, reason: `probe failed: ${errText(e)}` });
    }
  }
  const best = chooseFastest(timings);
  const note = !stored.ok && stored.reason !== 'no remembered choice' ? `; ${stored.reason}, so probed again` : '';
  if (!best) throw new Error(`no tfjs backend works: ${fallbacks.map((f) => `${f.backend}: ${f.reason}`).join('; ')}`);
  const reason = await activate(best.backend);
  if (reason) throw new Error(`${best.backend} was fastest in the probe but failed to start again: ${reason}`);
  const at = Date.now(),
    attempt = described.get(best.backend)!;
  const record = { version: PROBE_RECORD_VERSION, key, choice: best.backend, timings, skipped: fallbacks, at };
  await saveBackendChoice(record);
  return {
    backend: best.backend,
    adapter: attempt.adapter,
    fallbacks,
    ...(attempt.threads ? { threads: attempt.threads } : {}),
    choice: { how: 'probe', reason: probeReason(best.backend, timings) + note, timings, at },
  };
}

/**
 * Picks and activates a tfjs backend.
 * @param pref `auto` (the fastest in a timed probe, remembered per browser and adapter; a WebGPU or WebGL on a
 *   software adapter is skipped, being far slower than wasm) or a backend to force (a software adapter is then used,
 *   and named); if the forced one fails, the ones after it in the order webgpu → webgl → wasm → cpu are tried.
 * @returns the backend in use, its adapter text, its thread count (wasm), each skipped backend with its reason, and
 *   how it was chosen (with the probe's timings under `auto`).
 * @throws Error listing every reason if no backend works (not expected: cpu always works).
 */
export async function selectBackend(pref: BackendPref): Promise<BackendInfo> {
  if (pref === 'auto') return selectAuto();
  const fallbacks: BackendInfo['fallbacks'] = [];
  for (const name of BACKEND_ORDER.slice(Math.max(0, BACKEND_ORDER.indexOf(pref)))) {
    const attempt = await tryBackend(name);
    if (attempt.ok) {
      const reason =
        name === pref
          ? `chosen in Settings (backend=${pref})`
          : `${pref} was chosen in Settings but did not start; next in order`;
      return {
        backend: name,
        adapter: attempt.adapter,
        fallbacks,
        ...(attempt.threads ? { threads: attempt.threads } : {}),
        choice: { how: 'forced', reason, timings: [] },
      };
    }
    fallbacks.push({ backend: name, reason: attempt.reason });
  }
  throw new Error(`no tfjs backend works: ${fallbacks.map((f) => `${f.backend}: ${f.reason}`).join('; ')}`);
}
