/**
 * Data shaping of the page's Checkpoints view (pure functions, no Svelte): the solved matrix of a run's checkpoints
 * (the run record's val.json, core/run/record.ts) as a heatmap grouped by task type, the coverage bars (best single
 * checkpoint vs the union vs the oracle that picks a checkpoint per task, core `coverage()`), the tasks forgotten by
 * the best checkpoint, and a distillation stage's teacher rounds and LAD share (Agentic-OPD 2026;
 * docs/references.md#agentic-opd).
 */
import { SOLVED_AT, type ValRecord } from '../../core/run/record';
import { coverage } from '../../core/run/coverage';
import type { NoiseBaseline } from '../../core/run/coverage-noise';
import type { StepEvent } from '../../core/train/events';
import type { TeacherRoundView } from '../../worker/api';

/** The val tasks of one task type, in task order: a column group of the heatmap. */
export interface HeatmapGroup {
  type: string;
  tasks: number[];
}

/** One cell: a checkpoint's pass rate on one val task. */
export interface HeatmapCell {
  task: number;
  /** Pass rate in [0, 1] (successes / samples). */
  rate: number;
  /** rate ≥ SOLVED_AT. */
  solved: boolean;
  /** The cell in words, for hover and focus: "step 3, val task 5 (pick): pass rate 50% (1 of 2), solved". */
  label: string;
}

/** One row of the heatmap: a validated checkpoint. */
export interface HeatmapRow {
  step: number;
  /** Whether the page still holds this checkpoint's weights (it can be a teacher or the student). */
  kept: boolean;
  /** Val tasks it solved. */
  solved: number;
  /** Cells in the groups' column order. */
  cells: HeatmapCell[];
}

/** The solved matrix as a heatmap: checkpoints (rows, ascending step) × val tasks (columns, grouped by task type). */
export interface Heatmap {
  groups: HeatmapGroup[];
  rows: HeatmapRow[];
  tasks: number;
  samples: number;
}

const pct = (x: number) => `${(100 * x).toFixed(1).replace(/\.0$/, '')}%`;

/**
 * The heatmap of `val`: columns grouped by task type (types in alphabetical order, tasks ascending within a type),
 * rows by ascending step. `kept`: steps whose weights the page still holds.
 */
export function heatmap(val: ValRecord, kept: Iterable<number> = []): Heatmap {
  const keep = new Set(kept);
  const types = [...new Set(val.taskTypes)].sort();
  const groups = types.map((type) => ({ type, tasks: val.taskTypes.flatMap((t, i) => (t === type ? [i] : [])) }));
  const order = groups.flatMap((g) => g.tasks);
  const rows = val.checkpoints.map((c) => ({
    step: c.step,
    kept: keep.has(c.step),
    solved: c.passRates.filter((r) => r >= SOLVED_AT).length,
    cells: order.map((task) => {
      const rate = c.passRates[task];
      const solved = rate >= SOLVED_AT;
      return {
        task,
        rate,
        solved,
        label:
          `step ${c.step}, val task ${task} (${val.taskTypes[task]}): pass rate ${pct(rate)} ` +
          `(${Math.round(rate * val.samples)} of ${val.samples})${solved ? ', solved' : ''}`,
      };
    }),
  }));
  return { groups, rows, tasks: val.tasks, samples: val.samples };
}

/** One bar of the coverage chart; `value` in [0, 1]. */
export interface CoverageBar {
  id: 'best' | 'union' | 'oracle';
  label: string;
  value: number;
  /** The bar's number in words. */
  text: string;
}

/**
 * A coverage bar's length as a CSS width, its value's share of the full track: `0.25 → "25%"`; clamped to [0, 1]
 * (NaN → 0). The page draws every bar in one shared column (Checkpoints.svelte), so equal values give equal lengths.
 */
export function barWidth(value: number): string {
  const v = Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0;
  return `${+(100 * v).toFixed(2)}%`;
}

/** The coverage bars and the per-type numbers behind them. */
export interface CoverageBars {
  bestStep: number;
  bars: CoverageBar[];
  /** Per task type: tasks, solved by the best, solved by any (the union). */
  byType: { type: string; tasks: number; best: number; union: number }[];
  /**
   * The union-over-best gap sampling noise alone would give (core `coverage().noise`, one policy with pooled pass
   * rates), in words: observed vs expected at the record's episodes per task, and at 16.
   */
  noise: string;
}

/**
 * Best vs union vs oracle (core `coverage()`): the fraction of val tasks the best single checkpoint solves, the
 * fraction some checkpoint solves, and the oracle's mean pass rate (each task's best checkpoint).
 * @throws RecordError when `val` has no checkpoint.
 */
