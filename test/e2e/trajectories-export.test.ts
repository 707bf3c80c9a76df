/**
 * The Runs view's "Trajectories .jsonl" download in Chromium (wasm, tiny settings): two steps trained with Step, the
 * file downloaded from the page holds one chat-messages line per trajectory the run record kept (the first group
 * of each step, trajectories.jsonl in IndexedDB), every line parses, its messages alternate user / assistant from
 * the task and first observation as core/run-files/trajectories.ts documents, and one trajectory's reward, success,
 * task, first observation and turn count are the Explorer's.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, useE2E } from './harness';
import { fileText, stepTo, storedRuns, waitPhase } from './run-store-page';
import { parseTrajectoryLines } from '../../src/core/run-files/trajectories';
import { num } from '../../src/ui/state/format';

const BASE_MODEL = (
  JSON.parse(fs.readFileSync(path.join(ROOT, 'public/base/household-easy.json'), 'utf8')) as { model: string }
).model;
/** Two groups of three per step, no evaluation. */
const LINK = `backend=wasm&model=${BASE_MODEL}&steps=4&tasksPerStep=2&groupSize=3&miniBatches=2&evalEvery=0`;

const { open } = useE2E({ startTimeoutMs: 600_000 });

/** One line of the download, as documented in core/run-files/trajectories.ts. */
interface ChatLine {
  messages: { role: string; content: string }[];
  reward: number;
  success: boolean;
  task: string;
  step: number;
}

describe('trajectories as chat-messages JSONL, downloaded from the page', () => {
  it("one line per kept trajectory; roles alternate; reward and success equal the Explorer's", async () => {
    const { page, logs } = await open(LINK);
    page.setDefaultTimeout(60_000); // an action on a missing element fails instead of waiting for the test's timeout
    await waitPhase(page, 'ready', logs, 120_000);
    await stepTo(page, 1, logs);
    await stepTo(page, 2, logs);
    // The pause after step 2 writes the record: trajectories.jsonl holds steps 1 and 2.
    await expect
      .poll(async () => parseTrajectoryLines(fileText((await storedRuns(page))[0], 'trajectories.jsonl')).length, {
        timeout: 60_000,
      })
      .toBe(2);
    const kept = parseTrajectoryLines(fileText((await storedRuns(page))[0], 'trajectories.jsonl'));
    const keptCount = kept.reduce((a, r) => a + r.group.length, 0);
    expect(keptCount).toBe(2 * 3); // the first group (G = 3) of each of 2 steps

    await page.getByRole('button', { name: 'Runs' }).click();
    await expect.poll(async () => page.getByTestId('run-row').count(), { timeout: 60_000 }).toBe(1);
    const [download] = await Promise.all([
      page.waitForEvent('download', { timeout: 60_000 }),
      page.getByTestId('run-export-trajectories').click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/\.trajectories\.jsonl$/);
    const text = fs.readFileSync(await download.path(), 'utf8');
    expect(await page.getByTestId('runs-message').textContent()).toMatch(
      new RegExp(`^Exported ${keptCount} trajectories of ".+"\\.$`),
    );

    expect(text.endsWith('\n')).toBe(true);
    const lines = text.slice(0, -1).split('\n');
    expect(lines).toHaveLength(keptCount);
    const parsed = lines.map((l) => JSON.parse(l) as ChatLine);
    const flat = kept.flatMap((r) => r.group.map((t) => ({ step: r.step, t })));
    parsed.forEach((p, i) => {
      const { step, t } = flat[i];
      expect(Object.keys(p)).toEqual(['messages', 'reward', 'success', 'task', 'step']);
      expect({ reward: p.reward, success: p.success, task: p.task, step: p.step }).toEqual({
        reward: t.reward,
        success: t.success,
        task: t.task,
        step,
      });
      // user (task + first observation), assistant (action), user (next observation), … : two messages per turn.
      expect(p.messages).toHaveLength(2 * t.steps.length);
      p.messages.forEach((m, k) =>
        expect(m.role, `line ${i + 1} message ${k}`).toBe(k % 2 === 0 ? 'user' : 'assistant'),
      );
      expect(p.messages[0].content).toBe(`${t.task}\n${t.steps[0].observation}`);
      t.steps.forEach((s, k) => {
        expect(p.messages[2 * k + 1].content).toBe(s.action);
        if (k > 0) expect(p.messages[2 * k].content).toBe(s.observation);
      });
    });

    // The Explorer at step 1, group 0 (the group the record keeps), its second trajectory.
    await page.getByRole('button', { name: 'Explorer', exact: true }).click();
    await page.getByTestId('explorer-step-slider').fill('0');
    await expect.poll(async () => page.getByTestId('explorer-step').textContent(), { timeout: 30_000 }).toBe('1');
    expect(await page.getByTestId('explorer-group').inputValue()).toBe('0');
    const k = 1;
    const row = page.getByTestId('explorer-group-table').locator('tbody tr').nth(k);
    const cells = await row.locator('td').allTextContents(); // outcome, R, S, A_ep, turns, invalid
    const line = parsed[k];
    expect(cells[0]).toBe(line.success ? '✓ success' : '✗ failure');
    expect(cells[1]).toBe(num(line.reward, 2));
    expect(Number(cells[4])).toBe(line.messages.length / 2);
    expect(await page.locator('[data-testid="explorer"] p.task').textContent()).toContain(line.task);
    await page.getByTestId('explorer-trajectory').nth(k).click();
    expect(await page.getByTestId('explorer-observation').textContent()).toBe(
      `observation ${line.messages[0].content.slice(line.task.length + 1)}`,
    );
    expect(logs.filter((l) => l.startsWith('pageerror'))).toEqual([]);
    await page.close();
  }, 900_000);
});
