/**
 * table.md, the Markdown text of a results table (src/core/run/table-schema.ts) that `npm run experiment -- opid-table`
 * writes next to table.json: the settings, then for the final and for the best evaluation a table of success (mean ±
 * standard error over seeds, per split and per split × task type, with the paired difference to the baseline per
 * split) and a table of the paired difference to the baseline per split and per task type. Pure.
 */
import { pct, pctDiff, type TableRow } from './aggregate';
import type { ResultsTable } from './table-schema';

/** The Δ columns: each split followed by its task types (`split/type`, sorted), splits in the table's order. */
function diffKeys(t: ResultsTable, rows: readonly TableRow[]): string[] {
  const have = new Set(rows.flatMap((r) => Object.keys(r.cells)));
  return t.splits.flatMap((s) => [
    ...(have.has(s) ? [s] : []),
    ...[...have].filter((k) => k.startsWith(`${s}/`)).sort(),
  ]);
}

/**
 * The Markdown of `t` under the heading `# <title>`: the header lines as a list, then per evaluation (final, best) the
 * success table (columns: method, seeds, every split, every `split/type`, then `Δ vs <baseline> <split>` per split)
 * and the difference table (`Δ vs <baseline>, paired over seeds`: every method but the baseline; columns: method,
 * seeds, each split followed by its task types). Success and differences in percent points, `mean ± s.e.`; a
 * difference paired over fewer seeds than its row has says how many (`+20.0 ± 10.0 (2 seeds)`); `—` where there is
 * none. Ends with one newline.
 */
export function resultsTableMarkdown(t: ResultsTable, title: string): string {
  const keys = [...new Set(t.final.flatMap((r) => Object.keys(r.cells)))].sort(
    (a, b) => a.split('/').length - b.split('/').length || a.localeCompare(b),
  );
  const base = t.baseline;
  const cell = (r: TableRow, k: string) => pctDiff(Object.hasOwn(r.diff, k) ? r.diff[k] : null, r.seeds.length);
  const values = (r: TableRow) => keys.map((k) => pct(Object.hasOwn(r.cells, k) ? r.cells[k] : null)).join(' | ');
  const tables = (rows: TableRow[], title: string) => {
    const dk = diffKeys(t, rows);
    const others = rows.filter((r) => r.method !== base);
    return [
      `## ${title}`,
      '',
      `| method | seeds | ${keys.join(' | ')} | ${t.splits.map((s) => `Δ vs ${base} ${s}`).join(' | ')} |`,
      `|---|---|${keys.map(() => '---|').join('')}${t.splits.map(() => '---|').join('')}`,
      ...rows.map(
        (r) => `| ${r.method} | ${r.seeds.length} | ${values(r)} | ${t.splits.map((s) => cell(r, s)).join(' | ')} |`,
      ),
      '',
      `### Δ vs ${base} per task type, paired over seeds (${title.split(' (')[0].toLowerCase()})`,
      '',
      ...(others.length
        ? [
            `| method | seeds | ${dk.join(' | ')} |`,
            `|---|---|${dk.map(() => '---|').join('')}`,
            ...others.map((r) => `| ${r.method} | ${r.seeds.length} | ${dk.map((k) => cell(r, k)).join(' | ')} |`),
          ]
        : [`No method besides ${base} has finished runs.`]),
      '',
    ];
  };
  return (
    [
      `# ${title}`,
      '',
      ...t.header.map((h) => `- ${h}`),
      '',
      `Success in %, mean ± standard error over seeds; Δ: paired difference to ${base} in percent ` +
        `points, mean ± standard error of the per-seed differences over the seeds both have (the number of ` +
        `seeds is given where it is fewer than the row's).`,
      '',
      ...tables(t.final, 'Final evaluation'),
      ...tables(t.best, 'Best evaluation (the same episodes chose it: optimistic)'),
    ]
      .join('\n')
      .trimEnd() + '\n'
  );
}
