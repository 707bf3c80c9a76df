/**
 * Gradient parity: one PPO-clip update's (Schulman et al. 2017) loss and gradients on webgpu (Dawn in Node,
 * SwiftShader's Vulkan on a machine without a GPU) and on cpu agree within 1e-4 relative. Backends differ in
 * summation order, so bit equality is not expected across backends (it is within one backend: see trainer.test.ts).
 */
import { describe, expect, it } from 'vitest';
import * as tf from '../../../src/core/tf';
import { Rng } from '../../../src/core/rng';
import { modelConfig } from '../../../src/core/model/config';
import { initValues, makeVariables } from '../../../src/core/model/params';
import { buildScoreBatch, disposeBatch, freeMaskRow, tokenLogProbs } from '../../../src/core/model/scoring';
import { aggLoss, klK3, ppoClipLoss } from '../../../src/core/math/losses';
import { useBackend } from '../../helpers/backend';
import { ppoUpdate } from '../../../src/core/train/update';
import { scoreSamples } from '../../../src/core/model/scoring';

const SWIFTSHADER_ICD = '/usr/lib/chromium/vk_swiftshader_icd.json';
process.env.VK_ICD_FILENAMES ??= SWIFTSHADER_ICD;
process.env.XDG_RUNTIME_DIR ??= '/tmp';

const V = 96;
const cfg = modelConfig('nano', V);
const free = freeMaskRow(V, 16, 2);
const samples = Array.from({ length: 5 }, (_, i) => ({
  prompt: [1, 20 + i, 30, 40 + (i % 3), 50, 51 + i],
  response: [60 + i, 61, 2],
  allowed: [null, new Int32Array([61, 62, 63]), null] as (Int32Array | null)[],
}));

async function lossAndGrads(): Promise<{ loss: number; grads: Record<string, Float32Array> }> {
  const p = makeVariables(cfg, initValues(cfg, new Rng(9)));
  const b = buildScoreBatch(samples, cfg, free);
  const M = 15;
  const adv = tf.tensor1d(Float32Array.from({ length: M }, (_, k) => ((k * 7) % 5) - 2));
  const old = tf.tidy(() => tf.add(tokenLogProbs(p, cfg, b).logp, 0.05));
  const ref = tf.tidy(() => tf.sub(tokenLogProbs(p, cfg, b).logp, 0.1));
  const w = tf.ones([M]) as tf.Tensor1D;
  const { value, grads } = tf.variableGrads(
    () => {
      const { logp } = tokenLogProbs(p, cfg, b);
      const pg = ppoClipLoss(logp, old as tf.Tensor1D, adv, 0.2, 3);
      const plan = { mode: 'token-mean', divisor: M, normLength: 12, per: 'token' } as const;
      return tf.add(
        aggLoss(pg.loss, w, plan),
        tf.mul(aggLoss(klK3(logp, ref as tf.Tensor1D), w, plan), 0.1),
      ) as tf.Scalar;
    },
    Object.values(p) as tf.Variable[],
  );
  const out: Record<string, Float32Array> = {};
  for (const [k, v] of Object.entries(p)) out[k] = (await grads[(v as tf.Variable).name].data()) as Float32Array;
  const loss = (await value.data())[0];
  tf.dispose([value, adv, old, ref, w, ...Object.values(grads), ...Object.values(p)]);
  disposeBatch(b);
  return { loss, grads: out };
}

describe('gradient parity webgpu vs cpu', () => {
  it('loss and every gradient agree within 1e-4 relative (norm)', async () => {
    await useBackend('cpu');
    const cpu = await lossAndGrads();
    await useBackend('webgpu');
    expect(tf.getBackend()).toBe('webgpu');
    const gpu = await lossAndGrads();
    expect(Math.abs(gpu.loss - cpu.loss)).toBeLessThan(1e-4 * Math.max(1, Math.abs(cpu.loss)));
    for (const k of Object.keys(cpu.grads)) {
      const a = cpu.grads[k],
        g = gpu.grads[k];
      let diff = 0,
        norm = 0;
      for (let i = 0; i < a.length; i++) {
        diff += (a[i] - g[i]) ** 2;
        norm += a[i] ** 2;
      }
      expect(Math.sqrt(diff), k).toBeLessThanOrEqual(1e-4 * Math.sqrt(norm) + 1e-7);
    }
  });

  it(
    'a whole ppoUpdate (grad-norm clip, Adam) gives the same grad norm and weights; zero advantage gives ' +
      'zero gradient',
    async () => {
      const run = async (advScale: number) => {
        const p = makeVariables(cfg, initValues(cfg, new Rng(9)));
        const old = await scoreSamples(p, cfg, samples, free);
        const adv = Float32Array.from({ length: 15 }, (_, k) => advScale * (((k * 7) % 5) - 2));
        const m = await ppoUpdate(
          p,
          cfg,
          tf.train.adam(1e-2),
          { samples, adv, oldLogp: old.logp, refLogp: old.logp, freeRow: free },
          { miniBatches: 2, ppoEpochs: 1, clipEps: 0.2, dualClip: 3, klBeta: 0, maxGradNorm: 0.5 },
          new Rng(2),
        );
        const w = Array.from(await p['h1.mlp.wfc'].data());
        tf.dispose(Object.values(p));
        return { norm: m.gradNorm, w };
      };
      await useBackend('cpu');
      const cpu = await run(1),
        cpu0 = await run(0);
      await useBackend('webgpu');
      const gpu = await run(1),
        gpu0 = await run(0);
      expect(cpu0.norm).toBe(0);
      expect(gpu0.norm).toBe(0);
      expect(Math.abs(gpu.norm - cpu.norm)).toBeLessThan(1e-4 * cpu.norm);
      let diff = 0;
      cpu.w.forEach((v, i) => (diff = Math.max(diff, Math.abs(v - gpu.w[i]))));
      expect(diff).toBeLessThan(1e-4);
    },
  );
});
