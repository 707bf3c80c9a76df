import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '../../../src/core/tf';
import {
  blendWeights,
  copyWeights,
  disposeSnapshot,
  disposeWeights,
  guardStep,
  meanApproxKl,
  restoreSnapshot,
  takeSnapshot,
} from '../../../src/core/train/rollback';
import { useBackend } from '../../helpers/backend';

beforeAll(() => useBackend('cpu'));

describe('rollback of an update', () => {
  it('meanApproxKl is the token mean of (r − 1) − log r', () => {
    const oldL = Float32Array.from([Math.log(0.5), Math.log(0.5), 0]);
    const newL = Float32Array.from([Math.log(0.5), Math.log(0.25), 0]);
    // r = 1, 0.5, 1 → 0, (−0.5 + ln 2) = 0.193147, 0
    expect(meanApproxKl(newL, oldL)).toBeCloseTo((Math.log(2) - 0.5) / 3, 6);
    expect(meanApproxKl(new Float32Array(0), new Float32Array(0))).toBe(0);
    expect(() => meanApproxKl(new Float32Array(2), new Float32Array(3))).toThrow(/2 new log-probs but 3 old/);
  });

  it('restores weights and Adam state exactly, so the next update is the one it would have been', async () => {
    // Adam finds variables by name: each parameter set gets its own names.
    const make = (tag: string) => ({
      a: tf.variable(tf.tensor1d([1, -2, 3]), true, `rb.${tag}.a`),
      b: tf.variable(tf.tensor2d([[0.5, 0.25]]), true, `rb.${tag}.b`),
    });
    const apply = (opt: tf.Optimizer, tag: string, s: number) => {
      const g = { [`rb.${tag}.a`]: tf.tensor1d([0.1 * s, -0.2, 0.3]), [`rb.${tag}.b`]: tf.tensor2d([[s, -s]]) };
      opt.applyGradients(g);
      tf.dispose(Object.values(g));
    };
    // Reference: updates with gradients 1 then 3.
    const ref = make('ref'),
      optR = tf.train.adam(0.1);
    apply(optR, 'ref', 1);
    apply(optR, 'ref', 3);
    // Same, with a rejected update (gradient 50) in between that is undone.
    const p = make('p'),
      opt = tf.train.adam(0.1);
    apply(opt, 'p', 1);
    const n0 = tf.memory().numTensors;
    const snap = takeSnapshot(p, opt);
    apply(opt, 'p', 50);
    expect(Array.from(p.a.dataSync())).not.toEqual(Array.from(ref.a.dataSync()));
    restoreSnapshot(snap, p, opt);
    disposeSnapshot(snap);
    expect(tf.memory().numTensors).toBe(n0);
    apply(opt, 'p', 3);
    expect(Array.from(p.a.dataSync())).toEqual(Array.from(ref.a.dataSync()));
    expect(Array.from(p.b.dataSync())).toEqual(Array.from(ref.b.dataSync()));
    expect(opt.iterations).toBe(optR.iterations);
  });

  it('undoing the very first update zeroes the moments Adam created in it', () => {
    const p = { a: tf.variable(tf.tensor1d([1, 2]), true, 'rb.first.p') },
      q = { a: tf.variable(tf.tensor1d([1, 2]), true, 'rb.first.q') };
    const opt = tf.train.adam(0.1),
      optQ = tf.train.adam(0.1);
    const snap = takeSnapshot(p, opt);
    opt.applyGradients({ 'rb.first.p': tf.tensor1d([9, 9]) } as never);
    restoreSnapshot(snap, p, opt);
    disposeSnapshot(snap);
    opt.applyGradients({ 'rb.first.p': tf.tensor1d([1, -1]) } as never);
    optQ.applyGradients({ 'rb.first.q': tf.tensor1d([1, -1]) } as never);
    expect(Array.from(p.a.dataSync())).toEqual(Array.from(q.a.dataSync()));
  });

  it('blendWeights sets θ_old + α(θ_new − θ_old) and keeps the Adam state of the full update', () => {
    const p = { a: tf.variable(tf.tensor1d([1, -2, 4]), true, 'rb.blend.a') };
    // One Adam update first (the snapshot needs Adam state); then a plain assignment stands in for the step's update.
    const adam = tf.train.adam(0.1);
    adam.applyGradients({ 'rb.blend.a': tf.tensor1d([1, 1, 1]) } as never);
    const it0 = adam.iterations;
    const snap = takeSnapshot(p, adam);
    const oldA = Array.from(p.a.dataSync());
    p.a.assign(tf.tensor1d([3, 2, 0]));
    const full = copyWeights(p);
    const n0 = tf.memory().numTensors;
    blendWeights(p, snap, full, 0.5);
    // midpoints of θ_old (Adam's first step from [1, −2, 4]: each weight −0.1) and θ_new = [3, 2, 0], in float32
    expect(Array.from(p.a.dataSync())).toEqual(
      oldA.map((o, i) => Math.fround(o + Math.fround(Math.fround([3, 2, 0][i] - o) * 0.5))),
    );
    blendWeights(p, snap, full, 1);
    expect(Array.from(p.a.dataSync())).toEqual([3, 2, 0]);
    blendWeights(p, snap, full, 0);
    expect(Array.from(p.a.dataSync())).toEqual(oldA);
    expect(tf.memory().numTensors).toBe(n0);
    expect(adam.iterations).toBe(it0);
    expect(() => blendWeights(p, snap, full, 1.5)).toThrow(/alpha must be in \[0, 1\], got 1.5/);
    expect(() => blendWeights({ ...p, z: p.a }, snap, full, 0.5)).toThrow(/weight "z" is missing/);
    disposeWeights(full);
    disposeSnapshot(snap);
  });

  it(
    'guardStep: keeps a step under the bound, shrinks one over it by halves, undoes it when none fits or ' +
      'the KL is NaN',
    async () => {
      // One weight a; the "policy" scores one token with log-prob a, so KL(old ‖ new) = e^(a−a₀) − 1 −
      // (a−a₀), a₀ = 0.
      const run = async (tag: string, full: number, bound: number, backtracks: number, nan = false) => {
        const p = { a: tf.variable(tf.scalar(0), true, `rb.guard.${tag}`) };
        const opt = tf.train.adam(0.1);
        opt.applyGradients({ [`rb.guard.${tag}`]: tf.scalar(1) } as never); // Adam state to restore
        p.a.assign(tf.scalar(0));
        const snap = takeSnapshot(p, opt);
        p.a.assign(tf.scalar(full)); // the step's update
        const score = async () => ({ logp: Float32Array.of(nan ? NaN : p.a.dataSync()[0]), tokens: 1 });
        const g = await guardStep(p, opt, snap, score, Float32Array.of(0), bound, backtracks);
        disposeSnapshot(snap);
        return { g, a: p.a.dataSync()[0] };
      };
      const kl = (d: number) => Math.exp(d) - 1 - d;
      const kept = await run('kept', 0.5, 0.2, 2);
      expect(kept.g).toEqual({
        stepKl: expect.closeTo(kl(0.5), 6),
        keptStepKl: expect.closeTo(kl(0.5), 6),
        stepScale: 1,
        rolledBack: false,
        tokens: 1,
      });
      expect(kept.a).toBe(0.5);
      // Full step a = 1: KL 0.718 > 0.2; half step a = 0.5: KL 0.149 ≤ 0.2 → kept at ×0.5.
      const shrunk = await run('shrunk', 1, 0.2, 3);
      expect(shrunk.g).toEqual({
        stepKl: expect.closeTo(kl(1), 6),
        keptStepKl: expect.closeTo(kl(0.5), 6),
        stepScale: 0.5,
        rolledBack: false,
        tokens: 2,
      });
      expect(shrunk.a).toBe(0.5);
      // Bound 0.01: a = 0.5 (0.149) and 0.25 (0.034) break it, a = 0.125 (0.0080) fits at the third halving.
      expect((await run('third', 1, 0.01, 3)).g.stepScale).toBe(0.125);
      const undone = await run('undone', 1, 0.01, 2);
      expect([undone.g.stepScale, undone.g.keptStepKl, undone.g.rolledBack, undone.g.tokens, undone.a]).toEqual([
        0,
        0,
        true,
        3,
        0,
      ]);
      const nan = await run('nan', 1, 0.2, 0, true);
      expect([nan.g.rolledBack, nan.a]).toEqual([true, 0]);
    },
  );

  it('refuses an optimizer that is not Adam', () => {
    expect(() => takeSnapshot({}, tf.train.sgd(0.1))).toThrow(/not tfjs Adam/);
  });
});
