/**
 * `train --algo agentic-opd --from-run DIR`: the distillation stage of Agentic-OPD (2026;
 * docs/references.md#agentic-opd) from a GRPO run directory (src/core/run/record.ts). The student is the run's
 * best-validation checkpoint (coverage's best: most val tasks solved, ties by mean pass rate, then the earlier step);
 * every other validated checkpoint is a frozen teacher, its solved set a row of the run's solved matrix (val.json);
 * src/core/run/distill.ts makes the plan and its checks. The run directory is only read. The stage's own run.json
 * records DIR and the sha256 of the files it read (`FromRunRecord`), and `train --resume` refuses to continue once one
 * of them changed (`checkFromRunUnchanged`).
 *
 * Refusals (exit 2 in train, nothing written): no such directory or run.json; fewer than two checkpoint files; no
 * val.json or an empty validation panel; fewer than two validated checkpoints; a checkpoint in val.json whose file is
 * missing, corrupt, or of another model size, vocabulary or environment version; a student that already solves every
 * val task any checkpoint solves (nothing to distil).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { CHECKPOINT_RE, VAL_FILE, checkpointFile, type RunRecord } from '../src/core/run/record';
import { coverage } from '../src/core/run/coverage';
import type { NoiseBaseline } from '../src/core/run/coverage-noise';
import type { RunConfig } from '../src/core/run/config';
import type { EnvSpec } from '../src/core/envs/types';
import type { Tokenizer } from '../src/core/tokenizer/tokenizer';
import { checkpointTeacherPool, type CheckpointTeacherPool } from '../src/core/algorithms/teacher-pool';
import { planDistillation } from '../src/core/run/distill';
import { RunDirError, checkRunDir, readRun, readVal } from './rundir';

/** run.json's `fromRun`: the source directory and the sha256 of what the stage read from it. */
export type FromRunRecord = NonNullable<RunRecord['fromRun']>;

/** What the distillation stage starts from. */
export interface FromRun {
  /** The student's checkpoint step and weights (safetensors bytes). */
  studentStep: number;
  studentBytes: Uint8Array;
  /** The student's solved val tasks at its validation. */
  studentSolved: Set<number>;
  pool: CheckpointTeacherPool;
  /** The GRPO run's settings the stage must share (env, preset, model, H, action length, decoding). */
  runConfig: RunConfig;
  /** The run's validation panel: tasks and samples per task. */
  valTasks: number;
  valSamples: number;
  /** For the stage's run.json: DIR (absolute) and the sha256 of val.json, the student's and the teachers' files. */
  record: FromRunRecord;
  /**
   * The source's union − best gap (val tasks) and the gap validation noise alone gives (core/run/coverage-noise.ts).
   */
  gap: { observed: number; noise: NoiseBaseline };
}

/** Settings the student and the teachers must share with the run that made them. */
export const SHARED_WITH_RUN = ['env', 'preset', 'model', 'historyTurns', 'maxActionTokens', 'decoding'] as const;

/**
 * Hex sha256 of bytes, synchronously (node:crypto): the CLI's run directory hashes checkpoints inside synchronous
 * event handlers; src/core/sha256.ts is the asynchronous Web Crypto one for the core, the worker and the page.
 */
export function sha256(bytes: Uint8Array): string {
  return crypto.createHash('sha256').update(bytes).digest('hex');
}

const HOW = {
  'empty-panel': 'train the GRPO stage with --val-tasks n (e.g. 64) so each checkpoint is validated on n val tasks',
  'too-few-checkpoints': 'train the GRPO stage with --run-dir, --checkpoint-every k and --val-tasks n',
  'bad-checkpoint': 'restore the file from a copy, or train the GRPO stage again with this version',
  'nothing-to-distil':
    'validate on more tasks (--val-tasks) or keep more checkpoints (a smaller --checkpoint-every) to find ' +
    'tasks some checkpoint solves and the best does not',
} as const;

