/**
 * A run exported from the page continues in the CLI (wasm in both): two steps trained in Chromium with Step (a
 * checkpoint at step 2), the run exported from the Runs view as one `.opdrun` file, unpacked with
 * `cli/pack.ts --unpack` and continued with `train --resume DIR`; its step events (the page's steps 1–2, then the
 * CLI's 3–4) equal those of an uninterrupted `train` run with the same settings, and so do its checkpoint bytes.
 *
 * In the page, the same run survives a reload and Stop: step 2's first action in the Explorer (each token's A and
 * ℓ_old) is noted, the run is ended with Stop, the tab reloaded; the Runs view offers Resume for the stopped run, its
 * Explore opens the stored step 2 in the Explorer with the same tokens and values (prompts named as not kept); Resume
 * continues it to step 4, and the page's continued step events 3–4 equal the uninterrupted CLI run's.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, useE2E } from './harness';
import { fileBytes, fileText, stepEvents, stepTo, storedRuns, waitPhase } from './run-store-page';
import { unpackRun } from '../../src/core/run-files/pack';
import { parseRunRecord } from '../../src/core/run/record';
import { DEFAULT_CONFIG, RUN_CONFIG_KEYS, fieldMeta, type RunConfig } from '../../src/core/run/config';

const BASE_MODEL = (
  JSON.parse(fs.readFileSync(path.join(ROOT, 'public/base/household-easy.json'), 'utf8')) as { model: string }
).model;
/**
 * 4 steps of one group of two, a checkpoint every 2, no evaluation. Seed 2: steps 2, 3 and 4 have groups of mixed
 * outcomes and update the policy (with seed 1 no step of the four had a gradient, so the runs compared learned
 * nothing).
 */
const LINK =
  `backend=wasm&model=${BASE_MODEL}&seed=2&steps=4&tasksPerStep=1&groupSize=2` +
  '&miniBatches=2&evalEvery=0&checkpointEvery=2';

const { open } = useE2E({ startTimeoutMs: 600_000 });
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'opd-export-resume-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Runs a CLI script (cli/<script>.ts) to completion in Node. */
function cli(script: string, args: string[]) {
  return spawnSync(path.join(ROOT, 'node_modules/.bin/tsx'), [`cli/${script}.ts`, ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 300_000,
  });
}

/** `train` flags giving `config`: every run setting that differs from the default, by its schema flag. */
function trainFlags(config: RunConfig): string[] {
  return RUN_CONFIG_KEYS.flatMap((k) => {
    const flag = fieldMeta(k).flag;
    if (!flag || config[k] === DEFAULT_CONFIG[k]) return [];
    return [`--${flag}`, String(config[k])];
  });
}

