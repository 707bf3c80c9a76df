/**
 * The page's run state (src/ui/state/run.svelte.ts, compiled by the Vite Svelte plugin for Node) driving an in-process
 * worker: the real TrainingSession and PageRuns (src/worker/session.ts, runs-library.ts) over an in-memory run store
 * and a stand-in trainer with safe points. Stop during a step ends the run at that safe point keeping steps 1–2 (step
 * 3 is cut and discarded, no "Paused" notice), the stored run is marked ended by Stop (done, stopped, 2 steps, no
 * `done` line), the next Start begins a new run that trains to its end as a second stored run; Stop on a paused run
 * ends it at once; Stop with no started run does nothing. Copy link copies nothing while a field is invalid (the
 * notice names the field) and the shown settings once it is fixed. Notices follow the phase: Resume clears "Paused",
 * the "Resuming" notice goes when the resumed run ends, Reset clears "Stopped", and "Link copied" goes at the next
 * edit. Each invalid field keeps its own issue (a cross-field one too while another field is out of range).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ViteDevServer } from 'vite';
import type { RunState as RunStateType, SpawnTrainer } from '../../src/ui/state/run.svelte';
import { fakeLocation, inProcessWorker, loadRunState } from '../helpers/page-worker';
import type { TrainEvent } from '../../src/core/train/events';

let vite: ViteDevServer;
let RunState: new (spawn?: SpawnTrainer) => RunStateType;

/** The link the page opens: 6 steps, no evaluation or checkpoints, scratch weights (no base policy to fetch). */
const HASH = '#backend=cpu&init=scratch&steps=6&evalEvery=0&checkpointEvery=0';

beforeAll(async () => {
  fakeLocation(HASH);
  ({ RunState, vite } = await loadRunState());
}, 60_000);

afterAll(async () => {
  await vite?.close();
});

// Each test opens the same link (a settings change in one rewrites `location.hash`).
beforeEach(() => history.replaceState(null, '', HASH));

describe('RunState Stop', () => {
  it('Stop mid-step keeps steps 1–2, marks the stored run stopped; Start then begins a new run', async () => {
    let stopping: Promise<void> | null = null;
    let seen: unknown[] = [];
    const w = inProcessWorker((step, turn) => {
      if (step !== 3 || turn !== 2 || stopping) return;
      seen = [run.phase, run.canStop, run.stepsDone];
      stopping = run.stop();
      seen.push(run.stopping);
    });
    const run: RunStateType = new RunState(w.spawn);
    await run.boot();
    expect(run.phase).toBe('ready');
    expect(run.canStop).toBe(false);

    await run.start();
    await stopping;
    expect(seen).toEqual(['running', true, 2, true]);
    expect(run.phase).toBe('done');
    expect(run.stopping).toBe(false);
    expect(run.canStop).toBe(false);
    expect(run.steps.map((s) => s.step)).toEqual([1, 2]);
    expect(run.stepsDone).toBe(2);
    expect(run.notice).toBe(
      'Stopped after step 2 of 6: the run is kept (Runs lists it as stopped; its weights can still be ' +
        'saved). Start begins a new run.',
    );
    expect(w.session.status).toBe('done');

    const first = (await w.list()).runs;
    expect(first.map((r) => [r.stepsDone, r.stepsPlanned, r.done, r.stopped])).toEqual([[2, 6, true, true]]);
    const lines = w.mem
      .text(first[0].id, 'events.jsonl')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as TrainEvent).event);
    expect(lines).toEqual(['start', 'step', 'step']);

    // Start begins a new run (same settings), which trains to its end and is stored beside the stopped one.
    const configures = w.calls.configure;
    await run.start();
    expect(w.calls.configure).toBe(configures + 1);
    expect(run.phase).toBe('done');
    expect(run.steps.map((s) => s.step)).toEqual([1, 2, 3, 4, 5, 6]);
    const both = (await w.list()).runs;
    expect(both.map((r) => [r.stepsDone, r.done, r.stopped ?? false]).sort()).toEqual([
      [2, true, true],
      [6, true, false],
    ]);
  });

  it('Stop on a paused run ends it at once; Stop with no started run does nothing', async () => {
    const w = inProcessWorker();
    const run = new RunState(w.spawn);
    await run.boot();
    await run.stop();
    expect(w.calls.stop ?? 0).toBe(0);
    expect(run.phase).toBe('ready');

    await run.step();
    expect(run.phase).toBe('paused');
    expect(run.canStop).toBe(true);
    await run.stop();
    expect(w.calls.stop).toBe(1);
    expect(run.phase).toBe('done');
    expect(run.steps.map((s) => s.step)).toEqual([1]);
    expect(run.notice).toMatch(/^Stopped after step 1 of 6/);
    const stored = (await w.list()).runs;
    expect(stored.map((r) => [r.stepsDone, r.done, r.stopped])).toEqual([[1, true, true]]);
    // The ended run is not stepped further: Step waits for a new run (Start).
    await run.step();
    expect(run.steps.map((s) => s.step)).toEqual([1]);
  });
});

