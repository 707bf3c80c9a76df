/**
 * Run records kept by the page (src/worker/runs.ts, runs-library.ts) over an in-memory store: what is written and
 * when, a storage-full write reported with what was kept, listing with a corrupt run beside good ones, export →
 * import giving the same record, a refused import leaving the store as it was, and resuming's cut-back record.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG, type RunConfig } from '../../src/core/run/config';
import type { TrainEvent } from '../../src/core/train/events';
import { encodeTensors } from '../../src/core/model/io';
import { unpackRun } from '../../src/core/run-files/pack';
import type { RunStore } from '../../src/worker/runs';
import type { StoredRunMeta } from '../../src/worker/run-meta';
import type { RecordStatus } from '../../src/worker/api';
import { PageRuns, exportRun, exportTrajectories, importRun, listRuns, renameRun } from '../../src/worker/runs-library';
import { planResume } from '../../src/worker/run-resume';

/** An in-memory RunStore; `failNext` makes the next write throw (as IndexedDB does when storage is full). */
function memStore() {
  const metas = new Map<string, unknown>(),
    files = new Map<string, Uint8Array>();
  let failNext: Error | null = null;
  const store: RunStore = {
    async write(meta, fs, remove = []) {
      if (failNext) {
        const e = failNext;
        failNext = null;
        throw e;
      }
      metas.set(meta.id, structuredClone(meta));
      for (const f of fs) files.set(`${meta.id}/${f.name}`, f.data.slice());
      for (const n of remove) files.delete(`${meta.id}/${n}`);
    },
    getMeta: async (id) => metas.get(id),
    listMeta: async () => [...metas.values()],
    getFile: async (id, name) => files.get(`${id}/${name}`),
    async delete(id) {
      metas.delete(id);
      for (const k of [...files.keys()]) if (k.startsWith(`${id}/`)) files.delete(k);
    },
  };
  return { store, metas, files, fail: (e: Error) => (failNext = e) };
}

const config: RunConfig = { ...DEFAULT_CONFIG, steps: 4, checkpointEvery: 2 };
const weights = (step: number) =>
  encodeTensors([{ name: 'w', shape: [1], data: Float32Array.of(step) }], {
    format: 'opd-playground',
    modelSize: 'nano',
  });
const step = (s: number): TrainEvent =>
  ({ event: 'step', step: s, successRate: s / 8, rewardMean: 0, policyLoss: -s }) as unknown as TrainEvent;
const events = (upTo: number): TrainEvent[] => [
  { event: 'start', config, backend: 'wasm', params: 10, vocabSize: 5, envVersions: { household: 'household-v2' } },
  ...[1, 2, 3, 4]
    .filter((s) => s <= upTo)
    .flatMap((s): TrainEvent[] => [
      step(s),
      {
        event: 'trajectories',
        step: s,
        group: [
          {
            task: 't',
            taskType: 'pick',
            success: true,
            reward: 1,
            score: 1,
            advantage: 0,
            initialObservation: 'o',
            steps: [{ observation: 'o', action: `a${s}`, valid: true, tokens: [] }],
          },
        ],
      },
      ...(s % 2 === 0
        ? [{ event: 'checkpoint', step: s, weights: weights(s), state: Uint8Array.of(s) } as TrainEvent]
        : []),
    ]),
  ...(upTo >= 4
    ? [{ event: 'done', steps: 4, elapsedMs: 1, undoneSteps: 0, shrunkSteps: 0, envVersions: {} } as TrainEvent]
    : []),
];
const here = { household: 'household-v2' };

async function record(upTo: number, m = memStore()) {
  const statuses: RecordStatus[] = [];
  const runs = new PageRuns(m.store, () => 1_700_000_000_000);
  runs.watch((s) => statuses.push(s));
  runs.begin({ kind: 'scratch' });
  const seen: string[] = [];
  const sink = runs.tap((e) => seen.push(e.event));
  for (const e of events(upTo)) {
    sink(e);
    await new Promise((r) => setTimeout(r, 0)); // the trainer yields between events; queued writes run meanwhile
  }
  await runs.flush();
  return { ...m, runs, statuses, seen, id: runs.activeId! };
}

