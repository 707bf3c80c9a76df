/**
 * table.json, the results table `npm run experiment -- opid-table` writes (cli/experiment.ts) and the page's Results
 * view reads: its zod schema, the writer's builder and the reader's parser.
 *
 * Version 2 (`format: "opd-table"`, `version: 2`): `header` (the settings, one line each), `command` (the command
 * line that made it), `baseline` (the method the paired differences are to), `splits`, `final` and `best` (the table
 * rows of src/core/run/aggregate.ts at the final and at the best evaluation) and `curves` (per method, mean ± s.e.
 * over seeds of the success at every evaluation step, per split). Version 1 is the same file without `format`,
 * `version`, `command`, `baseline` and `curves`, as the writer made it before; it is still read (the command from its
 * `command: …` header line, the baseline `grpo`, no curves). All rates are in [0, 1] (success rates), differences in
 * [−1, 1]; MeanSe as in aggregate.ts (mean, standard error, n seeds). Both versions hold in `diff` the paired
 * difference of every cell, the whole split's and each task type's (`split/type`), so the per-type differences of
 * table.md and the Results view read from either.
 *
 * Three optional version-2 fields, written only by tables that have them: `protocol` (the experiment's protocol, e.g.
 * `reference`; absent: `table`, the only protocol before), `last3` (the table rows at the mean of each run's last
 * three evaluations after step 0, aggregate.ts `lastEvals`; written by a protocol that fixes it as its endpoint,
 * absent in every file written before) and `comparisons` (`final`, `best` and, with `last3`, `last3`: named paired
 * comparisons `method − baseline` besides the rows' differences to `baseline`, each with its `label`, `seeds` and
 * `diff` keyed as a row's).
 */
import { z } from 'zod';
import {
  buildComparisons,
  buildCurves,
  buildTable,
  type Comparison,
  type ComparisonRow,
  type CurveRow,
  type RunEvals,
  type TableRow,
} from './aggregate';
import { counted } from '../count-text';

/** The `format` field of table.json. */
export const TABLE_FORMAT = 'opd-table';
/** The version this code writes; it reads 1 and 2. */
export const TABLE_VERSION = 2;
/** The baseline of version-1 files (the only one the writer used). */
export const LEGACY_BASELINE = 'grpo';
/** What to do about a bad table.json, appended to every parse error. */
const FIX = 'write it again with `npm run experiment -- opid-table --out DIR` (finished runs are not trained again)';

/** A bad table.json: the message names the field (a dotted path) and the fix. */
export class TableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TableError';
  }
}

const Nat1 = z.number().int().min(1);
const Rate = z.number().min(0).max(1);
const MeanSeSchema = (mean: z.ZodNumber) => z.strictObject({ mean, se: z.number().min(0), n: Nat1 });
const DiffSchema = z.record(z.string(), MeanSeSchema(z.number().min(-1).max(1)).nullable());
const RowSchema = z.strictObject({
  method: z.string().min(1),
  seeds: z.array(Nat1),
  cells: z.record(z.string(), MeanSeSchema(Rate)),
  diff: DiffSchema,
});
const ComparisonSchema = z.strictObject({
  label: z.string().min(1),
  method: z.string().min(1),
  baseline: z.string().min(1),
  seeds: z.array(Nat1),
  diff: DiffSchema,
});
const CurveSchema = z.strictObject({
  method: z.string().min(1),
  steps: z.array(z.number().int().min(0)),
  splits: z.record(z.string(), z.array(MeanSeSchema(Rate).nullable())),
});
const V1Schema = z.strictObject({
  header: z.array(z.string()),
  splits: z.array(z.string().min(1)).min(1),
  final: z.array(RowSchema),
  best: z.array(RowSchema),
});
const V2Schema = z.strictObject({
  format: z.literal(TABLE_FORMAT),
  version: z.literal(TABLE_VERSION),
  header: z.array(z.string()),
  command: z.string(),
  protocol: z.string().min(1).optional(),
  baseline: z.string().min(1),
  splits: z.array(z.string().min(1)).min(1),
  final: z.array(RowSchema),
  best: z.array(RowSchema),
  last3: z.array(RowSchema).optional(),
  comparisons: z
    .strictObject({
      final: z.array(ComparisonSchema),
      best: z.array(ComparisonSchema),
      last3: z.array(ComparisonSchema).optional(),
    })
    .optional(),
  curves: z.array(CurveSchema),
});

