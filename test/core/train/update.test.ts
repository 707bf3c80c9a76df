import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '../../../src/core/tf';
import { Rng } from '../../../src/core/rng';
import { modelConfig } from '../../../src/core/model/config';
import { initValues, makeVariables } from '../../../src/core/model/params';
import { freeMaskRow, scoreSamples } from '../../../src/core/model/scoring';
import { ppoUpdate } from '../../../src/core/train/update';
import { microBatches } from '../../../src/core/optim/gradients';
import { useBackend } from '../../helpers/backend';

beforeAll(() => useBackend('wasm'));

const V = 80;
const cfg = modelConfig('nano', V);
const free = freeMaskRow(V, 16, 2);
const opts = { miniBatches: 2, ppoEpochs: 1, clipEps: 0.2, dualClip: 3, klBeta: 0.01, maxGradNorm: 1 };

function toyInputs(rng: Rng) {
  const samples = Array.from({ length: 6 }, (_, i) => ({
    prompt: [1, 20 + i, 30, 40 + (i % 3)],
    response: [50 + i, 60, 2],
    allowed: [null, new Int32Array([60, 61, 62]), null] as (Int32Array | null)[],
  }));
  const M = 18;
  const adv = Float32Array.from({ length: M }, (_, k) => (Math.floor(k / 3) % 2 ? -1 : 1) * (0.5 + rng.next()));
  return { samples, adv };
}