describe('recording a run', () => {
  it(
    'writes at each checkpoint and at the end: run.json, events (checkpoint lines without bytes), ' +
      'trajectories, checkpoint files',
    async () => {
      const r = await record(4);
      expect(r.seen).toEqual(events(4).map((e) => e.event)); // every event still reaches the page
      expect(r.statuses.map((s) => [s.savedStep, s.lastCheckpoint, s.error])).toEqual([
        [2, 2, null],
        [4, 4, null],
        [4, 4, null],
        [4, 4, null],
      ]);
      const meta = r.metas.get(r.id) as StoredRunMeta;
      expect(meta).toMatchObject({
        stepsDone: 4,
        stepsPlanned: 4,
        done: true,
        lastCheckpoint: 4,
        init: { kind: 'scratch' },
      });
      expect(Object.keys(meta.files).sort()).toEqual([
        'ckpt-2.safetensors',
        'ckpt-2.state',
        'ckpt-4.safetensors',
        'ckpt-4.state',
        'events.jsonl',
        'run.json',
        'trajectories.jsonl',
      ]);
      const ev = new TextDecoder()
        .decode(r.files.get(`${r.id}/events.jsonl`))
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).event);
      expect(ev).toEqual(['start', 'step', 'step', 'checkpoint', 'step', 'step', 'checkpoint', 'done']);
      expect(Array.from(r.files.get(`${r.id}/ckpt-4.state`)!)).toEqual([4]);
      expect(await exportTrajectories(r.store, r.id)).toBe(
        [1, 2, 3, 4]
          .map(
            (s) =>
              `{"messages":[{"role":"user","content":"t\\no"},{"role":"assistant","content":"a${s}"}],` +
              `"reward":1,"success":true,"task":"t","step":${s}}\n`,
          )
          .join(''),
      );
    },
  );
  it(
    'is recording until the write of its done event, then finished (recordingId null; activeId still ' + 'names it)',
    async () => {
      const m = memStore();
      const runs = new PageRuns(m.store, () => 1);
      runs.begin({ kind: 'scratch' });
      const sink = runs.tap(() => undefined);
      const all = events(4);
      for (const e of all.slice(0, -1)) sink(e); // up to the checkpoint of step 4
      await runs.flush();
      const id = runs.activeId!;
      expect(runs.recordingId).toBe(id);
      sink(all.at(-1)!); // done: its write is queued
      expect(runs.recordingId).toBe(id);
      await runs.flush();
      expect((m.metas.get(id) as StoredRunMeta).done).toBe(true);
      expect(runs.recordingId).toBeNull();
      expect(runs.activeId).toBe(id);
    },
  );
  it('keeps a done event that arrives while a write is in flight', async () => {
    const m = memStore();
    const slow: RunStore = {
      ...m.store,
      write: async (...a) => {
        await new Promise((r) => setTimeout(r, 20));
        return m.store.write(...a);
      },
    };
    const runs = new PageRuns(slow, () => 1);
    runs.begin({ kind: 'scratch' });
    const sink = runs.tap(() => undefined);
    const all = events(4);
    for (const e of all.slice(0, -1)) sink(e); // the checkpoint of step 4 starts a write …
    await new Promise((r) => setTimeout(r, 5));
    sink(all.at(-1)!); // … and done comes before it ends
    await runs.flush();
    expect((m.metas.get(runs.activeId!) as StoredRunMeta).done).toBe(true);
  });
  it('reports a storage-full write with what was kept, and keeps the earlier write intact', async () => {
    const m = memStore();
    const statuses: RecordStatus[] = [];
    const runs = new PageRuns(m.store, () => 1);
    runs.watch((s) => statuses.push(s));
    runs.begin({ kind: 'scratch' });
    const sink = runs.tap(() => undefined);
    const all = events(4);
    for (const e of all.slice(0, 6)) sink(e); // through the checkpoint of step 2
    await runs.flush();
    m.fail(Object.assign(new Error('The quota has been exceeded.'), { name: 'QuotaExceededError' }));
    for (const e of all.slice(6, 11)) sink(e); // steps 3, 4 and the checkpoint of step 4
    await runs.flush();
    const err = statuses.find((s) => s.error)!;
    expect(err.error).toBe(
      'storage is full (QuotaExceededError): the run is kept up to step 2 with its checkpoint of step 2; ' +
        'the checkpoint of step 4 was not stored. Training goes on; delete runs or weights in the Runs view ' +
        'to free space.',
    );
    expect((m.metas.get(runs.activeId!) as StoredRunMeta).lastCheckpoint).toBe(2);
  });
});