/** A results table as the page shows it (either version, normalized to version 2's fields). */
export interface ResultsTable {
  format: typeof TABLE_FORMAT;
  /** The version the file was written in (1 or 2). */
  version: 1 | 2;
  /** Settings, one line each (the first is usually `command: …`). */
  header: string[];
  /** The command line that made the table ('' when a version-1 file's header does not say). */
  command: string;
  /** The experiment's protocol; absent in tables of the `table` protocol (and in every file written before). */
  protocol?: string;
  /** The method the paired differences are to (`grpo` in version 1). */
  baseline: string;
  /** Evaluation splits, e.g. `test-seen`, `test-unseen`. */
  splits: string[];
  /** Rows at the final evaluation (cells keyed `split` or `split/taskType`). */
  final: TableRow[];
  /** Rows at the best evaluation (the highest mean success over the splits). */
  best: TableRow[];
  /**
   * Rows at the mean of each run's last three evaluations after step 0 (fewer when a run has fewer); present only in
   * tables whose protocol fixes it as the endpoint (version 2).
   */
  last3?: TableRow[];
  /**
   * Named paired comparisons at the final and at the best evaluation, and at `last3` when the table has it; absent
   * when the table names none.
   */
  comparisons?: { final: ComparisonRow[]; best: ComparisonRow[]; last3?: ComparisonRow[] };
  /** Success curves per method; null in version 1 (its files do not hold them). */
  curves: CurveRow[] | null;
}

/** "a.b.0: message" of a zod issue, with a missing field and an unknown key said in words. */
function describe(i: z.core.$ZodIssue): string {
  const where = i.path.length ? i.path.map(String).join('.') : '(top level)';
  if (i.code === 'unrecognized_keys')
    return (
      `${where}: unknown field${i.keys.length > 1 ? 's' : ''} ${i.keys.map((k) => `"${k}"`).join(', ')} ` +
      `(remove ${i.keys.length > 1 ? 'them' : 'it'}; this page reads ${TABLE_FORMAT} versions 1 and ${TABLE_VERSION})`
    );
  const missing = / received undefined$/.test(i.message);
  const field = i.message.replace(/^Invalid input: /, '').replace(/, received undefined$/, '');
  return `${where}: ${missing ? `missing (${field})` : i.message}`;
}

/**
 * A deep copy of JSON-like data made of own enumerable properties only (inherited ones are not read), so zod sees
 * nothing a prototype adds. @throws TableError on a key named `__proto__` (it cannot be a method, split or task type).
 */
