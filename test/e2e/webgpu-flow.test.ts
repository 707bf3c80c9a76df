/**
 * Browser end-to-end test of the page's run flows on a forced webgpu backend (SwiftShader here: a CPU emulation,
 * tens of seconds per update even at these sizes, so the runs are as small as the trainer allows: the nano base
 * policy, B 1 × G 2, one mini-batch, no evaluation, no history in the prompt, 2 steps, a checkpoint every step).
 * The seed is chosen so step 2's group has mixed outcomes (one success, one failure): under GRPO a group of one
 * outcome gives every token A = 0, which would make the explorer check below hold with both sides 0.
 * 1. An uninterrupted run to its end: step 2's group 0 opened in the rollout explorer shows, on keyboard focus, the
 *    total A of an action token that the worker's `trajectories` event of step 2 holds (the right panel), a non-zero A.
 * 2. The same link reloaded after its step-1 checkpoint is offered for Resume; the resumed run's step events (losses,
 *    metrics) and sampled groups equal the uninterrupted run's exactly.
 * 3. Export then Import of the resumed run gives a record with the same files byte for byte.
 * The same flows on wasm: explorer.test.ts and runs.test.ts.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useE2E } from './harness';
import { unpackRun } from '../../src/core/run-files/pack';

/**
 * 2 steps from the nano base policy (the default Start from), B 1 × G 2, a checkpoint every step. Seed 3: step 2's
 * group holds one success and one failure (`npm run train -- --model nano --steps 2 --tasks 1 --group 2
 * --mini-batches 1 --eval-every 0 --history 0 --checkpoint-every 1 --seed 3 --json` on wasm: step 2 success rate 0.5,
 * mean |A| 0.7071), so its tokens' A is ±0.7071, not 0.
 */
const LINK =
  'backend=webgpu&seed=3&model=nano&steps=2&tasksPerStep=1&groupSize=2&miniBatches=1&evalEvery=0' +
  '&historyTurns=0&checkpointEvery=1';

const { open } = useE2E({ startTimeoutMs: 600_000 });

/** A stored run as read from IndexedDB: binary files as their size and a checksum, text files as text. */
interface Stored {
  id: string;
  name: string;
  done: boolean;
  files: Record<string, string>;
}

/** Every stored run, oldest first, read straight from IndexedDB (database opd-playground). */
async function stored(page: Page): Promise<Stored[]> {
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
    const metas = await all<{ id: string; name: string; done: boolean; createdAt: number }>('runs');
    const files = await all<{ runId: string; name: string; data: Uint8Array }>('runFiles');
    db.close();
    const dec = new TextDecoder();
    return metas
      .sort((a, b) => a.createdAt - b.createdAt)
      .map((m) => ({
        id: m.id,
        name: m.name,
        done: m.done,
        files: Object.fromEntries(
          files
            .filter((f) => f.runId === m.id)
            .map((f) => [
              f.name,
              f.name.endsWith('.state') || f.name.endsWith('.safetensors')
                ? `${f.data.length} bytes, sum ${f.data.reduce((a, b) => (a + b) % 1_000_003, 0)}`
                : dec.decode(f.data),
            ]),
        ),
      }));
  });
}

/** The events of a JSONL text. */
const lines = (text: string) =>
  text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

/** The step events of an events.jsonl text, without wall times (which differ between identical runs). */
function stepEvents(text: string): object[] {
  return lines(text)
    .filter((e) => e.event === 'step')
    .map((e) => {
      const { stepMs: _a, elapsedMs: _b, tokensPerSecond: _c, phaseMs: _d, ...rest } = e;
      return rest;
    });
}

/** Logs a milestone with the seconds since `t0`, so a slow run shows where its time went. */
const mark = (t0: number, what: string) =>
  console.log(`webgpu e2e: ${what} at ${((Date.now() - t0) / 1000).toFixed(1)} s`);

const stepShown = async (page: Page) =>
  Number(/step (\d+)/.exec((await page.getByTestId('step-counter').textContent()) ?? '')?.[1] ?? NaN);

/** Waits for the run phase to match, failing with the error banner and the console when it does not. */
async function waitPhase(page: Page, re: RegExp, logs: string[], timeout: number): Promise<void> {
  try {
    await expect
      .poll(
        async () =>
          (await page.getByTestId('error-banner').count())
            ? 'error'
            : (await page.getByTestId('run-phase').textContent())?.trim(),
        { timeout, interval: 500 },
      )
      .toMatch(re);
  } catch (e) {
    const banner = page.getByTestId('error-banner');
    throw new Error(
      `phase ${re} not reached; banner: ${(await banner.count()) ? await banner.textContent() : '—'}; ` +
        `console:\n${logs.join('\n')}\n${e}`,
      { cause: e },
    );
  }
}

