/**
 * table.md, the Markdown text of a results table (src/core/run/table-schema.ts) that `npm run experiment -- opid-table`
 * writes next to table.json: the settings, then for each endpoint — the mean of the last three evaluations first when
 * the table has it (`last3`, the endpoint its protocol fixed), then the final and the best evaluation — a table of
 * success (mean ± standard error over seeds, per split and per split × task type, with the paired difference to the
 * baseline per split) and a table of the paired difference to the baseline per split and per task type — or, in a
 * table that names paired comparisons (`comparisons`), a table of those per split and per task type instead. Pure.
 */
import { pct, pctDiff, type Endpoint, type MeanSe, type TableRow } from './aggregate';
import type { ResultsTable } from './table-schema';
import { inEnvOrder } from '../envs/registry';

/**
 * The Δ columns: each split followed by its task types (`split/type`, in their env's order: `inEnvOrder`), splits in
 * the table's order.
 */
function diffKeys(t: ResultsTable, rows: readonly TableRow[]): string[] {
  const have = new Set(rows.flatMap((r) => Object.keys(r.cells)));
  return t.splits.flatMap((s) => [
    ...(have.has(s) ? [s] : []),
    ...inEnvOrder([...have].filter((k) => k.startsWith(`${s}/`)).map((k) => k.slice(s.length + 1))).map(
      (type) => `${s}/${type}`,
    ),
  ]);
}

/**
 * The success table's cell columns: the splits (sorted), then each split's `split/type` columns, splits sorted and
 * each split's task types in their env's order (`inEnvOrder`).
 */
function successKeys(rows: readonly TableRow[]): string[] {
  const all = [...new Set(rows.flatMap((r) => Object.keys(r.cells)))];
  const splits = all.filter((k) => !k.includes('/')).sort();
  const typed = [...new Set(all.filter((k) => k.includes('/')).map((k) => k.slice(0, k.indexOf('/'))))].sort();
  return [
    ...splits,
    ...typed.flatMap((s) =>
      inEnvOrder(all.filter((k) => k.startsWith(`${s}/`)).map((k) => k.slice(s.length + 1))).map((x) => `${s}/${x}`),
    ),
  ];
}

/** One row of a difference table: its name, the seeds it has, its paired differences per cell key. */
interface DiffRow {
  name: string;
  seeds: number;
  diff: Record<string, MeanSe | null>;
}

/**
 * The difference table of one endpoint (`pick`): the rows' differences to the baseline (every method but the
 * baseline), or the table's named comparisons (`label: method − baseline`) when it has them.
 */
function diffTable(t: ResultsTable, pick: Endpoint, evaluation: string): string[] {
  const rows = t[pick] ?? [];
  const dk = diffKeys(t, rows);
  const named = t.comparisons?.[pick];
  const [heading, first, none, diffRows]: [string, string, string, DiffRow[]] = named
    ? [
        `Paired comparisons per task type (${evaluation})`,
        'comparison',
        'No comparison has finished runs of both its methods.',
        named.map((c) => ({ name: `${c.label}: ${c.method} − ${c.baseline}`, seeds: c.seeds.length, diff: c.diff })),
      ]
    : [
        `Δ vs ${t.baseline} per task type, paired over seeds (${evaluation})`,
        'method',
        `No method besides ${t.baseline} has finished runs.`,
        rows
          .filter((r) => r.method !== t.baseline)
          .map((r) => ({ name: r.method, seeds: r.seeds.length, diff: r.diff })),
      ];
  const cell = (r: DiffRow, k: string) => pctDiff(Object.hasOwn(r.diff, k) ? r.diff[k] : null, r.seeds);
  return [
    `### ${heading}`,
    '',
    ...(diffRows.length
      ? [
          `| ${first} | seeds | ${dk.join(' | ')} |`,
          `|---|---|${dk.map(() => '---|').join('')}`,
          ...diffRows.map((r) => `| ${r.name} | ${r.seeds} | ${dk.map((k) => cell(r, k)).join(' | ')} |`),
        ]
      : [none]),
    '',
  ];
}

/** The section heading of each endpoint in table.md (its text before ` (` names it in the difference table's). */
const HEADINGS: Record<Endpoint, string> = {
  last3: 'Mean of the last three evaluations (per run, step 0 excluded; the endpoint)',
  final: 'Final evaluation',
  best: 'Best evaluation (the same episodes chose it: optimistic)',
};

/**
 * The Markdown of `t` under the heading `# <title>`: the header lines as a list, then per endpoint (`last3` first when
 * the table has it, then final and best; HEADINGS) the success table (columns: method, seeds, every split, every
 * `split/type`, then `Δ vs <baseline> <split>` per split) and the difference table (`Δ vs <baseline>, paired over
 * seeds`: every method but the baseline; columns: method, seeds, each split followed by its task types; with named
 * comparisons, `Paired comparisons`: one row each, the same columns). Success and differences in percent points,
 * `mean ± s.e.`; a difference paired over fewer seeds than its row has says how many (`+20.0 ± 10.0 (2 seeds)`);
 * `—` where there is none. Ends with one newline.
 */
export function resultsTableMarkdown(t: ResultsTable, title: string): string {
  const keys = successKeys([...t.final, ...(t.last3 ?? [])]);
  const base = t.baseline;
  const cell = (r: TableRow, k: string) => pctDiff(Object.hasOwn(r.diff, k) ? r.diff[k] : null, r.seeds.length);
  const values = (r: TableRow) => keys.map((k) => pct(Object.hasOwn(r.cells, k) ? r.cells[k] : null)).join(' | ');
  const tables = (pick: Endpoint) => [
    `## ${HEADINGS[pick]}`,
    '',
    `| method | seeds | ${keys.join(' | ')} | ${t.splits.map((s) => `Δ vs ${base} ${s}`).join(' | ')} |`,
    `|---|---|${keys.map(() => '---|').join('')}${t.splits.map(() => '---|').join('')}`,
    ...(t[pick] ?? []).map(
      (r) => `| ${r.method} | ${r.seeds.length} | ${values(r)} | ${t.splits.map((s) => cell(r, s)).join(' | ')} |`,
    ),
    '',
    ...diffTable(t, pick, HEADINGS[pick].split(' (')[0].toLowerCase()),
  ];
  return (
    [
      `# ${title}`,
      '',
      ...t.header.map((h) => `- ${h}`),
      '',
      `Success in %, mean ± standard error over seeds; Δ: paired difference to ${base} in percent ` +
        `points, mean ± standard error of the per-seed differences over the seeds both have (the number of ` +
        `seeds is given where it is fewer than the row's; a value over one seed has no standard error and says ` +
        '`(1 seed)`).' +
        (t.comparisons ? ' Paired comparisons: `method − baseline` of the two methods named, the same way.' : '') +
        (t.last3
          ? ' Last three: per run, the mean success of its last three evaluations after step 0 (of those it has, ' +
            'when fewer), per split and per task type; then over seeds the same way.'
          : ''),
      '',
      ...(t.last3 ? tables('last3') : []),
      ...tables('final'),
      ...tables('best'),
    ]
      .join('\n')
      .trimEnd() + '\n'
  );
}
