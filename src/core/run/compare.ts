/**
 * Comparing runs side by side (the page's Compare view; `npm run compare --markdown|--csv` prints this table): per run
 * the success per split and per split × task type at the final and at the best evaluation (aggregate.ts `pickEval`:
 * the best is the evaluation with the highest mean success over the splits, ties to the earlier), its steps and last
 * training success (record.ts `summarizeRun`), and the settings, marked where they differ between the runs; as CSV and
 * Markdown text. Pure.
 */
import { RUN_CONFIG_KEYS } from './config';
import { pickEval, type RunEvals } from './aggregate';
import { evalsByStep, plannedSteps, summarizeRun } from './summary';
import { type RecordEvent, type RunRecord } from './record';

/** One run to compare: a display name (unique among the runs), its run.json and its events. */
export interface CompareInput {
  name: string;
  run: RunRecord;
  events: readonly RecordEvent[];
}

/** One setting across the runs. */
export interface SettingRow {
  key: string;
  /** The value of each run, as text, in the runs' order. */
  values: string[];
  /** True when not every run has the same value. */
  differs: boolean;
}

/** The comparison. Rates in [0, 1]; null where a run has no evaluation (or no such split / task type). */
export interface CompareTable {
  runs: string[];
  /** `steps done/planned` per run. */
  steps: string[];
  /** The last step's training success per run. */
  trainFinal: (number | null)[];
  /** Column keys: each split, then each split's task types as `split/type`, in order of first appearance. */
  keys: string[];
  /** final[run][key] and best[run][key]. */
  final: (number | null)[][];
  best: (number | null)[][];
  /** The step of the evaluation each row's final and best read. */
  finalStep: (number | null)[];
  bestStep: (number | null)[];
  /** Every setting but the schema version, in schema order; `steps` is the run's plan (summary.ts `plannedSteps`). */
  settings: SettingRow[];
}

/** The evaluations of a run from its events (the latest line wins per step), as aggregate.ts reads them. */
export function runEvals(name: string, c: Pick<CompareInput, 'run' | 'events'>): RunEvals {
  return { method: name, seed: c.run.config.seed, evals: evalsByStep(c.events) };
}

/**
 * Build the comparison of `inputs` (in the order given).
 * @throws Error when two runs have the same name (rows must be told apart).
 */
export function compareRuns(inputs: readonly CompareInput[]): CompareTable {
  const names = inputs.map((i) => i.name);
  const dup = names.find((n, i) => names.indexOf(n) !== i);
  if (dup !== undefined) throw new Error(`two runs are named "${dup}"; rename one to compare them`);
  const evals = inputs.map((i) => runEvals(i.name, i));
  const splits: string[] = [];
  for (const r of evals)
    for (const e of r.evals) for (const s of Object.keys(e.splits)) if (!splits.includes(s)) splits.push(s);
  const types = new Map<string, string[]>(splits.map((s) => [s, []]));
  for (const r of evals)
    for (const e of r.evals)
      for (const [s, v] of Object.entries(e.splits))
        for (const t of Object.keys(v.byTaskType)) if (!types.get(s)!.includes(t)) types.get(s)!.push(t);
  const keys = [...splits, ...splits.flatMap((s) => types.get(s)!.map((t) => `${s}/${t}`))];
  const cell = (e: RunEvals['evals'][number] | null, key: string): number | null => {
    if (!e) return null;
    const [s, t] = key.split('/');
    if (!Object.hasOwn(e.splits, s)) return null;
    if (t === undefined) return e.splits[s].successRate;
    return Object.hasOwn(e.splits[s].byTaskType, t) ? e.splits[s].byTaskType[t].successRate : null;
  };
  const fin = evals.map((r) => (r.evals.length ? pickEval(r, 'final', splits) : null));
  const bst = evals.map((r) => (r.evals.length ? pickEval(r, 'best', splits) : null));
  const sums = inputs.map((i) => summarizeRun(i.name, i.run, i.events));
  const settings = RUN_CONFIG_KEYS.filter((k) => k !== 'schemaVersion').map((key) => {
    // `steps` is the run's plan: a resume that extended it records its steps in run.json's resumes.
    const values = inputs.map((i) => String(key === 'steps' ? plannedSteps(i.run) : i.run.config[key]));
    return { key, values, differs: new Set(values).size > 1 };
  });
  return {
    runs: names,
    steps: sums.map((s) => `${s.stepsDone}/${s.stepsPlanned}`),
    trainFinal: sums.map((s) => s.finalTrainSuccess),
    keys,
    final: fin.map((e) => keys.map((k) => cell(e, k))),
    best: bst.map((e) => keys.map((k) => cell(e, k))),
    finalStep: fin.map((e) => e?.step ?? null),
    bestStep: bst.map((e) => e?.step ?? null),
    settings,
  };
}

