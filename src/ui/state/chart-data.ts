/**
 * Turns the run's events into chart series (pure; no DOM). Steps are 1-based; evaluations may sit at step 0
 * (before training), so the success chart's x axis is the union of both.
 */
import type { EvalEvent, StepEvent } from '../../core/train/events';

/** One line: its label, CSS colour and one value per x (null = no point at that x). */
export interface ChartSeries {
  label: string;
  color: string;
  values: (number | null)[];
}

/** Data of one chart: ascending x (training steps) and its lines. */
export interface ChartData {
  xs: number[];
  series: ChartSeries[];
}

/** Colours readable on light and dark backgrounds (canvas cannot read CSS variables). */
export const COLORS = ['#3b82f6', '#22a35a', '#e8590c'] as const;

/** Success rate: train (per step), test-seen and test-unseen (per evaluation); rates in [0, 1]. */
export function successChart(steps: StepEvent[], evals: EvalEvent[]): ChartData {
  const xs = [...new Set([...steps.map((s) => s.step), ...evals.map((e) => e.step)])].sort((a, b) => a - b);
  const at = new Map(xs.map((x, i) => [x, i]));
  const train: (number | null)[] = xs.map(() => null);
  const seen: (number | null)[] = xs.map(() => null);
  const unseen: (number | null)[] = xs.map(() => null);
  for (const s of steps) train[at.get(s.step)!] = s.successRate;
  for (const e of evals) {
    seen[at.get(e.step)!] = e.splits['test-seen']?.successRate ?? null;
    unseen[at.get(e.step)!] = e.splits['test-unseen']?.successRate ?? null;
  }
  return {
    xs,
    series: [
      { label: 'train', color: COLORS[0], values: train },
      { label: 'test-seen', color: COLORS[1], values: seen },
      { label: 'test-unseen', color: COLORS[2], values: unseen },
    ],
  };
}

/**
 * The x (step) range of a live chart, as uPlot's x-scale `range` function: the data's [min, max] (uPlot's own numeric
 * x range; a single point comes widened by uPlot), and [0, 1] when the chart has no points. uPlot's own range keeps
 * the last drawn one for no points, so after Reset the empty charts would still span the discarded run's steps.
 */
export function stepRange(_u: unknown, min: number | null, max: number | null): [number, number] {
  return min == null || max == null ? [0, 1] : [min, max];
}

/**
 * Spread, relative to the values' magnitude, at or below which a line counts as flat. uPlot's nice range rounds a
 * spread this small (e.g. a teacher share of 0.99999997 then 0.99999998) to a zero-width scale, on which its axis
 * ticks never end (RangeError: Invalid array length, and the chart stops drawing).
 */
const FLAT_SPREAD = 1e-6;

/**
 * The y range of a live chart without a fixed range, as uPlot's y-scale `range` function given `nice` (uPlot.rangeNum
 * with 10 % padding): [0, 1] without data; a flat line, or one whose values differ by at most FLAT_SPREAD of their
 * magnitude, gets a band of ±10 % (at least ±0.001) around its middle; otherwise `nice(min, max)`, unless that comes
 * back no wider than a flat line, when the band is used too. Either is cut at 0 when every value is ≥ 0 (a line flat
 * at 0 gets [0, 0.001]).
 */
export function valueRange(
  min: number | null,
  max: number | null,
  nice: (min: number, max: number) => [number, number],
): [number, number] {
  if (min == null || max == null) return [0, 1];
  // Values all ≥ 0 (fractions, rates, entropy, KL …) get no range below 0: a line flat at 0 reads 0, not "-0.1 %".
  const floor = (lo: number) => (min >= 0 ? Math.max(0, lo) : lo);
  const flat = (lo: number, hi: number) => !(hi - lo > Math.max(Math.abs(min), Math.abs(max)) * FLAT_SPREAD);
  if (!flat(min, max)) {
    const [lo, hi] = nice(min, max);
    if (!flat(lo, hi)) return [floor(lo), hi];
  }
  const mid = (min + max) / 2;
  const pad = Math.max(Math.abs(mid) * 0.1, 1e-3);
  return [floor(mid - pad), mid + pad];
}

/** One step metric as a single-line chart. */
export function metricChart(
  steps: StepEvent[],
  label: string,
  pick: (s: StepEvent) => number,
  color: string = COLORS[0],
): ChartData {
  return { xs: steps.map((s) => s.step), series: [{ label, color, values: steps.map(pick) }] };
}

/**
 * Analyzer calls (requests; heuristic: rollouts analysed) and failures (rollouts whose analysis failed, so they got
 * no skill signal) per step; counts. Events without the fields count as 0.
 */
export function analyzerChart(steps: StepEvent[]): ChartData {
  return {
    xs: steps.map((s) => s.step),
    series: [
      { label: 'calls', color: COLORS[0], values: steps.map((s) => s.analyzerCalls ?? 0) },
      { label: 'failures', color: COLORS[2], values: steps.map((s) => s.analyzerFailures ?? 0) },
    ],
  };
}

/** One row of a chart's value table: its step and the index of that step in the chart's xs. */
export interface TableRow {
  x: number;
  i: number;
}

/**
 * The rows of a chart's value table: the last `n` steps, and before them the first step when the table would leave it
 * out and some line has a value there (the step-0 evaluation the chart draws, the run's starting point).
 */
export function tableRows(data: ChartData, n: number): TableRow[] {
  const from = Math.max(0, data.xs.length - n);
  const rows = data.xs.slice(from).map((x, k) => ({ x, i: from + k }));
  if (from > 0 && data.series.some((s) => s.values[0] != null)) rows.unshift({ x: data.xs[0], i: 0 });
  return rows;
}
