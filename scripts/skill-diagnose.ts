/**
 * Does OPID's skill advantage point the right way? `npx tsx scripts/skill-diagnose.ts --init WEIGHTS [--steps 2]
 * [--tasks 8] [--group 8] [--seed 1] [--preset default] [--lambda 0.3] [--json OUT]`.
 *
 * Runs `steps` OPID steps of household from WEIGHTS with the trainer's own code (learning rate 1e-7, so the policy
 * barely moves and every step scores the same policy), keeps every group's per-token numbers (StepDetail), then
 * replays each trajectory in the environment and asks the household expert (hidden state; a diagnostic only, never
 * used by training) how far each state is from success. A turn *progresses* when its action shortens the expert's
 * remaining plan by one, *regresses* when it lengthens it, and is neutral otherwise (a search visit, a look).
 *
 * Per group kind (a group with a success — the analyzer contrasts — or all failed — the analyzer judges alone),
 * trajectory outcome and route (step skill at a critical step, episode skill elsewhere), it prints the turns and the
 * mean Δℓ = Σ_tokens (ℓ_skill − ℓ_old) of the sampled action (nats), for progressing, neutral and regressing
 * turns. A useful teacher gives progressing turns a higher Δℓ than regressing ones; the overall mean is the bias the
 * advantage adds to every sampled token.
 */
import * as fs from 'node:fs';
import { parseArgs } from 'node:util';
import { setupBackend } from '../cli/backend';
import { train } from '../src/core/train/trainer';
import type { StepDetail } from '../src/core/train/step-detail';
import { HouseholdEnv, expertPlan } from '../src/core/envs/household';

const { values: a } = parseArgs({
  options: {
    init: { type: 'string' },
    steps: { type: 'string', default: '2' },
    tasks: { type: 'string', default: '8' },
    group: { type: 'string', default: '8' },
    seed: { type: 'string', default: '1' },
    preset: { type: 'string', default: 'default' },
    lambda: { type: 'string', default: '0.3' },
    json: { type: 'string' },
    ablation: { type: 'string', default: 'none' },
  },
});
if (!a.init)
  throw new Error('--init: give a weights file (.safetensors), e.g. public/base/household-default.safetensors');
const backend = await setupBackend('wasm');
const details: StepDetail[] = [];
const cfg = {
  env: 'household',
  preset: a.preset,
  algo: 'opid',
  model: 'nano',
  steps: Number(a.steps),
  tasksPerStep: Number(a.tasks),
  groupSize: Number(a.group),
  seed: Number(a.seed),
  evalEvery: 0,
  learningRate: 1e-7,
  lambdaSkill: Number(a.lambda),
  ablation: a.ablation,
} as const;
for await (const ev of train(cfg as never, {
  backend,
  initWeights: new Uint8Array(fs.readFileSync(a.init)),
  onStepDetail: (d) => details.push(d),
})) {
  if (ev.event === 'step')
    process.stderr.write(
      `step ${ev.step}: success ${(ev.successRate * 100).toFixed(1)}%  ` +
        `teacher share ${(ev.teacherShare * 100).toFixed(1)}%\n`,
    );
}

type Key = string;
const acc = new Map<Key, { n: number; sum: number; sumSq: number }>();
const add = (k: Key, x: number) => {
  const s = acc.get(k) ?? { n: 0, sum: 0, sumSq: 0 };
  s.n++;
  s.sum += x;
  s.sumSq += x * x;
  acc.set(k, s);
};
const rows: object[] = [];
for (const d of details)
  for (const g of d.groups) {
    const kind = g.trajectories.some((t) => t.success)
      ? g.trajectories.every((t) => t.success)
        ? 'all-success'
        : 'mixed'
      : 'all-fail';
    for (const t of g.trajectories) {
      const env = new HouseholdEnv(a.preset!);
      const r = env.reset({ split: 'train', index: g.taskIndex });
      if (r.task !== g.task) throw new Error(`replay: task ${g.taskIndex} is "${r.task}", the step had "${g.task}"`);
      for (const turn of t.turns) {
        const before = expertPlan(env.world, 80).length;
        const res = env.step(turn.action);
        const after = res.success ? 0 : expertPlan(env.world, 80).length;
        const prog = before - after > 0 ? 'progress' : before - after < 0 ? 'regress' : 'neutral';
        let dl = 0;
        const ls = g.tokens.logpSkill;
        if (!ls) continue;
        for (let i = turn.tokenStart; i < turn.tokenStart + turn.tokenCount; i++) dl += ls[i] - g.tokens.logpOld[i];
        const route = turn.stepSkill ? 'step' : t.episodeSkill ? 'episode' : 'none';
        const outcome = t.success ? 'success' : 'fail';
        add(`${kind}|${outcome}|${route}|${prog}`, dl);
        add(`${kind}|*|*|${prog}`, dl);
        add(`${g.taskType}|*|*|${prog}`, dl);
        add(`all|*|*|${prog}`, dl);
        add(`all|*|*|*`, dl);
        rows.push({
          step: d.step,
          task: g.task,
          taskType: g.taskType,
          kind,
          outcome,
          route,
          prog,
          dl,
          action: turn.action,
          stepSkill: turn.stepSkill,
          episodeSkill: t.episodeSkill,
        });
        if (res.done) break;
      }
    }
  }
const keys = [...acc.keys()].sort();
console.log('key (group kind | outcome | route | progress)'.padEnd(52), 'turns', ' mean Δℓ', '  s.e.');
for (const k of keys) {
  const s = acc.get(k)!;
  const m = s.sum / s.n,
    v = s.n > 1 ? (s.sumSq - s.n * m * m) / (s.n - 1) : 0;
  console.log(
    k.padEnd(52),
    String(s.n).padStart(5),
    m.toFixed(3).padStart(8),
    Math.sqrt(Math.max(v, 0) / s.n)
      .toFixed(3)
      .padStart(7),
  );
}
if (a.json) fs.writeFileSync(a.json, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
