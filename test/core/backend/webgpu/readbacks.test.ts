/**
 * Read-backs of scoring and sampling on webgpu (Node, Dawn; SwiftShader's Vulkan on a machine without a GPU), and
 * their results against the cpu backend. Scoring reads each chunk's log-probs and entropies back in one read; the
 * KV-cached sampler reads one [B, V] logits tensor per generated position, for all rows at once. Backends differ in
 * float summation order, so values agree within 1e-4 nats, not bit for bit.
 */
import { describe, expect, it } from 'vitest';
import * as tf from '../../../../src/core/tf';
import { Rng } from '../../../../src/core/rng';
import { modelConfig } from '../../../../src/core/model/config';
import { initValues, makeVariables } from '../../../../src/core/model/params';
import { freeMaskRow, scoreSamples } from '../../../../src/core/model/scoring';
import { sampleResponses } from '../../../../src/core/model/sample';
import { installGpuStats } from '../../../../src/core/backend/gpu-stats';
import { useBackend } from '../../../helpers/backend';

process.env.VK_ICD_FILENAMES ??= '/usr/lib/chromium/vk_swiftshader_icd.json';
process.env.XDG_RUNTIME_DIR ??= '/tmp';

const V = 96;
const cfg = modelConfig('nano', V);
const free = freeMaskRow(V, 16, 2);
const samples = Array.from({ length: 5 }, (_, i) => ({
  prompt: [1, 20 + i, 30, 40 + (i % 3), 50, 51 + i].slice(0, 3 + i),
  response: [60 + i, 61, 2],
  allowed: [null, new Int32Array([61, 62, 63]), null] as (Int32Array | null)[],
}));
const prompts = [
  [1, 20, 30, 40],
  [1, 21, 31],
  [1, 22, 32, 42, 52],
];

/** Scores (chunks of 2: three chunks) and samples 6 positions for 3 rows; the webgpu read-backs of each. */
async function runOn(backend: 'cpu' | 'webgpu') {
  await useBackend(backend);
  const p = makeVariables(cfg, initValues(cfg, new Rng(9)));
  const stats = installGpuStats();
  const sc = await scoreSamples(p, cfg, samples, free, { chunk: 2 });
  const scoreReads = stats?.counters().readbacks;
  stats?.reset();
  const out = await sampleResponses(p, cfg, prompts, {
    temperature: 1,
    maxTokens: 6,
    eos: -1,
    freeRow: free,
    rng: new Rng(4),
    allowed: () => null,
  });
  const sampleReads = stats?.counters().readbacks;
  stats?.uninstall();
  tf.dispose(Object.values(p));
  return { sc, out, scoreReads, sampleReads };
}

describe('webgpu read-backs of scoring and sampling', () => {
  it(
    'one read-back per scoring chunk and per sampled position; log-probs, entropies and tokens as on cpu ' +
      '(1e-4 nats)',
    async () => {
      const cpu = await runOn('cpu');
      const before = tf.memory().numTensors;
      const gpu = await runOn('webgpu');
      expect(tf.memory().numTensors).toBe(before);
      expect(gpu.scoreReads).toBe(3); // ⌈5 / 2⌉ chunks
      expect(gpu.sampleReads).toBe(6); // 6 positions, 3 rows each
      expect(gpu.sc.logp.length).toBe(15);
      for (let k = 0; k < 15; k++) {
        expect(Math.abs(gpu.sc.logp[k] - cpu.sc.logp[k])).toBeLessThan(1e-4);
        expect(Math.abs(gpu.sc.entropy[k] - cpu.sc.entropy[k])).toBeLessThan(1e-4);
      }
      for (let i = 0; i < prompts.length; i++) {
        expect(gpu.out[i].tokens).toEqual(cpu.out[i].tokens);
        gpu.out[i].sampleLogp.forEach((v, k) => expect(Math.abs(v - cpu.out[i].sampleLogp[k])).toBeLessThan(1e-4));
      }
    },
  );
});