/** A CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break; quotes doubled. */
function csvField(s: string): string {
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

const rate = (x: number | null) => (x === null ? '' : String(x));

/**
 * The comparison as CSV (RFC 4180, `\r\n` line ends): one row per run; columns `run`, `steps`, `train final`, `final
 * step`, `final <key>` for every key, `best step`, `best <key>` for every key, then each setting that differs, named
 * by its key (`setting <key>` where the key is already a column's name: `setting steps`, the planned steps, beside
 * `steps`, the steps done of planned), so that every column name is unique. Rates as plain numbers in [0, 1]; an
 * empty field where there is none.
 */
export function compareCsv(t: CompareTable): string {
  const diff = t.settings.filter((s) => s.differs);
  const fixed = [
    'run',
    'steps',
    'train final',
    'final step',
    ...t.keys.map((k) => `final ${k}`),
    'best step',
    ...t.keys.map((k) => `best ${k}`),
  ];
  const head = [...fixed, ...diff.map((s) => (fixed.includes(s.key) ? `setting ${s.key}` : s.key))];
  const rows = t.runs.map((name, r) => [
    name,
    t.steps[r],
    rate(t.trainFinal[r]),
    t.finalStep[r] === null ? '' : String(t.finalStep[r]),
    ...t.final[r].map(rate),
    t.bestStep[r] === null ? '' : String(t.bestStep[r]),
    ...t.best[r].map(rate),
    ...diff.map((s) => s.values[r]),
  ]);
  return [head, ...rows].map((row) => row.map(csvField).join(',') + '\r\n').join('');
}

/** A rate as a percentage with one decimal (`62.5%`), `—` for none. */
export function pctCell(x: number | null): string {
  return x === null ? '—' : `${(100 * x).toFixed(1)}%`;
}

/** A Markdown table cell: pipes escaped, line breaks as spaces. */
function mdCell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/[\r\n]+/g, ' ');
}

function mdTable(head: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.map(mdCell).join(' | ')} |\n`;
  return line(head) + line(head.map(() => '---')) + rows.map(line).join('');
}

/**
 * The comparison as Markdown: a results table (run, steps, train final, then `final <key>` and `best <key>` for
 * every split key — task types left out to keep it readable — as percentages), and when settings differ, a
 * second table `setting | <run> …` of those settings with each value in bold.
 */
export function compareMarkdown(t: CompareTable): string {
  const splitKeys = t.keys.filter((k) => !k.includes('/'));
  const idx = splitKeys.map((k) => t.keys.indexOf(k));
  let out = mdTable(
    ['run', 'steps', 'train final', ...splitKeys.map((k) => `final ${k}`), ...splitKeys.map((k) => `best ${k}`)],
    t.runs.map((name, r) => [
      name,
      t.steps[r],
      pctCell(t.trainFinal[r]),
      ...idx.map((i) => pctCell(t.final[r][i])),
      ...idx.map((i) => pctCell(t.best[r][i])),
    ]),
  );
  const diff = t.settings.filter((s) => s.differs);
  if (diff.length)
    out +=
      '\nSettings that differ:\n\n' +
      mdTable(
        ['setting', ...t.runs],
        diff.map((s) => [s.key, ...s.values.map((v) => `**${v}**`)]),
      );
  return out;
}
