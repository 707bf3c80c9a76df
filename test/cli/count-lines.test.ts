/**
 * The CLI's done and summary lines agree with their counts: `done: 1 step`, `of 1 episode`, `1 val task`, `analyzer
 * 1 call`, `1 step of B 1 × G 2`…, as `2 steps` and `0 episodes` stay plural.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { doneLine, evalLine, progress, validationLine } from '../../cli/train-print';
import { ALGORITHM_CATALOG } from '../../src/core/algorithm-catalog';
import { DEFAULT_CONFIG } from '../../src/core/run/config';
import type { DoneEvent, EvalEvent, StepEvent, ValidationEvent } from '../../src/core/train/events';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'opd-count-lines-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const cli = (script: string, args: string[]) =>
  spawnSync('node_modules/.bin/tsx', [`cli/${script}.ts`, ...args], { encoding: 'utf8', timeout: 120_000 });

const done = (steps: number, undoneSteps = 0): DoneEvent => ({
  event: 'done',
  steps,
  elapsedMs: 1500,
  undoneSteps,
  shrunkSteps: 0,
  envVersions: {},
});

describe('counts in the CLI lines agree with their nouns', () => {
  it('train: the done line, an evaluation, a validation and the analyzer calls', () => {
    expect(doneLine(done(1), DEFAULT_CONFIG)).toBe('done: 1 step in 1.5 s');
    expect(doneLine(done(2), DEFAULT_CONFIG)).toBe('done: 2 steps in 1.5 s');
    expect(doneLine(done(1, 1), { ...DEFAULT_CONFIG, maxStepKl: 0.1 })).toBe(
      'done: 1 step in 1.5 s, 1 update undone by --max-step-kl',
    );
    const split = (episodes: number) => ({
      successRate: 1,
      episodes,
      byTaskType: { pick: { successRate: 1, episodes } },
    });
    const ev = {
      event: 'eval',
      step: 0,
      splits: { 'test-seen': split(1), 'test-unseen': split(2) },
    } as unknown as EvalEvent;
    expect(evalLine(ev)).toBe(
      'eval @ step 0: test-seen 100.0% (1 episode; pick 100.0%)  test-unseen 100.0% (2 episodes; pick 100.0%)',
    );
    const val = { event: 'validation', step: 4, samples: 1, passRates: [1], taskTypes: ['pick'], successRate: 1 };
    expect(validationLine(val as ValidationEvent)).toBe(
      'validation @ step 4: 100.0% mean pass rate over 1 val task × 1, 1 solved',
    );
    const step = {
      ...{ event: 'step', step: 1, successRate: 1, rewardMean: 1, policyLoss: 0, kl: 0, clipFraction: 0 },
      ...{ entropy: 0, learningRate: 1e-4, stepKl: null, stepScale: 1, rolledBack: false, updates: 1 },
      ...{ tokensPerSecond: 1, stepMs: 1, elapsedMs: 1, analyzerCalls: 1, analyzerFailures: 0 },
      analyzerFailureReasons: {},
    } as unknown as StepEvent;
    expect(progress(step, 1, 0, ALGORITHM_CATALOG['skill-grpo'].charts)).toContain('| analyzer 1 call, 0 failed');
  });

  it('eval: the success line of one episode', () => {
    const r = cli('eval', ['--policy', 'expert', '--episodes', '1']);
    expect(r.status).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe(
      'expert on household/easy test-seen: success 100.0% of 1 episode (tasks 0..0)',
    );
  }, 120_000);

  it("experiment: the table's settings line for one step", () => {
    // A run folder with a run.json that is not JSON stops the table after its settings are printed, before training.
    const out = path.join(tmp, 'table');
    fs.mkdirSync(path.join(out, 'runs', 'grpo-1'), { recursive: true });
    fs.writeFileSync(path.join(out, 'runs', 'grpo-1', 'run.json'), '{');
    const args = ['opid-table', '--preset', 'easy', '--seeds', '1', '--steps', '1', '--episodes', '1'];
    const r = cli('experiment', [...args, '--tasks', '1', '--group', '2', '--out', out]);
    expect(r.status).toBe(2);
    expect(r.stdout.split('\n')[2]).toBe(
      '1 step of B 1 × G 2, 1 seed per method, evaluation at step 0 and the last step on 1 episode per split at T 0.4',
    );
  }, 120_000);
});