/** Waits until the badge names webgpu (the forced backend started) and Start is enabled. */
async function onWebgpu(page: Page): Promise<void> {
  await expect
    .poll(async () => (await page.getByTestId('backend-badge').textContent())?.trim() ?? '', { timeout: 120_000 })
    .toMatch(/webgpu/);
  await expect.poll(async () => page.getByTestId('start-button').isEnabled(), { timeout: 120_000 }).toBe(true);
}

describe('run flows on webgpu (software adapter here)', () => {
  let straight: Stored | null = null;

  it(
    "an uninterrupted run: the explorer shows step 2's token A as the worker's trajectories event holds " + 'it',
    async () => {
      const t0 = Date.now();
      const { page, logs } = await open(LINK);
      await onWebgpu(page);
      mark(t0, 'ready on webgpu');
      await page.getByTestId('start-button').click();
      await waitPhase(page, /^done$/, logs, 840_000);
      mark(t0, 'done (2 steps)');
      expect(await stepShown(page)).toBe(2);
      expect((await page.getByTestId('backend-badge').textContent())?.trim()).toMatch(/webgpu/);

      // The trajectories event of step 2 (group 0), as the right panel holds it: its first action token's A_ep, which
      // under GRPO is the token's total A.
      expect((await page.getByTestId('trajectory-task').textContent())?.trim()).toMatch(/^step 2 · /);
      await page.getByTestId('token-colouring').selectOption('aEp');
      const first = page.getByTestId('trajectory-token').first();
      const fromEvent = {
        value: (await first.getAttribute('data-value')) ?? '',
        text: (await first.textContent()) ?? '',
      };
      expect(fromEvent.value).toMatch(/^-?\d/);
      expect(
        Math.abs(Number(fromEvent.value)),
        "step 2's group should have mixed outcomes (seed 3), so its token A is not 0; a group of one " +
          'outcome would let the comparison below pass with both sides 0',
      ).toBeGreaterThan(0);

      // Open step 2 from the reward chart's value table (the keyboard route of a click on a chart point).
      await page.locator('figure:has([data-testid="chart-table-reward"]) summary').click();
      await page.getByTestId('chart-table-reward').getByRole('button', { name: '2', exact: true }).click();
      await expect.poll(async () => page.getByTestId('explorer-step').textContent(), { timeout: 60_000 }).toBe('2');
      expect(await page.getByTestId('explorer-group').inputValue()).toBe('0');
      expect(await page.getByTestId('explorer-quantity').inputValue()).toBe('adv');
      const tok = page.getByTestId('explorer-token').first();
      expect(await tok.textContent()).toBe(fromEvent.text);
      expect(await tok.getAttribute('data-value')).toBe(fromEvent.value); // the same float32 the update used
      await tok.focus();
      const shown =
        `token 1 "${fromEvent.text}": A (total advantage) = ` + `${Number(Number(fromEvent.value).toPrecision(6))}`;
      await expect
        .poll(async () => page.getByTestId('explorer-token-value').textContent(), { timeout: 10_000 })
        .toBe(shown);
      console.log(`webgpu e2e: step 2 group 0 first token ${JSON.stringify(fromEvent)}; explorer shows ${shown}`);

      // The record of the run, for the Resume case.
      await expect.poll(async () => (await stored(page)).filter((r) => r.done).length, { timeout: 30_000 }).toBe(1);
      [straight] = await stored(page);
      expect(Object.keys(straight.files).sort()).toEqual([
        'ckpt-1.safetensors',
        'ckpt-1.state',
        'ckpt-2.safetensors',
        'ckpt-2.state',
        'events.jsonl',
        'run.json',
        'trajectories.jsonl',
      ]);
      expect(stepEvents(straight.files['events.jsonl']).map((e) => (e as { step: number }).step)).toEqual([1, 2]);
      expect(JSON.parse(straight.files['run.json']).config).toMatchObject({
        steps: 2,
        checkpointEvery: 1,
        backend: 'webgpu',
      });
      expect(logs.filter((l) => l.startsWith('pageerror'))).toEqual([]);
      await page.close();
      mark(t0, 'explorer checked');
    },
    900_000,
  );

  it(
    'a reload after the step-1 checkpoint offers Resume; the continued step events equal the ' + "uninterrupted run's",
    async () => {
      expect(straight, 'the uninterrupted run of the first case').not.toBeNull();
      const t0 = Date.now();
      const { page, logs } = await open(LINK);
      await onWebgpu(page);
      mark(t0, 'ready on webgpu');
      await page.getByTestId('start-button').click();
      await expect
        .poll(
          async () => {
            const runs = await stored(page);
            return runs.length === 2 && runs[1].files['ckpt-1.state'] !== undefined && (await stepShown(page)) >= 1;
          },
          { timeout: 480_000, interval: 300 },
        )
        .toBe(true);
      expect(await stepShown(page)).toBe(1); // inside step 2
      mark(t0, 'step-1 checkpoint stored; reloading');
      await page.reload();
      const banner = page.getByTestId('runs-interrupted');
      await expect.poll(async () => banner.count(), { timeout: 120_000 }).toBe(1);
      expect(await banner.textContent()).toMatch(/can continue from its checkpoint of step 1/);
      await onWebgpu(page);
      await expect
        .poll(async () => page.getByTestId('runs-interrupted-resume').isEnabled(), { timeout: 60_000 })
        .toBe(true);
      mark(t0, 'Resume offered');
      await page.getByTestId('runs-interrupted-resume').click();
      await waitPhase(page, /^done$/, logs, 480_000);
      mark(t0, 'resumed run done');
      expect(await stepShown(page)).toBe(2);
      expect((await page.getByTestId('backend-badge').textContent())?.trim()).toMatch(/webgpu/);
      await expect.poll(async () => (await stored(page)).filter((r) => r.done).length, { timeout: 30_000 }).toBe(2);
      const resumed = (await stored(page))[1];
      const events = lines(resumed.files['events.jsonl']);
      expect(events.filter((e) => e.event === 'start').map((e) => e.resumedFrom)).toEqual([undefined, 1]);
      expect(JSON.parse(resumed.files['run.json']).config).toMatchObject({ backend: 'webgpu' });
      expect(JSON.parse(resumed.files['run.json']).resumes).toHaveLength(1);
      // Step 1 was trained again in this page and step 2 after the resume: both equal the uninterrupted run's.
      expect(stepEvents(resumed.files['events.jsonl'])).toEqual(stepEvents(straight!.files['events.jsonl']));
      expect(lines(resumed.files['trajectories.jsonl'])).toEqual(lines(straight!.files['trajectories.jsonl']));
      expect(resumed.files['ckpt-2.safetensors']).toBe(straight!.files['ckpt-2.safetensors']);
      expect(logs.filter((l) => l.startsWith('pageerror'))).toEqual([]);
      await page.close();
      const timing = lines(straight!.files['events.jsonl'])
        .filter((e) => e.event === 'step')
        .map((e) => ({ stepMs: e.stepMs, phaseMs: e.phaseMs }));
      console.log(`webgpu e2e: the uninterrupted run's step times (ms) ${JSON.stringify(timing)}`);
    },
    1_200_000,
  );

  it('Export then Import of the resumed run gives the same record', async () => {
    const { page, logs } = await open(LINK);
    await onWebgpu(page);
    await page.getByRole('button', { name: 'Runs' }).click();
    await expect.poll(async () => page.getByTestId('run-row').count(), { timeout: 60_000 }).toBe(2);
    const before = await stored(page);
    const resumed = before[1];
    const row = page.locator(`[data-testid="run-row"][data-run-id="${resumed.id}"]`);
    const [download] = await Promise.all([
      page.waitForEvent('download', { timeout: 60_000 }),
      row.getByTestId('run-export').click(),
    ]);
    const bytes = new Uint8Array(readFileSync(await download.path()));
    const u = unpackRun(bytes);
    expect(u.checkpoints).toEqual([1, 2]);
    expect(u.run.config).toMatchObject({ backend: 'webgpu', steps: 2 });
    await page
      .getByTestId('runs-import')
      .setInputFiles({ name: 'copy.opdrun', mimeType: 'application/octet-stream', buffer: Buffer.from(bytes) });
    await expect.poll(async () => page.getByTestId('run-row').count(), { timeout: 60_000 }).toBe(3);
    expect(await page.getByTestId('runs-message').textContent()).toMatch(
      /^Imported ".+" \(2\/2 steps, 2 checkpoints\)\.$/,
    );
    // renamed '<name> (imported)' by the page right after the worker stored it (a second write: poll for it)
    await expect
      .poll(async () => (await stored(page)).at(-1)!.name, { timeout: 30_000 })
      .toBe(`${u.header.name} (imported)`);
    const copy = (await stored(page)).at(-1)!;
    expect(copy.id).not.toBe(resumed.id);
    expect(copy.name).toBe(`${u.header.name} (imported)`);
    expect(copy.done).toBe(true);
    expect(copy.files).toEqual(resumed.files);
    expect(Object.keys(copy.files)).toHaveLength(7);
    expect(logs.filter((l) => l.startsWith('pageerror'))).toEqual([]);
    await page.close();
  }, 300_000);
});