describe('a run exported from the page, continued by the CLI', () => {
  it(
    "train --resume of the unpacked .opdrun gives the uninterrupted CLI run's " + 'step events and checkpoint',
    async () => {
      const { page, logs } = await open(LINK);
      page.setDefaultTimeout(60_000); // an action on a missing element fails instead of waiting for the test's timeout
      await waitPhase(page, 'ready', logs, 120_000);
      await stepTo(page, 1, logs);
      await stepTo(page, 2, logs);
      await expect
        .poll(async () => (await storedRuns(page))[0]?.files['ckpt-2.state'] !== undefined, { timeout: 60_000 })
        .toBe(true);

      // Step 2's first action token as the live Explorer shows it: its A and its ℓ_old (the trainer's float32
      // numbers).
      await page.getByRole('button', { name: 'Explorer', exact: true }).click();
      await expect.poll(async () => page.getByTestId('explorer-step').textContent(), { timeout: 30_000 }).toBe('2');
      /** The first turn's action tokens as shown: their texts, A and ℓ_old (data-value: the float32 as stored). */
      const token = async () => {
        const t = page.getByTestId('explorer-token');
        await page.getByTestId('explorer-quantity').selectOption('adv');
        const adv = await t.evaluateAll((els) => els.map((e) => e.getAttribute('data-value')));
        await page.getByTestId('explorer-quantity').selectOption('logpOld');
        return {
          text: await t.allTextContents(),
          adv,
          logpOld: await t.evaluateAll((els) => els.map((e) => e.getAttribute('data-value'))),
        };
      };
      const before = await token();
      expect(before.text.length).toBeGreaterThan(0);
      expect(before.adv.every((v) => /^-?\d/.test(v ?? ''))).toBe(true);
      // Not a comparison of zeros only: some token of the action was not certain (a forced token has ℓ_old = 0).
      expect(
        before.logpOld.some((v) => Number(v) < 0),
        JSON.stringify(before),
      ).toBe(true);
      // Stop ends the run (paused at step 2); its record stays with the checkpoint of step 2.
      await page.getByTestId('stop-button').click();
      await waitPhase(page, 'done', logs, 60_000);
      const [stored] = await storedRuns(page);

      await page.getByRole('button', { name: 'Runs' }).click();
      await expect.poll(async () => page.getByTestId('run-row').count(), { timeout: 60_000 }).toBe(1);
      const [download] = await Promise.all([
        page.waitForEvent('download', { timeout: 60_000 }),
        page.getByTestId('run-export').click(),
      ]);
      const file = path.join(tmp, 'page.opdrun');
      fs.copyFileSync(await download.path(), file);
      expect(download.suggestedFilename()).toMatch(/\.opdrun$/);
      expect(logs.filter((l) => l.startsWith('pageerror'))).toEqual([]);

      // Reload: the stopped run is offered for Resume, and Explore shows its stored step 2 with the same token values.
      await page.reload();
      await waitPhase(page, 'ready', logs, 120_000);
      await page.getByRole('button', { name: 'Runs' }).click();
      const row = page.getByTestId('run-row');
      await expect.poll(async () => row.count(), { timeout: 60_000 }).toBe(1);
      expect((await row.getByTestId('run-state').textContent())?.trim()).toBe(
        'stopped at step 2; checkpoint at step 2',
      );
      expect(await row.getByTestId('run-resume').count()).toBe(1);
      await row.getByTestId('run-explore').click();
      await expect.poll(async () => page.getByTestId('explorer-step').textContent(), { timeout: 60_000 }).toBe('2');
      expect((await page.getByTestId('explorer-stored-run').textContent())?.replace(/\s+/g, ' ')).toContain(
        '2 of 2 steps with their per-token numbers',
      );
      expect(await page.getByTestId('explorer-not-kept').textContent()).toContain('prompts');
      expect(await token()).toEqual(before);

      // Resume continues the stopped run from its checkpoint to its last step.
      await page.getByRole('button', { name: 'Runs' }).click();
      await page.getByTestId('run-row').getByTestId('run-resume').click();
      await waitPhase(page, 'done', logs, 240_000);
      expect(await page.getByTestId('error-banner').count()).toBe(0);
      await expect
        .poll(async () => stepEvents(fileText((await storedRuns(page))[0], 'events.jsonl')).length, { timeout: 60_000 })
        .toBe(4);
      const pageResumed = stepEvents(fileText((await storedRuns(page))[0], 'events.jsonl'));
      expect(logs.filter((l) => l.startsWith('pageerror'))).toEqual([]);
      await page.close();
      // The export holds the stored record byte for byte.
      const packed = unpackRun(new Uint8Array(fs.readFileSync(file)));
      expect(packed.checkpoints).toEqual([2]);
      for (const [name, bytes] of packed.files) expect(fileBytes(stored, name).equals(bytes), name).toBe(true);
      const pageRun = parseRunRecord(fileText(stored, 'run.json'));
      expect(pageRun.config).toMatchObject({ steps: 4, checkpointEvery: 2, backend: 'wasm', init: 'base' });

      // Unpack and continue in Node.
      const dir = path.join(tmp, 'resumed');
      const u = cli('pack', ['--unpack', file, dir]);
      expect(u.stderr).toBe('');
      expect(u.status).toBe(0);
      const r = cli('train', ['--resume', dir, '--json', '--eval-threads', '0']);
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      expect(stepEvents(r.stdout).map((e) => e.step)).toEqual([3, 4]);

      // The same settings, uninterrupted, in Node.
      const straight = path.join(tmp, 'straight');
      const s = cli('train', [...trainFlags(pageRun.config), '--run-dir', straight, '--json', '--eval-threads', '0']);
      expect(s.stderr).toBe('');
      expect(s.status).toBe(0);
      const cliRun = parseRunRecord(fs.readFileSync(path.join(straight, 'run.json'), 'utf8'));
      expect(cliRun.config).toEqual(pageRun.config);

      const resumedSteps = stepEvents(fs.readFileSync(path.join(dir, 'events.jsonl'), 'utf8'));
      const straightSteps = stepEvents(fs.readFileSync(path.join(straight, 'events.jsonl'), 'utf8'));
      expect(resumedSteps.map((e) => e.step)).toEqual([1, 2, 3, 4]);
      // runs that learn
      expect(straightSteps.map((e) => (e as { gradNorm: number }).gradNorm > 0)).toEqual([false, true, true, true]);
      // Page wasm (threaded SIMD, in Chromium) and Node wasm (one thread): the page's steps 1–2 and its
      // checkpoint …
      expect(resumedSteps.slice(0, 2)).toEqual(straightSteps.slice(0, 2));
      for (const f of ['ckpt-2.safetensors', 'ckpt-2.state'])
        expect(fs.readFileSync(path.join(dir, f)).equals(fs.readFileSync(path.join(straight, f))), f).toBe(true);
      // … then the CLI's continuation from it, and the page's own continuation after Stop and a reload.
      expect(resumedSteps.slice(2)).toEqual(straightSteps.slice(2));
      expect(pageResumed.map((e) => e.step)).toEqual([1, 2, 3, 4]);
      expect(pageResumed).toEqual(straightSteps);
      expect(
        fs
          .readFileSync(path.join(dir, 'ckpt-4.safetensors'))
          .equals(fs.readFileSync(path.join(straight, 'ckpt-4.safetensors'))),
      ).toBe(true);
    },
    900_000,
  );
});
