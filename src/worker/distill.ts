/**
 * The page's distillation stage (Agentic-OPD 2026; docs/references.md#agentic-opd) from the checkpoints the worker
 * keeps in memory (./checkpoints.ts): the best-validation checkpoint is the student, the other kept ones the teachers
 * (core/run/distill.ts `planDistillation`), one teacher resident at a time (core/algorithms/teacher-pool.ts). Worker
 * layer; the trainer gets the pool through `TrainOptions.algorithmInit`.
 */
import { getEnvSpec } from '../core/envs/registry';
import { buildTokenizer } from '../core/model/policy';
import { planDistillation, type DistillProblem, type SourceCheckpoint } from '../core/run/distill';
import { checkpointFile, type RunRecord, type ValRecord } from '../core/run/record';
import { fieldMeta, type RunConfig } from '../core/run/config';
import { checkpointTeacherPool, type CheckpointTeacherPool } from '../core/algorithms/teacher-pool';
import { unionStartWarning, type AgenticOpdRound } from '../core/algorithms/agentic-opd';
import type { InitSource } from './api';
import type { CheckpointStore } from './checkpoints';
import { sha256Hex } from '../core/sha256';
import { distillationAlgorithm } from '../core/algorithm-catalog';

/** run.json's `fromRun` of a page distillation: `dir` is the source stored run's id (the CLI's is a directory). */
export type PageFromRun = NonNullable<RunRecord['fromRun']>;

/** How to get what a refused distillation needs, in the page's words. */
export const PAGE_HOW: Record<DistillProblem, string> = {
  'empty-panel': 'set Validation tasks (Advanced) to a number of tasks, e.g. 16, and train the run again',
  'too-few-checkpoints':
    'set Checkpoint every (Advanced) to fewer steps than the run has and Validation tasks above 0, then ' +
    'train the run (GRPO) again',
  'bad-checkpoint': 'train the run again',
  'nothing-to-distil':
    'validate on more tasks (Validation tasks) or checkpoint more often (Checkpoint every) to find tasks ' +
    'some checkpoint solves and the best does not',
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
  algorithmInit: {
    teacherPool: CheckpointTeacherPool;
    studentSolved: Set<number>;
    onRound: (r: AgenticOpdRound) => void;
  };
  /** The pool, to dispose when the stage's run is discarded. */
  pool: CheckpointTeacherPool;
  /** The teachers' checkpoint steps and weights (safetensors bytes), ascending step. */
  teachers: { id: number; bytes: Uint8Array }[];
}

/**
 * Plan a distillation stage with `config` (algo agentic-opd; its environment, preset and model must be the
 * checkpoints') from `store`. `onRound` hears of each teacher choice.
 * @throws Error saying what is needed and how to get it in the page (no validated checkpoints, fewer than two, an
 *   empty panel, nothing to distil, a checkpoint that does not fit the config).
 */
export function planPageDistillation(
  store: CheckpointStore,
  config: RunConfig,
  onRound: (r: AgenticOpdRound) => void,
): PageDistillation {
  const val = store.valRecord();
  if (!val || val.checkpoints.length === 0)
    throw new Error(
      `Agentic-OPD distils a run's own checkpoints, and this page holds none with a validation yet: ` +
        `${PAGE_HOW['too-few-checkpoints']}, then press Distil in the Checkpoints view`,
    );
  const source = store.config();
  for (const k of SHARED_WITH_SOURCE)
    if (source && source[k] !== config[k])
      throw new Error(
        `the checkpoints were made with ${fieldMeta(k).label} ${String(source[k])} and the distillation ` +
          `asks for ${String(config[k])}: the student and its teachers keep the run's environment, prompt ` +
          `format and model, so set ${fieldMeta(k).label} back to ${String(source[k])}`,
      );
  return distillationFrom(val, store.sources(), config, onRound);
}

