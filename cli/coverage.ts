/**
 * `npm run coverage -- --run DIR [--json]`: what a run's checkpoints solve on the val split, from DIR/val.json
 * (written by `train --run-dir DIR --val-tasks n`; format in src/core/run/record.ts). A val task is solved at a
 * checkpoint when its pass rate is ≥ 0.5 (SOLVED_AT). Reports the solved count per checkpoint, the best single
 * checkpoint (most tasks solved; ties: higher mean pass rate, then the earlier step), the union (solved by any
 * checkpoint), the oracle's mean pass rate (each task's best checkpoint) and the tasks forgotten (solved by a
 * checkpoint before the best one, failed by the best) — overall and per task type. `--json`: one JSON object
 * (core/run/record.ts CoverageReport: keys rule, tasks, samples, checkpoints, best, union, oracleMeanPassRate,
 * forgotten, overall, byTaskType, noise — the union-over-best gap sampling noise alone gives,
 * core/run/coverage-noise.ts). Bad input (no such folder, no val.json, a corrupt file, no validated checkpoint): a
 * message on stderr, exit 2.
 */
import { parseArgs, usage, UsageError, USAGE_EXIT_CODE } from './args';
import { exitOnClosedStdout } from './files';
import { RunDirError, checkRunDir, readVal } from './rundir';
import { RecordError, VAL_FILE } from '../src/core/run/record';
import { coverage, type CoverageReport } from '../src/core/run/coverage';
import { gapWithinNoise } from '../src/core/run/coverage-noise';
import { counted } from '../src/core/count-text';

exitOnClosedStdout();

const SPEC = {
  run: { type: 'string', help: 'run directory written by train --run-dir with --val-tasks n', required: true },
  json: { type: 'boolean', help: 'print one JSON object' },
  help: { type: 'boolean', help: 'show this help' },
} as const;

function fail(msg: string): never {
  process.stderr.write(`coverage: ${msg}\n`);
  process.exit(USAGE_EXIT_CODE);
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

/**
 * The noise baseline in words (core/run/coverage-noise.ts): expected counts of val tasks if every checkpoint were
 * the same policy, the observed gap against the expected one, and what more episodes per task would give — the
 * what-if only when it would shrink the noise gap and there is a gap to explain.
 */
function noiseLines(r: CoverageReport): string[] {
  const n = r.noise.atRecorded,
    m = r.noise.atMoreSamples;
  const f = (x: number) => x.toFixed(1);
  const observed = r.union.solved - r.best.solved;
  const were = n.checkpoints === 1 ? ' were' : 's were one and';
  const luck =
    observed > 0
      ? gapWithinNoise(observed, n)
        ? ' — within what luck gives: most of it may not be real'
        : ' — more than luck gives'
      : '';
  const lines = [
    `noise baseline — val tasks solved if all ${n.checkpoints} checkpoint${were} ` +
      `the same policy (each task's pass rate averaged over them), ${n.samples} episode${n.samples === 1 ? '' : 's'} ` +
      `per task:`,
    `  best ${f(n.expectedBest)}, union ${f(n.expectedUnion)}, union − best ${f(n.expectedGap)}; ` +
      `observed union − best ${observed}${luck}`,
  ];
  if (observed > 0 && m.samples !== n.samples && m.expectedGap < n.expectedGap)
    lines.push(
      `  with ${counted(m.samples, 'episode')} per task luck would give union − best ${f(m.expectedGap)}: validate ` +
        `with more episodes (train the run with --val-samples ${m.samples}, or replay its checkpoints: npx ` +
        `tsx scripts/revalidate.ts --run DIR --samples ${m.samples} --out FILE) to tell luck from real ` +
        `differences`,
    );
  return lines;
}

/** The report as a readable table. */
function table(r: CoverageReport): string {
  const lines = [
    `rule: ${r.rule}`,
    `${counted(r.tasks, 'val task')}, ${counted(r.checkpoints.length, 'checkpoint')}`,
    '',
  ];
  lines.push('checkpoint  solved      mean pass rate');
  for (const c of r.checkpoints) {
    const solved = `${c.solved}/${r.tasks}`.padEnd(10);
    const best = c.step === r.best.step ? '  (best)' : '';
    lines.push(`${String(c.step).padStart(10)}  ${solved}  ${pct(c.meanPassRate)}${best}`);
  }
  lines.push('', `best single checkpoint: step ${r.best.step}, ${r.best.solved}/${r.tasks} solved`);
  lines.push(`union (solved by any checkpoint): ${r.union.solved}/${r.tasks}`);
  lines.push(`oracle best-per-task mean pass rate: ${pct(r.oracleMeanPassRate)}`);
  const forgottenTasks = r.forgotten.count
    ? ` (val task${r.forgotten.count === 1 ? '' : 's'} ${r.forgotten.tasks.join(', ')})`
    : '';
  lines.push(`forgotten (solved earlier, failed by the best): ${r.forgotten.count}${forgottenTasks}`);
  lines.push('', ...noiseLines(r));
  lines.push('', 'task type   tasks  best  union  oracle   forgotten');
  for (const [t, n] of Object.entries(r.byTaskType))
    lines.push(
      `${t.padEnd(10)}  ${String(n.tasks).padStart(5)}  ${String(n.best).padStart(4)}  ` +
        `${String(n.union).padStart(5)}  ${pct(n.oracleMeanPassRate).padStart(6)}   ${n.forgotten}`,
    );
  return lines.join('\n');
}

function main(): void {
  let args;
  const argv = process.argv.slice(2);
  if (argv.includes('--help'))
    return void process.stdout.write(usage('npm run coverage -- --run DIR [--json]', SPEC) + '\n');
  try {
    args = parseArgs(argv, SPEC);
  } catch (e) {
    if (e instanceof UsageError) fail(`${e.message}\nusage: npm run coverage -- --run DIR [--json]`);
    throw e;
  }
  const dir = args.run;
  let report: CoverageReport;
  try {
    checkRunDir(dir);
    const val = readVal(dir);
    if (!val)
      fail(
        `${dir} has no ${VAL_FILE}; train with --run-dir ${dir} --val-tasks n (and --checkpoint-every k) ` +
          `to record validations`,
      );
    report = coverage(val);
  } catch (e) {
    if (e instanceof RunDirError || e instanceof RecordError) fail(e.message);
    throw e;
  }
  process.stdout.write((args.json ? JSON.stringify(report) : table(report)) + '\n');
}

main();