/**
 * Read a GRPO run directory for the distillation stage.
 * @throws Error (RunDirError, DistillSourceError) saying what is needed and how to get it: see the module comment.
 */
export function readFromRun(dir: string, cfg: RunConfig, spec: EnvSpec, tok: Tokenizer): FromRun {
  checkRunDir(dir);
  const run = readRun(dir);
  const files = fs
    .readdirSync(dir)
    .flatMap((f) => {
      const m = CHECKPOINT_RE.exec(f);
      return m ? [Number(m[1])] : [];
    })
    .sort((a, b) => a - b);
  if (files.length < 2)
    throw new RunDirError(
      `${dir} holds ${files.length} checkpoint${files.length === 1 ? '' : 's'}; Agentic-OPD needs at ` +
        `least two (a student and a teacher): ${HOW['too-few-checkpoints']}`,
    );
  const val = readVal(dir);
  if (!val) throw new RunDirError(`${dir} has no ${VAL_FILE} (no validation results); ${HOW['empty-panel']}`);
  for (const c of val.checkpoints)
    if (!files.includes(c.step))
      throw new RunDirError(
        `${dir}: ${VAL_FILE} validates step ${c.step} but ${path.join(dir, checkpointFile(c.step))} is ` +
          `missing; restore the file or train the run again`,
      );
  const read = (step: number) => new Uint8Array(fs.readFileSync(path.join(dir, checkpointFile(step))));
  const ckpts = val.checkpoints.map((c) => ({
    step: c.step,
    bytes: read(c.step),
    label: path.join(dir, checkpointFile(c.step)),
  }));
  const plan = planDistillation(val, ckpts, { model: run.config.model, spec, tok }, HOW);
  const pool = checkpointTeacherPool(plan.teachers, plan.taskTypes, spec, tok, {
    preset: cfg.preset,
    temperature: cfg.temperature,
    historyTurns: cfg.historyTurns,
    maxActionTokens: cfg.maxActionTokens,
    decoding: cfg.decoding,
    groupSize: cfg.groupSize,
    seed: cfg.seed,
  });
  const cov = coverage(val);
  const hashOf = (step: number) => ({
    step,
    file: checkpointFile(step),
    sha256: sha256(ckpts.find((c) => c.step === step)!.bytes),
  });
  const record: FromRunRecord = {
    dir: path.resolve(dir),
    valSha256: sha256(fs.readFileSync(path.join(dir, VAL_FILE))),
    student: hashOf(plan.studentStep),
    teachers: plan.teachers.map((t) => hashOf(t.id)),
  };
  return {
    studentStep: plan.studentStep,
    studentBytes: plan.studentBytes,
    studentSolved: plan.studentSolved,
    pool,
    runConfig: run.config,
    valTasks: val.tasks,
    valSamples: val.samples,
    record,
    gap: { observed: cov.union.solved - cov.best.solved, noise: cov.noise.atRecorded },
  };
}

/**
 * Check that the files a distillation stage read from its source run are unchanged (same sha256), before resuming it.
 * @throws RunDirError naming the first file that is missing or differs, and what to do.
 */
export function checkFromRunUnchanged(rec: FromRunRecord): void {
  const files = [{ file: VAL_FILE, sha256: rec.valSha256 }, rec.student, ...rec.teachers];
  for (const f of files) {
    const p = path.join(rec.dir, f.file);
    if (!fs.existsSync(p))
      throw new RunDirError(
        `the source run changed since this distillation started: ${p} is missing; restore it (the ` +
          `teachers and the solved matrix must be the ones the stage began with), or start a new ` +
          `distillation with --from-run`,
      );
    if (sha256(fs.readFileSync(p)) !== f.sha256)
      throw new RunDirError(
        `the source run changed since this distillation started: ${p} differs from the file the stage ` +
          `read (sha256 ${f.sha256.slice(0, 12)}…); restore it, or start a new distillation with ` +
          `--from-run`,
      );
  }
}
