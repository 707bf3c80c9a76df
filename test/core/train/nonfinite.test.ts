/**
 * A run never trains on NaN (core/train/finite.ts): settings that diverge within two steps (learning rate 1, KL β 10,
 * no gradient clipping, 16 PPO epochs on B 1 × G 2) end the run with an `error` event at the step that met the
 * non-finite value, naming the quantity and the settings; no later step event, no checkpoint after the last good one,
 * no `done`; the live weights are put back to the step's start; no tensor is left behind.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '../../../src/core/tf';
import { train } from '../../../src/core/train/trainer';
import type { CheckpointEvent, ErrorEvent, TrainEvent } from '../../../src/core/train/events';
import type { PolicyHandle } from '../../../src/core/model/policy';
import { buildTokenizer, loadPolicy } from '../../../src/core/model/policy';
import { getEnvSpec } from '../../../src/core/envs/registry';
import { NonFiniteError, nonFiniteMessage, weightsFinite } from '../../../src/core/train/finite';
import { loadBaseFiles } from '../../../cli/base';
import { useBackend } from '../../helpers/backend';

const spec = getEnvSpec('household');
const tok = buildTokenizer(spec);
let base: Uint8Array;
beforeAll(async () => {
  await useBackend('wasm');
  base = (await loadBaseFiles(spec, 'easy', tok)).bytes;
});

/** Diverges at step 2 on wasm (step 1 stays finite), measured. */
const diverging = {
  model: 'nano',
  preset: 'easy',
  seed: 2,
  steps: 3,
  tasksPerStep: 1,
  groupSize: 2,
  miniBatches: 2,
  ppoEpochs: 16,
  learningRate: 1,
  klBeta: 10,
  maxGradNorm: 0,
  evalEvery: 0,
  checkpointEvery: 1,
} as const;

/** The run's events, and the live weights' values at the error event (before the generator is pulled again). */
async function run(cancel: boolean): Promise<{ events: TrainEvent[]; atError: Map<string, Float32Array> | null }> {
  const events: TrainEvent[] = [];
  let policy: PolicyHandle | undefined;
  let atError: Map<string, Float32Array> | null = null;
  for await (const e of train(diverging, {
    backend: 'wasm',
    initWeights: base,
    checkpoints: true,
    onPolicy: (p) => (policy = p),
    ...(cancel ? { cancel: { aborted: false } } : {}),
  })) {
    events.push(e);
    if (e.event === 'error')
      atError = new Map(Object.entries(policy!.params).map(([k, v]) => [k, v.dataSync() as Float32Array]));
  }
  return { events, atError };
}

describe('a run never trains on a non-finite value', () => {
  it.each([false, true])(
    'lr 1, β 10, no clipping: an error event at step 2, no later step or checkpoint (cancel signal: %s)',
    async (cancel) => {
      const n0 = tf.memory().numTensors;
      const { events, atError } = await run(cancel);
      expect(tf.memory().numTensors).toBe(n0);
      const err = events.find((e): e is ErrorEvent => e.event === 'error')!;
      expect(err).toBeTruthy();
      expect(err).toMatchObject({
        step: 2,
        quantity: 'gradNorm',
        value: 'NaN',
        settings: { learningRate: 1, klBeta: 10, maxGradNorm: 0, entropyCoef: 0 },
        lastCheckpoint: 1,
      });
      expect(err.message).toMatch(/^step 2: the gradient norm is NaN; the run stopped/);
      expect(err.message).toMatch(
        /learning rate \(1\).*β \(10\).*max grad norm is 0 = off.*entropy coefficient \(0\)/u,
      );
      // The error is the last event: no step 2 event, no checkpoint after step 1, no done.
      expect(events.at(-1)).toBe(err);
      expect(events.filter((e) => e.event === 'step').map((e) => e.step)).toEqual([1]);
      const cks = events.filter((e): e is CheckpointEvent => e.event === 'checkpoint');
      expect(cks.map((e) => e.step)).toEqual([1]);
      expect(events.some((e) => e.event === 'done')).toBe(false);
      // The checkpoint is finite (loadPolicy refuses NaN/Infinity), and the live weights were put back to it.
      const ck = loadPolicy(cks[0].weights, tok);
      try {
        for (const [k, v] of Object.entries(ck.params)) expect(atError!.get(k)).toEqual(v.dataSync());
      } finally {
        tf.dispose(Object.values(ck.params));
      }
    },
    300_000,
  );

  it('weightsFinite: one NaN or Infinity anywhere makes it false; no tensor is left behind', async () => {
    const ok = { a: tf.tensor1d([1, -2]), b: tf.tensor2d([[0.5, 3]]) };
    const n0 = tf.memory().numTensors;
    expect(await weightsFinite(ok)).toBe(true);
    for (const bad of [NaN, Infinity, -Infinity]) {
      const p = { ...ok, c: tf.tensor1d([0, bad, 1]) };
      expect(await weightsFinite(p)).toBe(false);
      p.c.dispose();
    }
    expect(tf.memory().numTensors).toBe(n0);
    tf.dispose(Object.values(ok));
  });

  it('the message names the quantity, the value and each setting with its value', () => {
    const s = { learningRate: 0.01, klBeta: 0.5, maxGradNorm: 1, entropyCoef: 0.02 };
    const m = nonFiniteMessage(7, new NonFiniteError('gradNorm', Infinity), s);
    expect(m).toMatch(/^step 7: the gradient norm is Infinity;/);
    expect(m).toContain('learning rate (0.01)');
    expect(m).toContain('β (0.5)');
    expect(m).toContain('lower the max grad norm (1)');
    expect(m).toContain('entropy coefficient (0.02)');
  });
});
