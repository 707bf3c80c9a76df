/**
 * A run's line of `compare` (cli/compare.ts, the page's Compare view) from its run.json and events.jsonl
 * (./record.ts): final and best evaluations, final train and validation success, steps done of planned. Pure.
 */
import type { RecordEvent, RunRecord } from './record';

/** One run's line of `compare`. Rates in [0, 1]; null where the run has no such event. */
export interface RunSummary {
  name: string;
  algo: string;
  seed: number;
  /** Last step event's step. */
  stepsDone: number;
  /** Steps the run is to reach: the latest `train --resume`'s (which may extend the run), else the config's. */
  stepsPlanned: number;
  /** Success per split at the last evaluation, and its step. */
  finalEval: Record<string, number> | null;
  finalEvalStep: number | null;
  /** Highest success per split over all evaluations (each split's own maximum). */
  bestEval: Record<string, number> | null;
  /** The last step's training success rate. */
  finalTrainSuccess: number | null;
  /** Checkpoints recorded, and the last validation's mean pass rate. */
  checkpoints: number;
  finalValSuccess: number | null;
  done: boolean;
}

/** Summarise a run for `compare` from its run.json and events.jsonl (the latest line wins per step). */
export function summarizeRun(name: string, run: RunRecord, events: readonly RecordEvent[]): RunSummary {
  let lastStep: Extract<RecordEvent, { event: 'step' }> | null = null;
  let lastEval: Extract<RecordEvent, { event: 'eval' }> | null = null;
  let lastVal: Extract<RecordEvent, { event: 'validation' }> | null = null;
  const best: Record<string, number> = {};
  const ckpts = new Set<number>();
  let done = false;
  for (const e of events) {
    if (e.event === 'step') lastStep = e;
    else if (e.event === 'eval') {
      lastEval = e;
      for (const [s, v] of Object.entries(e.splits)) best[s] = Math.max(best[s] ?? 0, v.successRate);
    } else if (e.event === 'validation') lastVal = e;
    else if (e.event === 'checkpoint') ckpts.add(e.step);
    else if (e.event === 'done') done = true;
    else if (e.event === 'start') done = false;
  }
  return {
    name,
    algo: run.config.algo,
    seed: run.config.seed,
    stepsDone: lastStep?.step ?? 0,
    stepsPlanned: run.resumes.at(-1)?.steps ?? run.config.steps,
    finalEval: lastEval
      ? Object.fromEntries(Object.entries(lastEval.splits).map(([s, v]) => [s, v.successRate]))
      : null,
    finalEvalStep: lastEval?.step ?? null,
    bestEval: lastEval ? best : null,
    finalTrainSuccess: lastStep?.successRate ?? null,
    checkpoints: ckpts.size,
    finalValSuccess: lastVal?.successRate ?? null,
    done,
  };
}
