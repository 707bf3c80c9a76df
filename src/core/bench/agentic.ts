/**
 * The step time of Agentic-OPD's distillation stage next to a GRPO step's, for `npm run bench` (speed is measured
 * there, never in tests). Everything happens in the calling process: a short GRPO run from the given weights
 * (the given env and preset, by default the default env's default preset; nano, B × G, a checkpoint and a validation
 * after every step) makes a tiny teacher pool; its
 * best-validation checkpoint is the student and the others its teachers (core/run/distill.ts's choice, but without
 * refusing a student that already solves the union: LAD then distils training tasks where a teacher's own pass
 * rate beats the student group's); then the distillation stage runs with the same B and G. Both runs: seed 1,
 * evaluation off.
 */
import { DEFAULT_ENV, getEnvSpec } from '../envs/registry';
import { buildTokenizer } from '../model/policy';
import { train } from '../train/trainer';
import { addValidation, emptyValRecord, type ValRecord } from '../run/record';
import { coverage } from '../run/coverage';
import { solvedOf } from '../run/distill';
import { checkpointTeacherPool } from '../algorithms/teacher-pool';
import { parseRunConfig, type RunConfig } from '../run/config';

/** What `agenticOpdBench` measured. Times in ms (wall, mean over the steps). */
export interface AgenticOpdBench {
  /** Mean wall time of the source GRPO run's steps. */
  grpoStepMs: number;
  /** Mean wall time of the distillation stage's steps (teacher pass-rate rollouts and teacher scoring included). */
  agenticOpdStepMs: number;
  /** agenticOpdStepMs / grpoStepMs. */
  overGrpo: number;
  /** The student's and the teachers' checkpoint steps. */
  studentStep: number;
  teachers: number[];
  /** Mean LAD share over the stage's steps (fraction of trajectories distilled). */
  ladShareMean: number;
  tasksPerStep: number;
  groupSize: number;
  steps: number;
}

/** Settings of the bench (defaults in brackets). */
export interface AgenticOpdBenchOptions {
  /** tfjs backend name (reported in events). */
  backend: string;
  /** Starting weights of the GRPO run (the env's base policy for the preset, nano). */
  initWeights: Uint8Array;
  /** Environment [DEFAULT_ENV] and preset [its defaultPreset] of both runs. */
  env?: string;
  preset?: string;
  /** Steps timed in each run [3]; the GRPO run also makes one checkpoint per step. */
  steps?: number;
  /** B [4] and G [4]. */
  tasksPerStep?: number;
  groupSize?: number;
  /** Validation panel of the GRPO run: tasks [8] × episodes [2]. */
  valTasks?: number;
  valSamples?: number;
}

/**
 * Time a GRPO run and the distillation stage from its checkpoints (module comment).
 * @throws Error when `steps` < 2 (the pool needs a student and a teacher) or a run fails.
 */
export async function agenticOpdBench(o: AgenticOpdBenchOptions): Promise<AgenticOpdBench> {
  const steps = o.steps ?? 3,
    B = o.tasksPerStep ?? 4,
    G = o.groupSize ?? 4;
  if (steps < 2)
    throw new Error(`agentic-opd bench: steps must be at least 2 (a student and a teacher checkpoint), got ${steps}`);
  const base: Partial<RunConfig> = {
    env: o.env ?? DEFAULT_ENV,
    preset: o.preset ?? getEnvSpec(o.env ?? DEFAULT_ENV).defaultPreset,
    model: 'nano',
    seed: 1,
    steps,
    tasksPerStep: B,
    groupSize: G,
    miniBatches: Math.min(4, B * G),
    evalEvery: 0,
  };
  const cfg = parseRunConfig({ ...base, checkpointEvery: 1, valTasks: o.valTasks ?? 8, valSamples: o.valSamples ?? 2 });
  let val: ValRecord = emptyValRecord(cfg);
  const weights = new Map<number, Uint8Array>();
  let grpoMs = 0;
  for await (const e of train(cfg, { backend: o.backend, initWeights: o.initWeights, checkpoints: true })) {
    if (e.event === 'step') grpoMs += e.stepMs;
    else if (e.event === 'validation') val = addValidation(val, e.step, e.passRates, e.taskTypes);
    else if (e.event === 'checkpoint') weights.set(e.step, e.weights);
  }
  const best = coverage(val).best.step;
  const spec = getEnvSpec(cfg.env);
  const teachers = val.checkpoints
    .filter((c) => c.step !== best)
    .map((c) => ({ id: c.step, bytes: weights.get(c.step)!, solved: solvedOf(c.passRates) }));
  const pool = checkpointTeacherPool(teachers, val.taskTypes, spec, buildTokenizer(spec), {
    preset: cfg.preset,
    temperature: cfg.temperature,
    historyTurns: cfg.historyTurns,
    maxActionTokens: cfg.maxActionTokens,
    decoding: cfg.decoding,
    groupSize: G,
    seed: cfg.seed,
  });
  let opdMs = 0,
    lad = 0;
  try {
    const studentSolved = solvedOf(val.checkpoints.find((c) => c.step === best)!.passRates);
    for await (const e of train(
      { ...base, algo: 'agentic-opd' },
      { backend: o.backend, initWeights: weights.get(best)!, algorithmInit: { teacherPool: pool, studentSolved } },
    )) {
      if (e.event !== 'step') continue;
      opdMs += e.stepMs;
      lad += e.ladShare ?? 0;
    }
  } finally {
    pool.dispose();
  }
  const grpoStepMs = grpoMs / steps,
    agenticOpdStepMs = opdMs / steps;
  return {
    grpoStepMs,
    agenticOpdStepMs,
    overGrpo: agenticOpdStepMs / grpoStepMs,
    studentStep: best,
    teachers: pool.ids.slice(),
    ladShareMean: lad / steps,
    tasksPerStep: B,
    groupSize: G,
    steps,
  };
}
