/**
 * The distillation stage's source (Agentic-OPD 2026; docs/references.md#agentic-opd): from a run's validated
 * checkpoints and its solved matrix (val.json, ./record.ts), pick the student — coverage's best checkpoint (most val
 * tasks solved; ties by mean pass rate, then the earlier step) — and make every other validated checkpoint a frozen
 * teacher with its row of the solved matrix. Shared by the CLI (`train --algo agentic-opd --from-run DIR`, checkpoints
 * read from files) and the page's worker (checkpoints kept in memory). Pure: bytes in, plan out; no tensors are made.
 *
 * Every refusal is a `DistillSourceError` whose `code` says what is missing and whose message says what is needed;
 * callers append how to get it in their own terms (`how`).
 */
import { decodeSafetensors, checkWeights } from '../model/io';
import { envVersionMismatch } from '../model/policy';
import type { EnvSpec } from '../envs/types';
import { vocabHash, type Tokenizer } from '../tokenizer/tokenizer';
import { SOLVED_AT, type ValRecord } from './record';
import { coverage, type CoverageReport } from './coverage';
import { counted } from '../count-text';

/** One teacher checkpoint: its id (the checkpoint's step), weights (safetensors bytes) and solved validation tasks. */
export interface TeacherCheckpoint {
  id: number;
  bytes: Uint8Array;
  /** Validation tasks it solved (pass rate ≥ the run record's SOLVED_AT). */
  solved: ReadonlySet<number>;
}

/** Why a run cannot be distilled. */
export type DistillProblem = 'empty-panel' | 'too-few-checkpoints' | 'bad-checkpoint' | 'nothing-to-distil';

/** A run that cannot be distilled; `code` names the problem, the message what is needed. */
export class DistillSourceError extends Error {
  constructor(
    readonly code: DistillProblem,
    message: string,
  ) {
    super(message);
    this.name = 'DistillSourceError';
  }
}

/**
 * One checkpoint offered to the stage: its step, its policy weights (safetensors bytes) and a name for messages (a file
 * path, "checkpoint at step k").
 */
export interface SourceCheckpoint {
  step: number;
  bytes: Uint8Array;
  label: string;
}

/** What the stage starts from. */
export interface DistillPlan {
  /** The student's checkpoint step, weights and solved val tasks (pass rate ≥ SOLVED_AT). */
  studentStep: number;
  studentBytes: Uint8Array;
  studentSolved: Set<number>;
  /** Every other validated checkpoint, ascending step. */
  teachers: TeacherCheckpoint[];
  /** Task type of each val task (index = val task id). */
  taskTypes: string[];
  /** The coverage report over the validated checkpoints that have weights. */
  coverage: CoverageReport;
}

/** What the checkpoints must be: the run's model size and the code's environment (name and version) and vocabulary. */
export interface CheckpointExpect {
  model: string;
  spec: Pick<EnvSpec, 'name' | 'version'>;
  tok: Tokenizer;
}

/**
 * Check one checkpoint's weights without making tensors: safetensors that decode (model/io.ts), this vocabulary
 * (size and hash), model size `expect.model`, every value finite, and made with the current environment version.
 * @throws DistillSourceError (`bad-checkpoint`) naming `label` and what is wrong.
 */
export function checkCheckpointBytes(bytes: Uint8Array, label: string, expect: CheckpointExpect): void {
  const bad = (why: string): never => {
    throw new DistillSourceError('bad-checkpoint', `${label}: ${why}`);
  };
  let w;
  try {
    w = decodeSafetensors(bytes);
    checkWeights(w, { vocabSize: expect.tok.size, vocabHash: vocabHash(expect.tok) });
  } catch (e) {
    return bad(`${(e as Error).message} (a corrupt or foreign checkpoint)`);
  }
  const size = w.meta.modelSize;
  if (size !== expect.model)
    bad(
      `holds a ${size} model, the run's model is ${expect.model}; every checkpoint of the stage must be ` +
        `of the run's model size`,
    );
  for (const [name, v] of w.values)
    if (!v.every(Number.isFinite))
      bad(`tensor "${name}" holds NaN or Infinity values (a diverged or corrupt checkpoint)`);
  const env = envVersionMismatch(w.meta, expect.spec);
  if (env)
    bad(
      `made with environment version ${env.made}; this is ${env.current}, whose tasks differ, so its ` +
        `validation does not describe today's tasks`,
    );
}

/** The val tasks a solved-matrix row solves (pass rate ≥ SOLVED_AT), ascending. */
export function solvedOf(passRates: readonly number[]): Set<number> {
  return new Set(passRates.flatMap((r, i) => (r >= SOLVED_AT ? [i] : [])));
}

/**
 * Plan the stage from the solved matrix `val` and the checkpoints that still have weights (`checkpoints`; rows of
 * `val` without weights are left out, weights without a row too). Checks, in order: a non-empty validation panel;
 * at least two validated checkpoints with weights; every one of them readable and of the run's model, vocabulary
 * and environment version (`checkCheckpointBytes`); and that some teacher solves a val task the student does not.
 * `how` adds, per problem, how to get what is needed (the CLI names flags, the page its settings).
 * @throws DistillSourceError with the problem's code.
 */
export function planDistillation(
  val: ValRecord,
  checkpoints: readonly SourceCheckpoint[],
  expect: CheckpointExpect,
  how: Partial<Record<DistillProblem, string>> = {},
): DistillPlan {
  const fail = (code: DistillProblem, msg: string): never => {
    throw new DistillSourceError(code, how[code] ? `${msg}; ${how[code]}` : msg);
  };
  if (val.tasks === 0)
    fail(
      'empty-panel',
      'the validation panel is empty (0 val tasks): HCN chooses teachers by the val tasks each checkpoint ' +
        'solves and the student does not, so the run must validate on at least one task',
    );
  const byStep = new Map(checkpoints.map((c) => [c.step, c]));
  const validated = val.checkpoints.filter((c) => byStep.has(c.step));
  if (validated.length < 2)
    fail(
      'too-few-checkpoints',
      `${validated.length} checkpoint${validated.length === 1 ? ' has' : 's have'} both weights and a ` +
        `validation; Agentic-OPD needs at least two (a student and a teacher)`,
    );
  for (const c of validated) {
    try {
      checkCheckpointBytes(byStep.get(c.step)!.bytes, byStep.get(c.step)!.label, expect);
    } catch (e) {
      fail('bad-checkpoint', (e as Error).message);
    }
  }
  const cov = coverage({ ...val, checkpoints: validated });
  const student = validated.find((c) => c.step === cov.best.step)!;
  const studentSolved = solvedOf(student.passRates);
  if (cov.union.solved === studentSolved.size)
    fail(
      'nothing-to-distil',
      `nothing to distil: the best checkpoint (step ${student.step}) already solves all ${studentSolved.size} ` +
        `of ${counted(val.tasks, 'val task')} that any checkpoint solves (the union), so no teacher solves a task ` +
        `the student fails`,
    );
  const teachers = validated
    .filter((c) => c.step !== student.step)
    .map((c) => ({ id: c.step, bytes: byStep.get(c.step)!.bytes, solved: solvedOf(c.passRates) }));
  return {
    studentStep: student.step,
    studentBytes: byStep.get(student.step)!.bytes,
    studentSolved,
    teachers,
    taskTypes: [...val.taskTypes],
    coverage: cov,
  };
}
