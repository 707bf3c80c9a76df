/**
 * The bound on tfjs-webgpu's pool of freed buffers (src/core/backend/buffer-pool.ts), in Node on Dawn (SwiftShader's
 * Vulkan on a machine without a GPU). Five PPO updates (Schulman et al. 2017) of a nano policy whose samples grow by
 * one prompt token per step: without the bound every step leaves buffers of new sizes in the pool and the
 * allocated bytes grow step after step; with it the free pool stays within the bound, so the allocation after
 * step 5 equals that after step 3 within the bound, and the weights are bit-identical to the unbounded run's.
 */
import { afterAll, describe, expect, it } from 'vitest';
import * as tf from '../../../src/core/tf';
import { Rng } from '../../../src/core/rng';
import { modelConfig } from '../../../src/core/model/config';
import { initValues, makeVariables } from '../../../src/core/model/params';
import { freeMaskRow, scoreSamples } from '../../../src/core/model/scoring';
import { ppoUpdate } from '../../../src/core/train/update';
import { activeWebGpuBackend, gpuMemory, type GpuMemory } from '../../../src/core/backend/gpu-stats';
import { boundFreePool, freePoolBound } from '../../../src/core/backend/buffer-pool';
import { useBackend } from '../../helpers/backend';

process.env.VK_ICD_FILENAMES ??= '/usr/lib/chromium/vk_swiftshader_icd.json';
process.env.XDG_RUNTIME_DIR ??= '/tmp';

const V = 96;
const cfg = modelConfig('nano', V);
const free = freeMaskRow(V, 16, 2);
const BOUND = 1 << 20; // 1 MiB of free buffers

/** Step s's samples: 4 prompts of 6 + s tokens, so every step has new tensor sizes. */
function samplesAt(s: number) {
  return Array.from({ length: 4 }, (_, i) => ({
    prompt: Array.from({ length: 6 + s }, (_, t) => 20 + ((i * 7 + t * 3) % 60)),
    response: [60 + i, 61, 2],
    allowed: [null, new Int32Array([61, 62, 63]), null] as (Int32Array | null)[],
  }));
}

/** Five updates; the buffer manager's memory after each and the final weights. */
async function run(): Promise<{ mem: GpuMemory[]; w: Float32Array }> {
  const p = makeVariables(cfg, initValues(cfg, new Rng(9)));
  const opt = tf.train.adam(1e-2);
  const mem: GpuMemory[] = [];
  for (let s = 0; s < 5; s++) {
    const samples = samplesAt(s);
    const old = await scoreSamples(p, cfg, samples, free);
    const adv = Float32Array.from({ length: old.logp.length }, (_, k) => ((k * 7 + s) % 5) - 2);
    await ppoUpdate(
      p,
      cfg,
      opt,
      { samples, adv, oldLogp: old.logp, refLogp: null, freeRow: free },
      { miniBatches: 2, ppoEpochs: 1, clipEps: 0.2, dualClip: 3, klBeta: 0, maxGradNorm: 1 },
      new Rng(s),
    );
    mem.push(gpuMemory(activeWebGpuBackend()!));
  }
  const w = (await p['h1.mlp.wfc'].data()) as Float32Array;
  opt.dispose();
  tf.dispose(Object.values(p));
  return { mem, w };
}

afterAll(() => void boundFreePool(null));

describe('free-buffer pool bound on webgpu', () => {
  it(
    'unbounded, the pool grows every step; bounded, step 5 allocates what step 3 did (±1 MiB) and the ' +
      'weights are the same bits',
    async () => {
      await useBackend('webgpu');
      boundFreePool(null);
      const before = tf.memory().numTensors;
      const loose = await run();
      // The cause: each step's new sizes stay in the pool; bytes in use do not grow.
      // Bytes grow every step; size keys over the run (a step's extra buffers may fall on keys already in the pool).
      for (let s = 1; s < 5; s++) expect(loose.mem[s].bytesAllocated).toBeGreaterThan(loose.mem[s - 1].bytesAllocated);
      expect(loose.mem[4].poolKeys).toBeGreaterThan(loose.mem[0].poolKeys);
      expect(loose.mem[4].bytesInUse).toBe(loose.mem[2].bytesInUse);
      expect(loose.mem[4].bytesAllocated - loose.mem[2].bytesAllocated).toBeGreaterThan(BOUND);

      expect(boundFreePool(BOUND)).toBe(true);
      const tight = await run();
      for (const m of tight.mem) expect(m.bytesFree).toBeLessThanOrEqual(BOUND);
      expect(Math.abs(tight.mem[4].bytesAllocated - tight.mem[2].bytesAllocated)).toBeLessThanOrEqual(BOUND);
      expect(tight.mem[4].bytesInUse).toBe(loose.mem[4].bytesInUse);
      expect(freePoolBound()!.trims).toBeGreaterThan(0);
      expect(Array.from(tight.w)).toEqual(Array.from(loose.w));
      expect(tf.memory().numTensors).toBe(before);
    },
  );

  it('a negative bound is refused with the field named', () => {
    expect(() => boundFreePool(-1)).toThrow(/bytes must be a finite number ≥ 0/);
  });
});
