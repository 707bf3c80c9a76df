/**
 * The page's distillation stage (Agentic-OPD (2026)) from the checkpoints the worker keeps in memory
 * (./checkpoints.ts): the best-validation checkpoint is the student, the other kept ones the teachers
 * (core/run/distill.ts `planDistillation`), one teacher resident at a time (core/algorithms/teacher-pool.ts). Worker
 * layer; the trainer gets the pool through `TrainOptions.algorithmInit`.
 */
import { getEnvSpec } from '../core/envs/registry';
import { buildTokenizer } from '../core/model/policy';
import { planDistillation, type DistillProblem } from '../core/run/distill';
import { fieldMeta, type RunConfig } from '../core/run/config';
import { checkpointTeacherPool, type CheckpointTeacherPool } from '../core/algorithms/teacher-pool';
import type { AgenticOpdRound } from '../core/algorithms/agentic-opd';
import type { CheckpointStore } from './checkpoints';

/** How to get what a refused distillation needs, in the page's words. */
export const PAGE_HOW: Record<DistillProblem, string> = {
  'empty-panel': 'set Validation tasks (Advanced) to a number of tasks, e.g. 16, and train the run again',
  'too-few-checkpoints': 'set Checkpoint every (Advanced) to fewer steps than the run has and Validation tasks above 0, then train the run (GRPO) again',
  'bad-checkpoint': 'train the run again',
  'nothing-to-distil': 'validate on more tasks (Validation tasks) or checkpoint more often (Checkpoint every) to find tasks some checkpoint solves and the best does not',
};

/** Settings a distillation stage shares with the run that made its checkpoints. */
export const SHARED_WITH_SOURCE = ['env', 'preset', 'model', 'historyTurns', 'maxActionTokens', 'decoding'] as const;

/** A distillation stage ready to configure. */
export interface PageDistillation {
  /** The run's config with algo agentic-opd. */
  config: RunConfig;
  /** The student's weights (safetensors bytes). */
  initWeights: Uint8Array;
  studentStep: number;
  /** For TrainOptions.algorithmInit: the teacher pool, the student's solved val tasks and the round callback. */
  algorithmInit: { teacherPool: CheckpointTeacherPool; studentSolved: Set<number>; onRound: (r: AgenticOpdRound) => void };
  /** The pool, to dispose when the stage's run is discarded. */
  pool: CheckpointTeacherPool;
}

/**
 * Plan a distillation stage with `config` (algo agentic-opd; its environment, preset and model must be the
 * checkpoints') from `store`. `onRound` hears of each teacher choice.
 * @throws Error saying what is needed and how to get it in the page (no validated checkpoints, fewer than two, an
 *   empty panel, nothing to distil, a checkpoint that does not fit the config).
 */
export function planPageDistillation(store: CheckpointStore, config: RunConfig, onRound: (r: AgenticOpdRound) => void): PageDistillation {
  const val = store.valRecord();
  if (!val || val.checkpoints.length === 0)
    throw new Error(`Agentic-OPD distils a run's own checkpoints, and this page holds none with a validation yet: ${PAGE_HOW['too-few-checkpoints']}, then press Distil in the Checkpoints view`);
  const source = store.config();
  for (const k of SHARED_WITH_SOURCE)
    if (source && source[k] !== config[k]) throw new Error(`the checkpoints were made with ${fieldMeta(k).label} ${String(source[k])} and the distillation asks for ${String(config[k])}: the student and its teachers keep the run's environment, prompt format and model, so set ${fieldMeta(k).label} back to ${String(source[k])}`);
  const spec = getEnvSpec(config.env);
  const tok = buildTokenizer(spec);
  const plan = planDistillation(val, store.sources(), { model: config.model, spec, tok }, PAGE_HOW);
  const pool = checkpointTeacherPool(plan.teachers, plan.taskTypes, spec, tok, {
    preset: config.preset, temperature: config.temperature, historyTurns: config.historyTurns, maxActionTokens: config.maxActionTokens,
    decoding: config.decoding, groupSize: config.groupSize, seed: config.seed,
  });
  return {
    config: { ...config, algo: 'agentic-opd' }, initWeights: plan.studentBytes, studentStep: plan.studentStep, pool,
    algorithmInit: { teacherPool: pool, studentSolved: plan.studentSolved, onRound },
  };
}
