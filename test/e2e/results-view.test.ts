/**
 * Browser end-to-end test of the Results view: a hand-made table.json (two methods × two seeds, built with the
 * experiment's own writer) opened with the file picker shows its command and settings, a table per split with the
 * hand-computed mean ± s.e., seeds and paired Δ to GRPO, switches to the best evaluation, and draws the curves with
 * their values; a bad file is named with the field and keeps the table; a version-1 file dropped on the view opens
 * without curves. A second table (three seeds, task types that differ from their split: test/helpers/table-runs.ts)
 * shows, with the cells switched to Δ vs GRPO, the hand-computed paired difference of every task type, in words and
 * signs, at the final and the best evaluation, from version 2 and version 1.
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useE2E } from './harness';
import type { RunEvals } from '../../src/core/run/aggregate';
import { makeResultsTable, resultsTableJson } from '../../src/core/run/table-schema';
import { TYPED_RUNS, TYPED_SPLITS } from '../helpers/table-runs';

const { open } = useE2E();

const split = (rate: number, types: Record<string, number>) => ({
  successRate: rate,
  episodes: 10,
  byTaskType: Object.fromEntries(Object.entries(types).map(([t, r]) => [t, { successRate: r, episodes: 5 }])),
});
/**
 * Evaluations [step, test-seen, test-unseen]; test-seen has task type pick (= the split), test-unseen pick and heat
 * (half).
 */
const run = (method: string, seed: number, evals: [number, number, number][]): RunEvals => ({
  method,
  seed,
  evals: evals.map(([step, seen, unseen]) => ({
    step,
    splits: {
      'test-seen': split(seen, { pick: seen }),
      'test-unseen': split(unseen, { pick: unseen, heat: unseen / 2 }),
    },
  })),
});
const COMMAND = 'npm run experiment -- opid-table --seeds 2 --steps 10';
const TABLE = makeResultsTable({
  header: [`command: ${COMMAND}`, 'household/easy, nano, from the shipped base policy'],
  command: COMMAND,
  baseline: 'grpo',
  splits: ['test-seen', 'test-unseen'],
  methods: ['grpo', 'opid'],
  runs: [
    run('grpo', 1, [
      [0, 0.5, 0.4],
      [10, 0.6, 0.5],
    ]),
    run('grpo', 2, [
      [0, 0.5, 0.4],
      [10, 0.7, 0.6],
    ]),
    run('opid', 1, [
      [0, 0.5, 0.4],
      [10, 0.8, 0.6],
    ]),
    run('opid', 2, [
      [0, 0.5, 0.4],
      [5, 0.9, 0.9],
      [10, 0.8, 0.7],
    ]),
  ],
});
const TEXT = resultsTableJson(TABLE);

/** The rows of a split's table (header row first), each cell's text. */
const rows = (page: Page, s: string) =>
  page.$$eval(`[data-testid="results-table"][data-split="${s}"] tr`, (trs) =>
    trs.map((tr) => [...tr.children].map((c) => (c.textContent ?? '').trim())),
  );

