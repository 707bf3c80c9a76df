import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '../../../src/core/tf';
import { aggLoss, aggPlan, aggWeights, approxKlOld, k3, klK3, ppoClipLoss } from '../../../src/core/math/losses';
import { useBackend } from '../../helpers/backend';

beforeAll(() => useBackend('cpu'));

const arr = async (t: tf.Tensor) => Array.from(await t.data());

describe('PPO-clip with dual-clip (hand-computed)', () => {
  it('ratio, clip and dual-clip per token', async () => {
    const ratios = [1.5, 0.5, 0.5, 5, 1.1];
    const adv = [1, 1, -1, -1, -2];
    const old = [-1, -1, -1, -1, -1];
    const logp = ratios.map((r, i) => old[i] + Math.log(r));
    const r = ppoClipLoss(tf.tensor1d(logp), tf.tensor1d(old), tf.tensor1d(adv), 0.2, 3);
    const loss = await arr(r.loss);
    // 1: A>0, ρ=1.5 → max(−1.5, −1.2) = −1.2 (clipped)   2: A>0, ρ=0.5 → max(−0.5, −0.8) = −0.5
    // 3: A<0, ρ=0.5 → max(0.5, 0.8) = 0.8 (clipped)      4: A<0, ρ=5 → max(5, 1.2) = 5 → dual min(5, 3) = 3
    // 5: A=−2, ρ=1.1 → max(2.2, 2.2) = 2.2
    [-1.2, -0.5, 0.8, 3, 2.2].forEach((v, i) => expect(loss[i]).toBeCloseTo(v, 5));
    // Token 4 is bounded by the dual clip, not by the ordinary clip (for A < 0 and ρ > 1 + ε the unclipped term
    // wins).
    expect(await arr(r.clipped)).toEqual([1, 0, 1, 0, 0]);
    expect(await arr(r.clippedLower)).toEqual([0, 0, 0, 1, 0]);
    (await arr(r.ratio)).forEach((v, i) => expect(v).toBeCloseTo(ratios[i], 5));
  });
  it('without dual-clip a large ratio with A<0 is not bounded', async () => {
    const r = ppoClipLoss(tf.tensor1d([Math.log(5)]), tf.tensor1d([0]), tf.tensor1d([-1]), 0.2, 0);
    expect((await arr(r.loss))[0]).toBeCloseTo(5, 5);
  });
});

describe('k3 KL', () => {
  it('exp(δ) − δ − 1 with δ = ℓ_ref − ℓ, clamped to [−10, 10]', async () => {
    const logp = [0, 0, 0, -30];
    const ref = [0, Math.log(2), -Math.log(2), -10];
    const k = await arr(klK3(tf.tensor1d(logp), tf.tensor1d(ref)));
    expect(k[0]).toBeCloseTo(0, 7);
    expect(k[1]).toBeCloseTo(2 - Math.log(2) - 1, 6); // 0.306853
    expect(k[2]).toBeCloseTo(0.5 + Math.log(2) - 1, 6); // 0.193147
    expect(k[3]).toBe(10); // δ = 20 → e^20 − 21 clamped
  });
  it('the scalar k3(δ): 0 at δ = 0, 1 − ln 2 at δ = ln 2, 10 (clamped) at δ = 20', () => {
    expect(k3(0)).toBe(0); // e^0 − 0 − 1
    expect(k3(Math.log(2))).toBeCloseTo(1 - Math.log(2), 12); // 2 − ln 2 − 1 = 0.306853
    expect(k3(-Math.log(2))).toBeCloseTo(Math.log(2) - 0.5, 12); // 1/2 + ln 2 − 1 = 0.193147
    expect(k3(20)).toBe(10); // e^20 − 21 ≈ 4.85e8, clamped
  });
});

describe('approximate KL(π_old ‖ π) (SB3 target_kl)', () => {
  it('(r − 1) − log r with r = exp(ℓ − ℓ_old), the log-ratio clamped to [−20, 20]', async () => {
    const logp = [0, Math.log(0.5), Math.log(0.25), 0];
    const old = [0, Math.log(0.25), Math.log(0.5), -30];
    const k = await arr(approxKlOld(tf.tensor1d(logp), tf.tensor1d(old)));
    expect(k[0]).toBeCloseTo(0, 7);
    expect(k[1]).toBeCloseTo(1 - Math.log(2), 6); // r = 2: 0.306853
    expect(k[2]).toBeCloseTo(-0.5 + Math.log(2), 6); // r = 0.5: 0.193147
    expect(k[3]).toBeCloseTo(Math.exp(20) - 21, -3); // d = 30 clamped to 20
  });
});

