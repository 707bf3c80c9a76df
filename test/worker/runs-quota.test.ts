/**
 * Storage-full writes of the page's run recorder (src/worker/runs.ts) over an in-memory store that refuses writes
 * with a QuotaExceededError while it is full: a checkpoint that did not fit stays named in every later failure
 * message (the pause's write right after it fails too and must not drop it), the stored record keeps its last
 * good write, and once there is room the next write stores the run again without that checkpoint — neither its
 * files nor its line in events.jsonl.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG, type RunConfig } from '../../src/core/run/config';
import type { TrainEvent } from '../../src/core/train/events';
import { encodeTensors } from '../../src/core/model/io';
import type { RunStore } from '../../src/worker/runs';
import type { StoredRunMeta } from '../../src/worker/run-meta';
import type { RecordStatus } from '../../src/worker/api';
import { PageRuns } from '../../src/worker/runs-library';
import { parseEvents, parseRunRecord } from '../../src/core/run/record';
import { summarizeRun } from '../../src/core/run/summary';

const config: RunConfig = { ...DEFAULT_CONFIG, steps: 6, checkpointEvery: 2 };
const weights = (s: number) =>
  encodeTensors([{ name: 'w', shape: [1], data: Float32Array.of(s) }], { format: 'opd-playground', modelSize: 'nano' });
const step = (s: number): TrainEvent =>
  ({ event: 'step', step: s, successRate: 0, rewardMean: 0, policyLoss: 0 }) as unknown as TrainEvent;
const ckpt = (s: number): TrainEvent => ({
  event: 'checkpoint',
  step: s,
  weights: weights(s),
  state: Uint8Array.of(s),
});

/** An in-memory RunStore that throws QuotaExceededError on every write while `full` is set. */
function store() {
  const metas = new Map<string, StoredRunMeta>(),
    files = new Map<string, Uint8Array>();
  const s = { full: false };
  const st: RunStore = {
    async write(meta, fs) {
      if (s.full) throw Object.assign(new Error('The quota has been exceeded.'), { name: 'QuotaExceededError' });
      metas.set(meta.id, structuredClone(meta));
      for (const f of fs) files.set(f.name, f.data.slice());
    },
    getMeta: async (id) => metas.get(id),
    listMeta: async () => [...metas.values()],
    getFile: async (_id, name) => files.get(name),
    delete: async () => undefined,
  };
  return { s, metas, files, st };
}

describe('storage-full writes of a recorded run', () => {
  it('every failure after a lost checkpoint still names it; with room again the run is stored without it', async () => {
    const m = store();
    const statuses: RecordStatus[] = [];
    const runs = new PageRuns(m.st, () => 1);
    runs.watch((s) => statuses.push(s));
    runs.begin({ kind: 'scratch' });
    const sink = runs.tap(() => undefined);
    sink({
      event: 'start',
      config,
      backend: 'wasm',
      params: 1,
      vocabSize: 2,
      envVersions: { household: 'household-v2' },
    });
    sink(step(1));
    await runs.flush(); // the pause after Step: stored up to step 1
    expect(statuses.map((s) => s.error)).toEqual([null]);

    m.s.full = true;
    sink(step(2));
    sink(ckpt(2)); // a write with the checkpoint: refused
    await runs.flush(); // the pause's write: refused too
    const tail = 'Training goes on; delete runs or weights in the Runs view to free space.';
    expect(statuses.slice(1).map((s) => s.error)).toEqual([
      `storage is full (QuotaExceededError): the run is kept up to step 1; the checkpoint of step 2 was ` +
        `not stored. ${tail}`,
      `storage is full (QuotaExceededError): the run is kept up to step 1; the checkpoint of step 2 was ` +
        `not stored. ${tail}`,
    ]);
    sink(step(3));
    sink(step(4));
    sink(ckpt(4));
    await runs.flush();
    expect(statuses.at(-1)!.error).toBe(
      `storage is full (QuotaExceededError): the run is kept up to step 1; the checkpoints of steps 2 and ` +
        `4 were not stored. ${tail}`,
    );
    expect(m.metas.get(runs.activeId!)).toMatchObject({ stepsDone: 1, lastCheckpoint: null });

    m.s.full = false;
    sink(step(5));
    await runs.flush();
    expect(statuses.at(-1)).toMatchObject({ savedStep: 5, lastCheckpoint: null, error: null });
    expect(Object.keys(m.metas.get(runs.activeId!)!.files).sort()).toEqual([
      'events.jsonl',
      'run.json',
      'trajectories.jsonl',
    ]);
    // events.jsonl names no lost checkpoint: compare counts 0 checkpoints, not 2.
    const evs = () => parseEvents(new TextDecoder().decode(m.files.get('events.jsonl')!), 'events.jsonl');
    expect(evs().map((e) => `${e.event}${'step' in e ? e.step : ''}`)).toEqual([
      'start',
      'step1',
      'step2',
      'step3',
      'step4',
      'step5',
    ]);
    const run = parseRunRecord(new TextDecoder().decode(m.files.get('run.json')!), 'run.json');
    expect(summarizeRun('r', run, evs()).checkpoints).toBe(0);

    sink(step(6));
    sink(ckpt(6)); // stored: named in events.jsonl and counted
    await runs.flush();
    expect(statuses.at(-1)).toMatchObject({ savedStep: 6, lastCheckpoint: 6, error: null });
    expect(
      evs()
        .filter((e) => e.event === 'checkpoint')
        .map((e) => e.step),
    ).toEqual([6]);
    expect(summarizeRun('r', run, evs()).checkpoints).toBe(1);
  });
});