describe('Results view in Chromium', () => {
  it(
    'opens a table.json, shows the exact numbers per split, final and best, the curves, a bad file and a ' +
      'dropped version-1 file',
    async () => {
      const { page, logs } = await open('backend=wasm&model=nano&steps=1');
      await page.getByRole('button', { name: 'Results', exact: true }).click();
      await page
        .getByLabel('Open table.json')
        .setInputFiles({ name: 'table.json', mimeType: 'application/json', buffer: Buffer.from(TEXT) });
      await page.getByTestId('results-table').first().waitFor();
      expect(await page.getByTestId('results-file-name').textContent()).toBe('table.json');
      expect(await page.getByTestId('results-command').textContent()).toBe(COMMAND);
      expect(await page.getByTestId('results-settings').locator('li').allTextContents()).toEqual([
        'household/easy, nano, from the shipped base policy',
      ]);

      // Final: GRPO seen 0.6, 0.7 → 65.0 ± 5.0; OPID 0.8, 0.8 → 80.0 ± 0.0, Δ per seed 0.2, 0.1 → +15.0 ±
      // 5.0.
      expect(await rows(page, 'test-seen')).toEqual([
        ['method', 'seeds', 'test-seen', 'pick', 'Δ vs grpo'],
        ['grpo', '2', '65.0 ± 5.0', '65.0 ± 5.0', 'baseline'],
        ['opid', '2', '80.0 ± 0.0', '80.0 ± 0.0', '+15.0 ± 5.0'],
      ]);
      // Unseen: GRPO 0.5, 0.6 → 55.0 ± 5.0 (heat 0.25, 0.3 → 27.5 ± 2.5); OPID 0.6, 0.7 → 65.0 ± 5.0, Δ 0.1,
      // 0.1 → +10.0 ± 0.0.
      expect(await rows(page, 'test-unseen')).toEqual([
        ['method', 'seeds', 'test-unseen', 'pick', 'heat', 'Δ vs grpo'],
        ['grpo', '2', '55.0 ± 5.0', '55.0 ± 5.0', '27.5 ± 2.5', 'baseline'],
        ['opid', '2', '65.0 ± 5.0', '65.0 ± 5.0', '32.5 ± 2.5', '+10.0 ± 0.0'],
      ]);
      expect(
        await page
          .getByRole('table', {
            name: /^test-seen: success in %, mean ± standard error over seeds, at the final evaluation/,
          })
          .count(),
      ).toBe(1);

      // Best: OPID seed 2's best is step 5 (0.9, 0.9): seen 0.8, 0.9 → 85.0 ± 5.0, Δ 0.2, 0.2; unseen 0.6, 0.9 →
      // 75.0 ± 15.0, Δ 0.1, 0.3.
      await page.getByTestId('results-pick-best').check();
      expect(await rows(page, 'test-seen')).toEqual([
        ['method', 'seeds', 'test-seen', 'pick', 'Δ vs grpo'],
        ['grpo', '2', '65.0 ± 5.0', '65.0 ± 5.0', 'baseline'],
        ['opid', '2', '85.0 ± 5.0', '85.0 ± 5.0', '+20.0 ± 0.0'],
      ]);
      expect((await rows(page, 'test-unseen'))[2]).toEqual([
        'opid',
        '2',
        '75.0 ± 15.0',
        '75.0 ± 15.0',
        '37.5 ± 7.5',
        '+20.0 ± 10.0',
      ]);

      // Curves: steps 0, 5, 10; GRPO did not evaluate at step 5.
      const curve = await page.$$eval('[data-testid="chart-table-results-test-seen"] tr', (trs) =>
        trs.map((tr) => [...tr.children].map((c) => (c.textContent ?? '').trim())),
      );
      expect(curve).toEqual([
        ['step', 'grpo', 'opid'],
        ['0', '50.0 %', '50.0 %'],
        ['5', '—', '90.0 %'],
        ['10', '65.0 %', '80.0 %'],
      ]);

      // A bad file: named with its field and the fix; the table stays.
      const bad = JSON.parse(TEXT);
      bad.final[0].cells['test-seen'].mean = '0.65';
      await page
        .getByLabel('Open table.json')
        .setInputFiles({ name: 'bad.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(bad)) });
      const error = page.getByTestId('results-error');
      await error.waitFor();
      expect(await error.textContent()).toBe(
        'Could not open bad.json: final.0.cells.test-seen.mean: Invalid input: expected number, received string; ' +
          ('write it again with `npm run experiment -- opid-table --out DIR` (finished runs are not trained ' +
            'again) — still showing table.json'),
      );
      expect(await page.getByRole('alert').filter({ hasText: 'bad.json' }).count()).toBe(1);
      expect(await page.getByTestId('results-file-name').textContent()).toBe('table.json');
      expect((await rows(page, 'test-seen'))[2]).toEqual(['opid', '2', '85.0 ± 5.0', '85.0 ± 5.0', '+20.0 ± 0.0']);

      // A version-1 file (no format, version, command, baseline or curves) dropped on the view.
      const { format: _f, version: _v, command: _c, baseline: _b, curves: _k, ...v1 } = JSON.parse(TEXT);
      await page.evaluate((text) => {
        const dt = new DataTransfer();
        dt.items.add(new File([text], 'old-table.json', { type: 'application/json' }));
        document
          .querySelector('[data-testid="results-drop"]')!
          .dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
      }, JSON.stringify(v1));
      await expect.poll(() => page.getByTestId('results-file-name').textContent()).toBe('old-table.json');
      expect(await page.getByTestId('results-error').count()).toBe(0);
      expect(await page.getByTestId('results-command').textContent()).toBe(COMMAND);
      expect(await page.getByTestId('results-no-curves').textContent()).toMatch(/no success curves \(version 1\)/);
      expect((await rows(page, 'test-unseen'))[2]).toEqual([
        'opid',
        '2',
        '75.0 ± 15.0',
        '75.0 ± 15.0',
        '37.5 ± 7.5',
        '+20.0 ± 10.0',
      ]);

      // The other views are untouched: the Train view is still there.
      await page.getByRole('button', { name: 'Train', exact: true }).click();
      expect(await page.getByTestId('results-view').count()).toBe(0);
      await page.getByRole('button', { name: 'Results', exact: true }).click();
      expect(await page.getByTestId('results-file-name').textContent()).toBe('old-table.json');
      expect(logs.filter((l) => l.startsWith('pageerror'))).toEqual([]);
      await page.close();
    },
    240_000,
  );

  it(
    'switches the cells to the paired Δ vs GRPO per task type (three seeds, hand-computed), for version ' +
      '2 and version 1',
    async () => {
      const typed = resultsTableJson(
        makeResultsTable({
          header: [],
          command: '',
          baseline: 'grpo',
          splits: TYPED_SPLITS,
          methods: ['grpo', 'opid'],
          runs: TYPED_RUNS,
        }),
      );
      const { page, logs } = await open('backend=wasm&model=nano&steps=1');
      await page.getByRole('button', { name: 'Results', exact: true }).click();
      await page
        .getByLabel('Open table.json')
        .setInputFiles({ name: 'typed.json', mimeType: 'application/json', buffer: Buffer.from(typed) });
      await page.getByTestId('results-table').first().waitFor();
      // Values first: GRPO seen 0.5, 0.6, 0.7 → 60.0 ± 5.8; cool only on seeds 1, 2 (0.4, 0.5) → 45.0 ± 5.0; OPID
      // Δ seen 0.1, 0.2, 0 → +10.0 ± 5.8.
      expect(await rows(page, 'test-seen')).toEqual([
        ['method', 'seeds', 'test-seen', 'pick', 'cool', 'Δ vs grpo'],
        ['grpo', '3', '60.0 ± 5.8', '66.7 ± 3.3', '45.0 ± 5.0', 'baseline'],
        ['opid', '3', '70.0 ± 5.8', '76.7 ± 3.3', '63.3 ± 8.8', '+10.0 ± 5.8'],
      ]);

      await page.getByRole('radio', { name: /^Δ vs grpo/ }).check();
      expect(
        await page
          .getByRole('table', {
            name: new RegExp(
              '^test-seen: Δ vs grpo in percent points, at the final evaluation — ' +
                'mean ± standard error of the per-seed differences',
            ),
          })
          .count(),
      ).toBe(1);
      // Final (task types in the env's order: pick before cool and heat). Seen: pick 0.1 on every seed →
      // +10.0 ± 0.0, cool paired over seeds 1, 2 only (0.1, 0.3 → +20.0 ± 10.0, said in words).
      const finalSeen = [
        ['method', 'seeds', 'Δ test-seen', 'Δ pick', 'Δ cool'],
        ['grpo', '3', 'baseline (the differences are to this method)'],
        ['opid', '3', '+10.0 ± 5.8', '+10.0 ± 0.0', '+20.0 ± 10.0 (2 seeds)'],
      ];
      // Unseen: the split 0.1, 0, 0.15 → +8.3 ± 4.4; pick −0.1, 0, 0 → −3.3 ± 3.3; heat 0.3, 0, 0.3 →
      // +20.0 ± 10.0.
      const finalUnseen = ['opid', '3', '+8.3 ± 4.4', '-3.3 ± 3.3', '+20.0 ± 10.0'];
      expect(await rows(page, 'test-seen')).toEqual(finalSeen);
      expect((await rows(page, 'test-unseen'))[0]).toEqual(['method', 'seeds', 'Δ test-unseen', 'Δ pick', 'Δ heat']);
      expect((await rows(page, 'test-unseen'))[2]).toEqual(finalUnseen);

      // Best: OPID seed 3 reads step 5 (seen 0.9, unseen 0.7 on every type): seen 0.1, 0.2, 0.2 → +16.7 ± 3.3; pick
      // 0.1, 0.1, 0.2 → +13.3 ± 3.3; unseen 0.1, 0, 0.35 → +15.0 ± 10.4; heat 0.3, 0, 0.4 → +23.3 ± 12.0; pick
      // −0.1, 0, 0.3 → +6.7 ± 12.0.
      await page.getByTestId('results-pick-best').check();
      expect((await rows(page, 'test-seen'))[2]).toEqual([
        'opid',
        '3',
        '+16.7 ± 3.3',
        '+13.3 ± 3.3',
        '+20.0 ± 10.0 (2 seeds)',
      ]);
      expect((await rows(page, 'test-unseen'))[2]).toEqual([
        'opid',
        '3',
        '+15.0 ± 10.4',
        '+6.7 ± 12.0',
        '+23.3 ± 12.0',
      ]);

      // Back to values at the best evaluation: OPID seen 0.6, 0.8, 0.9 → 76.7 ± 8.8.
      await page.getByRole('radio', { name: /^success/ }).check();
      expect((await rows(page, 'test-seen'))[2]).toEqual([
        'opid',
        '3',
        '76.7 ± 8.8',
        '80.0 ± 5.8',
        '73.3 ± 12.0',
        '+16.7 ± 3.3',
      ]);

      // The same table as a version-1 file shows the same differences.
      const { format: _f, version: _v, command: _c, baseline: _b, curves: _k, ...v1 } = JSON.parse(typed);
      await page.getByTestId('results-pick-final').check();
      await page.getByTestId('results-show-diff').check();
      await page.getByLabel('Open table.json').setInputFiles({
        name: 'typed-v1.json',
        mimeType: 'application/json',
        buffer: Buffer.from(JSON.stringify(v1)),
      });
      await expect.poll(() => page.getByTestId('results-file-name').textContent()).toBe('typed-v1.json');
      expect(await rows(page, 'test-seen')).toEqual(finalSeen);
      expect((await rows(page, 'test-unseen'))[2]).toEqual(finalUnseen);
      expect(logs.filter((l) => l.startsWith('pageerror'))).toEqual([]);
      await page.close();
    },
    240_000,
  );
});
