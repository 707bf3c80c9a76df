/**
 * The worker's events reach the page through the sink's own Comlink port, so the last events of a Step (its
 * `trajectories`) can arrive after the call's answer settled the phase at `paused`. Here an in-process worker
 * delivers a Step's events only after its answer: the page still takes them (the step and its group), while the same
 * late events after a Reset (which discarded that run) are dropped.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ViteDevServer } from 'vite';
import type { RunState as RunStateType, SpawnTrainer } from '../../src/ui/state/run.svelte';
import type { TrainEvent } from '../../src/core/train/events';
import { fakeLocation, inProcessWorker, loadRunState } from '../helpers/page-worker';

let vite: ViteDevServer;
let RunState: new (spawn?: SpawnTrainer) => RunStateType;
const HASH = '#backend=cpu&init=scratch&steps=6&evalEvery=0&checkpointEvery=0';

beforeAll(async () => {
  fakeLocation(HASH);
  ({ RunState, vite } = await loadRunState());
}, 60_000);

afterAll(async () => {
  await vite?.close();
});

/** An in-process worker whose Step answers first and sends its events afterwards (`deliver` sends them). */
function lateWorker() {
  const w = inProcessWorker();
  let held: TrainEvent[] = [];
  let sink: ((e: TrainEvent) => void) | null = null;
  const stepOnce = w.api.stepOnce!;
  w.api.stepOnce = async (onEvent, onProgress) => {
    sink = onEvent as (e: TrainEvent) => void;
    held = [];
    return stepOnce(((e: TrainEvent) => void held.push(e)) as never, onProgress);
  };
  const deliver = () => {
    for (const e of held) sink?.(e);
    held = [];
  };
  return { ...w, deliver, held: () => held.map((e) => e.event) };
}

describe('late events of a Step', () => {
  it('are taken after the answer settled the phase at paused', async () => {
    const w = lateWorker();
    const run: RunStateType = new RunState(w.spawn);
    await run.boot();
    await run.step();
    expect(run.phase).toBe('paused');
    expect(w.held()).toEqual(['start', 'step', 'trajectories']);
    expect(run.group).toBeNull();
    w.deliver();
    expect(run.steps.map((s) => s.step)).toEqual([1]);
    expect(run.group?.step).toBe(1);
  });

  it('are dropped when a Reset discarded the run before they arrived', async () => {
    const w = lateWorker();
    const run: RunStateType = new RunState(w.spawn);
    await run.boot();
    await run.step();
    await run.reset();
    expect(run.phase).toBe('ready');
    w.deliver();
    expect(run.steps).toEqual([]);
    expect(run.group).toBeNull();
  });
});
