/**
 * A stored run stopped by a non-finite value (the trainer's `error` event, core/train/finite.ts) keeps why it stopped:
 * its events.jsonl ends with the error line (written at once), its summary holds the message, so the Runs list, an
 * export and an import of that export all say it; the reload banner does not offer it as a run the tab's closing
 * interrupted; and resuming from its checkpoint drops the error line and the message (the continuation replaces
 * what came after the checkpoint). The Runs view's state names the error.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG, type RunConfig } from '../../src/core/run/config';
import type { TrainEvent } from '../../src/core/train/events';
import { encodeTensors } from '../../src/core/model/io';
import { unpackRun } from '../../src/core/run-files/pack';
import type { StoredRunMeta } from '../../src/worker/run-meta';
import { PageRuns, exportRun, importRun, listRuns } from '../../src/worker/runs-library';
import { planResume } from '../../src/worker/run-resume';
import { interruptedRun, runStateText } from '../../src/ui/state/runs-view';
import { mapStore } from './map-run-store';

const config: RunConfig = { ...DEFAULT_CONFIG, steps: 6, checkpointEvery: 2 };
const versions = { household: 'household-v2' };
const MESSAGE = 'step 4: the gradient norm is NaN; the update was not applied; lower the learning rate';
const weights = (step: number) =>
  encodeTensors([{ name: 'w', shape: [1], data: Float32Array.of(step) }], {
    format: 'opd-playground',
    modelSize: 'nano',
  });
const step = (s: number): TrainEvent =>
  ({ event: 'step', step: s, successRate: 0.5, rewardMean: 0, policyLoss: -s }) as unknown as TrainEvent;
const errorEvent: TrainEvent = {
  event: 'error',
  step: 4,
  quantity: 'gradNorm',
  value: 'NaN',
  settings: { learningRate: 1, klBeta: 0, maxGradNorm: 0, entropyCoef: 0 },
  lastCheckpoint: 2,
  message: MESSAGE,
};

/**
 * Records steps 1–2 with the checkpoint of step 2, step 3 (when `step3`), then the error event of step 4 (of step 3
 * without `step3`: the step right after the checkpoint diverged); waits for no flush of its own.
 */
async function diverged(step3 = true) {
  const m = mapStore();
  const runs = new PageRuns(m.store, () => 1_700_000_000_000);
  runs.begin({ kind: 'scratch' });
  const sink = runs.tap(() => undefined);
  const all: TrainEvent[] = [
    { event: 'start', config, backend: 'wasm', params: 10, vocabSize: 5, envVersions: versions },
    step(1),
    step(2),
    { event: 'checkpoint', step: 2, weights: weights(2), state: Uint8Array.of(2) },
    ...(step3 ? [step(3), errorEvent] : [{ ...errorEvent, step: 3 } as TrainEvent]),
  ];
  for (const e of all) {
    sink(e);
    await new Promise((r) => setTimeout(r, 0));
  }
  // The error event's own write: nothing else flushes (a page closed right after the error keeps it).
  for (let i = 0; i < 50 && !m.files.get(`${runs.activeId}/events.jsonl`)?.length; i++)
    await new Promise((r) => setTimeout(r, 1));
  await new Promise((r) => setTimeout(r, 20));
  return { ...m, runs, id: runs.activeId! };
}

const kinds = (text: string) =>
  text
    .trim()
    .split('\n')
    .map((l) => (JSON.parse(l) as { event: string }).event);

describe('a run stopped by a non-finite value', () => {
  it('stores the error line and its message; the list, an export and its import say why it stopped', async () => {
    const r = await diverged();
    const text = new TextDecoder().decode(r.files.get(`${r.id}/events.jsonl`));
    expect(kinds(text)).toEqual(['start', 'step', 'step', 'checkpoint', 'step', 'error']);
    expect(JSON.parse(text.trim().split('\n').at(-1)!)).toMatchObject({
      event: 'error',
      step: 4,
      quantity: 'gradNorm',
      value: 'NaN',
      lastCheckpoint: 2,
      message: MESSAGE,
    });
    expect(r.metas.get(r.id)).toMatchObject({ stepsDone: 3, done: false, lastCheckpoint: 2, error: MESSAGE });

    const listed = (await listRuns(r.store)).runs;
    expect(listed.map((x) => [x.id, x.stepsDone, x.done, x.error])).toEqual([[r.id, 3, false, MESSAGE]]);
    expect(interruptedRun(listed, null)).toBeNull();
    expect(runStateText(listed[0], null)).toBe(`stopped by an error; checkpoint at step 2: ${MESSAGE}`);

    const packed = await exportRun(r.store, r.id);
    expect(kinds(new TextDecoder().decode(unpackRun(packed).files.get('events.jsonl')))).toContain('error');
    const other = mapStore();
    const imported = await importRun(other.store, packed, 'diverged.opdrun', versions, 5);
    expect(imported.error).toBe(MESSAGE);
    expect((await listRuns(other.store)).runs.map((x) => x.error)).toEqual([MESSAGE]);
  });

  it('resuming from its checkpoint drops the error line and the message', async () => {
    const r = await diverged(false);
    expect(kinds(new TextDecoder().decode(r.files.get(`${r.id}/events.jsonl`))).at(-1)).toBe('error');
    const plan = await planResume(r.store, r.id, versions);
    expect(plan.fromStep).toBe(2);
    expect(kinds(plan.texts.events)).toEqual(['start', 'step', 'step', 'checkpoint']);
    expect(plan.meta.error).toBeUndefined();
    const resumed = new PageRuns(r.store, () => 2);
    resumed.resume(plan);
    resumed.tap(() => undefined)(step(3));
    await resumed.flush();
    expect((r.metas.get(r.id) as StoredRunMeta).error).toBeUndefined();
    expect(kinds(new TextDecoder().decode(r.files.get(`${r.id}/events.jsonl`)))).toEqual([
      'start',
      'step',
      'step',
      'checkpoint',
      'step',
    ]);
  });

  it('a run that was not stopped by an error has no message', async () => {
    const m = mapStore();
    const runs = new PageRuns(m.store, () => 1);
    runs.begin({ kind: 'scratch' });
    runs.tap(() => undefined)({
      event: 'start',
      config,
      backend: 'wasm',
      params: 1,
      vocabSize: 1,
      envVersions: versions,
    } as TrainEvent);
    await runs.flush();
    expect(Object.hasOwn(m.metas.get(runs.activeId!) as object, 'error')).toBe(false);
  });
});
