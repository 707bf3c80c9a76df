/**
 * A stored run's Web Locks lock (src/worker/run-locks.ts) is held while a tab trains it, not while it sits paused:
 * tab A records a run and pauses (`idle`), so tab B lists it free and resumes it; A's Start then refuses while B
 * trains it ("training in another tab"), and A's Stop once B has paused, because B wrote the run since A paused
 * ("resumed in another tab since it paused here"); a refused tab no longer records the run; a deleted run is refused
 * the same way. A paused run nobody
 * else touched is claimed back by its own tab; a new configure (`begin`) lets the lock go. Two tabs are two PageRuns
 * over one fake LockManager and one store.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG, type RunConfig } from '../../src/core/run/config';
import type { TrainEvent } from '../../src/core/train/events';
import { TrainingSession, type TrainFn } from '../../src/worker/session';
import { PageRuns } from '../../src/worker/runs-library';
import { runsApi } from '../../src/worker/runs-api';
import { TabRunLocks, runLockName, type LocksLike } from '../../src/worker/run-locks';
import { mapStore } from './map-run-store';

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
const config: RunConfig = { ...DEFAULT_CONFIG, steps: 6, checkpointEvery: 2 };
const start = { event: 'start', config, backend: 'wasm', params: 1, vocabSize: 1, envVersions: {} } as TrainEvent;
const step = (s: number) =>
  ({ event: 'step', step: s, successRate: 0, rewardMean: 0, policyLoss: 0 }) as unknown as TrainEvent;

/** Tab A: records steps 1–2 and the checkpoint of step 2, then pauses (its call ended: `idle`). */
async function pausedInTabA(locks: LocksLike, store = mapStore()) {
  let t = 1000;
  const tabA = new PageRuns(store.store, () => t++);
  tabA.locks = new TabRunLocks(locks);
  tabA.begin({ kind: 'scratch' });
  await tabA.claim(); // a new run: nothing to claim yet
  const sink = tabA.tap(() => undefined);
  sink(start);
  sink(step(1));
  sink(step(2));
  sink({ event: 'checkpoint', step: 2, weights: Uint8Array.of(1), state: Uint8Array.of(2) });
  await tick();
  expect((await locks.query()).held).toEqual([{ name: runLockName(tabA.recordingId!) }]); // held while it trains
  await tabA.flush();
  tabA.idle();
  await tick();
  return { tabA, store, id: tabA.recordingId! };
}

/** A tab's worker API over `runs` (a new tab's over the same store and lock manager when absent). */
function tabB(locks: LocksLike, store: ReturnType<typeof mapStore>, runs?: PageRuns) {
  if (!runs) {
    runs = new PageRuns(store.store);
    runs.locks = new TabRunLocks(locks);
  }
  const trainFn: TrainFn = async function* () {};
  const api = runsApi({
    session: new TrainingSession(trainFn, () => 'wasm', { checkpoints: true }),
    runs,
    runStore: store.store,
    weights: {} as never,
    loadBase: async () => {
      throw new Error('no base here');
    },
    onReconfigure: () => undefined,
    notPretraining: () => undefined,
  });
  return { runs, api };
}

describe('the lock of a paused run', () => {
  it('is free while the run is paused: another tab resumes it; the pausing tab may not continue it', async () => {
    const locks = fakeLocks();
    const { tabA, store, id } = await pausedInTabA(locks);
    expect((await locks.query()).held).toEqual([]);
    const b = tabB(locks, store);
    expect((await b.api.listRuns()).elsewhere).toEqual([]);
    await expect(b.api.resumeRun(id)).resolves.toMatchObject({ id, fromStep: 2 });
    await b.runs.claim();
    expect((await locks.query()).held).toEqual([{ name: runLockName(id) }]);
    // Tab A lists it as another tab's (not "recording" here), and cannot continue its paused copy.
    const listA = await tabB(locks, store, tabA).api.listRuns();
    expect([listA.elsewhere, listA.activeId]).toEqual([[id], null]);
    await expect(tabA.claim()).rejects.toThrow(
      /^cannot continue run ".*": it is training in another tab of this browser \(one tab trains a run at a time\)/,
    );
    expect(tabA.recordingId).toBeNull(); // its copy is out of date: A records nothing now
    await tabA.claim(); // nothing to claim any more
    expect((await locks.query()).held).toEqual([{ name: runLockName(id) }]); // still B's
  });

  it('refuses a tab whose paused copy another tab resumed and paused since (Start, Stop)', async () => {
    const locks = fakeLocks();
    const { tabA, store, id } = await pausedInTabA(locks);
    const b = tabB(locks, store);
    await b.api.resumeRun(id);
    await b.runs.claim();
    b.runs.tap(() => undefined)(step(3));
    await b.runs.flush();
    b.runs.idle();
    await tick();
    expect((await locks.query()).held).toEqual([]);
    await expect(tabA.claim('stop')).rejects.toThrow(
      new RegExp(
        '^cannot stop run ".*": it was resumed in another tab since it paused here, so this tab\'s copy is ' +
          'out of date; press Start for a new run, or Resume it in the Runs view$',
      ),
    );
    expect(tabA.recordingId).toBeNull();
    expect((await locks.query()).held).toEqual([]); // a refused claim keeps no lock
    // A's Runs list now offers the stored run as any stopped run (not "recording" here); B continues it again.
    expect((await tabB(locks, store, tabA).api.listRuns()).activeId).toBeNull();
    await b.runs.claim();
    expect((await locks.query()).held).toEqual([{ name: runLockName(id) }]);
  });

  it('is claimed back by its own tab when nobody wrote it; a deleted run is refused; begin lets it go', async () => {
    const locks = fakeLocks();
    const { tabA, id } = await pausedInTabA(locks);
    await tabA.claim();
    expect((await locks.query()).held).toEqual([{ name: runLockName(id) }]);
    tabA.begin({ kind: 'scratch' }); // a new configure: the paused run is no longer this tab's
    await tick();
    expect((await locks.query()).held).toEqual([]);

    const other = await pausedInTabA(locks, mapStore());
    await other.store.store.delete(other.id);
    await expect(other.tabA.claim()).rejects.toThrow(
      /^cannot continue run ".*": it was deleted in another tab since it paused here, .*press Start for a new run$/,
    );
  });
});
