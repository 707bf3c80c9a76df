/**
 * Resumable training: a run of 4 steps straight and a run of 2 steps resumed from its step-2 checkpoint to 4 must
 * yield the same step events (timing fields excluded), for grpo, skill-grpo (its memory is state) and opid; the
 * checkpoint's Adam state round-trips exactly; no tensor is left behind.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '../../../src/core/tf';
import { train } from '../../../src/core/train/trainer';
import type { CheckpointEvent, TrainEvent } from '../../../src/core/train/events';
import { decodeTrainState, captureAdam, restoreAdam, encodeTrainState } from '../../../src/core/train/checkpoint';
import { loadPolicy, buildTokenizer } from '../../../src/core/model/policy';
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
  evalEvery: 0,
  checkpointEvery: 2,
  valTasks: 2,
  valSamples: 2,
  seed: 1,
} as const;
const TIMING = ['tokensPerSecond', 'stepMs', 'elapsedMs', 'analyzerLatencyMs', 'phaseMs', 'valMs'];

async function run(cfg: Record<string, unknown>, resume?: CheckpointEvent): Promise<TrainEvent[]> {
  const out: TrainEvent[] = [];
  for await (const e of train(
    { ...tiny, ...cfg },
    {
      backend: 'wasm',
      initWeights: base,
      checkpoints: true,
      resume: resume && { weights: resume.weights, state: resume.state },
    },
  ))
    out.push(e);
  return out;
}
const strip = (evs: TrainEvent[], kinds: string[]) =>
  evs
    .filter((e) => kinds.includes(e.event))
    .map((e) => {
      const r: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(e)) if (!TIMING.includes(k) && k !== 'weights' && k !== 'state') r[k] = v;
      return r;
    });

describe('resume from a checkpoint', () => {
  it.each(['grpo', 'skill-grpo', 'opid'])(
    '%s: 4 steps straight = 2 steps + resume to 4 (B 2 × G 4) (step and validation events)',
    async (algo) => {
      const n0 = tf.memory().numTensors;
      const straight = await run({ algo, steps: 4 });
      const first = await run({ algo, steps: 2 });
      const ck = first.find((e): e is CheckpointEvent => e.event === 'checkpoint' && e.step === 2)!;
      expect(ck).toBeTruthy();
      const rest = await run({ algo, steps: 4 }, ck);
      expect(tf.memory().numTensors).toBe(n0);
      expect(rest[0]).toMatchObject({ event: 'start', resumedFrom: 2 });
      expect(straight.filter((e) => e.event === 'checkpoint').map((e) => e.step)).toEqual([2, 4]);
      const kinds = ['step', 'validation'];
      expect(strip([...first, ...rest], kinds)).toEqual(strip(straight, kinds));
      expect(strip(straight, ['step']).length).toBe(4);
      // The checkpoint holds real optimizer state: steps 1–2 had non-zero gradients.
      expect(straight.filter((e) => e.event === 'step' && e.step <= 2 && e.gradNorm > 0).length).toBeGreaterThan(0);
      // The step-4 checkpoints are byte-identical too (weights and state).
      const a = straight.find((e) => e.event === 'checkpoint' && e.step === 4) as CheckpointEvent;
      const b = rest.find((e) => e.event === 'checkpoint' && e.step === 4) as CheckpointEvent;
      expect(Buffer.from(b.weights).equals(Buffer.from(a.weights))).toBe(true);
      expect(Buffer.from(b.state).equals(Buffer.from(a.state))).toBe(true);
      if (algo === 'skill-grpo')
        // a non-empty memory is restored
        expect(JSON.parse(decodeTrainState(ck.state).algoState!).byType.length).toBeGreaterThan(0);
      else expect(decodeTrainState(ck.state).algoState).toBeNull();
    },
    300_000,
  );

  it(
    'the restored state matters: resuming skill-grpo with an empty memory or fresh Adam moments changes ' + 'the steps',
    async () => {
      const straight = strip(await run({ algo: 'skill-grpo', steps: 4 }), ['step']);
      const ck = (await run({ algo: 'skill-grpo', steps: 2 })).find(
        (e): e is CheckpointEvent => e.event === 'checkpoint',
      )!;
      const st = decodeTrainState(ck.state);
      const tok = buildTokenizer(getEnvSpec('household'));
      const p = loadPolicy(ck.weights, tok);
      const shapes = new Map(Object.entries(p.params).map(([k, v]) => [k, v.shape]));
      tf.dispose(Object.values(p.params));
      const emptyMemory = encodeTrainState({ ...st, algoState: '{"v":1,"byType":[]}' }, shapes);
      const zero = (m: Map<string, Float32Array>) => new Map([...m].map(([k, v]) => [k, new Float32Array(v.length)]));
      const freshAdam = encodeTrainState(
        { ...st, adam: { ...st.adam, m: zero(st.adam.m), v: zero(st.adam.v) } },
        shapes,
      );
      for (const state of [emptyMemory, freshAdam]) {
        const rest = strip(await run({ algo: 'skill-grpo', steps: 4 }, { ...ck, state }), ['step']);
        expect(rest).not.toEqual(straight.slice(2));
      }
    },
    300_000,
  );

  it('the state file round-trips Adam exactly and refuses corrupt metadata', async () => {
    const evs = await run({ algo: 'grpo', steps: 2, valTasks: 0 });
    const ck = evs.find((e) => e.event === 'checkpoint') as CheckpointEvent;
    const st = decodeTrainState(ck.state);
    expect(st.step).toBe(2);
    expect(st.adam.iterations).toBe(4); // 2 steps × 2 mini-batches
    const tok = buildTokenizer(getEnvSpec('household'));
    const p = loadPolicy(ck.weights, tok);
    expect(p.meta.step).toBe('2');
    const opt = tf.train.adam(1e-4, 0.9, 0.999, 1e-8);
    await restoreAdam(opt, p.params, st.adam);
    const again = await captureAdam(opt, p.params);
    expect(again.iterations).toBe(4);
    expect(again.accBeta1).toBe(st.adam.accBeta1);
    expect(again.order).toEqual(st.adam.order);
    for (const k of st.adam.order)
      expect(Buffer.from(again.m.get(k)!.buffer).equals(Buffer.from(st.adam.m.get(k)!.buffer))).toBe(true);
    const shapes = new Map(Object.entries(p.params).map(([k, v]) => [k, v.shape]));
    expect(Buffer.from(encodeTrainState(st, shapes)).equals(Buffer.from(ck.state))).toBe(true);
    opt.dispose();
    tf.dispose(Object.values(p.params));
    expect(() => decodeTrainState(ck.weights)).toThrow(/metadata format/);
    await expect(run({ algo: 'grpo', steps: 2 }, ck)).rejects.toThrow(/nothing to resume/);
    await expect(run({ algo: 'grpo', steps: 4, seed: 4 }, ck)).rejects.toThrow(/seed 1/);
    await expect(run({ algo: 'skill-grpo', steps: 4 }, ck)).rejects.toThrow(/keeps state/);
  }, 300_000);
});
