/**
 * `npm run compare -- DIR1 DIR2 [...] [--json]`: runs side by side from their run directories (written by
 * `train --run-dir`; format in src/core/run/record.ts) or `.opdrun` files (one packed run record,
 * src/core/run-files/pack.ts: the page's Runs view exports them, `cli/pack.ts` makes them): each run's folder name,
 * environment and preset (runs of different envs side by side are told apart), algorithm, seed, steps done (of
 * planned), success per evaluation split at the last evaluation and at the best evaluation with its step, the last
 * step's training success, checkpoints and the last validation's mean pass rate; under it, the other settings that
 * differ between the runs (one row per run), as the Markdown and CSV outputs list them.
 * "Best" has one meaning in all four outputs, the results tables' (src/core/run/aggregate.ts `pickEval`): the one
 * evaluation with the highest mean success over the splits (ties: the earlier), every split read from it. Two runs of
 * the same name (a `.opdrun` file and the folder it was unpacked to) are told apart by the path given: `grpo-3
 * (runs/grpo-3.opdrun)`. `--json` (or `--json=true`; `--json=false` is the table): one object `{runs: RunSummary[]}`.
 * `--markdown` / `--csv`: the page's Compare table (src/core/run/compare.ts), exactly as its Markdown and CSV exports
 * write it: final and best success per split (and per task type in CSV) with the settings that differ between the
 * runs. `--help`: the usage, what each column means and every flag. A folder that is no run directory but holds some
 * (an experiment's `--out` folder, whose runs are in runs/, or that runs/ folder) stands for them, with a note on
 * stderr naming them (cli/compare-inputs.ts). Bad input (no folder given, no such folder, a folder without a run, an
 * experiment's `<method>-<seed>.jsonl` copy of a run's events, a missing or corrupt run.json or events.jsonl line): a
 * message naming the folder, file and line on stderr, exit 2.
 */
import path from 'node:path';
import { USAGE_EXIT_CODE, UsageError, parseArgsAndPositionals, usage, type FlagTable } from './args';
import { exitOnClosedStdout } from './files';
import { RunDirError, readEvents, readRun } from './rundir';
import { summarizeRun, type RunSummary } from '../src/core/run/summary';
import { compareCsv, compareMarkdown, compareRuns, type CompareInput } from '../src/core/run/compare';
import { isFile, readPackFile } from './packfile';
import { compareInputPaths } from './compare-inputs';
import { alignColumns } from './text-table';

exitOnClosedStdout();

const USAGE = 'usage: npm run compare -- DIR1|FILE1.opdrun DIR2|FILE2.opdrun [...] [--json | --markdown | --csv]';

/** What "best" means in every output of compare: the results tables' definition (aggregate.ts `pickEval`). */
const BEST =
  'the evaluation with the highest mean success over the splits (ties: the earlier);\n  every split is read from ' +
  'that one evaluation, as the results tables (npm run experiment) pick it';

/** compare's flags (its other arguments are run directories or .opdrun files). */
const FLAGS = {
  json: {
    type: 'boolean',
    help:
      'one JSON object {runs: [...]}: per run the columns above, bestEval and bestEvalStep the best ' +
      'evaluation, rates in 0..1',
  },
  markdown: {
    type: 'boolean',
    help:
      "the page's Compare table as Markdown (its Markdown export): final and best success per split, " +
      'the settings that differ',
  },
  csv: {
    type: 'boolean',
    help:
      "the page's Compare table as CSV (its CSV export): final and best step, final and best per split and " +
      'per task type, the settings that differ',
  },
  help: { type: 'boolean', help: 'print this help and exit' },
} as const satisfies FlagTable;

/** `--help`: the usage, the inputs, what the plain table's columns mean (best defined once) and every flag. */
function help(): string {
  const flags = usage('npm run compare --', FLAGS).split('\n').slice(1); // 'flags:' and one line per flag
  return [
    USAGE,
    '',
    'Runs side by side, one row per input: a run directory (npm run train -- --run-dir DIR) or an',
    ".opdrun file (the page's Runs export, npx tsx cli/pack.ts DIR FILE); a folder holding run",
    "directories (an experiment's --out folder, its runs/) stands for them. Without a flag, a table with",
    'these columns:',
    '  run                          the run (its folder name; with the path given when two inputs share',
    '                               it)',
    "  env, preset                  the run's environment and its preset (run.json's config)",
    '  algo, seed                   its algorithm and seed',
    '  steps                        steps done/planned, "(unfinished)" when the run did not end',
    '  <split> final                success on that evaluation split at the last evaluation',
    '  <split> best                 success on that split at the best evaluation (below)',
    '  best eval (top mean)         the step of the best evaluation',
    "  train final                  the last training step's success",
    "  ckpts, val final             checkpoints written, the last validation's mean pass rate",
    'Under it, "settings that differ": one row per run with each other setting whose value differs',
    'between the runs (run.json config names, e.g. skillVariant, model), as --markdown and --csv list',
    'them.',
    `best = ${BEST}.`,
    'The same best is in --json (bestEval, bestEvalStep), --csv (best <split>, best step) and',
    '--markdown (best <split>).',
    'Exit 2 with a message naming the folder, file and line when an input is missing or corrupt.',
    '',
    ...flags,
  ].join('\n');
}

