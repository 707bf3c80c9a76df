/**
 * Pretraining in the worker with the real core `pretrain` on wasm and an in-memory store: progress per
 * iteration with the loss in nats/token, weights stored under `pretrained-<model>-<preset>-seed<S>` that load and
 * start a run, pause/resume continuing the same job, abort storing nothing, bad requests named, no tensor leaks.
 * Tiny settings (nano, few tasks, few iterations) keep it to seconds.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '../../src/core/tf';
import { getEnvSpec } from '../../src/core/envs/registry';
import { parseRunConfig } from '../../src/core/run/config';
import { Rng } from '../../src/core/rng';
import { train } from '../../src/core/train/trainer';
import { buildTokenizer, createPolicy, disposePolicy, loadPolicy, policyValues } from '../../src/core/model/policy';
import type { PretrainProgress, PretrainRequest } from '../../src/worker/api';
import { PretrainSession, checkPretrainRequest, pretrainedName } from '../../src/worker/pretrain';
import { resolveStart } from '../../src/worker/weights';
import { useBackend } from '../helpers/backend';
import { memoryStore } from '../helpers/store';

beforeAll(() => useBackend('wasm'));

const req: PretrainRequest = {
  env: 'household',
  preset: 'easy',
  model: 'nano',
  seed: 5,
  iters: 3,
  tasks: 20,
  batch: 8,
  historyTurns: 1,
};
const spec = getEnvSpec('household');

describe('PretrainSession', () => {
  it('reports progress, stores weights that load and start a run, and leaks nothing', async () => {
    const store = memoryStore();
    const s = new PretrainSession(store);
    const before = tf.memory().numTensors;
    const seen: PretrainProgress[] = [];
    const r = await s.start(req, (p) => seen.push(p));

    expect(seen.map((p) => `${p.phase}${p.iter}`)).toEqual(['demos0', 'iter1', 'iter2', 'iter3', 'done3']);
    expect(seen[0].samples).toBeGreaterThan(20); // 20 episodes of several steps each
    for (const p of seen.slice(1)) {
      expect(p.iters).toBe(3);
      expect(p.loss).toBeGreaterThan(0); // NLL per token in nats
      expect(p.loss).toBeLessThan(10);
    }
    expect(seen[3].elapsedMs).toBeGreaterThanOrEqual(seen[1].elapsedMs);
    expect(r.status).toBe('done');
    expect(r.iters).toBe(3);
    expect(r.loss).toBe(seen[3].loss);
    expect(r.weights).toMatchObject({ name: 'pretrained-nano-easy-seed5', modelSize: 'nano' });
    expect(s.status).toBe('idle');
    expect(tf.memory().numTensors).toBe(before); // policy and optimiser released

    const stored = store.map.get('pretrained-nano-easy-seed5')!;
    expect(stored.modelSize).toBe('nano');
    const tok = buildTokenizer(spec);
    const loaded = loadPolicy(stored.bytes, tok);
    expect(loaded.meta).toMatchObject({
      modelSize: 'nano',
      env: 'household',
      preset: 'easy',
      seed: '5',
      pretrainIters: '3',
      envVersions: JSON.stringify({ household: spec.version }),
    });
    // Every tensor moved away from the seeded initial weights it started from.
    const init = createPolicy('nano', tok, new Rng(5).fork('init'));
    const a = await policyValues(init),
      b = await policyValues(loaded);
    for (const [k, v] of a) expect(b.get(k), k).not.toEqual(v);
    disposePolicy(init);
    disposePolicy(loaded);

    // "Start from" the stored weights: a run (asking for the base policy) starts from the checkpoint instead.
    const config = parseRunConfig({
      model: 'nano',
      steps: 1,
      tasksPerStep: 1,
      groupSize: 2,
      miniBatches: 1,
      evalEvery: 0,
    });
    const start = await resolveStart(
      config,
      store,
      () => Promise.reject(new Error('base not used')),
      'pretrained-nano-easy-seed5',
    );
    expect(start.init.kind).toBe('checkpoint');
    const gen = train(start.config, { backend: 'wasm', initWeights: start.bytes });
    expect((await gen.next()).value).toMatchObject({ event: 'start' });
    await gen.return(undefined);
    expect(tf.memory().numTensors).toBe(before);
  });

  it('pauses between iterations, resumes the same job, and aborts storing nothing', async () => {
    const store = memoryStore();
    const s = new PretrainSession(store);
    const before = tf.memory().numTensors;
    const iters: number[] = [];
    const first = await s.start({ ...req, iters: 4 }, (p) => {
      if (p.phase === 'iter') iters.push(p.iter);
      if (p.iter === 2) s.pause();
    });
    expect(first).toMatchObject({ status: 'paused', iters: 2 });
    expect(s.status).toBe('paused');
    expect(store.map.size).toBe(0);
    await expect(s.start(req, () => undefined)).rejects.toThrow(/a pretraining is paused; resume or abort it first/);
    const done = await s.resume((p) => p.phase === 'iter' && iters.push(p.iter));
    expect(done).toMatchObject({ status: 'done', iters: 4 });
    expect(iters).toEqual([1, 2, 3, 4]); // continued, not restarted
    const resumed = loadPolicy(store.map.get(pretrainedName(req))!.bytes, buildTokenizer(spec));
    expect(resumed.meta.pretrainIters).toBe('4');
    disposePolicy(resumed);
    store.map.clear();

    // Abort while running: stops after the current iteration, stores nothing, releases the tensors.
    const aborted = await s.start({ ...req, seed: 6, iters: 50 }, (p) => p.iter === 1 && void s.abort());
    expect(aborted).toMatchObject({ status: 'aborted', iters: 1 });
    // Abort while paused.
    await s.start({ ...req, seed: 7 }, (p) => p.iter === 1 && s.pause());
    expect(s.status).toBe('paused');
    await s.abort();
    expect(s.status).toBe('idle');
    await expect(s.resume(() => undefined)).rejects.toThrow(/no pretraining is paused/);
    expect(store.map.size).toBe(0);
    expect(tf.memory().numTensors).toBe(before);
  });

  it('names a bad request field and its accepted values', () => {
    expect(() => checkPretrainRequest({ ...req, preset: 'hard' })).toThrow(
      /preset must be one of .*easy.* \(got "hard"\)/,
    );
    expect(() => checkPretrainRequest({ ...req, model: 'huge' })).toThrow(
      /model must be one of nano, nano-deep, small, base \(got "huge"\)/,
    );
    expect(() => checkPretrainRequest({ ...req, iters: 0 })).toThrow(
      /iterations must be an integer from 1 to 100000 \(got 0\)/,
    );
    expect(() => checkPretrainRequest({ ...req, iters: 2.5 })).toThrow(/iterations must be an integer/);
    expect(checkPretrainRequest({ env: 'household', preset: 'easy', model: 'nano', seed: 1, iters: 7 })).toMatchObject({
      iters: 7,
      tasks: 500,
      batch: 32,
      seed: 1,
    });
  });
});
