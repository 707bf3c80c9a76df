/**
 * Browser end-to-end test of run control and responsiveness (wasm, tiny settings in the link).
 *
 * Stop: Start, then Stop from the keyboard (focus on Stop, Enter) after step 2; the run ends at its next safe point
 * (phase `done`, the counter at the last whole step k), focus returns to Start, the stored run keeps its k step events
 * and checkpoints with no `done` line and is marked stopped, the Runs view lists it as "stopped at step k; checkpoint
 * at step c" with k/40 steps and offers Resume (from checkpoint c, before step 40), but not the reload banner; Start
 * then begins a new run (a second stored run, the counter from 0 again).
 *
 * Long tasks: three steps train with the Explorer view open (the page's defaults, B 8 × G 8, H 3, an evaluation after
 * step 2) while a PerformanceObserver for `longtask` records every main-thread task over 50 ms of wall-clock time and a
 * Chrome trace (category `toplevel`) records the CPU time of every task of the page's main thread. No task may use
 * over 50 ms of CPU. Wall-clock time also counts the time the thread waits for a core: on a machine whose cores are
 * saturated by other work (2 shared cores here) a task of 15–30 ms of CPU can last 50–125 ms, so the wall-clock
 * bound asserted is LONG_TASK_WALL_BOUND_MS, measured there; both worst values are printed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ROOT, useE2E } from './harness';

/** The shipped base policy's model size (household/easy), so the run can start from it. */
const BASE_MODEL = (
  JSON.parse(readFileSync(join(ROOT, 'public/base/household-easy.json'), 'utf8')) as { model: string }
).model;
/** 40 steps of B 2 × G 2 (about a second each on wasm), a checkpoint every 2, no evaluation: Stop lands mid-run. */
const LINK =
  `backend=wasm&model=${BASE_MODEL}&steps=40&tasksPerStep=2&groupSize=2` +
  '&miniBatches=2&evalEvery=0&checkpointEvery=2';
/** The page's defaults but short: B 8 × G 8 with H 3 and an evaluation after step 2 (and step 0), 3 steps. */
const LONGTASK_LINK = `backend=wasm&model=${BASE_MODEL}&steps=3&evalEvery=2&evalEpisodes=8`;
/** The most CPU time one main-thread task may use while training with the Explorer open (ms). */
const TASK_CPU_BOUND_MS = 50;
/**
 * The longest wall-clock main-thread task allowed (ms). Measured on 2 cores saturated by other jobs: worst long tasks
 * of 57–125 ms whose CPU time was 10–28 ms; on an idle machine they stay under 50 ms.
 */
const LONG_TASK_WALL_BOUND_MS = 250;

const { open } = useE2E();

const stepShown = async (page: Page) =>
  Number(/step (\d+)/.exec((await page.getByTestId('step-counter').textContent()) ?? '')?.[1] ?? NaN);
const phaseText = async (page: Page) => ((await page.getByTestId('run-phase').textContent()) ?? '').trim();

/** Waits until the counter shows at least step `n`, failing early with the error banner's text. */
async function waitForStep(page: Page, n: number, logs: string[], timeout = 240_000): Promise<void> {
  try {
    await expect
      .poll(async () => ((await page.getByTestId('error-banner').count()) ? -1 : stepShown(page)), {
        timeout,
        interval: 200,
      })
      .toBeGreaterThanOrEqual(n);
  } catch (e) {
    throw new Error(
      `step ${n} not reached; banner: ${await page
        .getByTestId('error-banner')
        .textContent()
        .catch(() => '')}\n${logs.join('\n')}\n${e}`,
      { cause: e },
    );
  }
}

/**
 * Every stored run's summary and events.jsonl, oldest first, read straight from IndexedDB (database opd-playground).
 */
