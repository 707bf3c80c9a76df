/**
 * One split's evaluation as plain data (an `EvalJob`), so that it can run anywhere the policy's weights can be loaded
 * — in this thread or in another one (the CLI's worker threads, cli/eval-pool.ts) — with the same numbers.
 *
 * A job names everything the episodes depend on: the tasks (split, first index, count), the decoding settings, the
 * random stream (`Rng(seed)` forked by each label of `streams` in turn) and what goes into the prompts (hints, the
 * algorithm's episode skill per task type). The weights travel separately, as `savePolicy`'s safetensors bytes
 * (model/policy.ts), which hold float32 values exactly.
 *
 * The trainer's evaluation at step s (rollout/evaluate.ts `evaluatePolicy` with the `eval/<s>` stream) is, split by
 * split, the job `{ split, firstTask: 0, streams: ['eval/<s>', split] }`: `evaluatePolicy` forks each split's stream
 * by its name, so the splits are independent and can run in parallel.
 */
import { hintHooks, type HintMode } from '../envs/expert-hints';
import type { EnvSpec, Split } from '../envs/types';
import { Rng } from '../rng';
import { runEpisodes, type RolloutOptions } from './runner';
import { summarize, type SplitEval } from './evaluate';
import type { PolicyHandle } from '../model/policy';
import type { Trajectory } from './types';

/** One split's evaluation, as plain (structured-clonable) data. */
export interface EvalJob {
  /** Environment name (envs/registry.ts). */
  env: string;
  preset: string;
  split: Split;
  /** Tasks firstTask .. firstTask + episodes − 1 of the split, one episode each. */
  firstTask: number;
  episodes: number;
  /** Sampling temperature T > 0. */
  temperature: number;
  decoding: RolloutOptions['decoding'];
  /** H: past turns in the prompt. */
  historyTurns: number;
  /** Longest action sampled (tokens). */
  maxActionTokens: number;
  /** Seed of the root generator. */
  seed: number;
  /** Labels forked in order off `Rng(seed)` to get the episodes' stream ([] = `Rng(seed)` itself). */
  streams: string[];
  /** Correct hints from the expert oracle (hint-following measurement, envs/expert-hints.ts). */
  hints: HintMode;
  /** The algorithm's episode skill per task type at this evaluation (Skill-GRPO's memory), or null for none. */
  episodeSkills: Record<string, string> | null;
}

/** One episode of a job, as the CLI prints it. */
export interface EpisodeSummary {
  index: number;
  taskType: string;
  success: boolean;
  /** Sum of the environment's rewards. */
  reward: number;
  /** Environment steps taken. */
  steps: number;
  /** The numbers the env reported besides the reward (Trajectory.metrics, e.g. `{em, f1, subEm}`); absent: none. */
  metrics?: Record<string, number>;
}

/** One episode as the CLI prints it (EpisodeSummary), with its metrics when the env reported any. */
export function episodeSummary(t: Trajectory): EpisodeSummary {
  return {
    index: t.ref.index,
    taskType: t.taskType,
    success: t.success,
    reward: t.reward,
    steps: t.steps.length,
    ...(t.metrics ? { metrics: { ...t.metrics } } : {}),
  };
}

/** What a job returns: the split's success summary, the tokens through the model and every episode in task order. */
export interface EvalJobResult {
  eval: SplitEval;
  tokens: number;
  episodes: EpisodeSummary[];
}

/**
 * Runs a job on a policy built elsewhere (e.g. in a worker thread): one thread runs one job at a time. `weights` are
 * `savePolicy`'s bytes; the evaluator loads them, plays the job and returns its result.
 * @throws Error from loading the weights or from the environment.
 */
export type Evaluator = (job: EvalJob, weights: Uint8Array) => Promise<EvalJobResult>;

/** The episode skill of every task type of the env's preset, from `episodeSkill` (absent types are left out). */
export function episodeSkillTable(
  spec: EnvSpec,
  preset: string,
  episodeSkill: (taskType: string) => string | undefined,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const type of spec.taskTypes(preset)) {
    const s = episodeSkill(type);
    if (s !== undefined) out[type] = s;
  }
  return out;
}

/**
 * Play a job with `policy` in this thread. The same job gives the same result wherever it runs on the same tfjs
 * backend (test/cli/eval-pool.test.ts).
 * @throws Error from the environment on a task index out of range.
 */
export async function runEvalJob(policy: PolicyHandle, spec: EnvSpec, job: EvalJob): Promise<EvalJobResult> {
  let rng = new Rng(job.seed);
  for (const label of job.streams) rng = rng.fork(label);
  const refs = Array.from({ length: job.episodes }, (_, i) => ({ split: job.split, index: job.firstTask + i }));
  const hooks = job.hints !== 'none' ? hintHooks(spec, job.preset, refs, job.hints) : {};
  const skills = job.episodeSkills;
  if (skills)
    hooks.episodeSkill = (_i: number, type: string) => (Object.hasOwn(skills, type) ? skills[type] : undefined);
  const r = await runEpisodes(policy, spec, job.preset, refs, {
    decoding: job.decoding,
    temperature: job.temperature,
    historyTurns: job.historyTurns,
    maxActionTokens: job.maxActionTokens,
    rng,
    ...hooks,
  });
  return {
    eval: summarize(r.trajectories),
    tokens: r.tokens,
    episodes: r.trajectories.map(episodeSummary),
  };
}
