/**
 * The page's run state guarding the run (src/ui/state/run.svelte.ts over an in-process worker, test/helpers): a link
 * opened in the tab while the run trains waits for a confirmation (the run goes on; Keep restores the run's link,
 * Open pauses first, then reloads); a bad analyzer base URL typed under `http` stops blocking Start once another
 * analyzer or algorithm is chosen (and stays out of the link), and a blocked Start says why, naming the field; a link
 * whose checkpoint is missing keeps Start and Step waiting until the user chooses to train without it; a storm of
 * Start / Pause / Step / Reset calls settles to a settled phase with Pausing… cleared.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ViteDevServer } from 'vite';
import type { RunState as RunStateType, SpawnTrainer } from '../../src/ui/state/run.svelte';
import { fakeLocation, inProcessWorker, loadRunState } from '../helpers/page-worker';

const HASH = '#backend=cpu&init=scratch&steps=6&evalEvery=0&checkpointEvery=0';
let vite: ViteDevServer;
let RunState: new (spawn?: SpawnTrainer) => RunStateType;

beforeAll(async () => {
  fakeLocation(HASH);
  ({ RunState, vite } = await loadRunState());
}, 60_000);
afterAll(async () => {
  await vite?.close();
});
beforeEach(() => history.replaceState(null, '', HASH));

const until = async (ok: () => boolean, ms = 2000) => {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 1));
  }
};

describe('a link opened while training', () => {
  it('waits for a confirmation; Keep restores the run link and the run goes on', async () => {
    let pauseAt = 0;
    const w = inProcessWorker((step) => {
      if (step === pauseAt) void run.pause();
    });
    const run = new RunState(w.spawn);
    await run.boot();
    pauseAt = 3;
    await run.start(); // paused during step 3: steps 1–2 kept
    expect(run.stepsDone).toBe(2);
    let reloads = 0;
    location.hash = '#backend=cpu&init=scratch&steps=9';
    run.linkChanged(() => reloads++);
    expect(reloads).toBe(0);
    expect(run.pendingLink).toBe('#backend=cpu&init=scratch&steps=9');
    run.keepRunOverLink();
    expect(run.pendingLink).toBeNull();
    expect(location.hash).toContain('steps=6');
    expect(location.hash).not.toContain('steps=9');
    pauseAt = 0;
    await run.start();
    expect(run.stepsDone).toBe(6);
  });

  it('Open pauses a running run first, then reloads at the link; with nothing to lose it reloads at once', async () => {
    const run = new RunState(inProcessWorker().spawn);
    await run.boot();
    let reloads = 0;
    location.hash = '#backend=cpu&steps=3';
    run.linkChanged(() => reloads++);
    expect(reloads).toBe(1); // no steps yet: nothing is lost
    history.replaceState(null, '', HASH);
    const training = run.start();
    await until(() => run.phase === 'running');
    location.hash = '#backend=cpu&steps=4';
    run.linkChanged(() => reloads++);
    expect(run.pendingLink).toBe('#backend=cpu&steps=4');
    await run.openPendingLink(() => {
      expect(run.phase).not.toBe('running');
      reloads++;
    });
    await training;
    expect(reloads).toBe(2);
    expect(location.hash).toBe('#backend=cpu&steps=4');
  });
});

describe('Start says why it waits', () => {
  it('a bad http URL stops blocking once heuristic or GRPO is chosen, and never enters the link', async () => {
    const run = new RunState(inProcessWorker().spawn);
    await run.boot();
    await run.setField('algo', 'opid');
    await run.setField('analyzer', 'http');
    await run.setField('analyzerModel', 'm');
    await run.setField('analyzerUrl', 'http://user:secret@host');
    expect(run.valid).toBe(false);
    expect(run.buttonsWhy.start).toMatch(/^Fix Base URL/);
    expect(run.buttonsWhy.line).toBe(run.buttonsWhy.start);
    await run.setField('analyzer', 'heuristic');
    expect(run.fieldIssues).toEqual([]);
    expect(run.buttonsWhy).toEqual({ start: '', step: '', line: '' });
    expect(location.hash).not.toContain('secret');
    expect(run.config.analyzer).toBe('heuristic');
    await run.setField('analyzer', 'http'); // the field still holds the text: its issue shows again
    expect(run.issuesFor('analyzerUrl')).toHaveLength(1);
    await run.setField('algo', 'grpo');
    expect(run.valid).toBe(true);
    expect(run.config.algo).toBe('grpo');
    expect(location.hash).not.toContain('secret');
  });

  it('a missing link checkpoint keeps Start and Step waiting until the user chooses to train without it', async () => {
    const w = inProcessWorker();
    w.api.weightsSha256 = async () => null;
    history.replaceState(null, '', `${HASH}&ckpt=best&ckptSha256=${'a'.repeat(64)}`);
    const run = new RunState(w.spawn);
    await run.boot();
    expect(run.missingCheckpoint?.name).toBe('best');
    expect(run.buttonsWhy.start).toContain('"best"');
    await run.start();
    await run.step();
    expect(run.stepsDone).toBe(0);
    expect(run.phase).toBe('ready');
    run.dismissMissingCheckpoint();
    expect(location.hash).not.toContain('best');
    expect(run.buttonsWhy.start).toBe('');
    await run.step();
    expect(run.stepsDone).toBe(1);
  });
});

describe('a storm of clicks', () => {
  it('settles within 2 s of the last click: a settled phase, Pausing… cleared, no error', async () => {
    const run = new RunState(inProcessWorker().spawn);
    await run.boot();
    await run.setField('steps', 100000);
    const clicks = [
      () => run.start(),
      () => run.pause(),
      () => run.step(),
      () => run.reset(),
      () => run.start(),
      () => run.start(),
      () => run.pause(),
      () => run.reset(),
      () => run.step(),
      () => run.pause(),
      () => run.start(),
      () => run.reset(),
      () => run.pause(),
      () => run.start(),
      () => run.pause(),
    ];
    for (let round = 0; round < 4; round++)
      for (const [n, click] of clicks.entries()) {
        void click();
        if (n % 3 === 0) await new Promise((r) => setTimeout(r, 0));
      }
    void run.pause();
    await until(() => ['ready', 'paused'].includes(run.phase) && !run.pausing);
    expect(run.error).toBeNull();
  });
});