/** The plan and teacher pool from a solved matrix and checkpoint bytes (planPageDistillation and resumes). */
function distillationFrom(
  val: ValRecord,
  sources: readonly SourceCheckpoint[],
  config: RunConfig,
  onRound: (r: AgenticOpdRound) => void,
): PageDistillation {
  const spec = getEnvSpec(config.env);
  const tok = buildTokenizer(spec);
  const plan = planDistillation(val, sources, { model: config.model, spec, tok }, PAGE_HOW);
  const pool = checkpointTeacherPool(plan.teachers, plan.taskTypes, spec, tok, {
    preset: config.preset,
    temperature: config.temperature,
    historyTurns: config.historyTurns,
    maxActionTokens: config.maxActionTokens,
    decoding: config.decoding,
    groupSize: config.groupSize,
    seed: config.seed,
  });
  return {
    config: { ...config, algo: distillationAlgorithm() },
    initWeights: plan.studentBytes,
    studentStep: plan.studentStep,
    pool,
    teachers: plan.teachers.map((t) => ({ id: t.id, bytes: t.bytes })),
    algorithmInit: { teacherPool: pool, studentSolved: plan.studentSolved, onRound },
  };
}

/**
 * What the page shows of a configured distillation's start: the student and teachers in words, and under the union
 * rule (`teacherSelect: 'union'`) the warning `unionStartWarning` gives when no teacher solves a val task of any type
 * (the CLI prints the same line at start).
 */
export function distillationInit(d: Pick<PageDistillation, 'config' | 'studentStep' | 'pool'>): InitSource {
  const n = d.pool.ids.length;
  const warning = d.config.teacherSelect === 'union' ? unionStartWarning(d.pool) : null;
  return {
    kind: 'checkpoint',
    label:
      `the best-validation checkpoint (step ${d.studentStep}), distilled from ${n} teacher ` +
      `checkpoint${n === 1 ? '' : 's'} (steps ${d.pool.ids.join(', ')})`,
    ...(warning ? { warning: `Warning: ${warning}.` } : {}),
  };
}

/**
 * sha256 of the rows of the solved matrix a stage read (its student's and teachers' steps, ascending) with the task
 * types: what a resume checks, so that a source run continued after the stage began (more rows) still matches.
 */
export async function stageValSha256(val: ValRecord, steps: readonly number[]): Promise<string> {
  const want = new Set(steps);
  const rows = val.checkpoints.filter((c) => want.has(c.step)).map((c) => ({ step: c.step, passRates: c.passRates }));
  return sha256Hex(new TextEncoder().encode(JSON.stringify({ taskTypes: val.taskTypes, rows })));
}

/**
 * The stage's `fromRun` record: the source stored run's id, the sha256 of the solved-matrix rows it read
 * (`stageValSha256`) and of its student's and teachers' checkpoint weights.
 */
export async function pageFromRun(sourceRunId: string, val: ValRecord, d: PageDistillation): Promise<PageFromRun> {
  const teachers = await Promise.all(
    d.teachers.map(async (t) => ({ step: t.id, file: checkpointFile(t.id), sha256: await sha256Hex(t.bytes) })),
  );
  return {
    dir: sourceRunId,
    valSha256: await stageValSha256(val, [d.studentStep, ...d.pool.ids]),
    student: { step: d.studentStep, file: checkpointFile(d.studentStep), sha256: await sha256Hex(d.initWeights) },
    teachers,
  };
}

/**
 * A stored distillation's stage rebuilt for Resume from its source run's stored solved matrix and checkpoints
 * (already read and checked against `fromRun` by run-resume.ts `planResume`): the same student and teachers.
 * `onRound` hears the teacher choices the resumed run makes: the algorithm, created afresh, reports a round 1 and
 * then takes the checkpoint's round from its state (core/algorithms/agentic-opd.ts: round 1 at create, none on
 * loadState), so that first report, a choice the resumed run never acts on, is not passed on.
 * @throws Error when the plan no longer picks the recorded student and teachers (a source edited since).
 */
export function resumePageDistillation(
  fromRun: PageFromRun,
  val: ValRecord,
  sources: readonly SourceCheckpoint[],
  config: RunConfig,
  onRound: (r: AgenticOpdRound) => void,
): PageDistillation {
  let created = false;
  const d = distillationFrom(val, sources, config, (r) => {
    if (created) onRound(r);
    created = true;
  });
  const want = fromRun.teachers.map((t) => t.step).join(', ');
  if (d.studentStep !== fromRun.student.step || d.pool.ids.join(', ') !== want) {
    d.pool.dispose();
    throw new Error(
      `the source run's checkpoints now give student ${d.studentStep} and teachers ${d.pool.ids.join(', ')}; ` +
        `the distillation began with student ${fromRun.student.step} and teachers ${want}; start a new ` +
        `distillation`,
    );
  }
  return d;
}