async function stored(
  page: Page,
): Promise<{ id: string; done: boolean; stopped?: boolean; stepsDone: number; files: string[]; events: string }[]> {
  return page.evaluate(async () => {
    const db = await new Promise<IDBDatabase>((res, rej) => {
      const r = indexedDB.open('opd-playground');
      r.onsuccess = () => res(r.result);
      r.onerror = () => rej(r.error);
    });
    const all = <T>(store: string) =>
      new Promise<T[]>((res, rej) => {
        const r = db.transaction(store).objectStore(store).getAll();
        r.onsuccess = () => res(r.result as T[]);
        r.onerror = () => rej(r.error);
      });
    const metas = await all<{
      id: string;
      done: boolean;
      stopped?: boolean;
      stepsDone: number;
      createdAt: number;
      files: Record<string, number>;
    }>('runs');
    const files = await all<{ runId: string; name: string; data: Uint8Array }>('runFiles');
    db.close();
    const events = (id: string) =>
      new TextDecoder().decode(
        files.find((f) => f.runId === id && f.name === 'events.jsonl')?.data ?? new Uint8Array(),
      );
    return metas
      .sort((a, b) => a.createdAt - b.createdAt)
      .map((m) => ({
        id: m.id,
        done: m.done,
        stopped: m.stopped,
        stepsDone: m.stepsDone,
        files: Object.keys(m.files).sort(),
        events: events(m.id),
      }));
  });
}

/** A Chrome trace event (the fields read here). `ts`, `dur`, `tdur` in µs; `tdur` is the thread's CPU time. */
interface TraceEvent {
  ph: string;
  name: string;
  pid: number;
  tid: number;
  dur?: number;
  tdur?: number;
  args?: { name?: string };
}

/** CPU time (ms) of every task run by a renderer main thread (`CrRendererMain`) in `trace`. */
function mainThreadTaskCpuMs(trace: readonly TraceEvent[]): number[] {
  const mains = new Set(
    trace
      .filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain')
      .map((e) => `${e.pid}/${e.tid}`),
  );
  return trace
    .filter((e) => e.ph === 'X' && e.name === 'ThreadControllerImpl::RunTask' && mains.has(`${e.pid}/${e.tid}`))
    .map((e) => (e.tdur ?? 0) / 1000);
}

