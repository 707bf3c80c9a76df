/**
 * The update's top-k reverse-KL term (train/update.ts UpdateInputs.topK; Agentic-OPD (2026)): the differentiable
 * log-probs at given ids equal the no-gradient scores and the ordinary per-token log-probs exactly; with A = 0 the term
 * alone pulls the student's renormalised top-K distribution towards the teacher's on the distilled tokens and leaves
 * the others' loss at 0; with no distilled token the update is bit-identical to one without the term; no tensor leaks.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '../../../src/core/tf';
import { Rng } from '../../../src/core/rng';
import { modelConfig } from '../../../src/core/model/config';
import { initValues, makeVariables } from '../../../src/core/model/params';
import {
  buildScoreBatch,
  disposeBatch,
  freeMaskRow,
  scoreSamples,
  tokenLogProbs,
} from '../../../src/core/model/scoring';
import { scoreTopK, tokenLogProbsAt, topKIndex } from '../../../src/core/model/topk';
import { topKReverseKl } from '../../../src/core/math/agentic';
import { ppoUpdate } from '../../../src/core/train/update';
import { useBackend } from '../../helpers/backend';

beforeAll(() => useBackend('wasm'));

const V = 80,
  K = 4,
  T = 0.8;
const cfg = modelConfig('nano', V);
const free = freeMaskRow(V, 16, 2);
const opts = { miniBatches: 2, ppoEpochs: 1, clipEps: 0.2, dualClip: 3, klBeta: 0, maxGradNorm: 1, temperature: T };
const samples = Array.from({ length: 6 }, (_, i) => ({
  prompt: [1, 20 + i, 30, 40 + (i % 3)],
  response: [50 + i, 60, 2],
  allowed: [null, new Int32Array([60, 61, 62]), null] as (Int32Array | null)[],
}));
const M = 18;
/** Samples 0–3 are distilled (12 tokens), 4–5 are not. */
const gate = Uint8Array.from({ length: M }, (_, m) => (m < 12 ? 1 : 0));

/** Token mean over gated tokens of the top-K reverse KL of the student `p` at `ids` against `teacher` (float64). */
async function meanKl(p: ReturnType<typeof makeVariables>, ids: Int32Array, teacher: Float32Array): Promise<number> {
  const s = await scoreTopK(p, cfg, samples, free, { temperature: T, k: K, ids });
  let kl = 0,
    n = 0;
  for (let m = 0; m < M; m++)
    if (gate[m]) {
      kl += topKReverseKl(
        Array.from(s.logp.subarray(m * K, (m + 1) * K)),
        Array.from(teacher.subarray(m * K, (m + 1) * K)),
      );
      n++;
    }
  return kl / n;
}

