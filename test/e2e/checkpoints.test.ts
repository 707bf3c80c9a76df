/**
 * The Checkpoints view in Chromium (wasm): a tiny GRPO run with a checkpoint and a validation at every step shows its
 * solved matrix as a heatmap and the best / union / oracle bars with exactly the numbers of the worker's val record
 * (downloaded as val.json, the run record's format); a focused cell reads out its value; Distil starts the
 * distillation stage, whose first teacher is HCN's choice on that record and whose step events carry teacherId and
 * ladShare (the LAD table).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useE2E } from './harness';
import { SOLVED_AT, parseValRecord } from '../../src/core/run/record';
import { coverage } from '../../src/core/run/coverage';
import { hcnSelect } from '../../src/core/math/agentic';

/**
 * 3 steps of B 1 × G 2 from the base policy, a checkpoint and a validation on 6 val tasks × 1 episode at every step.
 */
const HASH =
  'backend=wasm&model=nano&seed=1&steps=3&tasksPerStep=1&groupSize=2&miniBatches=2&evalEvery=0' +
  '&checkpointEvery=1&valTasks=6&valSamples=1';

const { open } = useE2E();

/** Waits until the phase line shows `done`, failing early with the error banner's text. */
async function waitDone(page: Page, logs: string[], timeoutMs: number): Promise<void> {
  await page
    .waitForFunction(
      () =>
        document.querySelector('[data-testid="error-banner"]') ||
        document.querySelector('[data-testid="run-phase"]')?.textContent === 'done',
      undefined,
      { timeout: timeoutMs, polling: 500 },
    )
    .catch((e) => {
      throw new Error(`run not done: ${e}\n${logs.join('\n')}`);
    });
  const banner = page.getByTestId('error-banner');
  if (await banner.count()) throw new Error(`error banner: ${await banner.textContent()}\n${logs.join('\n')}`);
}

