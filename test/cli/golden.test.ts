/**
 * Golden step events: 5-step runs of each algorithm (wasm, B 2 × G 4, 2 mini-batches, seed 1, no evaluation) must
 * print exactly the step events recorded in test/golden/*-steps.jsonl (timing fields excluded). Any refactor that
 * changes a number, a count or a flag of these events fails here; a deliberate change of the numerics re-records
 * the files (the commit says why). Last re-recorded when old log-probs came from the sampler, micro-batches shrank
 * to 2048 padded tokens (float rounding of the summed gradients, ~1e-7 relative) and the β = 0 kl metric became
 * the sampled KL(π_old ‖ π_ref) of the first group; the rollouts, success rates and token counts did not change.
 * Re-recorded again when LayerNorm, GELU and the linear layers' bias got hand-written gradients (model/ops.ts; the
 * gradients' sums run in another order, within 2e-6 relative of autograd's, test/core/model/ops-grad.test.ts): the
 * forward pass and the first step's rollouts are unchanged to the bit, later steps drift by float rounding.
 * opid-steps.jsonl was re-recorded once more when the heuristic analyzer stopped writing step skills that name an
 * inadmissible action: four step skills of steps 2–5 changed (`go to R` written at R), the rollouts did not.
 * And when a failed search's warning sign came to name the task's object instead of the fix's place ("the task names
 * X"): the skill prompts' lengths and the update's numbers changed; the rollouts and success rates of all 5 steps did
 * not. And when a failed trajectory's search moves stopped being blamed with its sibling's hindsight (heuristic.ts
 * `walk`,
 * `judgeFrom`): fewer skill-prompt tokens, other update numbers; rollouts and success rates of all 5 steps unchanged.
 * skillgrpo-steps.jsonl was re-recorded when a successful trajectory's workflow stopped keeping a pick-up detour (a
 * wrong object taken and put down unused; envs/household/analyzer/workflow.ts `workflowSteps`): steps 1–2 are
 * unchanged to the bit; from step 3 the remembered skill injected into the prompts differs, and so do the rollouts.
 * opid-steps.jsonl was re-recorded when that rule came to drop the detour of an object of another kind wherever it was
 * put: steps 1–3 unchanged, at steps 4–5 a step skill of a failed trajectory changed (the update's numbers and the
 * skill-prompt tokens); rollouts and success rates of all 5 steps unchanged.
 *
 * agentic-opd-steps.jsonl and agentic-opd-topk-steps.jsonl: Agentic-OPD's distillation stage (5 steps, same settings,
 * a checkpoint and validation every 2 steps, the sampled A_opd and the `--opd-topk 4` form) from a 3-step GRPO run
 * directory of the same settings (a checkpoint and a validation over 6 val tasks, 2 episodes each, every step) whose
 * solved matrix is replaced by a hand-made one (SOLVED below), so the student (step 2) and HCN's teachers do not
 * hang on the source's validation numbers: teacher 3 at round 1, teacher 1 after the validation of step 2, teacher 3
 * after step 4; LAD distils at step 5.
 *
 * Fields added to the step event after the recording are allowed; every recorded field must be equal.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const COMMON = [
  '--env',
  'household',
  '--preset',
  'easy',
  '--model',
  'nano',
  '--steps',
  '5',
  '--tasks',
  '2',
  '--group',
  '4',
  '--mini-batches',
  '2',
  '--seed',
  '1',
  '--backend',
  'wasm',
  '--eval-every',
  '0',
  '--json',
];
const RUNS: [string, string[]][] = [
  ['grpo', ['--algo', 'grpo']],
  ['opid', ['--algo', 'opid']],
  ['skillgrpo', ['--algo', 'skill-grpo']],
  [
    'scratch',
    [
      '--algo',
      'grpo',
      '--init',
      'scratch',
      '--lr',
      '5e-4',
      '--history',
      '0',
      '--step-adv-weight',
      '1',
      '--max-step-kl',
      '0.03',
      '--kl-backtracks',
      '2',
      '--entropy-coef',
      '0.02',
    ],
  ],
];
/** Wall-clock fields: they differ between identical runs. */
const TIMING = ['tokensPerSecond', 'stepMs', 'elapsedMs', 'analyzerLatencyMs', 'phaseMs'];

/** Run the CLI's train with `args`. */
const trainCli = (args: string[]) =>
  spawnSync('node_modules/.bin/tsx', ['cli/train.ts', ...args], { encoding: 'utf8', timeout: 300_000 });

/** The step events of a run's stdout equal the recorded ones of test/golden/<name>-steps.jsonl (timing excluded). */
function expectGolden(name: string, r: ReturnType<typeof trainCli>): void {
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  const got = r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
    .filter((e) => e.event === 'step');
  const want = fs
    .readFileSync(`test/golden/${name}-steps.jsonl`, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  expect(got.length).toBe(want.length);
  got.forEach((e, i) => {
    const picked: Record<string, unknown> = {};
    for (const k of Object.keys(want[i])) if (!TIMING.includes(k)) picked[k] = e[k];
    expect(picked).toEqual(want[i]);
  });
}

describe('golden step events (same seed, same backend ⇒ the recorded events)', () => {
  it.each(RUNS)('%s', (name, extra) => {
    expectGolden(name, trainCli([...COMMON, ...extra]));
  });
});

/** The source run's solved matrix (pass rates over 2 episodes of 6 val tasks; solved = ≥ 0.5). */
const SOLVED = [
  { step: 1, passRates: [1, 0.5, 0, 0, 1, 0] },
  { step: 2, passRates: [1, 1, 0.5, 1, 0, 0] },
  { step: 3, passRates: [0, 0, 0, 0, 0.5, 1] },
];

describe('golden step events of Agentic-OPD (--from-run a GRPO run directory)', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'opd-golden-'));
  const SRC = path.join(tmp, 'src');
  const base = COMMON.filter((_, i) => COMMON[i] !== '--steps' && COMMON[i - 1] !== '--steps');
  beforeAll(() => {
    const val = ['--checkpoint-every', '1', '--val-tasks', '6', '--val-samples', '2', '--run-dir', SRC];
    const r = trainCli([...base, '--algo', 'grpo', '--steps', '3', ...val]);
    expect(r.status, r.stderr).toBe(0);
    const p = path.join(SRC, 'val.json');
    fs.writeFileSync(p, JSON.stringify({ ...JSON.parse(fs.readFileSync(p, 'utf8')), checkpoints: SOLVED }) + '\n');
  }, 300_000);
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
  it.each([
    ['agentic-opd', []],
    ['agentic-opd-topk', ['--opd-topk', '4']],
  ])('%s', (name, extra) => {
    const dir = path.join(tmp, name);
    const args = ['--algo', 'agentic-opd', '--from-run', SRC, '--checkpoint-every', '2', '--run-dir', dir];
    expectGolden(name, trainCli([...COMMON, ...args, ...extra]));
  });
});
