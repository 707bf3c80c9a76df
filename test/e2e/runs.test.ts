/**
 * Browser end-to-end test of stored runs (wasm, tiny settings): a run trained to the end is recorded in IndexedDB;
 * a second run with the same link, reloaded mid-run, is offered for Resume and continues from its checkpoint with
 * step events equal to the uninterrupted run's; Export then Import gives the same record; Compare overlays both runs
 * and tabulates them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ROOT, useE2E } from './harness';
import { unpackRun } from '../../src/core/run-files/pack';

const BASE_MODEL = (
  JSON.parse(readFileSync(join(ROOT, 'public/base/household-easy.json'), 'utf8')) as { model: string }
).model;
/**
 * 6 steps, a checkpoint every 2, an evaluation every 3 (and at step 0). Seed 2: its groups have mixed outcomes at steps
 * 2, 3, 4 and 6, so those steps update the policy (gradNorm > 0) and the Resume check compares runs that learn — with
 * seed 1 only step 6 had a gradient.
 */
const LINK =
  `backend=wasm&model=${BASE_MODEL}&seed=2&steps=6&tasksPerStep=1&groupSize=2` +
  '&miniBatches=2&evalEvery=3&evalEpisodes=2&checkpointEvery=2';

const { open } = useE2E();

/** Every stored run's summary and text files, read straight from IndexedDB (database opd-playground). */
async function stored(
  page: Page,
): Promise<{ id: string; name: string; done: boolean; files: Record<string, string> }[]> {
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

/** The step events of an events.jsonl text, without wall times (which differ between identical runs). */
function stepEvents(text: string): object[] {
  return text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((e) => e.event === 'step')
    .map((e) => {
      const { stepMs: _a, elapsedMs: _b, tokensPerSecond: _c, phaseMs: _d, ...rest } = e;
      return rest;
    });
}

async function waitPhase(page: Page, re: RegExp, logs: string[], timeout = 240_000): Promise<void> {
  try {
    await expect
      .poll(async () => (await page.getByTestId('run-phase').textContent())?.trim(), { timeout, interval: 500 })
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

async function stepShown(page: Page): Promise<number> {
  return Number(/step (\d+)/.exec((await page.getByTestId('step-counter').textContent()) ?? '')?.[1] ?? NaN);
}

describe('stored runs in Chromium', () => {
  let straightEvents = '';

  it('records a run to its end: run.json, events with every step, checkpoints every 2 steps', async () => {
    const { page, logs } = await open(LINK);
    await expect.poll(async () => page.getByTestId('start-button').isEnabled(), { timeout: 60_000 }).toBe(true);
    await page.getByTestId('start-button').click();
    await waitPhase(page, /^done$/, logs);
    await expect.poll(async () => (await stored(page)).filter((r) => r.done).length, { timeout: 30_000 }).toBe(1);
    const [run] = await stored(page);
    expect(Object.keys(run.files).sort()).toEqual([
      'ckpt-2.safetensors',
      'ckpt-2.state',
      'ckpt-4.safetensors',
      'ckpt-4.state',
      'ckpt-6.safetensors',
      'ckpt-6.state',
      'events.jsonl',
      'run.json',
      'trajectories.jsonl',
    ]);
    straightEvents = run.files['events.jsonl'];
    expect(stepEvents(straightEvents).map((e) => (e as { step: number }).step)).toEqual([1, 2, 3, 4, 5, 6]);
    // steps that updated the policy: a group of one outcome has A = 0 and no gradient (seed 2's groups, see LINK)
    expect(stepEvents(straightEvents).map((e) => (e as { gradNorm: number }).gradNorm > 0)).toEqual([
      false,
      true,
      true,
      true,
      false,
      true,
    ]);
    expect(JSON.parse(run.files['run.json']).config).toMatchObject({ steps: 6, checkpointEvery: 2, backend: 'wasm' });
    await page.close();
  }, 400_000);

  it("a reload mid-run offers Resume; the continued step events equal the uninterrupted run's", async () => {
    const { page, logs } = await open(LINK);
    await expect.poll(async () => page.getByTestId('start-button').isEnabled(), { timeout: 60_000 }).toBe(true);
    await page.getByTestId('start-button').click();
    // Past the first checkpoint (step 2), before the end.
    await expect
      .poll(
        async () => {
          const runs = await stored(page);
          return runs.length === 2 && runs[1].files['ckpt-2.state'] !== undefined && (await stepShown(page)) >= 3;
        },
        { timeout: 240_000, interval: 300 },
      )
      .toBe(true);
    expect(await stepShown(page)).toBeLessThan(6);
    await page.reload();
    const banner = page.getByTestId('runs-interrupted');
    await expect.poll(async () => banner.count(), { timeout: 60_000 }).toBe(1);
    expect(await banner.textContent()).toMatch(/can continue from its checkpoint of step (2|4)/);
    await expect
      .poll(async () => page.getByTestId('runs-interrupted-resume').isEnabled(), { timeout: 60_000 })
      .toBe(true);
    await page.getByTestId('runs-interrupted-resume').click();
    await waitPhase(page, /^done$/, logs);
    expect(await stepShown(page)).toBe(6);
    await expect.poll(async () => (await stored(page)).filter((r) => r.done).length, { timeout: 30_000 }).toBe(2);
    const resumed = (await stored(page))[1];
    const lines = resumed.files['events.jsonl']
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { event: string; resumedFrom?: number });
    expect(lines.filter((e) => e.event === 'start').map((e) => e.resumedFrom)).toEqual([undefined, expect.any(Number)]);
    expect(stepEvents(resumed.files['events.jsonl'])).toEqual(stepEvents(straightEvents));
    expect(JSON.parse(resumed.files['run.json']).resumes).toHaveLength(1);
    await page.close();
  }, 600_000);

  it('Export then Import gives the same record; Compare shows both curves and the table', async () => {
    const { page } = await open(LINK);
    await page.getByRole('button', { name: 'Runs' }).click();
    await expect.poll(async () => page.getByTestId('run-row').count(), { timeout: 60_000 }).toBe(2);
    const [download] = await Promise.all([
      page.waitForEvent('download', { timeout: 60_000 }),
      page.getByTestId('run-export').first().click(),
    ]);
    const path = await download.path();
    const bytes = new Uint8Array(readFileSync(path));
    const u = unpackRun(bytes);
    expect(u.checkpoints).toEqual([2, 4, 6]);
    await page
      .getByTestId('runs-import')
      .setInputFiles({ name: 'copy.opdrun', mimeType: 'application/octet-stream', buffer: Buffer.from(bytes) });
    await expect.poll(async () => page.getByTestId('run-row').count(), { timeout: 60_000 }).toBe(3);
    expect(await page.getByTestId('runs-message').textContent()).toMatch(
      /^Imported ".+" \(6\/6 steps, 3 checkpoints\)\.$/,
    );
    // The newest run was exported; the import is stored after it, with the same files byte for byte, and renamed
    // '<name> (imported)' by the page right after the worker stored it (a second write: poll for it).
    await expect
      .poll(async () => (await stored(page)).at(-1)!.name, { timeout: 30_000 })
      .toBe(`${u.header.name} (imported)`);
    const runs = await stored(page);
    const copy = runs.at(-1)!;
    expect(copy.name).toBe(`${u.header.name} (imported)`);
    expect(copy.files).toEqual(runs[1].files);
    expect(Object.keys(copy.files)).toHaveLength(9);
    // A damaged file is refused and nothing changes.
    await page.getByTestId('runs-import').setInputFiles({
      name: 'cut.opdrun',
      mimeType: 'application/octet-stream',
      buffer: Buffer.from(bytes.subarray(0, bytes.length - 10)),
    });
    await expect
      .poll(
        async () => (await page.getByTestId('runs-error').count()) && page.getByTestId('runs-error').textContent(),
        { timeout: 30_000 },
      )
      .toMatch(/cut.opdrun: the file is truncated/);
    expect(await page.getByTestId('run-row').count()).toBe(3);

    await page.getByRole('button', { name: 'Compare' }).click();
    const picks = page.getByTestId('compare-pick');
    await picks.nth(1).check();
    await picks.nth(2).check();
    await expect.poll(async () => page.getByTestId('compare-row').count(), { timeout: 30_000 }).toBe(2);
    const rows = await page.getByTestId('compare-row').allTextContents();
    for (const r of rows) expect(r).toMatch(/6\/6/);
    // step + two runs
    expect(await page.getByTestId('chart-table-compare-train-success').locator('thead th').count()).toBe(3);
    expect(await page.getByTestId('compare-settings').textContent()).toMatch(/The runs' settings are the same\./);
    await page.close();
  }, 300_000);

  it(
    'a link naming a start checkpoint this browser lacks says so; importing the file with that sha256 ' +
      'starts from it',
    async () => {
      const manifest = JSON.parse(readFileSync(join(ROOT, 'public/base/household-easy.json'), 'utf8')) as {
        sha256: string;
        file: string;
      };
      const { page } = await open(`${LINK}&ckpt=base-copy&ckptSha256=${manifest.sha256}`);
      const missing = page.getByTestId('link-checkpoint-missing');
      await expect.poll(async () => missing.count(), { timeout: 60_000 }).toBe(1);
      expect(await missing.textContent()).toContain(
        `“base-copy” (sha256 ${manifest.sha256.slice(0, 12)}…), which this browser`,
      );
      await page.getByTestId('link-checkpoint-import').setInputFiles(join(ROOT, 'public/base', manifest.file));
      await expect.poll(async () => missing.count(), { timeout: 60_000 }).toBe(0);
      await expect
        .poll(async () => (await page.getByTestId('weights-init').textContent()) ?? '', { timeout: 30_000 })
        .toContain('starts from base-copy');
      expect(decodeURIComponent(new URL(page.url()).hash)).toContain(`ckpt=base-copy&ckptSha256=${manifest.sha256}`);
      await page.close();
    },
    120_000,
  );
});
