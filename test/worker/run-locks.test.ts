/**
 * One tab trains a stored run at a time (src/worker/run-locks.ts): the worker that records a run holds its Web Locks
 * lock `opd-run:<id>`; another tab lists it in `elsewhere` and refuses to resume or delete it, saying it trains in
 * another tab; once the first tab stops, it is free. Without `navigator.locks` every run is free (as before). Two
 * tabs are two TabRunLocks over one fake LockManager.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG, type RunConfig } from '../../src/core/run/config';
import type { TrainEvent } from '../../src/core/train/events';
import { TrainingSession, type TrainFn } from '../../src/worker/session';
import type { RunStore } from '../../src/worker/runs';
import { PageRuns } from '../../src/worker/runs-library';
import { runsApi } from '../../src/worker/runs-api';
import { TabRunLocks, runLockName, type LocksLike } from '../../src/worker/run-locks';

/** A LockManager of one origin: exclusive locks by name, `ifAvailable` answered with a null lock when held. */
function fakeLocks(): LocksLike {
  const held = new Set<string>();
  return {
    async request(name, { ifAvailable }, callback) {
      if (!ifAvailable) throw new Error('the fake grants ifAvailable requests only');
      if (held.has(name)) return callback(null);
      held.add(name);
      try {
        return await callback({ name });
      } finally {
        held.delete(name);
      }
    },
    query: async () => ({ held: [...held].map((name) => ({ name })) }),
  };
}
const tick = () => new Promise((r) => setTimeout(r, 0));

describe('TabRunLocks', () => {
  it('one tab holds a run; the other sees it held elsewhere and cannot take it until it is released', async () => {
    const locks = fakeLocks();
    const a = new TabRunLocks(locks),
      b = new TabRunLocks(locks);
    expect(await a.hold('r1')).toBe(true);
    expect(await b.hold('r1')).toBe(false);
    expect(await b.elsewhere()).toEqual(['r1']);
    expect(await a.elsewhere()).toEqual([]);
    a.follow(null);
    await tick();
    expect(await b.elsewhere()).toEqual([]);
    expect(await b.hold('r1')).toBe(true);
    expect((await locks.query()).held).toEqual([{ name: runLockName('r1') }]);
  });

  it('follow moves the lock to the run being recorded', async () => {
    const locks = fakeLocks();
    const a = new TabRunLocks(locks);
    a.follow('r1');
    a.follow('r1');
    await tick();
    a.follow('r2');
    await tick();
    expect((await locks.query()).held).toEqual([{ name: 'opd-run:r2' }]);
  });

  it('without Web Locks every run is free', async () => {
    const a = new TabRunLocks(null);
    expect(await a.hold('r1')).toBe(true);
    expect(await new TabRunLocks(null).elsewhere()).toEqual([]);
  });
});

const config: RunConfig = { ...DEFAULT_CONFIG, steps: 4, checkpointEvery: 2 };
const start = { event: 'start', config, backend: 'wasm', params: 1, vocabSize: 1, envVersions: {} } as TrainEvent;

function memoryStore(): RunStore {
  const metas = new Map<string, unknown>(),
    files = new Map<string, Uint8Array>();
  return {
    async write(meta, fs) {
      metas.set(meta.id, structuredClone(meta));
      for (const f of fs) files.set(`${meta.id}/${f.name}`, f.data.slice());
    },
    getMeta: async (id) => metas.get(id),
    listMeta: async () => [...metas.values()],
    getFile: async (id, name) => files.get(`${id}/${name}`),
    delete: async (id) => void metas.delete(id),
  };
}

describe('runsApi refuses a run another tab trains', () => {
  it('lists it in elsewhere, refuses Resume and Delete naming the other tab; free once that tab stops', async () => {
    const locks = fakeLocks();
    const runStore = memoryStore();
    // Tab A records a run up to its checkpoint of step 2 (and keeps it: paused, not stopped).
    const tabA = new PageRuns(runStore, () => 7);
    tabA.locks = new TabRunLocks(locks);
    tabA.begin({ kind: 'scratch' });
    const sink = tabA.tap(() => undefined);
    sink(start);
    for (const step of [1, 2])
      sink({ event: 'step', step, successRate: 0, rewardMean: 0, policyLoss: 0 } as unknown as TrainEvent);
    sink({ event: 'checkpoint', step: 2, weights: Uint8Array.of(1), state: Uint8Array.of(2) });
    await tabA.flush();
    await tick();
    const id = tabA.recordingId!;
    // Tab B: its own worker over the same store and origin.
    const tabB = new PageRuns(runStore);
    tabB.locks = new TabRunLocks(locks);
    const trainFn: TrainFn = async function* () {};
    const apiB = runsApi({
      session: new TrainingSession(trainFn, () => 'wasm', { checkpoints: true }),
      runs: tabB,
      runStore,
      weights: {} as never,
      loadBase: async () => {
        throw new Error('no base here');
      },
      onReconfigure: () => undefined,
      notPretraining: () => undefined,
    });
    expect((await apiB.listRuns()).elsewhere).toEqual([id]);
    const why = /it is training in another tab of this browser \(one tab trains a run at a time\); pause or close/;
    await expect(apiB.resumeRun(id)).rejects.toThrow(why);
    await expect(apiB.deleteRun(id)).rejects.toThrow(/cannot delete run ".*": it is training in another tab/);
    // Tab A stops the run: its lock is released and tab B may resume it (and then holds it).
    await tabA.stop();
    await tick();
    expect((await apiB.listRuns()).elsewhere).toEqual([]);
    await expect(apiB.resumeRun(id)).resolves.toMatchObject({ id, fromStep: 2 });
    expect((await locks.query()).held).toEqual([{ name: runLockName(id) }]);
  });
});
