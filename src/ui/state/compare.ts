/**
 * The Compare view's charts (pure; no DOM): one line per selected run on each chart, in a fixed palette, with
 * optional exponential smoothing. Rates in [0, 1]; losses and KL as the step events carry them.
 */
import type { RecordEvent } from '../../core/run/record';
import type { ChartData } from './chart-data';

/** Line colours of the compared runs, in selection order (readable on light and dark backgrounds). */
export const RUN_COLORS = [
  '#3b82f6',
  '#e8590c',
  '#22a35a',
  '#a855f7',
  '#d6336c',
  '#0ea5e9',
  '#ca8a04',
  '#64748b',
] as const;

/** The colour of the i-th compared run (cycling through RUN_COLORS). */
export function runColor(i: number): string {
  return RUN_COLORS[i % RUN_COLORS.length];
}

/**
 * Exponential moving average with bias correction (TensorBoard's smoothing): s_t = w·s_{t−1} + (1 − w)·x_t from
 * s_0 = 0, shown as s_t / (1 − w^n) after n points. Nulls stay null and do not advance it. w = 0 returns the values.
 * @throws Error when w is outside [0, 1).
 */
export function smooth(values: readonly (number | null)[], w: number): (number | null)[] {
  if (!(w >= 0 && w < 1)) throw new Error(`smoothing must be in [0, 1), got ${w}`);
  if (w === 0) return [...values];
  let s = 0,
    n = 0;
  return values.map((v) => {
    if (v === null) return null;
    s = w * s + (1 - w) * v;
    n++;
    return s / (1 - w ** n);
  });
}

/** A metric the Compare view can overlay. */
export interface CompareMetric {
  id: string;
  title: string;
  unit: string;
  /** Rates get the fixed [0, 1] range and percent formatting. */
  rate: boolean;
  /** The metric's points of one run: step → value. */
  points(events: readonly RecordEvent[]): Map<number, number>;
}

function stepMetric(field: string): CompareMetric['points'] {
  return (events) => {
    const m = new Map<number, number>();
    for (const e of events) {
      if (e.event !== 'step') continue;
      const v = (e as Record<string, unknown>)[field];
      if (typeof v === 'number') m.set(e.step, v);
    }
    return m;
  };
}

function evalMetric(split: string): CompareMetric['points'] {
  return (events) => {
    const m = new Map<number, number>();
    for (const e of events)
      if (e.event === 'eval' && Object.hasOwn(e.splits, split)) m.set(e.step, e.splits[split].successRate);
    return m;
  };
}

/** The overlaid charts, in display order. */
export const COMPARE_METRICS: readonly CompareMetric[] = [
  {
    id: 'train-success',
    title: 'Train success',
    unit: "% of the step's episodes",
    rate: true,
    points: stepMetric('successRate'),
  },
  {
    id: 'test-seen',
    title: 'Test-seen success',
    unit: '% of episodes, per evaluation',
    rate: true,
    points: evalMetric('test-seen'),
  },
  {
    id: 'test-unseen',
    title: 'Test-unseen success',
    unit: '% of episodes, per evaluation',
    rate: true,
    points: evalMetric('test-unseen'),
  },
  { id: 'reward', title: 'Outcome reward', unit: 'mean R per episode', rate: false, points: stepMetric('rewardMean') },
  {
    id: 'policy-loss',
    title: 'Policy loss',
    unit: 'PPO-clip, token-mean',
    rate: false,
    points: stepMetric('policyLoss'),
  },
  { id: 'kl', title: 'KL to reference', unit: 'k3, nats/token', rate: false, points: stepMetric('kl') },
  { id: 'entropy', title: 'Entropy', unit: 'nats/token', rate: false, points: stepMetric('entropy') },
];

/**
 * One chart of `metric` with a line per run (label = run name, colour = runColor(i)), x = the union of the runs'
 * steps, each line smoothed with weight `w` over its own points.
 */
export function compareChart(
  runs: readonly { name: string; events: readonly RecordEvent[] }[],
  metric: CompareMetric,
  w: number,
): ChartData {
  const pts = runs.map((r) => metric.points(r.events));
  const xs = [...new Set(pts.flatMap((p) => [...p.keys()]))].sort((a, b) => a - b);
  return {
    xs,
    series: runs.map((r, i) => {
      const own = smooth(
        xs.filter((x) => pts[i].has(x)).map((x) => pts[i].get(x)!),
        w,
      );
      let k = 0;
      return { label: r.name, color: runColor(i), values: xs.map((x) => (pts[i].has(x) ? own[k++] : null)) };
    }),
  };
}

/**
 * Characters of a run name shown in chart legends and the Compare view's cards and tables (the full name in a
 * title); a default name (`agentic-opd webshop-1/medium seed 12 · 2026-11-30 11:20`, 55) fits whole.
 */
export const SHORT_NAME = 64;

/**
 * A run name cut to at most `max` characters for legends and cards: a longer one keeps its first ⌈(max − 1)/2⌉
 * and last ⌊(max − 1)/2⌋ characters around `…` (the end holds what tells runs apart, e.g. the start time), e.g.
 * `shortName('grpo toy-env/easy seed 1', 11) → "grpo …eed 1"`. The view shows the whole name as the element's
 * title.
 */
export function shortName(name: string, max = SHORT_NAME): string {
  if (name.length <= max) return name;
  const tail = Math.floor((max - 1) / 2);
  return `${name.slice(0, max - 1 - tail)}…${name.slice(name.length - tail)}`;
}

/** Bytes in words: `512 B`, `1.5 kB`, `12.3 MB`, `1.20 GB` (powers of 1024). */
export function bytesText(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 ** 2) return `${(n / 1024).toFixed(1)} kB`;
  if (n < 1024 ** 3) return `${(n / 1024 ** 2).toFixed(1)} MB`;
  return `${(n / 1024 ** 3).toFixed(2)} GB`;
}