describe('aggLoss (verl loss_agg_mode, one divisor per step)', () => {
  // Two samples of lengths 2 and 3 in one mini-batch (k = 1): values [1, 3 | 2, 2, 8].
  const v = () => tf.tensor1d([1, 3, 2, 2, 8]);
  const agg = async (mode: Parameters<typeof aggPlan>[0], k = 1) => {
    const plan = aggPlan(mode, [2, 3], k, 4);
    return { plan, value: (await arr(aggLoss(v(), tf.tensor1d(aggWeights([2, 3], plan)), plan)))[0] };
  };
  it('token-mean: Σ / M tokens = 16 / 5', async () => expect((await agg('token-mean')).value).toBeCloseTo(3.2, 6));
  it('seq-mean-token-mean: mean of sample means (2 and 4) = 3', async () =>
    expect((await agg('seq-mean-token-mean')).value).toBeCloseTo(3, 6));
  it('seq-mean-token-sum: mean of sample sums (4 and 12) = 8', async () =>
    expect((await agg('seq-mean-token-sum')).value).toBeCloseTo(8, 6));
  it('seq-mean-token-sum-norm: mean of sample sums / L_max 4 = 2', async () =>
    expect((await agg('seq-mean-token-sum-norm')).value).toBeCloseTo(2, 6));
  it('the divisor is fixed per step: with 2 mini-batches it is half the step total', async () => {
    expect(aggPlan('token-mean', [2, 3], 2, 4)).toEqual({
      mode: 'token-mean',
      divisor: 2.5,
      normLength: 4,
      per: 'token',
    });
    expect(aggPlan('seq-mean-token-mean', [2, 3], 2, 4)).toEqual({
      mode: 'seq-mean-token-mean',
      divisor: 1,
      normLength: 4,
      per: 'sample',
    });
  });
  it('an unknown mode names the known ones', () => {
    expect(() => aggPlan('seq-sum' as never, [1], 1, 4)).toThrow(
      new RegExp(
        'unknown loss aggregation "seq-sum"; ' +
          'known: token-mean, seq-mean-token-mean, seq-mean-token-sum, seq-mean-token-sum-norm',
      ),
    );
  });
  it('masked (prompt) positions get zero gradient and do not change the loss', async () => {
    // A [N,T] log-prob matrix; the loss sees only mask-1 positions (packed), as the trainer does.
    const mask = [
      [0, 0, 1, 1],
      [0, 1, 1, 0],
    ];
    const pos = mask.flatMap((r, i) => r.flatMap((m, t) => (m ? [i * 4 + t] : [])));
    const lossOf = (full: tf.Tensor) => {
      const packed = tf.gather(tf.reshape(full, [-1]), tf.tensor1d(pos, 'int32')) as tf.Tensor1D;
      const pg = ppoClipLoss(packed, tf.fill([4], -1) as tf.Tensor1D, tf.tensor1d([1, -1, 0.5, 2]), 0.2, 3);
      return aggLoss(pg.loss, tf.ones([4]) as tf.Tensor1D, aggPlan('token-mean', [1, 1, 1, 1], 1, 4));
    };
    const full = tf.tensor2d([
      [-3, -4, -1.1, -0.9],
      [-5, -1.05, -0.95, -7],
    ]);
    const g = await arr(tf.grad(lossOf)(full));
    mask.flat().forEach((m, k) => {
      if (!m) expect(g[k]).toBe(0);
    });
    expect(g.filter((x) => x !== 0).length).toBeGreaterThan(0);
    const changed = tf.tensor2d([
      [9, 9, -1.1, -0.9],
      [9, -1.05, -0.95, 9],
    ]);
    expect((await arr(lossOf(changed)))[0]).toBeCloseTo((await arr(lossOf(full)))[0], 7);
  });
});