function fail(msg: string): never {
  process.stderr.write(`compare: ${msg}\n${USAGE}\n`);
  process.exit(USAGE_EXIT_CODE);
}

const pct = (x: number | null | undefined) => (x === null || x === undefined ? '—' : `${(100 * x).toFixed(1)}%`);

/**
 * The runs as a readable table: one row per run (its environment and preset beside its name, so that runs of
 * different envs are told apart), each column padded to its widest cell, split columns in order of first appearance,
 * the best evaluation's step in `best eval (top mean)` (best as `BEST` says).
 */
function table(runs: RunSummary[]): string {
  const splits = [...new Set(runs.flatMap((r) => Object.keys(r.finalEval ?? {})))];
  const head = [
    'run',
    'env',
    'preset',
    'algo',
    'seed',
    'steps',
    ...splits.flatMap((s) => [`${s} final`, `${s} best`]),
    'best eval (top mean)',
    'train final',
    'ckpts',
    'val final',
  ];
  const rows = runs.map((r) => [
    r.name,
    r.env,
    r.preset,
    r.algo,
    String(r.seed),
    `${r.stepsDone}/${r.stepsPlanned}${r.done ? '' : ' (unfinished)'}`,
    ...splits.flatMap((s) => [pct(r.finalEval?.[s]), pct(r.bestEval?.[s])]),
    r.bestEvalStep === null ? '—' : `step ${r.bestEvalStep}`,
    pct(r.finalTrainSuccess),
    String(r.checkpoints),
    pct(r.finalValSuccess),
  ]);
  const w = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(w[i]))
      .join('  ')
      .trimEnd();
  return [line(head), line(w.map((n) => '-'.repeat(n))), ...rows.map(line)].join('\n');
}

/** Settings the plain table shows as its own columns (steps: done/planned), left out of its settings that differ. */
const SHOWN = new Set(['env', 'preset', 'algo', 'seed', 'steps']);

/**
 * The settings that differ between `inputs` (the page's Compare table, src/core/run/compare.ts, as --markdown and
 * --csv list them) beyond those the plain table shows as columns (`SHOWN`), as a second table under it: one row per
 * run, in the table's order, and one column per setting, named as run.json's config names it (`skillVariant`). Empty
 * when no other setting differs.
 */
function settingsTable(inputs: readonly CompareInput[], names: readonly string[]): string {
  // compareRuns refuses two runs of one name; the plain table allows them (the same folder given twice)
  const { settings } = compareRuns(inputs.map((r, i) => ({ ...r, name: String(i) })));
  const diff = settings.filter((x) => x.differs && !SHOWN.has(x.key));
  if (!diff.length) return '';
  const rows = [['run', ...diff.map((x) => x.key)], ...names.map((n, i) => [n, ...diff.map((x) => x.values[i])])];
  return `\nsettings that differ:\n${alignColumns(rows).join('\n')}\n`;
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
  let values: { json: boolean; markdown: boolean; csv: boolean; help: boolean }, positionals: string[];
  const argv = process.argv.slice(2);
  try {
    ({ flags: values, positionals } = parseArgsAndPositionals(argv, FLAGS));
  } catch (e) {
    // As train and the other CLIs: `unknown flag --x; accepted flags: --json, --help`, and where to read more.
    if (!(e instanceof UsageError)) throw e;
    fail(`${e.message}\nrun npm run compare -- --help for its usage`);
  }
  if (values.help) {
    process.stdout.write(`${help()}\n`);
    return;
  }
  if (!positionals.length) fail('name at least one run directory');
  const outputs = (['json', 'markdown', 'csv'] as const).filter((k) => values[k]);
  if (outputs.length > 1)
    fail(`${outputs.map((k) => `--${k}`).join(' and ')} choose different outputs; give one of them`);
  const inputs: CompareInput[] = [];
  // A folder holding run directories (an experiment's --out, its runs/) stands for them, said in a note.
  let given: string[];
  try {
    const found = compareInputPaths(positionals);
    for (const n of found.notes) process.stderr.write(`compare: note: ${n}\n`);
    given = found.paths;
  } catch (e) {
    if (e instanceof RunDirError) fail(e.message);
    throw e;
  }
  for (const dir of given) {
    try {
      if (isFile(dir)) {
        const u = readPackFile(dir); // a .opdrun file (the page's Export, cli/pack.ts)
        inputs.push({ name: u.header.name || path.basename(dir), run: u.run, events: u.events });
      } else inputs.push({ name: path.basename(path.resolve(dir)), run: readRun(dir), events: readEvents(dir) });
    } catch (e) {
      if (e instanceof RunDirError) fail(e.message);
      throw e;
    }
  }
  const names = rowNames(
    inputs.map((r) => r.name),
    given,
  );
  inputs.forEach((r, i) => (r.name = names[i]));
  if (values.markdown || values.csv) {
    if (new Set(names).size < names.length)
      fail(`a run is named twice (${names.find((n, i) => names.indexOf(n) !== i)}); give each run once`);
    const t = compareRuns(inputs);
    process.stdout.write(values.csv ? compareCsv(t) : compareMarkdown(t));
    return;
  }
  const runs: RunSummary[] = inputs.map((r) => summarizeRun(r.name, r.run, r.events));
  if (values.json) process.stdout.write(JSON.stringify({ runs }) + '\n');
  else process.stdout.write(table(runs) + '\n' + settingsTable(inputs, names));
}

main();
