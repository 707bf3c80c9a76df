/**
 * The Results view's data (pure; no DOM): one table per split of a results table (src/core/run/table-schema.ts) —
 * methods × (the split, its task types), mean ± standard error over seeds, and the paired difference to the baseline
 * for the whole split and for each task type — and the success curves as chart data. Rates in [0, 1].
 */
import type { MeanSe, Pick } from '../../core/run/aggregate';
import type { ResultsTable } from '../../core/run/table-schema';
import type { ChartData } from './chart-data';
import { runColor } from './compare';
import { inEnvOrder } from '../../core/envs/registry';

/** One method's row of a split's table. */
export interface SplitRow {
  method: string;
  /** Seeds the row averages over (the row's largest n). */
  seeds: number;
  /** Success on the whole split (null when the method has no evaluation of it). */
  total: MeanSe | null;
  /** Success per task type, in the order of `SplitView.taskTypes` (null where the method has none). */
  byType: (MeanSe | null)[];
  /** Paired difference to the baseline on the whole split (null for the baseline or without shared seeds). */
  diff: MeanSe | null;
  /**
   * Paired difference to the baseline per task type, in the order of `SplitView.taskTypes` (mean ± s.e. of the
   * per-seed differences over the seeds both have; null for the baseline, without shared seeds, or without the cell).
   */
  diffByType: (MeanSe | null)[];
  /** True for the baseline's own row. */
  baseline: boolean;
}

/** The table of one split. */
export interface SplitView {
  split: string;
  /** Task types with a cell in any row, in the envs' own order (core/envs/registry.ts `inEnvOrder`). */
  taskTypes: string[];
  rows: SplitRow[];
}

/** The per-split tables of `t` at its final or best evaluation, splits in the file's order. */
export function splitViews(t: ResultsTable, pick: Pick): SplitView[] {
  const rows = t[pick];
  return t.splits.map((split) => {
    const prefix = `${split}/`;
    const taskTypes = inEnvOrder(
      rows.flatMap((r) =>
        Object.keys(r.cells)
          .filter((k) => k.startsWith(prefix))
          .map((k) => k.slice(prefix.length)),
      ),
    );
    const cell = (r: (typeof rows)[number], k: string) => (Object.hasOwn(r.cells, k) ? r.cells[k] : null);
    const diff = (r: (typeof rows)[number], k: string) => (Object.hasOwn(r.diff, k) ? r.diff[k] : null);
    return {
      split,
      taskTypes,
      rows: rows.map((r) => ({
        method: r.method,
        seeds: r.seeds.length,
        total: cell(r, split),
        byType: taskTypes.map((tt) => cell(r, prefix + tt)),
        diff: diff(r, split),
        diffByType: taskTypes.map((tt) => diff(r, prefix + tt)),
        baseline: r.method === t.baseline,
      })),
    };
  });
}

/**
 * A chart per split: x = every evaluation step of any method; one line per method (mean over seeds; null where a method
 * did not evaluate). Empty when the file holds no curves.
 */
export function curveCharts(t: ResultsTable): { split: string; data: ChartData }[] {
  const curves = t.curves ?? [];
  if (!curves.length) return [];
  const xs = [...new Set(curves.flatMap((c) => c.steps))].sort((a, b) => a - b);
  return t.splits.map((split) => ({
    split,
    data: {
      xs,
      series: curves.map((c, i) => {
        const at = new Map(c.steps.map((s, j) => [s, Object.hasOwn(c.splits, split) ? c.splits[split][j] : null]));
        return { label: c.method, color: runColor(i), values: xs.map((x) => at.get(x)?.mean ?? null) };
      }),
    },
  }));
}