function ownData(x: unknown, path: string, file: string): unknown {
  if (Array.isArray(x)) return x.map((v, i) => ownData(v, `${path}${path ? '.' : ''}${i}`, file));
  if (x === null || typeof x !== 'object') return x;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(x)) {
    const at = `${path}${path ? '.' : ''}${k}`;
    if (k === '__proto__')
      throw new TableError(`${file}: ${at}: a key named "__proto__" is not allowed (remove it); ${FIX}`);
    Object.defineProperty(out, k, {
      value: ownData((x as Record<string, unknown>)[k], at, file),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/** The row sets a table may hold, in the order they are checked. */
const ENDPOINTS = ['final', 'best', 'last3'] as const;

/** Cross-field checks both versions share. @throws TableError naming the field. */
function checkRows(t: ResultsTable, file: string): void {
  const bad = (msg: string): never => {
    throw new TableError(`${file}: ${msg}; ${FIX}`);
  };
  // a table aggregated at last3 has its comparisons there too, and only such a table
  if (t.comparisons && Boolean(t.comparisons.last3) !== Boolean(t.last3))
    bad(`comparisons.last3: ${t.last3 ? 'missing (the table has last3 rows)' : 'present without last3 rows'}`);
  for (const pick of ENDPOINTS) {
    const seen = new Set<string>();
    t[pick]?.forEach((r, i) => {
      const at = `${pick}.${i}`;
      if (seen.has(r.method)) bad(`${at}.method: "${r.method}" appears twice (one row per method)`);
      seen.add(r.method);
      for (const k of Object.keys(r.cells)) {
        if (!t.splits.includes(k.split('/')[0]))
          bad(`${at}.cells.${k}: "${k.split('/')[0]}" is not one of splits (${t.splits.join(', ')})`);
        if (r.cells[k].n > r.seeds.length)
          bad(`${at}.cells.${k}.n: ${counted(r.cells[k].n, 'seed')}, but the row has ${r.seeds.length}`);
      }
      for (const [k, d] of Object.entries(r.diff)) {
        if (!Object.hasOwn(r.cells, k)) bad(`${at}.diff.${k}: a difference without its cell (cells has no "${k}")`);
        if (d && d.n > r.seeds.length)
          bad(`${at}.diff.${k}.n: paired over ${counted(d.n, 'seed')}, but the row has ${r.seeds.length}`);
      }
    });
  }
  for (const pick of ENDPOINTS)
    t.comparisons?.[pick]?.forEach((c, i) => {
      for (const [k, d] of Object.entries(c.diff)) {
        const at = `comparisons.${pick}.${i}.diff.${k}`;
        if (!t.splits.includes(k.split('/')[0]))
          bad(`${at}: "${k.split('/')[0]}" is not one of splits (${t.splits.join(', ')})`);
        if (d && d.n > c.seeds.length)
          bad(`${at}.n: paired over ${counted(d.n, 'seed')}, but the comparison has ${c.seeds.length}`);
      }
    });
  t.curves?.forEach((c, i) => {
    for (const [s, v] of Object.entries(c.splits)) {
      if (!t.splits.includes(s)) bad(`curves.${i}.splits.${s}: not one of splits (${t.splits.join(', ')})`);
      if (v.length !== c.steps.length)
        bad(
          `curves.${i}.splits.${s}: ${counted(v.length, 'value')} for ${counted(c.steps.length, 'step')} ` +
            `(one per step)`,
        );
    }
    c.steps.forEach(
      (s, j) =>
        j > 0 &&
        s <= c.steps[j - 1] &&
        bad(`curves.${i}.steps.${j}: steps must increase (${c.steps[j - 1]} then ${s})`),
    );
  });
}

/**
 * Parse table.json (its text, or data already parsed from untrusted JSON) into a typed table. Reads own properties
 * only; version-1 files (no `format`/`version`) are normalized (module comment).
 * @throws TableError `table.json: <field path>: <what is wrong>; <the fix>` on text that is not JSON, a wrong
 *   format or version, a missing field, a wrong type, an unknown field, a `__proto__` key, or rows that disagree.
 */
export function parseResultsTable(input: unknown, file = 'table.json'): ResultsTable {
  let raw = input;
  if (typeof input === 'string') {
    try {
      raw = JSON.parse(input);
    } catch (e) {
      throw new TableError(`${file}: not valid JSON (${(e as Error).message}); ${FIX}`);
    }
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    throw new TableError(
      `${file}: (top level): expected an object with header, splits, final and best; is this the ` +
        `table.json of \`npm run experiment\`?`,
    );
  const data = ownData(raw, '', file) as Record<string, unknown>;
  const has = (k: string) => Object.hasOwn(data, k);
  if (has('format') && data.format !== TABLE_FORMAT)
    throw new TableError(
      `${file}: format: ${JSON.stringify(data.format)} is not "${TABLE_FORMAT}"; is this the table.json ` +
        `of \`npm run experiment\`?`,
    );
  const version = has('version') ? data.version : has('format') ? undefined : 1;
  if (version !== 1 && version !== TABLE_VERSION) {
    const newer = typeof version === 'number' && version > TABLE_VERSION;
    throw new TableError(
      `${file}: version: ${version === undefined ? 'missing' : JSON.stringify(version)} (this page reads ` +
        `versions 1 and ${TABLE_VERSION}${newer ? '; the file is newer: open it in a newer page' : `; ${FIX}`})`,
    );
  }
  const fail = (e: z.ZodError): never => {
    throw new TableError(`${file}: ${describe(e.issues[0])}; ${FIX}`);
  };
  let t: ResultsTable;
  if (version === 1) {
    const r = V1Schema.safeParse(data);
    if (!r.success) return fail(r.error);
    const line = r.data.header.find((h) => h.startsWith('command: '));
    t = {
      format: TABLE_FORMAT,
      version: 1,
      ...r.data,
      command: line ? line.slice('command: '.length) : '',
      baseline: LEGACY_BASELINE,
      curves: null,
    };
  } else {
    const r = V2Schema.safeParse(data);
    if (!r.success) return fail(r.error);
    t = { ...r.data, version: TABLE_VERSION };
  }
  checkRows(t, file);
  return t;
}

/** What the writer knows when it writes table.json. */
export interface TableInput {
  /** Settings, one line each. */
  header: string[];
  command: string;
  baseline: string;
  splits: readonly string[];
  /** Method order of the rows and curves. */
  methods: readonly string[];
  /** The finished runs' evaluations. */
  runs: readonly RunEvals[];
  /** The experiment's protocol; left out for the `table` protocol (the reader takes its absence for it). */
  protocol?: string;
  /** Named paired comparisons besides the rows' differences to `baseline`; none when left out. */
  comparisons?: readonly Comparison[];
  /**
   * Also aggregate at the mean of each run's last three evaluations after step 0 (`last3`, rows and comparisons);
   * a protocol that fixes it as its endpoint sets it. Off when left out.
   */
  last3?: boolean;
}

/**
 * The version-2 table of finished runs (rows at the final and at the best evaluation, with `last3` also at the mean
 * of the last three; curves), validated with the reader's own parser so the writer cannot write a file the page
 * rejects.
 * @throws TableError when the runs make an invalid table (e.g. a success rate outside [0, 1]); Error when a run has
 *   no evaluation, or with `last3` none after step 0 (buildTable).
 */
export function makeResultsTable(input: TableInput): ResultsTable {
  const { header, command, baseline, splits, methods, runs, protocol, comparisons, last3 } = input;
  // A field left undefined is left out of the file (JSON.stringify), so a table without them reads as before.
  const file = {
    format: TABLE_FORMAT,
    version: TABLE_VERSION,
    header,
    command,
    protocol,
    baseline,
    splits: [...splits],
    final: buildTable(runs, methods, splits, 'final', baseline),
    best: buildTable(runs, methods, splits, 'best', baseline),
    last3: last3 ? buildTable(runs, methods, splits, 'last3', baseline) : undefined,
    comparisons: comparisons && {
      final: buildComparisons(runs, comparisons, splits, 'final'),
      best: buildComparisons(runs, comparisons, splits, 'best'),
      last3: last3 ? buildComparisons(runs, comparisons, splits, 'last3') : undefined,
    },
    curves: buildCurves(runs, methods, splits),
  };
  return parseResultsTable(JSON.parse(JSON.stringify(file)), 'table.json (as written)');
}

/**
 * table.json's text of a table (version 2; one-space indent as the writer always used), ending in a newline;
 * `protocol`, `last3` and `comparisons` only when the table has them.
 */
export function resultsTableJson(t: ResultsTable): string {
  const { format, header, command, protocol, baseline, splits, final, best, last3, comparisons, curves } = t;
  const file = {
    format,
    version: TABLE_VERSION,
    header,
    command,
    protocol,
    baseline,
    splits,
    final,
    best,
    last3,
    comparisons,
  };
  return JSON.stringify({ ...file, curves: curves ?? [] }, null, 1) + '\n';
}
