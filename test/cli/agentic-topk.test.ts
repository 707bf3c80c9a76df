/**
 * `train --algo agentic-opd --from-run DIR --opd-topk 4` end to end on a tiny GRPO source run (B 2 × G 4, three
 * validated checkpoints with a hand-made solved matrix, as test/cli/agentic-opd.test.ts): every step event carries
 * `topkReverseKl`, positive where LAD distilled something; with taskCoef 0 the gradient there comes from the top-k
 * term alone (A = 0), so a non-zero gradient norm shows the term reached the update; no tensor is left behind.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const cli = (args: string[]) =>
  spawnSync('node_modules/.bin/tsx', ['cli/train.ts', ...args], { encoding: 'utf8', timeout: 600_000 });
const COMMON = ['--tasks', '2', '--group', '4', '--mini-batches', '2', '--seed', '3', '--eval-every', '0', '--json'];
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'opd-topk-'));
const SRC = path.join(tmp, 'src');
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

beforeAll(() => {
  const r = cli([
    ...COMMON,
    '--steps',
    '3',
    '--checkpoint-every',
    '1',
    '--val-tasks',
    '6',
    '--val-samples',
    '2',
    '--run-dir',
    SRC,
  ]);
  expect(r.status, r.stderr).toBe(0);
  // Step 2 solves {0,1,2,3} (the student), steps 1 and 3 solve tasks it does not (teachers with something to teach).
  const p = path.join(SRC, 'val.json');
  const v = JSON.parse(fs.readFileSync(p, 'utf8'));
  const rows = [
    { step: 1, passRates: [1, 0.5, 0, 0, 1, 0] },
    { step: 2, passRates: [1, 1, 0.5, 1, 0, 0] },
    { step: 3, passRates: [0, 0, 0, 0, 0.5, 1] },
  ];
  fs.writeFileSync(p, JSON.stringify({ ...v, checkpoints: rows }) + '\n');
}, 600_000);

describe('train --algo agentic-opd --opd-topk 4', () => {
  it('runs end to end; step events carry topkReverseKl; the top-k term alone moves the student', () => {
    const r = cli([
      ...COMMON,
      '--algo',
      'agentic-opd',
      '--from-run',
      SRC,
      '--opd-topk',
      '4',
      '--lad-gate=false',
      '--steps',
      '2',
    ]);
    expect(r.status, r.stderr).toBe(0);
    const steps = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((e) => e.event === 'step');
    expect(steps.map((e) => e.step)).toEqual([1, 2]);
    for (const e of steps) {
      // LAD off: every rollout of a task with a teacher is distilled.
      expect(e.ladShare).toBe(1);
      expect(e.topkReverseKl).toBeGreaterThan(0);
      expect(Number.isFinite(e.reverseKl)).toBe(true);
      // A = taskCoef·A_ep = 0 on every token: the policy loss is 0 and the gradient is the top-k term's.
      expect(e.advantageAbsMean).toBe(0);
      expect(e.gradNorm).toBeGreaterThan(0);
      expect(e.forwardTokens.skill).toBeGreaterThan(0);
    }
    expect(steps[1].numTensors).toBe(steps[0].numTensors);
  }, 600_000);
});
