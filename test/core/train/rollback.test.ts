import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '../../../src/core/tf';
import { blendWeights, copyWeights, disposeSnapshot, disposeWeights, meanApproxKl, restoreSnapshot, takeSnapshot } from '../../../src/core/train/rollback';
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
    const make = (tag: string) => ({ a: tf.variable(tf.tensor1d([1, -2, 3]), true, `rb.${tag}.a`), b: tf.variable(tf.tensor2d([[0.5, 0.25]]), true, `rb.${tag}.b`) });
    const apply = (opt: tf.Optimizer, tag: string, s: number) => {
      const g = { [`rb.${tag}.a`]: tf.tensor1d([0.1 * s, -0.2, 0.3]), [`rb.${tag}.b`]: tf.tensor2d([[s, -s]]) };
      opt.applyGradients(g);
      tf.dispose(Object.values(g));
    };
    // Reference: updates with gradients 1 then 3.
    const ref = make('ref'), optR = tf.train.adam(0.1);
    apply(optR, 'ref', 1); apply(optR, 'ref', 3);
    // Same, with a rejected update (gradient 50) in between that is undone.
    const p = make('p'), opt = tf.train.adam(0.1);
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
    const p = { a: tf.variable(tf.tensor1d([1, 2]), true, 'rb.first.p') }, q = { a: tf.variable(tf.tensor1d([1, 2]), true, 'rb.first.q') };
    const opt = tf.train.adam(0.1), optQ = tf.train.adam(0.1);
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
    expect(Array.from(p.a.dataSync())).toEqual(oldA.map((o, i) => Math.fround(o + Math.fround(Math.fround([3, 2, 0][i] - o) * 0.5))));
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

  it('refuses an optimizer that is not Adam', () => {
    expect(() => takeSnapshot({}, tf.train.sgd(0.1))).toThrow(/not tfjs Adam/);
  });
});