describe('run control and responsiveness (wasm)', () => {
  it('Stop ends the run keeping its steps; Runs lists it as stopped; Start then begins a new run', async () => {
    const { page, logs } = await open(LINK);
    await expect.poll(() => phaseText(page), { timeout: 120_000 }).toBe('ready');
    expect(await page.getByTestId('stop-button').isDisabled()).toBe(true);
    await page.getByTestId('start-button').click();
    await waitForStep(page, 2, logs);

    // Keyboard: Stop is a button reached by focus, pressed with Enter.
    const stop = page.getByTestId('stop-button');
    await stop.focus();
    const t0 = Date.now();
    await page.keyboard.press('Enter');
    await expect.poll(() => phaseText(page), { timeout: 60_000, interval: 100 }).toBe('done');
    const k = await stepShown(page);
    console.log(`control e2e: Stop at step ${k} took ${Date.now() - t0} ms (Enter to "done")`);
    expect(k).toBeGreaterThanOrEqual(2);
    expect(k).toBeLessThan(40);
    expect(await page.getByTestId('stop-button').isDisabled()).toBe(true);
    expect(await page.getByTestId('start-button').isEnabled()).toBe(true);
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-testid')), { timeout: 5_000 })
      .toBe('start-button');
    expect(await page.getByTestId('error-banner').count()).toBe(0);

    // The stored run: its k steps and checkpoints, no done line, marked stopped.
    await expect.poll(async () => (await stored(page)).length, { timeout: 30_000 }).toBe(1);
    const [run] = await stored(page);
    const lines = run.events
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { event: string; step?: number });
    expect(lines.filter((e) => e.event === 'step').map((e) => e.step)).toEqual(
      Array.from({ length: k }, (_, i) => i + 1),
    );
    expect(lines.some((e) => e.event === 'done')).toBe(false);
    expect([run.done, run.stopped, run.stepsDone]).toEqual([true, true, k]);
    const ckpts = Array.from({ length: Math.floor(k / 2) }, (_, i) => 2 * (i + 1));
    expect(run.files.filter((f) => f.endsWith('.state'))).toEqual(ckpts.map((s) => `ckpt-${s}.state`).sort());

    // The Runs view lists it as stopped with its steps and latest checkpoint, offering Resume from it; no reload
    // banner.
    await page.getByRole('button', { name: 'Runs', exact: true }).click();
    const row = page.getByTestId('run-row');
    await expect.poll(async () => row.count(), { timeout: 30_000 }).toBe(1);
    expect((await row.getByTestId('run-state').textContent())?.trim()).toBe(
      `stopped at step ${k}; checkpoint at step ${ckpts.at(-1)}`,
    );
    expect(await row.getByTestId('run-steps').textContent()).toBe(`${k}/40`);
    expect(await row.getByTestId('run-resume').count()).toBe(1);
    expect(await page.getByTestId('runs-interrupted').count()).toBe(0);

    // Start begins a new run: the counter starts over and a second run is recorded.
    await page.getByRole('button', { name: 'Train', exact: true }).click();
    await page.getByTestId('start-button').focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => phaseText(page), { timeout: 30_000, interval: 100 }).not.toBe('done');
    await waitForStep(page, 1, logs);
    await expect.poll(async () => (await stored(page)).length, { timeout: 60_000 }).toBe(2);
    const first = (await stored(page))[0];
    expect([first.stepsDone, first.stopped, first.events]).toEqual([k, true, run.events]);
    await page.getByTestId('reset-button').click();
    await expect.poll(() => phaseText(page), { timeout: 60_000 }).toBe('ready');
    await page.close();
  }, 600_000);

  it(
    `no main-thread task over ${TASK_CPU_BOUND_MS} ms of CPU (${LONG_TASK_WALL_BOUND_MS} ms wall) while ` +
      `training 3 steps with the Explorer open`,
    async () => {
      const { page, logs } = await open(LONGTASK_LINK);
      await expect.poll(() => phaseText(page), { timeout: 120_000 }).toBe('ready');
      await page.getByRole('button', { name: 'Explorer', exact: true }).click();
      await page.evaluate(() => {
        const w = window as unknown as { longTasks: { start: number; ms: number; name: string }[] };
        w.longTasks = [];
        new PerformanceObserver((list) => {
          for (const e of list.getEntries())
            w.longTasks.push({ start: Math.round(e.startTime), ms: Math.round(e.duration), name: e.name });
        }).observe({ type: 'longtask' });
      });
      // Every task of the renderer's main thread, with its CPU (thread) time, from a Chrome trace.
      const cdp = await page.context().newCDPSession(page);
      const trace: TraceEvent[] = [];
      cdp.on('Tracing.dataCollected', (e) => void trace.push(...(e.value as unknown as TraceEvent[])));
      const complete = new Promise<void>((r) => cdp.once('Tracing.tracingComplete', () => r()));
      await cdp.send('Tracing.start', { categories: 'toplevel', transferMode: 'ReportEvents' });
      await page.getByTestId('start-button').click();
      await expect.poll(() => phaseText(page), { timeout: 600_000, interval: 500 }).toBe('done');
      await cdp.send('Tracing.end');
      await complete;
      expect(await page.getByTestId('error-banner').count(), logs.join('\n')).toBe(0);
      expect(await stepShown(page)).toBe(3);
      const tasks = await page.evaluate(
        () => (window as unknown as { longTasks: { start: number; ms: number; name: string }[] }).longTasks,
      );
      const worst = Math.max(0, ...tasks.map((t) => t.ms));
      const cpu = mainThreadTaskCpuMs(trace);
      const worstCpu = Math.max(0, ...cpu);
      console.log(
        `control e2e: ${tasks.length} long tasks while training 3 steps with the Explorer open; worst ${worst} ` +
          `ms wall; ` +
          `${cpu.length} main-thread tasks traced, worst ${worstCpu.toFixed(1)} ms CPU; ` +
          `long tasks: ${JSON.stringify(tasks)}`,
      );
      expect(cpu.length).toBeGreaterThan(0);
      expect(worstCpu).toBeLessThanOrEqual(TASK_CPU_BOUND_MS);
      expect(worst).toBeLessThanOrEqual(LONG_TASK_WALL_BOUND_MS);
      await page.close();
    },
    900_000,
  );
});
