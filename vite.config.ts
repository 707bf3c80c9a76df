/**
 * Vite config for the page (DESIGN.md §1). The lead owns the vitest config; this file only serves and builds
 * the app.
 *
 * - Svelte 5 via @sveltejs/vite-plugin-svelte.
 * - The training worker is an ES module worker (`new Worker(new URL(...), { type: 'module' })`).
 * - COOP/COEP on both dev and preview servers: without cross-origin isolation there is no SharedArrayBuffer,
 *   so tfjs-backend-wasm silently drops to its single-threaded build. With it, the worker loads the threaded SIMD
 *   build, whose pthreads are blob workers made from the bundled worker source (nothing to serve for them); the
 *   thread count is set in src/worker/backend.ts.
 * - The wasm binaries are imported with `?url` in src/worker/backend.ts, so Vite fingerprints and serves them
 *   in dev and in `vite build`; nothing to copy.
 */
import { defineConfig } from 'vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';

/** Headers that make the page cross-origin isolated (needed for wasm threads). */
const isolationHeaders = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

export default defineConfig({
  plugins: [svelte()],
  worker: {
    format: 'es',
    // Never minify the worker: tfjs-backend-wasm starts its pthreads from `factory.toString()` in a blob, and a
    // minifier rewrites that function so it references names that do not exist there ("e is not defined").
    rolldownOptions: { output: { minify: false } },
  },
  server: { port: 5173, headers: isolationHeaders },
  preview: { headers: isolationHeaders },
  optimizeDeps: {
    // Pre-bundle the tfjs packages once (they are many small ESM files) and scan the worker entry too.
    entries: ['index.html', 'src/worker/trainer.worker.ts'],
    include: [
      '@tensorflow/tfjs',
      '@tensorflow/tfjs-core',
      '@tensorflow/tfjs-backend-cpu',
      '@tensorflow/tfjs-backend-webgl',
      '@tensorflow/tfjs-backend-webgpu',
      '@tensorflow/tfjs-backend-wasm',
      'comlink',
      'uplot',
      'zod',
    ],
  },
  build: { target: 'es2022', chunkSizeWarningLimit: 4096 },
});