describe('the stored runs', () => {
  it('lists good runs with their sizes and a corrupt one with the reason; rename', async () => {
    const r = await record(4);
    r.metas.set('bad', { id: 'bad', name: 3 });
    const l = await listRuns(r.store);
    expect(l.runs.map((x) => [x.id, x.algo, x.checkpoints, x.stepsDone])).toEqual([[r.id, 'grpo', [2, 4], 4]]);
    expect(l.totalBytes).toBe([...r.files].filter(([k]) => k.startsWith(r.id)).reduce((a, [, b]) => a + b.length, 0));
    expect(l.corrupt).toEqual([
      {
        id: 'bad',
        reason: 'stored run "bad" is corrupt: name: Invalid input: expected string, received number; delete it',
      },
    ]);
    await renameRun(r.store, r.id, '  first  ');
    expect((await listRuns(r.store)).runs[0].name).toBe('first');
    await expect(renameRun(r.store, r.id, ' ')).rejects.toThrow(/the run name is empty/);
  });
  it('export then import gives the same record; a refused import leaves the store untouched', async () => {
    const r = await record(4);
    const packed = await exportRun(r.store, r.id);
    const before = new Map(r.files);
    await expect(importRun(r.store, packed.subarray(0, packed.length - 3), 'x.opdrun', here)).rejects.toThrow(
      /x.opdrun: the file is truncated/,
    );
    await expect(importRun(r.store, packed, 'x.opdrun', { household: 'household-v9' })).rejects.toThrow(
      /environment version household-v2; this is household-v9/,
    );
    r.fail(Object.assign(new Error('quota'), { name: 'QuotaExceededError' }));
    await expect(importRun(r.store, packed, 'x.opdrun', here)).rejects.toThrow(
      'x.opdrun: storage is full (QuotaExceededError); the run was not imported and the stored runs are ' +
        'unchanged; delete runs or weights to free space',
    );
    expect(r.files).toEqual(before);
    expect(r.metas.size).toBe(1);
    const info = await importRun(r.store, packed, 'x.opdrun', here, 5);
    expect(info).toMatchObject({
      stepsDone: 4,
      done: true,
      lastCheckpoint: 4,
      importedFrom: 'x.opdrun',
      init: { kind: 'scratch' },
    });
    const again = unpackRun(await exportRun(r.store, info.id));
    const first = unpackRun(packed);
    expect(again.header.files).toEqual(first.header.files);
    for (const [n, b] of first.files) expect(Array.from(again.files.get(n)!)).toEqual(Array.from(b));
  });
  it('plans a resume from the latest checkpoint with the record cut back to it', async () => {
    const r = await record(3); // steps 1..3, checkpoint at 2, no done
    const p = await planResume(r.store, r.id, here);
    expect(p.fromStep).toBe(2);
    expect(p.events.map((e) => e.event + ('step' in e ? e.step : ''))).toEqual([
      'start',
      'step1',
      'step2',
      'checkpoint2',
    ]);
    expect(p.texts.trajectories.trim().split('\n')).toHaveLength(2);
    expect(Array.from(p.state)).toEqual([2]);
    await expect(planResume((await record(4)).store, (await record(4)).id, here)).rejects.toThrow(
      /no stored run|is finished/,
    );
    const done = await record(4);
    await expect(planResume(done.store, done.id, here)).rejects.toThrow(
      /is finished \(its latest checkpoint is its last step, 4\)/,
    );
    const early = await record(1);
    await expect(planResume(early.store, early.id, here)).rejects.toThrow(
      /has no checkpoint yet \(the first comes at step 2\)/,
    );
  });
  it(
    "records each checkpoint's sha256 and refuses a resume from changed files or an edited run.json " + 'config',
    async () => {
      const hex = async (b: Uint8Array) =>
        Buffer.from(await crypto.subtle.digest('SHA-256', b as Uint8Array<ArrayBuffer>)).toString('hex');
      const r = await record(3);
      const file = (n: string) => r.files.get(`${r.id}/${n}`)!;
      const ckptLine = () =>
        new TextDecoder()
          .decode(file('events.jsonl'))
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l))
          .find((e) => e.event === 'checkpoint');
      expect(ckptLine()).toEqual({
        event: 'checkpoint',
        step: 2,
        file: 'ckpt-2.safetensors',
        stateFile: 'ckpt-2.state',
        sha256: { weights: await hex(weights(2)), state: await hex(Uint8Array.of(2)) },
      });
      const w = file('ckpt-2.safetensors');
      w[w.length - 1] ^= 1;
      // Both hashes before the call: an await between planResume's start and the handler `rejects` attaches would let
      // its rejection go unhandled for a moment.
      const [got, recorded] = [(await hex(w)).slice(0, 12), (await hex(weights(2))).slice(0, 12)];
      await expect(planResume(r.store, r.id, here)).rejects.toThrow(
        new RegExp(
          `stored run "[^"]+": ckpt-2.safetensors differs from the checkpoint the run stored \\(sha256 ${got}…, ` +
            `events.jsonl records ${recorded}…: corrupt or replaced\\)`,
        ),
      );
      w[w.length - 1] ^= 1;
      file('ckpt-2.state')[0] = 9;
      await expect(planResume(r.store, r.id, here)).rejects.toThrow(
        /: ckpt-2.state differs from the checkpoint the run stored/,
      );
      file('ckpt-2.state')[0] = 2;
      expect((await planResume(r.store, r.id, here)).fromStep).toBe(2);
      // A record written before checkpoint lines held hashes resumes unchecked.
      const ev = new TextDecoder()
        .decode(file('events.jsonl'))
        .split('\n')
        .map((l) => (l.includes('"checkpoint"') ? JSON.stringify({ ...JSON.parse(l), sha256: undefined }) : l))
        .join('\n');
      r.files.set(`${r.id}/events.jsonl`, new TextEncoder().encode(ev));
      file('ckpt-2.state')[0] = 9;
      expect((await planResume(r.store, r.id, here)).fromStep).toBe(2);
      const run = JSON.parse(new TextDecoder().decode(file('run.json')));
      run.config.learningRate = 0.5;
      r.files.set(`${r.id}/run.json`, new TextEncoder().encode(JSON.stringify(run)));
      await expect(planResume(r.store, r.id, here)).rejects.toThrow(
        new RegExp(
          ': its run.json config differs from the config the run started with \\(the start line of events.jsonl\\): ' +
            'learningRate 0.0001 → 0.5; a resumed run keeps its config',
        ),
      );
    },
  );
});
