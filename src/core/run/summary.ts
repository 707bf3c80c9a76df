/**
 * A run's line of `compare` (cli/compare.ts, the page's Compare view) from its run.json and events.jsonl
 * (./record.ts): final and best evaluations, final train and validation success, steps done of planned. Pure.
 *
 * "Best" has one meaning everywhere, the results tables' (aggregate.ts `pickEval`): the one evaluation with the
 * highest mean success over the splits (ties: the earlier), every split read from that evaluation — not each split's
 * own maximum, which may mix evaluations and beat every single checkpoint.
 */
import { pickEval, type RunEvals, type SplitResult } from './aggregate';
import type { RecordEvent, RunRecord } from './record';

/** A run's evaluations from its events, in step order, the latest line winning per step (a resume re-evaluates). */
export function evalsByStep(events: readonly RecordEvent[]): RunEvals['evals'] {
  const byStep = new Map<number, Record<string, SplitResult>>();
  for (const e of events) if (e.event === 'eval') byStep.set(e.step, e.splits as Record<string, SplitResult>);
  return [...byStep].sort((a, b) => a[0] - b[0]).map(([step, splits]) => ({ step, splits }));
}

/**
 * The steps a run is to reach, its plan: the latest `train --resume`'s steps (a resume may extend the run; run.json's
 * config keeps the steps the run started with), else the config's. `compare` shows it as steps done/planned and as
 * the `steps` setting.
 */
export function plannedSteps(run: Pick<RunRecord, 'config' | 'resumes'>): number {
  return run.resumes.at(-1)?.steps ?? run.config.steps;
}

/** Success per split of one evaluation. */
const rates = (e: RunEvals['evals'][number]) =>
  Object.fromEntries(Object.entries(e.splits).map(([s, v]) => [s, v.successRate]));

/** One run's line of `compare`. Rates in [0, 1]; null where the run has no such event. */
export interface RunSummary {
  name: string;
  /** The run's environment and preset (run.json config `env`, `preset`), as registered (core/envs/registry.ts). */
  env: string;
  preset: string;
  algo: string;
  seed: number;
  /** Last step event's step. */
  stepsDone: number;
  /** Steps the run is to reach (`plannedSteps`): the latest `train --resume`'s, else the config's. */
  stepsPlanned: number;
  /** Success per split at the last evaluation (the highest step), and its step. */
  finalEval: Record<string, number> | null;
  finalEvalStep: number | null;
  /**
   * Success per split at the best evaluation — the one with the highest mean success over the run's splits (ties:
   * the earlier), as the results tables pick it (aggregate.ts `pickEval`) — and its step.
   */
  bestEval: Record<string, number> | null;
  bestEvalStep: number | null;
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
  let lastVal: Extract<RecordEvent, { event: 'validation' }> | null = null;
  const ckpts = new Set<number>();
  let done = false;
  for (const e of events) {
    if (e.event === 'step') lastStep = e;
    else if (e.event === 'validation') lastVal = e;
    else if (e.event === 'checkpoint') ckpts.add(e.step);
    else if (e.event === 'done') done = true;
    else if (e.event === 'start') done = false;
  }
  const evals = evalsByStep(events);
  const splits = [...new Set(evals.flatMap((e) => Object.keys(e.splits)))];
  const run1: RunEvals = { method: name, seed: run.config.seed, evals };
  const last = evals.length ? pickEval(run1, 'final', splits) : null;
  const best = evals.length ? pickEval(run1, 'best', splits) : null;
  return {
    name,
    env: run.config.env,
    preset: run.config.preset,
    algo: run.config.algo,
    seed: run.config.seed,
    stepsDone: lastStep?.step ?? 0,
    stepsPlanned: plannedSteps(run),
    finalEval: last && rates(last),
    finalEvalStep: last?.step ?? null,
    bestEval: best && rates(best),
    bestEvalStep: best?.step ?? null,
    finalTrainSuccess: lastStep?.successRate ?? null,
    checkpoints: ckpts.size,
    finalValSuccess: lastVal?.successRate ?? null,
    done,
  };
}
