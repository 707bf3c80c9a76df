/**
 * The run methods of the worker API (src/worker/runs-api.ts) over in-memory stores: resuming a run that started from
 * a base policy whose file has changed says so; a checkpoint import is checked before it is stored.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG, type RunConfig } from '../../src/core/run/config';
import type { TrainEvent } from '../../src/core/train/events';
import { encodeTensors } from '../../src/core/model/io';
import { TrainingSession, type TrainFn } from '../../src/worker/session';
import type { RunStore } from '../../src/worker/runs';
import { PageRuns } from '../../src/worker/runs-library';
import { runsApi } from '../../src/worker/runs-api';
import { sha256Hex } from '../../src/core/sha256';
import type { StoredWeights } from '../../src/worker/persist';
import type { BaseLoader, WeightsStore } from '../../src/worker/weights';

function stores() {
  const metas = new Map<string, unknown>(),
    files = new Map<string, Uint8Array>(),
    weights = new Map<string, StoredWeights>();
  const runStore: RunStore = {
    async write(meta, fs) {
      metas.set(meta.id, structuredClone(meta));
      for (const f of fs) files.set(`${meta.id}/${f.name}`, f.data.slice());
    },
    getMeta: async (id) => metas.get(id),
    listMeta: async () => [...metas.values()],
    getFile: async (id, name) => files.get(`${id}/${name}`),
    delete: async () => undefined,
  };
  const w: WeightsStore = {
    put: async (x) => void weights.set(x.name, x),
    get: async (n) => weights.get(n),
    list: async () => [...weights.values()],
    delete: async (n) => void weights.delete(n),
  };
  return { runStore, w, weights };
}

const config: RunConfig = { ...DEFAULT_CONFIG, steps: 4, checkpointEvery: 2 };
const OLD = 'a'.repeat(64),
  NEW = 'b'.repeat(64);
const pulled: { resume?: unknown }[] = [];
const trainFn: TrainFn = async function* (c, opts) {
  pulled.push({ resume: opts.resume });
  yield {
    event: 'start',
    config: c,
    backend: 'wasm',
    params: 1,
    vocabSize: 1,
    envVersions: { household: 'household-v2' },
  } as TrainEvent;
};

async function recordedRun(runStore: RunStore): Promise<string> {
  const runs = new PageRuns(runStore, () => 7);
  runs.begin({ kind: 'base', sha256: OLD });
  const sink = runs.tap(() => undefined);
  sink({
    event: 'start',
    config,
    backend: 'wasm',
    params: 1,
    vocabSize: 1,
    envVersions: { household: 'household-v2' },
  });
  sink({ event: 'step', step: 1, successRate: 0, rewardMean: 0, policyLoss: 0 } as unknown as TrainEvent);
  sink({ event: 'step', step: 2, successRate: 0, rewardMean: 0, policyLoss: 0 } as unknown as TrainEvent);
  sink({ event: 'checkpoint', step: 2, weights: Uint8Array.of(1), state: Uint8Array.of(2) });
  await runs.flush();
  return runs.activeId!;
}

describe('runsApi', () => {
  it(
    'resumes from the latest checkpoint and says when the shipped base policy changed since the run ' + 'started',
    async () => {
      const { runStore, w } = stores();
      const id = await recordedRun(runStore);
      const session = new TrainingSession(trainFn, () => 'wasm', { checkpoints: true });
      const base =
        (sha: string): BaseLoader =>
        async () => ({ manifest: { sha256: sha } as never, bytes: new Uint8Array(), url: '' });
      const api = (loadBase: BaseLoader) =>
        runsApi({
          session,
          runs: new PageRuns(runStore),
          runStore,
          weights: w,
          loadBase,
          onReconfigure: () => undefined,
          notPretraining: () => undefined,
        });
      const same = await api(base(OLD)).resumeRun(id);
      expect(same).toMatchObject({ id, fromStep: 2, init: { kind: 'base', sha256: OLD } });
      expect(same.baseChanged).toBeUndefined();
      expect(same.events.map((e) => e.event)).toEqual(['start', 'step', 'step', 'checkpoint']);
      const changed = await api(base(NEW)).resumeRun(id);
      expect(changed.baseChanged).toBe(
        `This run started from the shipped base policy with sha256 ${OLD.slice(0, 12)}…; the shipped base ` +
          `policy is now ${NEW.slice(0, 12)}…: it continues from its own checkpoint (weights, Adam state ` +
          `and reference policy are stored in it), but a new run from the base policy would not start where ` +
          `this one did.`,
      );
      // The session was configured to continue from the checkpoint's bytes.
      await session.stepOnce(() => undefined).catch(() => undefined);
      expect(pulled.at(-1)?.resume).toEqual({ weights: Uint8Array.of(1), state: Uint8Array.of(2) });
    },
  );
  it('lists the run being recorded as active until its done event is stored, then as finished', async () => {
    const { runStore, w } = stores();
    const runs = new PageRuns(runStore, () => 7);
    const api = runsApi({
      session: new TrainingSession(trainFn, () => 'wasm'),
      runs,
      runStore,
      weights: w,
      loadBase: async () => {
        throw new Error('none');
      },
      onReconfigure: () => undefined,
      notPretraining: () => undefined,
    });
    runs.begin({ kind: 'scratch' });
    const sink = runs.tap(() => undefined);
    sink({
      event: 'start',
      config,
      backend: 'wasm',
      params: 1,
      vocabSize: 1,
      envVersions: { household: 'household-v2' },
    });
    for (const s of [1, 2, 3, 4])
      sink({ event: 'step', step: s, successRate: 0, rewardMean: 0, policyLoss: 0 } as unknown as TrainEvent);
    sink({ event: 'checkpoint', step: 4, weights: Uint8Array.of(1), state: Uint8Array.of(2) });
    await runs.flush();
    const id = runs.activeId!;
    const during = await api.listRuns();
    expect(during.activeId).toBe(id);
    expect(during.runs.map((r) => [r.id, r.stepsDone, r.done])).toEqual([[id, 4, false]]);
    sink({ event: 'done', steps: 4, elapsedMs: 1, undoneSteps: 0, shrunkSteps: 0, envVersions: {} } as TrainEvent);
    await runs.flush();
    const after = await api.listRuns();
    expect(after.activeId).toBeNull();
    expect(after.runs.map((r) => [r.id, r.stepsDone, r.done])).toEqual([[id, 4, true]]);
  });
  it('tells the explorer a stored run is deleted, after it is gone from the store', async () => {
    const { runStore, w } = stores();
    const id = await recordedRun(runStore);
    const seen: [string, boolean][] = [];
    let deleted = false;
    const store: RunStore = { ...runStore, delete: async () => void (deleted = true) };
    const api = runsApi({
      session: new TrainingSession(trainFn, () => 'wasm'),
      runs: new PageRuns(store),
      runStore: store,
      weights: w,
      loadBase: async () => {
        throw new Error('none');
      },
      onReconfigure: () => undefined,
      notPretraining: () => undefined,
      onDeleted: (x) => void seen.push([x, deleted]),
    });
    await api.deleteRun(id);
    expect(seen).toEqual([[id, true]]);
  });
  it('checks an imported checkpoint before storing it, and hashes stored ones', async () => {
    const { runStore, w, weights } = stores();
    const api = runsApi({
      session: new TrainingSession(trainFn, () => 'wasm'),
      runs: new PageRuns(runStore),
      runStore,
      weights: w,
      loadBase: async () => {
        throw new Error('none');
      },
      onReconfigure: () => undefined,
      notPretraining: () => undefined,
    });
    await expect(api.importWeights('x', Uint8Array.of(1, 2, 3))).rejects.toThrow(
      /^"x" cannot be imported: weights file is 3 bytes: too short to be safetensors/,
    );
    const foreign = encodeTensors([{ name: 'w', shape: [1], data: Float32Array.of(1) }], {
      format: 'opd-playground',
      modelSize: 'nano',
    });
    await expect(api.importWeights('x', foreign)).rejects.toThrow(/cannot be imported/);
    // A run file (.opdrun), whole or cut short, is named as one, with where it belongs.
    const pack = new TextEncoder().encode('{"format":"opd-playground-run-pack","version":1');
    await expect(api.importWeights('x', pack)).rejects.toThrow(
      new Error(
        '"x" cannot be imported: this is a run file (.opdrun, a packed run record), not weights; import ' +
          "it with the Runs view's Import .opdrun, where Resume continues it",
      ),
    );
    expect(weights.size).toBe(0);
    expect(await api.weightsSha256('x')).toBeNull();
    weights.set('y', { name: 'y', bytes: Uint8Array.of(1, 2, 3), modelSize: 'nano', savedAt: 1 });
    expect(await api.weightsSha256('y')).toBe(await sha256Hex(Uint8Array.of(1, 2, 3)));
    expect(await sha256Hex(new TextEncoder().encode('abc'))).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
  });
});