describe('Checkpoints view', () => {
  it(
    "heatmap and bars show the worker's val record; Distil runs the distillation stage with teacherId " +
      'and ladShare',
    async () => {
      const { page, logs } = await open(HASH);
      await expect.poll(async () => page.getByTestId('start-button').isEnabled(), { timeout: 60_000 }).toBe(true);
      await page.getByTestId('start-button').click();
      await waitDone(page, logs, 240_000);

      await page.getByRole('button', { name: 'Checkpoints', exact: true }).click();
      await page.getByTestId('heatmap').waitFor({ timeout: 30_000 });
      const [dl] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-val').click()]);
      const val = parseValRecord(readFileSync((await dl.path())!, 'utf8'));
      expect(val.checkpoints.map((c) => c.step)).toEqual([1, 2, 3]);
      expect([val.tasks, val.samples]).toEqual([6, 1]);

      // Every cell of every row has the record's pass rate of its task.
      const cells = await page.$$eval('[data-testid="heatmap"] tbody tr', (rows) =>
        rows.map((r) => ({
          step: Number((r as HTMLElement).dataset.step),
          cells: [...r.querySelectorAll('td[data-task]')].map((td) => [
            Number((td as HTMLElement).dataset.task),
            Number((td as HTMLElement).dataset.rate),
          ]),
        })),
      );
      expect(cells.map((r) => r.step)).toEqual([1, 2, 3]);
      cells.forEach((r, i) => {
        expect(r.cells.length).toBe(6);
        for (const [task, rate] of r.cells) expect(rate).toBe(val.checkpoints[i].passRates[task]);
        // Columns are grouped by task type (types in alphabetical order).
        const types = r.cells.map(([task]) => val.taskTypes[task]);
        expect(types).toEqual([...types].sort());
      });
      const first = page.locator('[data-testid="heatmap"] td[data-task]').first();
      await first.focus();
      expect(await page.getByTestId('heatmap-focused').textContent()).toBe(await first.getAttribute('aria-label'));
      expect(await first.getAttribute('aria-label')).toMatch(
        /^step 1, val task \d+ \(\w+\): pass rate (0|100)% \((0|1) of 1\)/,
      );

      const cov = coverage(val);
      const bars = await page.$$eval('[data-testid="coverage-bars"] li', (li) =>
        li.map((x) => [(x as HTMLElement).dataset.bar, Number((x as HTMLElement).dataset.value), x.textContent ?? '']),
      );
      expect(bars.map(([id, v]) => [id, v])).toEqual([
        ['best', cov.best.solved / 6],
        ['union', cov.union.solved / 6],
        ['oracle', cov.oracleMeanPassRate],
      ]);
      // Each bar's length is its value's share of one track width shared by all three bars.
      const lengths = await page.$$eval('[data-testid="coverage-bars"] li', (li) =>
        li.map((x) => [
          x.querySelector('.fill')!.getBoundingClientRect().width,
          x.querySelector('.track')!.clientWidth,
        ]),
      );
      for (const [n, [len, track]] of lengths.entries()) {
        expect(track).toBe(lengths[0][1]);
        expect(Math.abs(len - track * (bars[n][1] as number))).toBeLessThanOrEqual(1);
      }
      expect(bars[0][2]).toContain(`Best checkpoint (step ${cov.best.step})`);
      expect(bars[1][2]).toContain(`${cov.union.solved} of 6 val tasks solved by some checkpoint`);
      expect(cov.union.solved).toBeGreaterThan(cov.best.solved); // something to distil (this seed)
      expect(await page.getByTestId('kept').textContent()).toMatch(
        /steps 1, 2, 3\s+\([\d.]+ [kM]B of at most 67\.1 MB\)/,
      );

      // Distil: HCN's first teacher on this record, then distillation steps carrying teacherId and ladShare.
      const solved = (p: number[]) => p.flatMap((r, i) => (r >= SOLVED_AT ? [i] : []));
      const student = val.checkpoints.find((c) => c.step === cov.best.step)!;
      const teachers = val.checkpoints
        .filter((c) => c.step !== cov.best.step)
        .map((c) => ({ id: c.step, solved: solved(c.passRates) }));
      const hcn = hcnSelect(teachers, solved(student.passRates), new Map(val.taskTypes.map((t, i) => [i, t])));
      await page.getByTestId('distil').click();
      await expect
        .poll(async () => (await page.getByTestId('distil-message').textContent()) ?? '', { timeout: 60_000 })
        .toContain(`Distilling into the checkpoint of step ${cov.best.step} from 2 teachers`);
      await page.getByTestId('teacher-rounds').waitFor({ timeout: 60_000 });
      await waitDone(page, logs, 240_000);
      await page.getByRole('button', { name: 'Checkpoints', exact: true }).click();
      await expect
        .poll(async () => page.locator('[data-testid="teacher-rounds"] tbody tr').count(), { timeout: 30_000 })
        .toBeGreaterThanOrEqual(2);
      expect(await page.locator('[data-testid="round-teacher"]').first().textContent()).toBe(`step ${hcn.teacherId}`);
      const lad = await page.$$eval('[data-testid="lad-table"] tbody tr', (rows) =>
        rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent ?? '')),
      );
      expect(lad.map((r) => r[0])).toEqual(['1', '2', '3']);
      expect(lad[0][1]).toBe(String(hcn.teacherId));
      for (const r of lad) expect(r[2]).toMatch(/^\d+\.\d%$/);
      // Teacher episodes: whole calls of G = 2 episodes (LAD's pass rates on training tasks; memoised tasks cost none).
      for (const r of lad) expect(Number(r[4]) % 2).toBe(0);
      // The heatmap still shows the GRPO run's checkpoints (the stage does not add to them).
      expect(await page.locator('[data-testid="heatmap"] tbody tr').count()).toBe(3);
      expect(logs.filter((l) => l.startsWith('pageerror'))).toEqual([]);
      await page.close();
    },
    600_000,
  );
});
