/**
 * `train --algo agentic-opd --from-run DIR`: the distillation stage of Agentic-OPD (2026) from a GRPO run directory
 * (src/core/run/record.ts). The student is the run's best-validation checkpoint (coverage's best: most val tasks
 * solved, ties by mean pass rate, then the earlier step); every other validated checkpoint is a frozen teacher, its
 * solved set a row of the run's solved matrix (val.json). The run directory is only read.
 */
import fs from 'node:fs';
import path from 'node:path';
import { CHECKPOINT_RE, SOLVED_AT, coverage } from '../src/core/run/record';
import type { RunConfig } from '../src/core/run/config';
import type { EnvSpec } from '../src/core/envs/types';
import type { Tokenizer } from '../src/core/tokenizer/tokenizer';
import { checkpointTeacherPool, type CheckpointTeacherPool } from '../src/core/algorithms/teacher-pool';
import { checkRunDir, readRun, readVal } from './rundir';

/** What the distillation stage starts from. */
export interface FromRun {
  /** Set when the student already solves the whole union (the stage still runs; say so). */
  warning: string | null;
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
}

/** Settings the student and the teachers must share with the run that made them. */
export const SHARED_WITH_RUN = ['env', 'preset', 'model', 'historyTurns', 'maxActionTokens', 'decoding'] as const;

/**
 * Read a GRPO run directory for the distillation stage.
 * @throws Error saying what is needed and how to get it: no such directory or run.json; fewer than two checkpoint
 *   files; no val.json (the GRPO stage needs --val-tasks n); fewer than two validated checkpoints; a checkpoint in
 *   val.json whose file is missing.
 */
export function readFromRun(dir: string, cfg: RunConfig, spec: EnvSpec, tok: Tokenizer): FromRun {
  checkRunDir(dir);
  const run = readRun(dir);
  const files = fs.readdirSync(dir).flatMap((f) => {
    const m = CHECKPOINT_RE.exec(f);
    return m ? [Number(m[1])] : [];
  }).sort((a, b) => a - b);
  if (files.length < 2)
    throw new Error(`${dir} holds ${files.length} checkpoint${files.length === 1 ? '' : 's'}; Agentic-OPD needs at least two (a student and a teacher): train the GRPO stage with --run-dir, --checkpoint-every k and --val-tasks n`);
  const val = readVal(dir);
  if (!val) throw new Error(`${dir} has no val.json (no validation results); train the GRPO stage with --val-tasks n (e.g. 64) so each checkpoint is validated`);
  const validated = val.checkpoints.filter((c) => files.includes(c.step));
  if (validated.length < 2)
    throw new Error(`${dir}: ${validated.length} checkpoint${validated.length === 1 ? ' has' : 's have'} both a file and a validation; Agentic-OPD needs at least two`);
  for (const c of val.checkpoints) if (!files.includes(c.step)) throw new Error(`${dir}: val.json validates step ${c.step} but ${path.join(dir, `ckpt-${c.step}.safetensors`)} is missing; restore the file or train the run again`);
  const cov = coverage({ ...val, checkpoints: validated });
  const solvedAt = (passRates: number[]) => new Set(passRates.flatMap((r, i) => (r >= SOLVED_AT ? [i] : [])));
  const student = validated.find((c) => c.step === cov.best.step)!;
  const studentSolved = solvedAt(student.passRates);
  const bytes = (step: number) => new Uint8Array(fs.readFileSync(path.join(dir, `ckpt-${step}.safetensors`)));
  const teachers = validated.filter((c) => c.step !== student.step).map((c) => ({ id: c.step, bytes: bytes(c.step), solved: solvedAt(c.passRates) }));
  const warning = cov.union.solved === studentSolved.size
    ? `the best checkpoint (step ${student.step}) already solves all ${studentSolved.size} val tasks any checkpoint solves (the union): the teachers have nothing to add on the panel, so only training tasks where a teacher does better are distilled — validate on more tasks (--val-tasks) or keep more checkpoints for a real pool`
    : null;
  const pool = checkpointTeacherPool(teachers, val.taskTypes, spec, tok, {
    preset: cfg.preset, temperature: cfg.temperature, historyTurns: cfg.historyTurns, maxActionTokens: cfg.maxActionTokens,
    decoding: cfg.decoding, groupSize: cfg.groupSize, seed: cfg.seed,
  });
  return { warning, studentStep: student.step, studentBytes: bytes(student.step), studentSolved, pool, runConfig: run.config, valTasks: val.tasks, valSamples: val.samples };
}
