import { beforeAll, describe, expect, it } from 'vitest';
import { train } from '../../../src/core/train/trainer';
import type { TrainEvent } from '../../../src/core/train/events';
import { useBackend } from '../../helpers/backend';

beforeAll(() => useBackend('wasm'));

const tiny = { init: 'scratch', model: 'nano', preset: 'easy', steps: 3, tasksPerStep: 2, groupSize: 3, miniBatches: 2, evalEvery: 3, evalEpisodes: 2 } as const;

async function collect(seed: number, extra: Record<string, unknown> = {}): Promise<TrainEvent[]> {
  const out: TrainEvent[] = [];
  for await (const e of train({ ...tiny, seed, ...extra }, { backend: 'wasm' })) out.push(e);
  return out;
}
const strip = (evs: TrainEvent[]) => JSON.stringify(evs.map((e) => {
  if (e.event === 'step') { const { tokensPerSecond, stepMs, elapsedMs, ...r } = e; return r; }
  if (e.event === 'eval') { const { evalMs, ...r } = e; return r; }
  if (e.event === 'done') return { event: 'done', steps: e.steps };
  return e;
}));

describe('trainer', () => {
  it('yields start, eval, then step + trajectories per step, a final eval and done; numTensors constant', async () => {
    const evs = await collect(7);
    expect(evs.map((e) => e.event)).toEqual(['start', 'eval', 'step', 'trajectories', 'step', 'trajectories', 'step', 'trajectories', 'eval', 'done']);
    const steps = evs.filter((e) => e.event === 'step');
    expect(new Set(steps.slice(1).map((s) => s.numTensors)).size).toBe(1);
    for (const s of steps) for (const k of ['successRate', 'policyLoss', 'kl', 'clipFraction', 'entropy', 'tokensPerSecond'] as const) expect(Number.isFinite(s[k])).toBe(true);
    const tr = evs.find((e) => e.event === 'trajectories')!;
    if (tr.event !== 'trajectories') throw new Error('unreachable');
    expect(tr.group.length).toBe(3);
    expect(tr.group[0].steps[0].tokens.at(-1)!.text).toBe('<eos>');
  });

  it('is deterministic: same seed, identical events; another seed differs', async () => {
    const a = strip(await collect(11)), b = strip(await collect(11)), c = strip(await collect(12));
    expect(a).toBe(b);
    expect(a).not.toBe(c);
  });

  it('applies the learning-rate schedule: linear 1e-3 → 1e-4 over 3 steps applies from the updates of step 2 on', async () => {
    const steps = (evs: TrainEvent[]) => evs.flatMap((e) => (e.event === 'step' ? [e] : []));
    const lin = steps(await collect(5, { learningRate: 1e-3, lrSchedule: 'linear', minLrRatio: 0.1, evalEvery: 0 }));
    const con = steps(await collect(5, { learningRate: 1e-3, evalEvery: 0 }));
    expect(lin.map((s) => s.learningRate)).toEqual([1e-3, 1e-3 * (0.1 + 0.9 * 0.5), 1e-3 * 0.1]);
    expect(con.map((s) => s.learningRate)).toEqual([1e-3, 1e-3, 1e-3]);
    // Step 1 updates with the same rate, so step 2 samples the same rollouts; step 2's second mini-batch already sees
    // the policy after a smaller first update, so its loss (mean over the 2 mini-batches) differs.
    expect(lin[0].policyLoss).toBe(con[0].policyLoss);
    expect([lin[1].successRate, lin[1].episodeLength, lin[1].actionTokens]).toEqual([con[1].successRate, con[1].episodeLength, con[1].actionTokens]);
    expect(lin[1].policyLoss).not.toBe(con[1].policyLoss);
  });

  it('rejects a bad config naming the field', async () => {
    await expect(collect.call(null, -1)).rejects.toThrow(/seed/);
  });
});
