/**
 * Is a run's union-over-best gap real or validation noise? `npx tsx scripts/revalidate.ts --run DIR --out FILE
 * [--samples 4] [--seed 2] [--steps 10,50,90]`.
 *
 * Plays the val panel of a run directory again for each checkpoint (all by default): val tasks 0..n−1 of
 * DIR/val.json, each `--samples` times, at the run's eval temperature, decoding, history and action-token cap, from a
 * fresh stream `Rng(seed).fork("revalidate/<step>")` — so with a seed other than the run's the episodes are new draws
 * of the same policies. Writes FILE in val.json's format (core/run/record.ts; FILE must not exist: nothing is
 * overwritten) and prints, per checkpoint, the solved count in the run's record and now, then the coverage of the new
 * matrix and how many of the record's union-minus-best tasks the record's union checkpoints solve again. A GRPO run
 * only (no episode skill in the validation prompt). Speed: a checkpoint costs n × samples episodes.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { setupBackend } from '../cli/backend';
import { getEnvSpec } from '../src/core/envs/registry';
import { buildTokenizer, disposePolicy, loadPolicy } from '../src/core/model/policy';
import { runEpisodes } from '../src/core/rollout/runner';
import { Rng } from '../src/core/rng';
import { SOLVED_AT, checkpointFile, parseRunRecord, parseValRecord, type ValRecord } from '../src/core/run/record';
import { coverage } from '../src/core/run/coverage';

const { values: a } = parseArgs({
  options: {
    run: { type: 'string' },
    out: { type: 'string' },
    samples: { type: 'string', default: '4' },
    seed: { type: 'string', default: '2' },
    steps: { type: 'string' },
  },
});
const die = (m: string): never => {
  process.stderr.write(`revalidate: ${m}\n`);
  process.exit(2);
};
if (!a.run || !a.out) die('give --run DIR (a run directory with val.json) and --out FILE (a new file)');
const dir = a.run!;
const out = a.out!;
if (fs.existsSync(out)) die(`--out ${out} exists; give a new file name (nothing is overwritten)`);
const samples = Number(a.samples),
  seed = Number(a.seed);
if (!Number.isInteger(samples) || samples < 1) die(`--samples must be an integer ≥ 1, got "${a.samples}"`);
if (!Number.isInteger(seed) || seed < 0) die(`--seed must be an integer ≥ 0, got "${a.seed}"`);

const run = parseRunRecord(fs.readFileSync(path.join(dir, 'run.json'), 'utf8'));
const old = parseValRecord(fs.readFileSync(path.join(dir, 'val.json'), 'utf8'));
const cfg = run.config;
const steps = a.steps ? a.steps.split(',').map(Number) : old.checkpoints.map((c) => c.step);
for (const s of steps)
  if (!old.checkpoints.some((c) => c.step === s)) die(`--steps: checkpoint ${s} is not in ${dir}/val.json`);

await setupBackend('wasm');
const spec = getEnvSpec(cfg.env);
const tok = buildTokenizer(spec);
const fresh: ValRecord = { ...old, samples, checkpoints: [] };
const root = new Rng(seed);
for (const step of steps) {
  const t0 = Date.now();
  const policy = loadPolicy(new Uint8Array(fs.readFileSync(path.join(dir, checkpointFile(step)))), tok);
  const refs = [];
  for (let i = 0; i < old.tasks; i++) for (let k = 0; k < samples; k++) refs.push({ split: 'val' as const, index: i });
  const roll = await runEpisodes(policy, spec, cfg.preset, refs, {
    decoding: cfg.decoding,
    temperature: cfg.evalTemperature,
    historyTurns: cfg.historyTurns,
    maxActionTokens: cfg.maxActionTokens,
    rng: root.fork(`revalidate/${step}`),
  });
  disposePolicy(policy);
  const passRates = Array.from(
    { length: old.tasks },
    (_, i) => roll.trajectories.slice(i * samples, (i + 1) * samples).filter((x) => x.success).length / samples,
  );
  fresh.checkpoints.push({ step, passRates });
  const was = old.checkpoints.find((c) => c.step === step)!.passRates.filter((r) => r >= SOLVED_AT).length;
  const now = passRates.filter((r) => r >= SOLVED_AT).length;
  process.stdout.write(
    `checkpoint ${step}: solved ${was} in the record, ${now} now (${((Date.now() - t0) / 1000).toFixed(0)} s)\n`,
  );
}
fs.writeFileSync(out, JSON.stringify(fresh, null, 1));

const before = coverage({ ...old, checkpoints: old.checkpoints.filter((c) => steps.includes(c.step)) });
const after = coverage(fresh);
const gapTasks = before.union.tasks.filter(
  (q) => old.checkpoints.find((c) => c.step === before.best.step)!.passRates[q] < SOLVED_AT,
);
const again = gapTasks.filter((q) =>
  fresh.checkpoints.some(
    (c) =>
      c.step !== before.best.step &&
      old.checkpoints.find((o) => o.step === c.step)!.passRates[q] >= SOLVED_AT &&
      c.passRates[q] >= SOLVED_AT,
  ),
);
const bestAgain = fresh.checkpoints
  .find((c) => c.step === before.best.step)!
  .passRates.filter((r) => r >= SOLVED_AT).length;
process.stdout.write(
  [
    `record: best step ${before.best.step} ${before.best.solved}, union ${before.union.solved} ` +
      `(gap ${before.union.solved - before.best.solved}); ` +
      `noise gap expected ${before.noise.atRecorded.expectedGap.toFixed(1)}`,
    `now (${samples} episodes, seed ${seed}): best step ${after.best.step} ${after.best.solved}, ` +
      `union ${after.union.solved} ` +
      `(gap ${after.union.solved - after.best.solved}); the record's best step ${before.best.step} solves ${bestAgain}`,
    `the record's ${gapTasks.length} union-minus-best tasks: ${again.length} solved again by a checkpoint ` +
      `that solved them in the record`,
    `written: ${out}`,
  ].join('\n') + '\n',
);