describe('ppoUpdate with top-k reverse-KL targets', () => {
  it(
    'log-probs at ids: the same numbers as tokenLogProbs and as scoreTopK (its own top K, then at given ' + 'ids)',
    async () => {
      const p = makeVariables(cfg, initValues(cfg, new Rng(3)));
      const own = await scoreTopK(p, cfg, samples, free, { temperature: T, k: K });
      // Descending per position; the masked position (allowed 60, 61, 62) has exactly 3 finite entries.
      for (let m = 0; m < M; m++)
        for (let j = 1; j < K; j++) expect(own.logp[m * K + j]).toBeLessThanOrEqual(own.logp[m * K + j - 1]);
      expect(Array.from(own.ids.subarray(1 * K, 1 * K + 3)).sort()).toEqual([60, 61, 62]);
      expect(own.logp[1 * K + 3]).toBeLessThan(-1e8);
      const at = await scoreTopK(p, cfg, samples, free, { temperature: T, k: K, ids: own.ids });
      expect(Array.from(at.logp)).toEqual(Array.from(own.logp));
      const b = buildScoreBatch(samples, cfg, free);
      const index = topKIndex(own.ids, K, V);
      const n0 = tf.memory().numTensors;
      const [a, e, t, ra, re] = tf.tidy(() => {
        const x = tokenLogProbsAt(p, cfg, b, T, index, K);
        const y = tokenLogProbs(p, cfg, b, T);
        return [x.logp, x.entropy, x.top, y.logp, y.entropy].map((z) => Array.from(z.dataSync()));
      });
      expect(tf.memory().numTensors).toBe(n0);
      disposeBatch(b);
      index.dispose();
      expect(a).toEqual(ra);
      expect(e).toEqual(re);
      expect(t).toEqual(Array.from(own.logp));
      const plain = await scoreSamples(p, cfg, samples, free, { temperature: T });
      expect(a).toEqual(Array.from(plain.logp));
    },
  );

  it("with A = 0 the term alone lowers the distilled tokens' top-K reverse KL; numTensors stays flat", async () => {
    const p = makeVariables(cfg, initValues(cfg, new Rng(3)));
    const teacherP = makeVariables(cfg, initValues(cfg, new Rng(9)));
    const student = await scoreTopK(p, cfg, samples, free, { temperature: T, k: K });
    const teacher = await scoreTopK(teacherP, cfg, samples, free, { temperature: T, k: K, ids: student.ids });
    const before = await meanKl(p, student.ids, teacher.logp);
    expect(before).toBeGreaterThan(0.01);
    // Plain gradient steps: each one must descend (Adam's first, sign-sized step can overshoot a KL this small).
    const opt = tf.train.sgd(0.01);
    const counts: number[] = [];
    const kls = [before];
    for (let it = 0; it < 4; it++) {
      const old = await scoreSamples(p, cfg, samples, free, { temperature: T });
      const m = await ppoUpdate(
        p,
        cfg,
        opt,
        {
          samples,
          adv: new Float32Array(M),
          oldLogp: old.logp,
          refLogp: null,
          freeRow: free,
          topK: { k: K, ids: student.ids, teacherLogp: teacher.logp, gate, coef: 1 },
        },
        opts,
        new Rng(10 + it),
      );
      // The PPO term is 0 with A = 0; the gradient is the top-k term's.
      expect(m.policyLoss).toBe(0);
      expect(m.gradNorm).toBeGreaterThan(0);
      counts.push(tf.memory().numTensors);
      kls.push(await meanKl(p, student.ids, teacher.logp));
    }
    expect(new Set(counts).size).toBe(1);
    for (let i = 1; i < kls.length; i++) expect(kls[i], `after update ${i}`).toBeLessThan(kls[i - 1]);
    expect(kls[4]).toBeLessThan(before / 3);
    tf.dispose([...Object.values(p), ...Object.values(teacherP)]);
  });

  it('no distilled token: bit-identical to the update without the term', async () => {
    const run = async (withTopK: boolean) => {
      const p = makeVariables(cfg, initValues(cfg, new Rng(3)));
      const old = await scoreSamples(p, cfg, samples, free, { temperature: T });
      const adv = Float32Array.from({ length: M }, (_, m) => (m % 2 ? 0.5 : -0.25));
      const topK = {
        k: K,
        ids: new Int32Array(M * K).fill(20),
        teacherLogp: new Float32Array(M * K),
        gate: new Uint8Array(M),
        coef: 1,
      };
      const m = await ppoUpdate(
        p,
        cfg,
        tf.train.adam(1e-2),
        { samples, adv, oldLogp: old.logp, refLogp: null, freeRow: free, ...(withTopK ? { topK } : {}) },
        opts,
        new Rng(1),
      );
      const w = Object.values(p).map((v) => Array.from(v.dataSync()));
      tf.dispose(Object.values(p));
      return { m, w };
    };
    const a = await run(true),
      b = await run(false);
    expect(a.m).toEqual(b.m);
    expect(a.w).toEqual(b.w);
  });

  it('refuses targets that do not fit the samples, naming the lengths', async () => {
    const p = makeVariables(cfg, initValues(cfg, new Rng(3)));
    const old = await scoreSamples(p, cfg, samples, free);
    const topK = { k: K, ids: new Int32Array(M * K - 1), teacherLogp: new Float32Array(M * K), gate, coef: 1 };
    await expect(
      ppoUpdate(
        p,
        cfg,
        tf.train.adam(1e-3),
        { samples, adv: new Float32Array(M), oldLogp: old.logp, refLogp: null, freeRow: free, topK },
        opts,
        new Rng(1),
      ),
    ).rejects.toThrow(
      'ppoUpdate: top-k targets hold gate 18, ids 71, teacher 72 entries; M = 18 action tokens × K 4 expected',
    );
    tf.dispose(Object.values(p));
  });
});
