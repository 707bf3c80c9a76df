import { beforeAll, describe, expect, it } from 'vitest';
import { train } from '../../../src/core/train/trainer';
import type { TrainEvent } from '../../../src/core/train/events';
import { useBackend } from '../../helpers/backend';

beforeAll(() => useBackend('wasm'));

const tiny = {
  init: 'scratch',
  model: 'nano',
  preset: 'easy',
  steps: 3,
  tasksPerStep: 2,
  groupSize: 3,
  miniBatches: 2,
  evalEvery: 3,
  evalEpisodes: 2,
} as const;

async function collect(seed: number, extra: Record<string, unknown> = {}): Promise<TrainEvent[]> {
  const out: TrainEvent[] = [];
  for await (const e of train({ ...tiny, seed, ...extra }, { backend: 'wasm' })) out.push(e);
  return out;
}
const strip = (evs: TrainEvent[]) =>
  JSON.stringify(
    evs.map((e) => {
      if (e.event === 'step') {
        const { tokensPerSecond: _tokensPerSecond, stepMs: _stepMs, elapsedMs: _elapsedMs, ...r } = e;
        return r;
      }
      if (e.event === 'eval') {
        const { evalMs: _evalMs, ...r } = e;
        return r;
      }
      if (e.event === 'done') return { event: 'done', steps: e.steps };
      return e;
    }),
  );

