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
 * wrong object taken and put down unused; analyzer/workflow.ts `workflowSteps`): steps 1–2 are unchanged to the bit;
 * from step 3 the remembered skill injected into the prompts differs, and so do the rollouts.
 * opid-steps.jsonl was re-recorded when that rule came to drop the detour of an object of another kind wherever it was
 * put: steps 1–3 unchanged, at steps 4–5 a step skill of a failed trajectory changed (the update's numbers and the
 * skill-prompt tokens); rollouts and success rates of all 5 steps unchanged.
 *
 * Fields added to the step event after the recording are allowed; every recorded field must be equal.
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

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

describe('golden step events (same seed, same backend ⇒ the recorded events)', () => {
  it.each(RUNS)('%s', (name, extra) => {
    const r = spawnSync('node_modules/.bin/tsx', ['cli/train.ts', ...COMMON, ...extra], {
      encoding: 'utf8',
      timeout: 300_000,
    });
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
  });
});
