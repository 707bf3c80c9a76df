/**
 * Agentic-OPD's top-k reverse KL as a differentiable loss (math/losses.ts `topKReverseKlLoss`): its value equals the
 * plain-array `topKReverseKl` (math/agentic.ts) on a hand-made case and on random rows, masked ids add nothing, and
 * its gradient w.r.t. the student's logits (through the log-softmax and the gather at the top-K ids) matches central
 * finite differences computed in float64 with `topKReverseKl`.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '../../../src/core/tf';
import { topKReverseKlLoss } from '../../../src/core/math/losses';
import { topKReverseKl } from '../../../src/core/math/agentic';
import { Rng } from '../../../src/core/rng';
import { useBackend } from '../../helpers/backend';

beforeAll(() => useBackend('cpu'));

const ln = Math.log;

describe('topKReverseKlLoss', () => {
  it('equals topKReverseKl on a hand-made case: p̃_s = (5, 3, 1)/9, p̃_t = (1, 1, 2)/4', async () => {
    // Student log-probs over its top 3 (mass 0.9 of the vocabulary), teacher log-probs of the same ids (mass 0.8).
    const s = [ln(0.5), ln(0.3), ln(0.1)],
      t = [ln(0.2), ln(0.2), ln(0.4)];
    const hand = (5 / 9) * ln(5 / 9 / 0.25) + (3 / 9) * ln(3 / 9 / 0.25) + (1 / 9) * ln(1 / 9 / 0.5);
    expect(topKReverseKl(s, t)).toBeCloseTo(hand, 12);
    // A second row: identical renormalised distributions give 0.
    const s2 = [ln(0.4), ln(0.1), -1e9],
      t2 = [ln(0.08), ln(0.02), -1e9];
    const kl = topKReverseKlLoss(tf.tensor2d([s, s2]), tf.tensor2d([t, t2]));
    const v = Array.from(await kl.data());
    expect(v[0]).toBeCloseTo(hand, 6);
    expect(v[0]).toBeCloseTo(0.37239, 5); // (5/9)·ln(20/9) + (3/9)·ln(4/3) + (1/9)·ln(2/9)
    expect(v[1]).toBeCloseTo(0, 7);
    expect(topKReverseKl(s2, t2)).toBeCloseTo(0, 12);
    kl.dispose();
  });

  it('equals topKReverseKl on random rows (K = 4, unnormalised log-probs)', async () => {
    const rng = new Rng(11);
    const rows = 5,
      K = 4;
    const s = Array.from({ length: rows }, () => Array.from({ length: K }, () => -3 * rng.next()));
    const t = Array.from({ length: rows }, () => Array.from({ length: K }, () => -3 * rng.next()));
    const n0 = tf.memory().numTensors;
    const v = tf.tidy(() => topKReverseKlLoss(tf.tensor2d(s), tf.tensor2d(t)).arraySync()) as number[];
    expect(tf.memory().numTensors).toBe(n0);
    for (let r = 0; r < rows; r++) expect(v[r]).toBeCloseTo(topKReverseKl(s[r], t[r]), 5);
  });

  it(
    'the gradient w.r.t. student logits matches finite differences (log-softmax at T, gather at the ' + 'top-K ids)',
    () => {
      const rng = new Rng(5);
      const M = 3,
        V = 7,
        K = 3,
        T = 0.7;
      const z = Array.from({ length: M }, () => Array.from({ length: V }, () => 2 * rng.next() - 1));
      const ids = [
        [4, 1, 6],
        [0, 2, 3],
        [5, 6, 1],
      ];
      const teacher = Array.from({ length: M }, () => Array.from({ length: K }, () => -1 - 2 * rng.next()));
      // Float64 reference: Σ_m topKReverseKl(log-softmax(z_m / T)[ids_m], teacher_m).
      const f = (zz: number[][]) =>
        zz.reduce((acc, row, m) => {
          const x = row.map((v) => v / T);
          const mx = Math.max(...x);
          const lse = mx + Math.log(x.reduce((a, v) => a + Math.exp(v - mx), 0));
          return (
            acc +
            topKReverseKl(
              ids[m].map((i) => x[i] - lse),
              teacher[m],
            )
          );
        }, 0);
      const flat = ids.flatMap((row, m) => row.map((i) => m * V + i));
      const n0 = tf.memory().numTensors;
      const g = tf.tidy(() => {
        const grad = tf.grad((logits: tf.Tensor) => {
          const lsm = tf.logSoftmax(tf.div(logits, T));
          const top = tf.reshape(tf.gather(tf.reshape(lsm, [M * V]), tf.tensor1d(flat, 'int32')), [
            M,
            K,
          ]) as tf.Tensor2D;
          return tf.sum(topKReverseKlLoss(top, tf.tensor2d(teacher)));
        });
        return grad(tf.tensor2d(z)).arraySync() as number[][];
      });
      expect(tf.memory().numTensors).toBe(n0);
      const h = 1e-5;
      let nonzero = 0;
      for (let m = 0; m < M; m++)
        for (let v = 0; v < V; v++) {
          const up = z.map((r) => r.slice()),
            dn = z.map((r) => r.slice());
          up[m][v] += h;
          dn[m][v] -= h;
          const fd = (f(up) - f(dn)) / (2 * h);
          expect(g[m][v], `∂/∂z[${m}][${v}]`).toBeCloseTo(fd, 4);
          if (Math.abs(fd) > 1e-3) nonzero++;
        }
      // p̃ over the K ids depends only on their logits: every other logit gets zero gradient.
      for (let m = 0; m < M; m++)
        for (let v = 0; v < V; v++) if (!ids[m].includes(v)) expect(Math.abs(g[m][v])).toBeLessThan(1e-6);
      expect(nonzero).toBeGreaterThanOrEqual(M * 2);
    },
  );
});