describe('trainer', () => {
  it('yields start, eval, then step + trajectories per step, a final eval and done; numTensors constant', async () => {
    const evs = await collect(7);
    expect(evs.map((e) => e.event)).toEqual([
      'start',
      'eval',
      'step',
      'trajectories',
      'step',
      'trajectories',
      'step',
      'trajectories',
      'eval',
      'done',
    ]);
    const steps = evs.filter((e) => e.event === 'step');
    expect(new Set(steps.slice(1).map((s) => s.numTensors)).size).toBe(1);
    for (const s of steps)
      for (const k of ['successRate', 'policyLoss', 'kl', 'clipFraction', 'entropy', 'tokensPerSecond'] as const)
        expect(Number.isFinite(s[k])).toBe(true);
    const tr = evs.find((e) => e.event === 'trajectories')!;
    if (tr.event !== 'trajectories') throw new Error('unreachable');
    expect(tr.group.length).toBe(3);
    expect(tr.group[0].steps[0].tokens.at(-1)!.text).toBe('<eos>');
  });

  it('is deterministic: same seed, identical events; another seed differs', async () => {
    const a = strip(await collect(11)),
      b = strip(await collect(11)),
      c = strip(await collect(12));
    expect(a).toBe(b);
    expect(a).not.toBe(c);
  });

  it(
    'applies the learning-rate schedule: linear 1e-3 → 1e-4 over 3 steps applies from the updates of ' + 'step 2 on',
    async () => {
      const steps = (evs: TrainEvent[]) => evs.flatMap((e) => (e.event === 'step' ? [e] : []));
      const lin = steps(await collect(5, { learningRate: 1e-3, lrSchedule: 'linear', minLrRatio: 0.1, evalEvery: 0 }));
      const con = steps(await collect(5, { learningRate: 1e-3, evalEvery: 0 }));
      expect(lin.map((s) => s.learningRate)).toEqual([1e-3, 1e-3 * (0.1 + 0.9 * 0.5), 1e-3 * 0.1]);
      expect(con.map((s) => s.learningRate)).toEqual([1e-3, 1e-3, 1e-3]);
      // Step 1 updates with the same rate, so step 2 samples the same rollouts; step 2's second mini-batch already sees
      // the policy after a smaller first update, so its loss (mean over the 2 mini-batches) differs.
      expect(lin[0].policyLoss).toBe(con[0].policyLoss);
      expect([lin[1].successRate, lin[1].episodeLength, lin[1].actionTokens]).toEqual([
        con[1].successRate,
        con[1].episodeLength,
        con[1].actionTokens,
      ]);
      expect(lin[1].policyLoss).not.toBe(con[1].policyLoss);
    },
  );

  it(
    'maxStepKl: a bound no update meets undoes every step (weights unchanged); a loose one changes ' +
      'nothing but the report',
    async () => {
      const run = async (extra: Record<string, unknown>) => {
        let policy: { params: Record<string, { dataSync(): Float32Array }> } | undefined;
        let w0: number[][] = [],
          w3: number[][] = [];
        const evs: TrainEvent[] = [];
        for await (const e of train(
          { ...tiny, seed: 5, evalEvery: 0, learningRate: 1e-3, ...extra },
          { backend: 'wasm', onPolicy: (p) => (policy = p as never) },
        )) {
          if (e.event === 'start') w0 = Object.values(policy!.params).map((v) => Array.from(v.dataSync()));
          if (e.event === 'step' && e.step === 3)
            w3 = Object.values(policy!.params).map((v) => Array.from(v.dataSync()));
          evs.push(e);
        }
        return { steps: evs.flatMap((e) => (e.event === 'step' ? [e] : [])), w0, w3 };
      };
      const strict = await run({ maxStepKl: 1e-12 });
      // Step 1's groups may all fail alike (advantage 0: no move, stepKl 0, nothing to undo); every step that moved is
      // undone.
      expect(strict.steps.map((s) => s.rolledBack)).toEqual(strict.steps.map((s) => s.stepKl! > 1e-12));
      expect(strict.steps.filter((s) => s.rolledBack).length).toBeGreaterThanOrEqual(2);
      expect(strict.w3).toEqual(strict.w0);
      expect(new Set(strict.steps.slice(1).map((s) => s.numTensors)).size).toBe(1);
      const loose = await run({ maxStepKl: 10 }),
        off = await run({});
      expect(loose.steps.map((s) => s.rolledBack)).toEqual([false, false, false]);
      expect(off.steps.map((s) => s.stepKl)).toEqual([null, null, null]);
      // Same rollouts and updates up to the first undone one (step 2 here, as step 1 did not move).
      expect(loose.steps.slice(0, 2).map((s) => s.stepKl)).toEqual(strict.steps.slice(0, 2).map((s) => s.stepKl));
      expect(Math.max(...loose.steps.map((s) => s.stepKl!))).toBeGreaterThan(0);
      expect(loose.w3).toEqual(off.w3);
      expect(loose.w3).not.toEqual(loose.w0);
      const core = (xs: typeof off.steps) =>
        xs.map(
          ({
            tokensPerSecond: _tokensPerSecond,
            stepMs: _stepMs,
            elapsedMs: _elapsedMs,
            stepKl: _stepKl,
            keptStepKl: _keptStepKl,
            ...r
          }) => r,
        );
      expect(core(loose.steps)).toEqual(core(off.steps));
    },
  );

  it(
    'klBacktracks: a step over maxStepKl is shrunk by halves ' +
      'to θ_old + 0.5ᵏ(θ_new − θ_old) ' +
      'instead of undone',
    async () => {
      const run = async (extra: Record<string, unknown>) => {
        let policy: { params: Record<string, { dataSync(): Float32Array }> } | undefined;
        const w: number[][][] = [];
        const steps: Extract<TrainEvent, { event: 'step' }>[] = [];
        let done: Extract<TrainEvent, { event: 'done' }> | undefined;
        for await (const e of train(
          { ...tiny, seed: 5, evalEvery: 0, learningRate: 1e-3, ...extra },
          { backend: 'wasm', onPolicy: (p) => (policy = p as never) },
        )) {
          if (e.event === 'start' || e.event === 'step')
            w.push(Object.values(policy!.params).map((v) => Array.from(v.dataSync())));
          if (e.event === 'step') steps.push(e);
          if (e.event === 'done') done = e;
        }
        return { steps, w, done: done! };
      };
      const loose = await run({ maxStepKl: 10 });
      // First step that moved the policy (a step with all advantages 0 measures ~1e-16: the sampler's and the scorer's
      // float32 log-probs of the same tokens differ by ~1e-7 nats).
      const s = loose.steps.findIndex((x) => x.stepKl! > 1e-9);
      expect(s).toBeGreaterThanOrEqual(0);
      const bound = loose.steps[s].stepKl! / 2;
      const bt = await run({ maxStepKl: bound, klBacktracks: 3 });
      const undo = await run({ maxStepKl: bound });
      // Same rollouts and the same full update at step s; the line search keeps a shrunk step, plain maxStepKl undoes
      // it.
      expect(bt.steps[s].stepKl).toBe(loose.steps[s].stepKl);
      expect([0.5, 0.25, 0.125]).toContain(bt.steps[s].stepScale);
      expect(bt.steps[s].rolledBack).toBe(false);
      expect([undo.steps[s].rolledBack, undo.steps[s].stepScale, undo.steps[s].keptStepKl]).toEqual([true, 0, 0]);
      expect(loose.steps.map((x) => x.stepScale)).toEqual([1, 1, 1]);
      // The kept step's KL is reported beside the full update's: under the bound, above 0.
      expect(bt.steps[s].keptStepKl).toBeGreaterThan(0);
      expect(bt.steps[s].keptStepKl).toBeLessThanOrEqual(bound);
      expect(loose.steps.map((x) => x.keptStepKl)).toEqual(loose.steps.map((x) => x.stepKl));
      // The done event counts them.
      const count = (r: typeof bt) => [r.done.undoneSteps, r.done.shrunkSteps];
      expect(count(bt)).toEqual([
        bt.steps.filter((x) => x.rolledBack).length,
        bt.steps.filter((x) => !x.rolledBack && x.stepScale < 1).length,
      ]);
      expect(count(bt)[1]).toBeGreaterThanOrEqual(1);
      expect(count(loose)).toEqual([0, 0]);
      expect(count(undo)[0]).toBeGreaterThanOrEqual(1);
      // Weights after step s: θ_old + α(θ_new − θ_old), with θ_old, θ_new from the loose run (index 0 = start).
      const a = bt.steps[s].stepScale,
        before = loose.w[s],
        after = loose.w[s + 1];
      expect(bt.w[s]).toEqual(before);
      bt.w[s + 1].forEach((t, i) =>
        t.forEach((x, j) => expect(x).toBeCloseTo(before[i][j] + a * (after[i][j] - before[i][j]), 6)),
      );
      expect(new Set(bt.steps.slice(1).map((x) => x.numTensors)).size).toBe(1);
    },
  );

  it(
    'passes Adam β₂ to the optimizer: ' +
      'bias-corrected Adam moves the same on the first update, ' +
      'differently after',
    async () => {
      const steps = (evs: TrainEvent[]) => evs.flatMap((e) => (e.event === 'step' ? [e] : []));
      const b95 = steps(await collect(5, { learningRate: 1e-3, adamBeta2: 0.95, evalEvery: 0 }));
      const def = steps(await collect(5, { learningRate: 1e-3, evalEvery: 0 }));
      expect([b95[0].successRate, b95[0].actionTokens]).toEqual([def[0].successRate, def[0].actionTokens]);
      expect(b95.map((s) => s.policyLoss)).not.toEqual(def.map((s) => s.policyLoss));
      await expect(collect(5, { adamBeta2: 1 })).rejects.toThrow(/adamBeta2/);
    },
  );

  it('rejects a bad config naming the field', async () => {
    await expect(collect.call(null, -1)).rejects.toThrow(/seed/);
  });
});
