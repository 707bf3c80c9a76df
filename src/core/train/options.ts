/**
 * The options of `train` (core/train/trainer.ts) that are not part of the run config: the backend's name, starting
 * or resumed weights, the analyzer, cancellation and progress, checkpoints, step details and evaluation threads.
 */
import type { PolicyHandle } from '../model/policy';
import type { Analyzer } from '../analyzer/types';
import type { CancelSignal, ProgressSink } from '../cancel';
import type { StepDetail } from './step-detail';
import type { Evaluator } from '../rollout/eval-job';

/** Options of `train` that are not part of the run config. */
export interface TrainOptions {
  /** Name of the active tfjs backend (reported in the start event). */
  backend: string;
  /** Set `aborted` to stop after the current step (the generator then returns without a `done` event). */
  signal?: { aborted: boolean };
  /** Called with the live policy once built (e.g. to save weights at the end, before the generator finishes). */
  onPolicy?: (p: PolicyHandle) => void;
  /** Start from these weights (safetensors bytes) instead of a fresh init; must match the config's model size. */
  initWeights?: Uint8Array;
  /**
   * The analyzer for `opid` / `skill-grpo`. Default: built from the config (`heuristic`, `http` with
   * `analyzerApiKey`, or the privileged `oracle` from the config's env and preset). Tests inject their own.
   */
  analyzer?: Analyzer;
  /** API key for the http analyzer; never stored in the config, a link, an export or a log. */
  analyzerApiKey?: string;
  /** Add `phaseMs` (where each step's wall time went) to step events. Default false. */
  profile?: boolean;
  /**
   * Yield `validation` (config.valTasks > 0) and `checkpoint` events every config.checkpointEvery steps and at the
   * last step (checkpointEvery 0: none). Default false (the page keeps no run directory).
   */
  checkpoints?: boolean;
  /**
   * Continue from a checkpoint event's bytes (`weights`, `state`) of a run with this same config (`steps` may be
   * larger): training goes on at step k + 1 without the step-0 evaluation. `initWeights` is then ignored.
   * @throws (from `train`) Error when the state file is corrupt, belongs to another seed or algorithm state, or k ≥
   * steps.
   */
  resume?: { weights: Uint8Array; state: Uint8Array };
  /**
   * What the config's algorithm needs besides the config, passed to its `create` (Agentic-OPD: `teacherPool`, the
   * run's other checkpoints, and `studentSolved`, the student's solved validation tasks; algorithms/agentic-opd.ts).
   */
  algorithmInit?: Readonly<Record<string, unknown>>;
  /**
   * Pause or stop within seconds (core/cancel.ts): checked before every lockstep turn of a rollout or evaluation,
   * between a step's phases and before every mini-batch. Once set, the step or evaluation in progress is discarded
   * whole — weights, Adam state and the algorithm's state put back, its random streams unused — and the generator
   * yields an `interrupted` event. Pulling again (with the signal cleared) redoes it, so the step events equal an
   * uninterrupted run's. Costs one copy of the weights and Adam moments per step while it is given.
   */
  cancel?: CancelSignal;
  /** Progress of evaluations, rollouts and updates (core/cancel.ts `PhaseProgress`), after every turn or mini-batch. */
  onProgress?: ProgressSink;
  /**
   * Yield the step-0 evaluation after step 1's `step` and `trajectories` events instead of before step 1, so the first
   * trajectories come sooner. Its numbers do not change: it plays the frozen reference policy (the initial weights)
   * with the algorithm's state as before step 1 and the same `eval/0` stream. Ignored when resuming. Default false.
   */
  initialEvalAfterFirstStep?: boolean;
  /** Called with every group of each completed step (core/train/step-detail.ts), just before its `step` event. */
  onStepDetail?: (d: StepDetail) => void;
  /**
   * Evaluate in other threads (the CLI's worker threads, cli/eval-pool.ts): each evaluation becomes one `EvalJob` per
   * split (rollout/eval-job.ts) with the weights as `savePolicy` bytes, and step k + 1 trains while step k's evaluation
   * runs. The events, their numbers and their order are those of evaluating in this thread: step k's `eval` event still
   * comes before step k + 1's `step` event (and before a checkpoint of step k). Ignored with `cancel` (evaluation then
   * stays in this thread, where it can be cut).
   */
  evaluator?: Evaluator;
  /**
   * With `evaluator`: train step k + 1 while step k's evaluation runs (default true). The policy given to `onPolicy`
   * has then moved on to step k + 1 when step k's `eval` event arrives, so a caller that saves the weights at an `eval`
   * event (train --save-best) passes false: the splits still run in parallel, and step k + 1 waits for them.
   */
  evalOverlap?: boolean;
}
