/**
 * The explorer's per-token PPO ratio (StepDetail `tokens.ratio`, recorded by train/update.ts `UpdateHooks.ratio`) in a
 * tiny run (household/easy from the shipped base policy, B 2 × G 4, 2 mini-batches): recording it changes no number
 * of the run (step events equal a run without the step detail); every token of the step's first mini-batch (its
 * order replayed from the `minibatch/<step>` stream, as update.ts draws it) has ρ = 1 up to the sampler's rounding,
 * since π_θ = π_old there; and the step event's clip fraction, approximate KL and policy loss — the trainer's own
 * numbers — follow from the stored ρ and A by the PPO-clip formulas (Schulman et al. 2017, eq. 7; dual-clip, Ye et
 * al. 2020; token-mean). No tensor is left behind.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '../../../src/core/tf';
import { train } from '../../../src/core/train/trainer';
import type { StepEvent, TrainEvent } from '../../../src/core/train/events';
import type { StepDetail } from '../../../src/core/train/step-detail';
import { parseRunConfig } from '../../../src/core/run/config';
import { Rng } from '../../../src/core/rng';
import { buildTokenizer } from '../../../src/core/model/policy';
import { getEnvSpec } from '../../../src/core/envs/registry';
import { loadBaseFiles } from '../../../cli/base';
import { useBackend } from '../../helpers/backend';

let base: Uint8Array;
beforeAll(async () => {
  await useBackend('wasm');
  const spec = getEnvSpec('household');
  base = (await loadBaseFiles(spec, 'easy', buildTokenizer(spec))).bytes;
});

const tiny = {
  model: 'nano',
  preset: 'easy',
  tasksPerStep: 2,
  groupSize: 4,
  miniBatches: 2,
  steps: 2,
  evalEvery: 0,
  seed: 3,
  learningRate: 1e-3,
} as const;
const TIMING = ['tokensPerSecond', 'stepMs', 'elapsedMs', 'phaseMs', 'numTensors'];
const steps = (evs: TrainEvent[]) =>
  evs
    .filter((e): e is StepEvent => e.event === 'step')
    .map((e) => Object.fromEntries(Object.entries(e).filter(([k]) => !TIMING.includes(k))));

async function run(detail: boolean): Promise<{ events: TrainEvent[]; details: StepDetail[] }> {
  const events: TrainEvent[] = [],
    details: StepDetail[] = [];
  for await (const e of train(tiny as never, {
    backend: 'wasm',
    initWeights: base,
    ...(detail ? { onStepDetail: (d: StepDetail) => details.push(d) } : {}),
  }))
    events.push(e);
  return { events, details };
}

/** A step's vectors in packed order (groups, trajectories, turns), with each sample's token count. */
function packedOf(d: StepDetail): { ratio: number[]; adv: number[]; lengths: number[] } {
  const ratio: number[] = [],
    adv: number[] = [],
    lengths: number[] = [];
  for (const g of d.groups) {
    expect(g.tokens.ratio).not.toBeNull();
    ratio.push(...g.tokens.ratio!);
    adv.push(...g.tokens.adv);
    for (const t of g.trajectories) for (const u of t.turns) lengths.push(u.tokenCount);
  }
  return { ratio, adv, lengths };
}

describe('step detail: the PPO ratio as the update used it', () => {
  it(
    "changes no number of the run, is 1 on the first mini-batch, and reproduces the step's clip " +
      'fraction, approximate KL and policy loss',
    async () => {
      const n0 = tf.memory().numTensors;
      const withDetail = await run(true);
      const without = await run(false);
      expect(tf.memory().numTensors).toBe(n0);
      expect(steps(withDetail.events)).toEqual(steps(without.events));
      expect(withDetail.details.map((d) => d.step)).toEqual([1, 2]);

      const cfg = parseRunConfig(tiny);
      const f = Math.fround;
      let moved = 0;
      for (const d of withDetail.details) {
        const ev = withDetail.events.find((e): e is StepEvent => e.event === 'step' && e.step === d.step)!;
        const { ratio, adv, lengths } = packedOf(d);
        expect(ratio.length).toBe(ev.actionTokens);
        expect(ratio.every((r) => Number.isFinite(r) && r > 0)).toBe(true);

        // The first mini-batch (update.ts: the `minibatch/<step>` shuffle, samples order[0 … n/2)) runs at θ =
        // θ_old.
        const n = lengths.length;
        const offsets = lengths.map((_, i) => lengths.slice(0, i).reduce((a, b) => a + b, 0));
        const order = new Rng(cfg.seed).fork(`minibatch/${d.step}`).shuffle([...Array(n).keys()]);
        const first = new Set(order.slice(0, Math.floor(n / 2)));
        for (let i = 0; i < n; i++) {
          for (let k = 0; k < lengths[i]; k++) {
            const r = ratio[offsets[i] + k];
            if (first.has(i)) expect(Math.abs(r - 1), `sample ${i} token ${k} (first mini-batch)`).toBeLessThan(1e-3);
            else if (Math.abs(r - 1) > 1e-3) moved++;
          }
        }

        // The trainer's metrics from ρ and A (float32 arithmetic, as tf computes them).
        let clipped = 0,
          lower = 0,
          loss = 0,
          approxKl = 0;
        const lo = f(1 - cfg.clipEps),
          hi = f(1 + (cfg.clipEpsHigh || cfg.clipEps));
        for (let m = 0; m < ratio.length; m++) {
          const r = ratio[m],
            negA = f(-adv[m]);
          const l1 = f(negA * r),
            l2 = f(negA * Math.min(hi, Math.max(lo, r)));
          const lc = Math.max(l1, l2);
          if (l2 > l1) clipped++;
          let l = lc;
          if (cfg.dualClip > 1 && adv[m] < 0) {
            const l3 = f(negA * cfg.dualClip);
            if (lc > l3) lower++;
            l = Math.min(lc, l3);
          }
          loss += l;
          approxKl += r - 1 - Math.log(r);
        }
        const M = ratio.length;
        expect(clipped / M).toBe(ev.clipFraction);
        expect(lower / M).toBe(ev.clipFractionLower);
        expect(loss / M).toBeCloseTo(ev.policyLoss, 5);
        expect(approxKl / M).toBeCloseTo(ev.approxKl, 6);
      }
      // A step with a non-zero gradient moved the weights before its second mini-batch: those ratios moved off 1.
      expect(steps(withDetail.events).some((e) => (e.gradNorm as number) > 0)).toBe(true);
      expect(moved).toBeGreaterThan(0);
    },
    300_000,
  );
});
