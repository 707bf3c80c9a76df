/**
 * Coverage of a run's solved matrix (val.json, ./record.ts): per checkpoint and per task type, the tasks solved
 * (pass rate ≥ SOLVED_AT), the union over checkpoints and its gap to the best single checkpoint, forgotten tasks, and
 * the gap sampling noise alone would give (./coverage-noise.ts). `coverage` of the CLI and the page's Checkpoints view
 * print it; Agentic-OPD picks its student by it (./distill.ts). Pure.
 */
import { SOLVED_AT, RecordError, type ValRecord } from './record';
import { noiseBaseline, pooledPassRates, type NoiseBaseline } from './coverage-noise';

/** Coverage numbers of a set of val tasks (all, or one task type). Counts are tasks; rates in [0, 1]. */
export interface CoverageNumbers {
  tasks: number;
  /** Tasks solved (pass rate ≥ SOLVED_AT) at each checkpoint, in the record's step order. */
  solvedPerCheckpoint: number[];
  /** Tasks solved by the best checkpoint (the overall best, chosen on all tasks). */
  best: number;
  /** Tasks solved by at least one checkpoint. */
  union: number;
  /** Mean over tasks of the best pass rate any checkpoint reached (the oracle that picks a checkpoint per task). */
  oracleMeanPassRate: number;
  /** Tasks solved by a checkpoint before the best one and not by the best one. */
  forgotten: number;
}

/** The coverage report of a run's val.json (cli/coverage.ts prints it). */
export interface CoverageReport {
  rule: string;
  tasks: number;
  samples: number;
  checkpoints: { step: number; solved: number; meanPassRate: number }[];
  /** The checkpoint solving most tasks (ties: higher mean pass rate, then the earlier step). */
  best: { step: number; solved: number; meanPassRate: number };
  union: { solved: number; tasks: number[] };
  oracleMeanPassRate: number;
  forgotten: { count: number; tasks: number[] };
  overall: CoverageNumbers;
  byTaskType: Record<string, CoverageNumbers>;
  /**
   * The union-over-best gap sampling noise alone would give (core/run/coverage-noise.ts: every checkpoint the same
   * policy with each task's pass rate pooled over checkpoints): `atRecorded` with the record's r and K,
   * `atMoreSamples` with r = NOISE_WHAT_IF_SAMPLES (same pooled rates), to show what more validation episodes buy.
   */
  noise: { atRecorded: NoiseBaseline; atMoreSamples: NoiseBaseline };
}

/** The larger r for the coverage report's noise what-if (episodes per val task and checkpoint). */
export const NOISE_WHAT_IF_SAMPLES = 16;

/**
 * Coverage of the solved matrix: solved counts per checkpoint, the best single checkpoint, the union, the oracle
 * best-per-task mean pass rate and the tasks forgotten by the best — overall and per task type — and the gap that
 * sampling noise alone would give (`noise`).
 * @throws RecordError when the record has no checkpoint.
 */
export function coverage(v: ValRecord): CoverageReport {
  const C = v.checkpoints;
  if (C.length < 1)
    throw new RecordError(
      'val.json: no checkpoint has been validated yet (fewer than one checkpoint); train longer or with ' +
        '--checkpoint-every k',
    );
  const solved = (c: number, i: number) => C[c].passRates[i] >= SOLVED_AT;
  const all = Array.from({ length: v.tasks }, (_, i) => i);
  const meanOf = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
  const rows = C.map((c, ci) => ({
    step: c.step,
    solved: all.filter((i) => solved(ci, i)).length,
    meanPassRate: meanOf(c.passRates),
  }));
  let b = 0;
  rows.forEach((r, ci) => {
    if (r.solved > rows[b].solved || (r.solved === rows[b].solved && r.meanPassRate > rows[b].meanPassRate)) b = ci;
  });
  const numbers = (ids: number[]): CoverageNumbers => ({
    tasks: ids.length,
    solvedPerCheckpoint: C.map((_, ci) => ids.filter((i) => solved(ci, i)).length),
    best: ids.filter((i) => solved(b, i)).length,
    union: ids.filter((i) => C.some((_, ci) => solved(ci, i))).length,
    oracleMeanPassRate: meanOf(ids.map((i) => Math.max(...C.map((c) => c.passRates[i])))),
    forgotten: ids.filter((i) => !solved(b, i) && C.some((_, ci) => ci < b && solved(ci, i))).length,
  });
  const byTaskType: Record<string, CoverageNumbers> = {};
  for (const t of [...new Set(v.taskTypes)].sort()) byTaskType[t] = numbers(all.filter((i) => v.taskTypes[i] === t));
  const unionTasks = all.filter((i) => C.some((_, ci) => solved(ci, i)));
  const forgottenTasks = all.filter((i) => !solved(b, i) && C.some((_, ci) => ci < b && solved(ci, i)));
  const pooled = pooledPassRates(C.map((c) => c.passRates));
  return {
    rule:
      `a val task is solved at a checkpoint when its pass rate over ` +
      `${v.samples} episode${v.samples === 1 ? '' : 's'} is ≥ ${SOLVED_AT}`,
    tasks: v.tasks,
    samples: v.samples,
    checkpoints: rows,
    best: rows[b],
    union: { solved: unionTasks.length, tasks: unionTasks },
    oracleMeanPassRate: numbers(all).oracleMeanPassRate,
    forgotten: { count: forgottenTasks.length, tasks: forgottenTasks },
    overall: numbers(all),
    byTaskType,
    noise: {
      atRecorded: noiseBaseline(pooled, v.samples, C.length, SOLVED_AT),
      atMoreSamples: noiseBaseline(pooled, Math.max(NOISE_WHAT_IF_SAMPLES, v.samples), C.length, SOLVED_AT),
    },
  };
}
