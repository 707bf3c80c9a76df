/**
 * Deleting stored runs (src/worker/runs-library.ts `PageRuns.delete`, the Runs view's Delete): a run that is not being
 * recorded goes with all its files and the others stay, byte for byte; deleting the run being recorded stops its
 * recording, so the events that follow write nothing back; the listed total is the sum of the remaining files.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG, type RunConfig } from '../../src/core/run/config';
import type { TrainEvent } from '../../src/core/train/events';
import { encodeTensors } from '../../src/core/model/io';
import { PageRuns, listRuns } from '../../src/worker/runs-library';
import { mapStore } from './map-run-store';

const config: RunConfig = { ...DEFAULT_CONFIG, steps: 4, checkpointEvery: 2 };
const weights = encodeTensors([{ name: 'w', shape: [1], data: Float32Array.of(1) }], {
  format: 'opd-playground',
  modelSize: 'nano',
});
const start: TrainEvent = {
  event: 'start',
  config,
  backend: 'wasm',
  params: 10,
  vocabSize: 5,
  envVersions: { household: 'household-v2' },
};
const step = (s: number): TrainEvent =>
  ({ event: 'step', step: s, successRate: 0, rewardMean: 0, policyLoss: 0 }) as unknown as TrainEvent;
const ckpt = (s: number): TrainEvent =>
  ({ event: 'checkpoint', step: s, weights, state: Uint8Array.of(s) }) as TrainEvent;

/** Feeds `evs` through the recording sink, letting queued writes run between events, then flushes. */
async function feed(runs: PageRuns, evs: TrainEvent[]): Promise<void> {
  const sink = runs.tap(() => undefined);
  for (const e of evs) {
    sink(e);
    await new Promise((r) => setTimeout(r, 0));
  }
  await runs.flush();
}

describe('deleting stored runs', () => {
  it(
    'a finished run goes with its files; the run being recorded is untouched; the total shrinks to the ' + 'rest',
    async () => {
      const m = mapStore();
      let t = 1_700_000_000_000;
      const runs = new PageRuns(m.store, () => t++);
      runs.begin({ kind: 'scratch' });
      await feed(runs, [start, step(1), step(2), ckpt(2)]);
      const first = runs.activeId!;
      runs.begin({ kind: 'scratch' });
      await feed(runs, [start, step(1), step(2), ckpt(2)]);
      const second = runs.activeId!;
      expect(second).not.toBe(first);
      const secondFiles = JSON.stringify(
        [...m.files].filter(([k]) => k.startsWith(`${second}/`)).map(([k, v]) => [k, [...v]]),
      );
      await runs.delete(first);
      expect(m.metas.has(first)).toBe(false);
      expect([...m.files.keys()].filter((k) => k.startsWith(`${first}/`))).toEqual([]);
      expect(
        JSON.stringify([...m.files].filter(([k]) => k.startsWith(`${second}/`)).map(([k, v]) => [k, [...v]])),
      ).toBe(secondFiles);
      const l = await listRuns(m.store);
      expect(l.runs.map((r) => r.id)).toEqual([second]);
      expect(l.totalBytes).toBe([...m.files.values()].reduce((a, b) => a + b.length, 0));
      expect(runs.activeId).toBe(second);
    },
  );

  it('deleting the run being recorded stops its recording: later steps and checkpoints write nothing', async () => {
    const m = mapStore();
    const runs = new PageRuns(m.store, () => 1_700_000_000_000);
    runs.begin({ kind: 'scratch' });
    const sink = runs.tap(() => undefined);
    for (const e of [start, step(1), step(2), ckpt(2)]) sink(e);
    await runs.flush();
    const id = runs.activeId!;
    expect(m.metas.has(id)).toBe(true);
    await runs.delete(id);
    expect(runs.activeId).toBeNull();
    for (const e of [step(3), step(4), ckpt(4)]) sink(e);
    await runs.flush();
    await new Promise((r) => setTimeout(r, 0));
    expect(m.metas.size).toBe(0);
    expect(m.files.size).toBe(0);
    expect((await listRuns(m.store)).totalBytes).toBe(0);
  });
});