describe('ppoUpdate', () => {
  it(
    'moves every weight, moves each action log-prob with the sign of its advantage, ' + 'and leaks no tensors',
    async () => {
      const p = makeVariables(cfg, initValues(cfg, new Rng(3)));
      const before = Object.fromEntries(Object.entries(p).map(([k, v]) => [k, Array.from(v.dataSync())]));
      const { samples, adv } = toyInputs(new Rng(4));
      const opt = tf.train.adam(1e-2);
      const old0 = await scoreSamples(p, cfg, samples, free);
      const counts: number[] = [];
      for (let it = 0; it < 4; it++) {
        const old = await scoreSamples(p, cfg, samples, free);
        const m = await ppoUpdate(
          p,
          cfg,
          opt,
          { samples, adv, oldLogp: old.logp, refLogp: old0.logp, freeRow: free },
          opts,
          new Rng(10 + it),
        );
        expect(Number.isFinite(m.policyLoss) && Number.isFinite(m.kl) && m.gradNorm > 0).toBe(true);
        counts.push(tf.memory().numTensors);
      }
      // Adam creates its moment variables on the first update; afterwards the count is constant.
      expect(new Set(counts.slice(1)).size).toBe(1);
      for (const [k, v] of Object.entries(p)) expect(Array.from(v.dataSync()), k).not.toEqual(before[k]);
      const after = await scoreSamples(p, cfg, samples, free);
      // Each sample's first action token is unique to it, so its log-prob must move with the sign of its advantage.
      for (let i = 0; i < samples.length; i++) {
        const k = 3 * i;
        expect(Math.sign(after.logp[k] - old0.logp[k]), `sample ${i}`).toBe(Math.sign(adv[k]));
      }
    },
  );

  it('works with β = 0 (no KL term) and still reports the KL', async () => {
    const p = makeVariables(cfg, initValues(cfg, new Rng(3)));
    const { samples, adv } = toyInputs(new Rng(4));
    const old = await scoreSamples(p, cfg, samples, free);
    const ref = Float32Array.from(old.logp, (x) => x - 0.5);
    const m = await ppoUpdate(
      p,
      cfg,
      tf.train.adam(1e-3),
      { samples, adv, oldLogp: old.logp, refLogp: ref, freeRow: free },
      { ...opts, klBeta: 0 },
      new Rng(1),
    );
    // first mini-batch has ρ = 1, ℓ_ref − ℓ = −0.5 → k3 = e^−0.5 + 0.5 − 1 = 0.1065; later ones move
    // slightly
    expect(m.kl).toBeGreaterThan(0.09);
    expect(m.kl).toBeLessThan(0.13);
  });

  it('target KL stops the update after the mini-batch whose approximate KL exceeds 1.5× the target', async () => {
    const run = async (targetKl: number) => {
      const p = makeVariables(cfg, initValues(cfg, new Rng(3)));
      const { samples, adv } = toyInputs(new Rng(4));
      const old = await scoreSamples(p, cfg, samples, free);
      const n0 = tf.memory().numTensors;
      const opt = tf.train.adam(0.05);
      const m = await ppoUpdate(
        p,
        cfg,
        opt,
        { samples, adv, oldLogp: old.logp, refLogp: old.logp, freeRow: free },
        { ...opts, miniBatches: 3, ppoEpochs: 2, targetKl },
        new Rng(1),
      );
      opt.dispose();
      const leaked = tf.memory().numTensors - n0;
      tf.dispose(Object.values(p));
      return { m, leaked };
    };
    const off = await run(0);
    expect(off.m.updates).toBe(6); // 3 mini-batches × 2 epochs
    expect(off.m.approxKl).toBeGreaterThan(0); // later mini-batches see a moved policy
    // A target far below what one Adam step at lr 0.05 moves: stop at the second mini-batch, after one update.
    const tiny = await run(1e-9);
    expect(tiny.m.updates).toBe(1);
    expect(tiny.m.approxKl).toBeGreaterThan(1.5e-9 / 2); // mean over the 2 measured mini-batches; the first is 0
    expect(tiny.leaked).toBe(0); // the skipped mini-batch's gradients are disposed
    const loose = await run(100);
    expect(loose.m.updates).toBe(6);
    expect(loose.m.policyLoss).toBeCloseTo(off.m.policyLoss, 6);
  });

  it('token-mean and seq-mean-token-mean agree when every response has the same length', async () => {
    const run = async (lossAgg: 'token-mean' | 'seq-mean-token-mean') => {
      const p = makeVariables(cfg, initValues(cfg, new Rng(3)));
      const { samples, adv } = toyInputs(new Rng(4)); // every response is 3 tokens
      const old = await scoreSamples(p, cfg, samples, free);
      const m = await ppoUpdate(
        p,
        cfg,
        tf.train.sgd(0.1),
        { samples, adv, oldLogp: old.logp, refLogp: old.logp, freeRow: free },
        { ...opts, maxGradNorm: 0, lossAgg },
        new Rng(1),
      );
      return { loss: m.policyLoss, w: Array.from(p['h0.mlp.wfc'].dataSync()) };
    };
    const a = await run('token-mean'),
      b = await run('seq-mean-token-mean');
    expect(b.loss).toBeCloseTo(a.loss, 6);
    a.w.forEach((v, i) => expect(b.w[i]).toBeCloseTo(v, 6));
  });

  it('micro-batches bound the padded size and cover every sample once', () => {
    const samples = [5, 9, 3, 7, 2].map((L) => ({ prompt: Array(L).fill(1), response: [2], allowed: [null] }));
    const mb = microBatches([0, 1, 2, 3, 4], samples, 16);
    expect(mb.flat().sort()).toEqual([0, 1, 2, 3, 4]);
    for (const b of mb)
      expect(b.length * Math.max(...b.map((i) => samples[i].prompt.length + 1))).toBeLessThanOrEqual(Math.max(16, 10));
  });

  it('the gradient of a mini-batch equals the sum over its micro-batches', async () => {
    const run = async (micro: number) => {
      const p = makeVariables(cfg, initValues(cfg, new Rng(3)));
      const { samples, adv } = toyInputs(new Rng(4));
      const old = await scoreSamples(p, cfg, samples, free);
      const opt = tf.train.sgd(0.1);
      await ppoUpdate(
        p,
        cfg,
        opt,
        { samples, adv, oldLogp: old.logp, refLogp: old.logp, freeRow: free },
        { ...opts, miniBatches: 1, maxGradNorm: 0, microBatchTokens: micro },
        new Rng(1),
      );
      return Array.from(p['h0.attn.wqkv'].dataSync());
    };
    const whole = await run(100000),
      split = await run(8);
    whole.forEach((v, i) => expect(split[i]).toBeCloseTo(v, 5));
  });
});
