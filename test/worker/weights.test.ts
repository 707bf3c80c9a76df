/**
 * Worker-side checkpoints with the real trainer (wasm in Node) and an in-memory store: a saved checkpoint
 * holds exactly the live policy's weights after the last update, also once the run is done; a run starts from
 * it; missing checkpoints and other model sizes are named; no tensor leaks across save and discard.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '../../src/core/tf';
import { getEnvSpec } from '../../src/core/envs/registry';
import { parseRunConfig, type RunConfig } from '../../src/core/run/config';
import { train } from '../../src/core/train/trainer';
import { buildTokenizer, disposePolicy, loadPolicy, policyValues } from '../../src/core/model/policy';
import type { PolicyHandle } from '../../src/core/model/policy';
import { TrainingSession } from '../../src/worker/session';
import { checkName, initWeightsFor, loadBytes, resolveStart, saveCurrent } from '../../src/worker/weights';
import { createPolicy, savePolicy } from '../../src/core/model/policy';
import { Rng } from '../../src/core/rng';
import { useBackend } from '../helpers/backend';
import { memoryStore } from '../helpers/store';

beforeAll(() => useBackend('wasm'));

// Fresh weights (`init: 'scratch'`): these tests are about checkpoints, not the base policy (test/worker/base.test.ts).
const tiny: Partial<RunConfig> = {
  init: 'scratch',
  model: 'nano',
  preset: 'easy',
  steps: 2,
  tasksPerStep: 1,
  groupSize: 2,
  miniBatches: 1,
  evalEvery: 0,
  seed: 3,
};

describe('worker weights', () => {
  it('saves the live policy after an update and after done, starts a run from it, and leaks nothing', async () => {
    const store = memoryStore();
    let live: Awaited<ReturnType<typeof policyValues>> | null = null;
    const s = new TrainingSession(train, () => 'wasm');
    const base = tf.memory().numTensors;
    await expect(saveCurrent(s, store, 'x')).rejects.toThrow(/no run is configured/);
    await s.configure(tiny);
    await expect(saveCurrent(s, store, 'x')).rejects.toThrow(/not started yet/);

    await s.stepOnce(() => undefined);
    const info1 = await saveCurrent(s, store, '  step1 ');
    expect(info1).toMatchObject({ name: 'step1', modelSize: 'nano' });
    expect(await s.stepOnce(() => undefined)).toBe('done');
    const afterDone = tf.memory().numTensors;
    await saveCurrent(s, store, 'final');
    expect(tf.memory().numTensors).toBe(afterDone); // saving reads, makes no tensors
    await s.withPolicy(async ({ policy }) => void (live = await policyValues(policy)));

    const tok = buildTokenizer(getEnvSpec('household'));
    const loaded = loadPolicy(store.map.get('final')!.bytes, tok);
    expect(loaded.meta).toMatchObject({
      modelSize: 'nano',
      step: '2',
      seed: '3',
      env: 'household',
      envVersions: JSON.stringify({ household: getEnvSpec('household').version }),
    });
    const got = await policyValues(loaded);
    for (const [k, v] of live!) expect(got.get(k), k).toEqual(v);
    disposePolicy(loaded);
    expect(store.map.get('step1')!.bytes).not.toEqual(store.map.get('final')!.bytes);

    // A new run from the checkpoint: its first policy equals the saved one.
    await s.configure(tiny, await initWeightsFor(store, 'final', parseRunConfig(tiny)));
    expect(tf.memory().numTensors).toBe(base); // the finished run's tensors are gone
    expect(await s.stepOnce(() => undefined)).toBe('paused');
    expect(tf.memory().numTensors).toBeGreaterThan(base);
    // Check against the trainer itself that a run started from the bytes begins with exactly those weights.
    let first: PolicyHandle | null = null;
    const gen = train(tiny, {
      backend: 'wasm',
      initWeights: store.map.get('final')!.bytes,
      onPolicy: (p) => (first = p),
    });
    await gen.next();
    const firstValues = await policyValues(first!);
    for (const [k, v] of live!) expect(firstValues.get(k), k).toEqual(v);
    await gen.return(undefined);
    await s.discard();
    expect(tf.memory().numTensors).toBe(base);
  });

  it('names a missing checkpoint, another model size, and a bad name', async () => {
    const store = memoryStore();
    await store.put({ name: 'small-one', bytes: new Uint8Array(8), modelSize: 'small', savedAt: 1 });
    await expect(loadBytes(store, 'nope')).rejects.toThrow(/no saved weights named "nope"/);
    await expect(initWeightsFor(store, 'small-one', parseRunConfig(tiny))).rejects.toThrow(
      /model size small but the run's model is nano; set Model to small/,
    );
    expect(() => checkName('   ')).toThrow(/empty/);
    expect(() => checkName('a'.repeat(121))).toThrow(/at most 120/);
  });

  it('a checkpoint made with another environment version starts with a warning naming both versions', async () => {
    const store = memoryStore();
    const tok = buildTokenizer(getEnvSpec('household'));
    const p = createPolicy('nano', tok, new Rng(1));
    const old = await savePolicy(p, 'nano', { household: 'household-v1' });
    const cur = await savePolicy(p, 'nano', { household: getEnvSpec('household').version });
    disposePolicy(p);
    await store.put({ name: 'old', bytes: old, modelSize: 'nano', savedAt: 1 });
    await store.put({ name: 'cur', bytes: cur, modelSize: 'nano', savedAt: 2 });
    const cfg = parseRunConfig(tiny);
    const never = async () => {
      throw new Error('no base needed');
    };
    const a = await resolveStart(cfg, store, never, 'old');
    expect(a.init.warning).toBe(
      'Checkpoint "old" was made with environment version household-v1; this is household-v2: the tasks ' +
        'may differ, so success rates are not comparable.',
    );
    expect(a.bytes).toEqual(old);
    expect((await resolveStart(cfg, store, never, 'cur')).init.warning).toBeUndefined();
  });
});