export function coverageBars(val: ValRecord): CoverageBars {
  const c = coverage(val);
  const of = (n: number) => (c.tasks ? n / c.tasks : 0);
  return {
    bestStep: c.best.step,
    bars: [
      {
        id: 'best',
        label: `Best checkpoint (step ${c.best.step})`,
        value: of(c.best.solved),
        text: `${c.best.solved} of ${c.tasks} val tasks solved (${pct(of(c.best.solved))})`,
      },
      {
        id: 'union',
        label: 'Union of all checkpoints',
        value: of(c.union.solved),
        text: `${c.union.solved} of ${c.tasks} val tasks solved by some checkpoint (${pct(of(c.union.solved))})`,
      },
      {
        id: 'oracle',
        label: 'Oracle (best checkpoint per task)',
        value: c.oracleMeanPassRate,
        text: `mean pass rate ${pct(c.oracleMeanPassRate)}`,
      },
    ],
    byType: Object.entries(c.byTaskType).map(([type, n]) => ({ type, tasks: n.tasks, best: n.best, union: n.union })),
    noise: noiseText(c.union.solved - c.best.solved, c.noise.atRecorded, c.noise.atMoreSamples),
  };
}

/**
 * The coverage noise line: observed gap, the gap one policy would show at r episodes per task, and at the what-if r.
 */
function noiseText(observed: number, n: NoiseBaseline, m: NoiseBaseline): string {
  const f = (x: number) => x.toFixed(1);
  const more =
    observed > 0 && m.samples !== n.samples && m.expectedGap < n.expectedGap
      ? ` With ${m.samples} episodes per task it would be ${f(m.expectedGap)}.`
      : '';
  return (
    `Union − best: ${observed} val tasks. If all ${n.checkpoints} checkpoints were one policy ` +
    `(each task's pass rate pooled over them), noise alone would give ${f(n.expectedGap)} at ${n.samples} ` +
    `episodes per task (best ${f(n.expectedBest)}, union ${f(n.expectedUnion)}).${more}`
  );
}

/** A val task the best checkpoint fails that an earlier checkpoint solved. */
export interface ForgottenTask {
  task: number;
  type: string;
  /** Earlier steps that solved it. */
  solvedAt: number[];
  /** The best checkpoint's pass rate on it. */
  bestRate: number;
}

/** The tasks forgotten by the best checkpoint (core `coverage()`'s `forgotten`), with the steps that solved them. */
export function forgottenTasks(val: ValRecord): ForgottenTask[] {
  const c = coverage(val);
  const best = val.checkpoints.find((x) => x.step === c.best.step)!;
  return c.forgotten.tasks.map((task) => ({
    task,
    type: val.taskTypes[task],
    bestRate: best.passRates[task],
    solvedAt: val.checkpoints.filter((x) => x.step < c.best.step && x.passRates[task] >= SOLVED_AT).map((x) => x.step),
  }));
}

/** A teacher round as a table row. */
export interface RoundRow {
  round: number;
  afterStep: number;
  /** "step 4" or "one per task (union)". */
  teacher: string;
  /** Every teacher's numbers in words, the chosen one first: "step 4: score 3 (gain 2, 1 type)". */
  scores: string[];
  studentSolved: number;
  nothingToLearn: boolean;
}

/** The rounds of a distillation stage as table rows (chosen teacher and the scores that chose it). */
export function roundRows(rounds: readonly TeacherRoundView[]): RoundRow[] {
  return rounds.map((r) => {
    const sorted = [...r.scores].sort((a, b) => (a.id === r.teacherId ? -1 : b.id === r.teacherId ? 1 : a.id - b.id));
    return {
      round: r.round,
      afterStep: r.afterStep,
      studentSolved: r.studentSolved,
      nothingToLearn: r.nothingToLearn,
      teacher: r.teacherId === null ? 'one per task (union)' : `step ${r.teacherId}`,
      scores: sorted.map(
        (s) =>
          `step ${s.id}: score ${+s.score.toFixed(3)} ` +
          `(gain ${s.gain}, ${s.typeCoverage} type${s.typeCoverage === 1 ? '' : 's'})`,
      ),
    };
  });
}

/** One point of the LAD-share series. */
export interface LadPoint {
  step: number;
  /** Fraction of the step's trajectories distilled, in [0, 1]. */
  ladShare: number;
  teacherId: number | null;
  /** Token mean of ℓ_student − ℓ_teacher over distilled tokens (nats). */
  reverseKl: number;
  /** Teacher episodes played this step (LAD pass rates and the union search; step event `teacherRolloutCalls` × G). */
  teacherEpisodes: number;
}

/**
 * The LAD share per step of a distillation stage (steps without Agentic-OPD fields are skipped); `groupSize` G turns
 * the step's teacher rollout calls (G episodes each) into episodes.
 */
export function ladSeries(steps: readonly StepEvent[], groupSize: number): LadPoint[] {
  return steps.flatMap((s) =>
    typeof s.ladShare === 'number'
      ? [
          {
            step: s.step,
            ladShare: s.ladShare,
            teacherId: s.teacherId ?? null,
            reverseKl: s.reverseKl ?? 0,
            teacherEpisodes: (s.teacherRolloutCalls ?? 0) * groupSize,
          },
        ]
      : [],
  );
}

/** A byte count in words: "392 kB", "3.1 MB" (powers of 1000). */
export function bytesText(n: number): string {
  if (n < 1000) return `${n} B`;
  if (n < 1e6) return `${Math.round(n / 1000)} kB`;
  return `${(n / 1e6).toFixed(1)} MB`;
}
