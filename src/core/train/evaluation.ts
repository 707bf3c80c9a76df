/**
 * The trainer's evaluations (core/train/trainer.ts): the step-0 and every-`evalEvery` evaluation on test-seen and
 * test-unseen (`eval/<step>` stream), in this thread or as split jobs for other threads (rollout/eval-job.ts), and the
 * validation at a checkpoint on the val split (`val/<step>` stream).
 */
import type { Rng } from '../rng';
import type { RunConfig } from '../run/config';
import type { EnvSpec, TaskRef } from '../envs/types';
import { savePolicy, type PolicyHandle } from '../model/policy';
import { runEpisodes } from '../rollout/runner';
import { evaluatePolicy } from '../rollout/evaluate';
import { episodeSkillTable, type EvalJob, type Evaluator } from '../rollout/eval-job';
import type { EvalEvent, ValidationEvent } from './events';
import { mean, type AlgorithmState, type StepHooks } from './step';
import { now } from '../clock';

/**
 * Validation at a checkpoint: val tasks 0..valTasks−1, each played valSamples times (episodes task-major) in one
 * batch at the eval temperature from the `val/<step>` stream, with the algorithm's episode skill as in evaluation.
 */
export async function validationEvent(
  policy: PolicyHandle,
  spec: EnvSpec,
  cfg: RunConfig,
  root: Rng,
  step: number,
  skill: AlgorithmState,
): Promise<ValidationEvent> {
  const t = now();
  const r = cfg.valSamples;
  const refs: TaskRef[] = [];
  for (let i = 0; i < cfg.valTasks; i++) for (let k = 0; k < r; k++) refs.push({ split: 'val', index: i });
  const roll = await runEpisodes(policy, spec, cfg.preset, refs, {
    decoding: cfg.decoding,
    temperature: cfg.evalTemperature,
    historyTurns: cfg.historyTurns,
    maxActionTokens: cfg.maxActionTokens,
    rng: root.fork(`val/${step}`),
    episodeSkill: skill.algo.episodeSkill ? (_i, type) => skill.algo.episodeSkill!(type) : undefined,
  });
  const passRates: number[] = [],
    taskTypes: string[] = [];
  for (let i = 0; i < cfg.valTasks; i++) {
    const g = roll.trajectories.slice(i * r, (i + 1) * r);
    passRates.push(g.filter((x) => x.success).length / r);
    taskTypes.push(g[0].taskType);
  }
  return {
    event: 'validation',
    step,
    samples: r,
    passRates,
    taskTypes,
    successRate: mean(passRates),
    valMs: now() - t,
  };
}

/** The splits every evaluation plays, in this order. */
export const EVAL_SPLITS = ['test-seen', 'test-unseen'] as const;

/**
 * Evaluation on test-seen and test-unseen (the first evalEpisodes tasks each) at the eval temperature, `eval/<step>`
 * stream.
 * @throws RunCancelled when `hooks.cancel` is set at a turn (nothing to undo: evaluation changes no state).
 */
export async function evalEvent(
  policy: PolicyHandle,
  spec: EnvSpec,
  cfg: RunConfig,
  root: Rng,
  step: number,
  skill: AlgorithmState,
  hooks: StepHooks,
): Promise<EvalEvent> {
  const t = now();
  const r = await evaluatePolicy(policy, spec, {
    preset: cfg.preset,
    splits: EVAL_SPLITS,
    episodes: cfg.evalEpisodes,
    temperature: cfg.evalTemperature,
    decoding: cfg.decoding,
    historyTurns: cfg.historyTurns,
    maxActionTokens: cfg.maxActionTokens,
    rng: root.fork(`eval/${step}`),
    // An algorithm that puts skills in the prompt (Skill-GRPO) evaluates with them, as it acts at rollout.
    episodeSkillFor: skill.algo.episodeSkill ? (type) => skill.algo.episodeSkill!(type) : undefined,
    cancel: hooks.cancel,
    onTurn:
      hooks.onProgress &&
      ((done, total, fraction) => hooks.onProgress!({ phase: 'eval', step, done, total, unit: 'episodes', fraction })),
  });
  return { event: 'eval', step, splits: r.splits, evalMs: now() - t };
}

/** An evaluation's split jobs and the weights they play, read from the policy and the algorithm now. */
export interface EvalJobs {
  step: number;
  jobs: EvalJob[];
  weights: Uint8Array;
}

/**
 * The jobs of `evalEvent`'s evaluation (the same tasks, settings, `eval/<step>` stream forked per split, and the
 * algorithm's episode skills as they are now) and the policy's current weights as bytes.
 */
export async function evalJobs(
  policy: PolicyHandle,
  spec: EnvSpec,
  cfg: RunConfig,
  step: number,
  skill: AlgorithmState,
  envVersions: Record<string, string>,
): Promise<EvalJobs> {
  const episodeSkills = skill.algo.episodeSkill
    ? episodeSkillTable(spec, cfg.preset, (type) => skill.algo.episodeSkill!(type))
    : null;
  const jobs = EVAL_SPLITS.map((split): EvalJob => ({
    env: cfg.env,
    preset: cfg.preset,
    split,
    firstTask: 0,
    episodes: cfg.evalEpisodes,
    temperature: cfg.evalTemperature,
    decoding: cfg.decoding,
    historyTurns: cfg.historyTurns,
    maxActionTokens: cfg.maxActionTokens,
    seed: cfg.seed,
    streams: [`eval/${step}`, split],
    hints: 'none',
    episodeSkills,
  }));
  return { step, jobs, weights: await savePolicy(policy, cfg.model, envVersions) };
}

/**
 * `evalEvent` in other threads: the split jobs run by `evaluator` at once; the same event (evalMs: their wall time).
 */
export async function threadedEvalEvent(e: EvalJobs, evaluator: Evaluator): Promise<EvalEvent> {
  const t = now();
  const r = await Promise.all(e.jobs.map((j) => evaluator(j, e.weights)));
  const splits: EvalEvent['splits'] = {};
  e.jobs.forEach((j, i) => (splits[j.split] = r[i].eval));
  return { event: 'eval', step: e.step, splits, evalMs: now() - t };
}
