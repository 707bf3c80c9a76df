/**
 * `npm run compare -- DIR1 DIR2 [...] [--json]`: runs side by side from their run directories (written by
 * `train --run-dir`; format in src/core/run/record.ts) or `.opdrun` files (one packed run record, src/core/run/pack.ts:
 * the page's Runs view exports them, `cli/pack.ts` makes them): each run's folder name, algorithm, seed, steps done (of
 * planned), success per evaluation split at the last evaluation and the best over all evaluations (each split's
 * maximum), the last step's training success, checkpoints and the last validation's mean pass rate. Two runs of
 * the same name (a `.opdrun` file and the folder it was unpacked to) are told apart by the path given:
 * `grpo-3 (runs/grpo-3.opdrun)`. `--json` (or `--json=true`; `--json=false` is the table): one object
 * `{runs: RunSummary[]}`. Bad input (no folder given, no such folder, a missing or corrupt run.json or
 * events.jsonl line): a message naming the folder, file and line on stderr, exit 2.
 */
import path from 'node:path';
import { USAGE_EXIT_CODE, UsageError, parseArgsAndPositionals, type FlagTable } from './args';
import { exitOnClosedStdout } from './files';
import { RunDirError, readEvents, readRun } from './rundir';
import { summarizeRun, type RunSummary } from '../src/core/run/record';
import { isFile, readPackFile } from './packfile';

exitOnClosedStdout();

const USAGE = 'usage: npm run compare -- DIR1|FILE1.opdrun DIR2|FILE2.opdrun [...] [--json]';

/** compare's flags (its other arguments are run directories or .opdrun files). */
const FLAGS = {
  json: { type: 'boolean', help: 'one JSON object {runs: RunSummary[]}' },
  help: { type: 'boolean', help: 'print the usage' },
} as const satisfies FlagTable;

function fail(msg: string): never {
  process.stderr.write(`compare: ${msg}\n${USAGE}\n`);
  process.exit(USAGE_EXIT_CODE);
}

const pct = (x: number | null | undefined) => (x === null || x === undefined ? '—' : `${(100 * x).toFixed(1)}%`);

/** The runs as a readable table: one row per run, split columns in order of first appearance. */
function table(runs: RunSummary[]): string {
  const splits = [...new Set(runs.flatMap((r) => Object.keys(r.finalEval ?? {})))];
  const head = ['run', 'algo', 'seed', 'steps', ...splits.flatMap((s) => [`${s} final`, `${s} best`]), 'train final', 'ckpts', 'val final'];
  const rows = runs.map((r) => [
    r.name, r.algo, String(r.seed), `${r.stepsDone}/${r.stepsPlanned}${r.done ? '' : ' (unfinished)'}`,
    ...splits.flatMap((s) => [pct(r.finalEval?.[s]), pct(r.bestEval?.[s])]), pct(r.finalTrainSuccess), String(r.checkpoints), pct(r.finalValSuccess),
  ]);
  const w = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(w[i])).join('  ').trimEnd();
  return [line(head), line(w.map((n) => '-'.repeat(n))), ...rows.map(line)].join('\n');
}

/**
 * Row names of the runs read from `args` (as given on the command line), one per run: its summary name, unless two
 * runs share it (a `.opdrun` file and the folder it was unpacked to both carry the folder's name), then
 * `name (path as given)` for each of them, so that every row names one input.
 */
function rowNames(names: readonly string[], args: readonly string[]): string[] {
  const count = new Map<string, number>();
  for (const n of names) count.set(n, (count.get(n) ?? 0) + 1);
  return names.map((n, i) => ((count.get(n) ?? 0) > 1 ? `${n} (${args[i]})` : n));
}

function main(): void {
  let values: { json: boolean; help: boolean }, positionals: string[];
  const argv = process.argv.slice(2);
  try {
    ({ flags: values, positionals } = parseArgsAndPositionals(argv, FLAGS));
  } catch (e) {
    // As train and the other CLIs: `unknown flag --x; accepted flags: --json, --help`, and where to read more.
    if (!(e instanceof UsageError)) throw e;
    fail(`${e.message}\nrun npm run compare -- --help for its usage`);
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (!positionals.length) fail('name at least one run directory');
  const runs: RunSummary[] = [];
  for (const dir of positionals) {
    try {
      if (isFile(dir)) {
        const u = readPackFile(dir); // a .opdrun file (the page's Export, cli/pack.ts)
        runs.push(summarizeRun(u.header.name || path.basename(dir), u.run, u.events));
      } else runs.push(summarizeRun(path.basename(path.resolve(dir)), readRun(dir), readEvents(dir)));
    } catch (e) {
      if (e instanceof RunDirError) fail(e.message);
      throw e;
    }
  }
  const names = rowNames(runs.map((r) => r.name), positionals);
  runs.forEach((r, i) => (r.name = names[i]));
  process.stdout.write((values.json ? JSON.stringify({ runs }) : table(runs)) + '\n');
}

main();
