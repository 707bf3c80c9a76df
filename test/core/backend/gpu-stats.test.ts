/**
 * The GPU-work counters (src/core/backend/gpu-stats.ts) on tfjs' webgpu backend in Node (Dawn; SwiftShader's Vulkan
 * on a machine without a GPU), on ops whose counts are known by hand.
 */
import { describe, expect, it } from 'vitest';
import * as tf from '../../../src/core/tf';
import { installGpuStats } from '../../../src/core/backend/gpu-stats';
import { useBackend } from '../../helpers/backend';

process.env.VK_ICD_FILENAMES ??= '/usr/lib/chromium/vk_swiftshader_icd.json';
process.env.XDG_RUNTIME_DIR ??= '/tmp';

describe('gpu stats on webgpu', () => {
  it(
    'counts one dispatch per elementwise op, one upload per fresh input, one read-back per uncached ' + 'data()',
    async () => {
      await useBackend('cpu');
      expect(installGpuStats()).toBeNull(); // not webgpu: nothing installed
      await useBackend('webgpu');
      const s = installGpuStats()!;
      const a = tf.tensor1d([1, 2, 3]),
        b = tf.tensor1d([10, 20, 30]);
      const c = tf.add(a, b); // uploads a and b (12 bytes each), one BinaryOpProgram
      const d = tf.mul(c, c); // one more dispatch, no upload
      expect(s.counters()).toEqual({
        dispatches: 2,
        readbacks: 0,
        readbackBytes: 0,
        uploads: 2,
        uploadBytes: 24,
        byProgram: { BinaryOpProgram: 2 },
      });
      expect(Array.from(await d.data())).toEqual([121, 484, 1089]);
      await d.data(); // cached on the CPU now: no second read-back
      expect(s.counters().readbacks).toBe(1);
      expect(s.counters().readbackBytes).toBe(12);
      s.reset();
      expect(s.counters().dispatches).toBe(0);
      const m = s.memory();
      expect(m.bytesInUse).toBeGreaterThanOrEqual(3 * 12); // a, b, c live on the GPU (d's buffer too until disposed)
      expect(m.bytesAllocated).toBe(m.bytesInUse + m.bytesFree);
      // Two handles share the wrappers; the last uninstall removes them from the backend.
      const s2 = installGpuStats()!;
      tf.dispose(tf.sum(c));
      expect(s.counters().dispatches).toBe(s2.counters().dispatches);
      expect(s.counters().dispatches).toBeGreaterThan(0);
      s.uninstall();
      s.uninstall(); // idempotent
      const backend = tf.backend() as unknown as Record<string, unknown>;
      expect(Object.prototype.hasOwnProperty.call(backend, 'recordAndSubmit')).toBe(true);
      s2.uninstall();
      for (const k of ['recordAndSubmit', 'getBufferData', 'readSync', 'uploadToGPU'])
        expect(Object.prototype.hasOwnProperty.call(backend, k), k).toBe(false);
      tf.dispose([a, b, c, d]);
    },
  );
});