describe('RunState Copy link', () => {
  it('copies nothing while a field is invalid and names the field; copies the shown settings once fixed', async () => {
    const copied: string[] = [];
    Object.defineProperty(globalThis, 'navigator', {
      value: { clipboard: { writeText: async (t: string) => void copied.push(t) } },
      configurable: true,
    });
    const w = inProcessWorker();
    const run = new RunState(w.spawn);
    await run.boot();
    await run.setField('steps', -4);
    expect(run.issuesFor('steps')).toHaveLength(1);
    await run.copyLink();
    expect(copied).toEqual([]);
    expect(run.notice).toBe('Not copied: fix Steps first (the link holds the settings the run uses).');

    await run.setField('steps', 3);
    await run.copyLink();
    expect(copied).toHaveLength(1);
    expect(copied[0]).toMatch(/[#&]steps=3(&|$)/);
    expect(run.notice).toBe('Link copied to the clipboard.');
  });
});

describe('RunState notices follow the phase', () => {
  const PAUSED =
    'Paused: step 3 was cut off at a safe point and discarded whole; Resume or Step redoes it with the same numbers.';

  it('Resume clears the Paused notice while training; an invalid edit keeps it; Reset clears Stopped', async () => {
    let paused = false;
    const during: string[] = [];
    const w = inProcessWorker((step, turn) => {
      if (step === 3 && turn === 2 && !paused) {
        paused = true;
        void run.pause();
      }
      if (step === 4 && turn === 1) during.push(run.notice);
    });
    const run: RunStateType = new RunState(w.spawn);
    await run.boot();
    await run.start();
    expect(run.phase).toBe('paused');
    expect(run.notice).toBe(PAUSED);
    await run.setField('steps', -4); // still paused: the notice is still true
    expect(run.notice).toBe(PAUSED);
    await run.setField('steps', 6); // back to the run's value: nothing applied, the run stays paused
    expect(run.notice).toBe(PAUSED);

    await run.start(); // Resume
    expect(during).toEqual(['']);
    expect(run.phase).toBe('done');
    expect(run.notice).toBe('');

    await run.reset();
    await run.step();
    await run.stop();
    expect(run.notice).toBe(
      'Stopped after step 1 of 6: the run is kept (Runs lists it as stopped; its weights can still be ' +
        'saved). Start begins a new run.',
    );
    await run.reset();
    expect(run.phase).toBe('ready');
    expect(run.notice).toBe('');
  });

  it('the Resuming notice shows while the resumed run trains and goes when it ends', async () => {
    const during: string[] = [];
    const w = inProcessWorker((step, turn) => {
      if (step === 2 && turn === 1) during.push(run.notice);
    });
    // The stand-in worker has no stored checkpoints: resuming configures the same run (it trains from step 1); only
    // the page's notice is checked here.
    w.api.resumeRun = async (id) => {
      await w.api.configure!(run.config);
      return {
        id,
        name: 'first',
        config: run.config,
        fromStep: 4,
        events: [],
        init: { kind: 'scratch', label: 'run "first" from its checkpoint of step 4' },
      } as never;
    };
    const run: RunStateType = new RunState(w.spawn);
    await run.boot();
    expect(run.nextInitLabel).toBe('fresh weights from seed 1');
    expect(await run.resumeStored('r1')).toBe(true);
    await vi.waitFor(() => expect(run.phase).toBe('done'), { timeout: 30_000 });
    expect(during).toEqual(['Resuming run "first" from its checkpoint of step 4.']);
    expect(run.notice).toBe('');
    // The run shown started from its checkpoint; the next run (Start after done) starts from the settings' weights.
    expect(run.initSource?.label).toBe('run "first" from its checkpoint of step 4');
    expect(run.nextInitLabel).toBe('fresh weights from seed 1');
    await run.start();
    expect(run.initSource?.label).toBe('fresh weights from seed 1');
    expect(run.nextInitLabel).toBe('fresh weights from seed 1');
  });

  it('"Link copied" goes at the next settings edit', async () => {
    Object.defineProperty(globalThis, 'navigator', {
      value: { clipboard: { writeText: async () => undefined } },
      configurable: true,
    });
    const run = new RunState(inProcessWorker().spawn);
    await run.boot();
    await run.copyLink();
    expect(run.notice).toBe('Link copied to the clipboard.');
    await run.setField('steps', -4);
    expect(run.notice).toBe('');
    await run.copyLink();
    expect(run.notice).toBe('Not copied: fix Steps first (the link holds the settings the run uses).');
    await run.setField('steps', 5);
    expect(run.notice).toBe('');
  });
});

describe('RunState field issues', () => {
  it('each invalid field keeps its own issue: Mini-batches > B·G stays while Steps is out of range', async () => {
    const run = new RunState(inProcessWorker().spawn);
    await run.boot();
    await run.setField('tasksPerStep', 1); // 8 mini-batches ≤ 1·8: valid
    await run.setField('groupSize', 2); // 8 > 1·2
    expect(run.fieldIssues.map((i) => i.field)).toEqual(['miniBatches']);
    await run.setField('steps', -4);
    expect(run.issuesFor('steps')).toHaveLength(1);
    expect(run.issuesFor('miniBatches').map((i) => i.message)).toEqual([
      'is 8 (the default), more than tasksPerStep·groupSize (2): each mini-batch needs a sample; set miniBatches ' +
        'to 2 or fewer, or raise B·G',
    ]);
    await run.setField('steps', 6);
    expect(run.fieldIssues.map((i) => i.field)).toEqual(['miniBatches']);
  });
});
