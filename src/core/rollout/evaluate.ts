/**
 * Evaluation: the policy plays the first `episodes` tasks (indices 0..n−1) of each split at the
 * evaluation temperature; success overall and per task type, and the mean of every number the env reports besides
 * the reward (Trajectory.metrics, e.g. a question-answering env's EM, F1 and substring EM). The same tasks every
 * time, so evaluations at different steps are comparable.
 */
import { hintHooks, type HintMode } from '../envs/expert-hints';
import type { EnvSpec, Split } from '../envs/types';
import type { Rng } from '../rng';
import { runEpisodes, type RolloutOptions } from './runner';
import type { PolicyHandle } from '../model/policy';
import type { Trajectory } from './types';

/**
 * Per metric name, its mean over the episodes that report it (Trajectory.metrics; an env's `StepResult.info`), in the
 * order the names first appear. Units are the env's (a QA env's EM, F1 and substring EM are in [0, 1]).
 */
export type MetricMeans = Record<string, number>;

/** Success of one split at one evaluation. */
export interface SplitEval {
  successRate: number;
  episodes: number;
  /**
   * Per task type: success rate, episode count and, where its episodes report metrics, their means. Absent
   * `metrics`: the env reports none.
   */
  byTaskType: Record<string, { successRate: number; episodes: number; metrics?: MetricMeans }>;
  /** The means of the metrics the env reports (e.g. `{em, f1, subEm}`); absent when no episode reports any. */
  metrics?: MetricMeans;
}

/**
 * The mean of each metric over the trajectories that report it (see MetricMeans); undefined when none reports any.
 */
export function metricMeans(trajs: readonly Trajectory[]): MetricMeans | undefined {
  const sum = new Map<string, [number, number]>();
  for (const t of trajs)
    for (const [k, v] of Object.entries(t.metrics ?? {})) {
      const s = sum.get(k) ?? [0, 0];
      sum.set(k, [s[0] + v, s[1] + 1]);
    }
  if (sum.size === 0) return undefined;
  return Object.fromEntries([...sum].map(([k, [s, n]]) => [k, s / n]));
}

/**
 * Success summary of trajectories: overall and per task type (rates in [0,1]), with the means of the env's metrics
 * (`metricMeans`) overall and per task type where the episodes report any.
 */
export function summarize(trajs: readonly Trajectory[]): SplitEval {
  const byTaskType: SplitEval['byTaskType'] = {};
  const ofType = new Map<string, Trajectory[]>();
  for (const t of trajs) {
    const e = (byTaskType[t.taskType] ??= { successRate: 0, episodes: 0 });
    e.successRate += t.success ? 1 : 0;
    e.episodes++;
    let list = ofType.get(t.taskType);
    if (!list) ofType.set(t.taskType, (list = []));
    list.push(t);
  }
  for (const [type, e] of Object.entries(byTaskType)) {
    e.successRate /= e.episodes;
    const m = metricMeans(ofType.get(type)!);
    if (m) e.metrics = m;
  }
  const ok = trajs.filter((t) => t.success).length;
  const metrics = metricMeans(trajs);
  return {
    successRate: trajs.length ? ok / trajs.length : 0,
    episodes: trajs.length,
    byTaskType,
    ...(metrics ? { metrics } : {}),
  };
}

/** Options of `evaluatePolicy`. */
export interface EvalOptions {
  preset: string;
  splits: readonly Split[];
  episodes: number;
  temperature: number;
  decoding: 'admissible' | 'free';
  historyTurns: number;
  maxActionTokens: number;
  rng: Rng;
  /** Hints injected by the expert oracle (hint-following measurement). Default `none`. */
  hints?: HintMode;
  /** Skill-GRPO: an episode skill per task type (its memory), injected into every prompt. */
  episodeSkillFor?: (taskType: string) => string | undefined;
  /** Checked before every lockstep turn (runner.ts `RolloutOptions.cancel`); a cut evaluation throws `RunCancelled`. */
  cancel?: RolloutOptions['cancel'];
  /**
   * Called after every lockstep turn with the episodes finished over all splits, the total (episodes × splits) and
   * the fraction of the work done (splits run one after another; runner.ts `RolloutOptions.onTurn`).
   */
  onTurn?: RolloutOptions['onTurn'];
}

/** Evaluate on each split; returns the summaries and the tokens processed. */
export async function evaluatePolicy(
  policy: PolicyHandle,
  spec: EnvSpec,
  o: EvalOptions,
): Promise<{
  splits: Partial<Record<Split, SplitEval>>;
  tokens: number;
  trajectories: Partial<Record<Split, Trajectory[]>>;
}> {
  const splits: Partial<Record<Split, SplitEval>> = {};
  const trajectories: Partial<Record<Split, Trajectory[]>> = {};
  let tokens = 0;
  const total = o.episodes * o.splits.length;
  for (const [k, split] of o.splits.entries()) {
    const refs = Array.from({ length: o.episodes }, (_, index) => ({ split, index }));
    const hooks = o.hints && o.hints !== 'none' ? hintHooks(spec, o.preset, refs, o.hints) : {};
    if (o.episodeSkillFor) hooks.episodeSkill = (_i: number, type: string) => o.episodeSkillFor!(type);
    const r = await runEpisodes(policy, spec, o.preset, refs, {
      decoding: o.decoding,
      temperature: o.temperature,
      historyTurns: o.historyTurns,
      maxActionTokens: o.maxActionTokens,
      rng: o.rng.fork(split),
      ...hooks,
      cancel: o.cancel,
      onTurn:
        o.onTurn && ((d, n, f) => o.onTurn!(k * o.episodes + d, total, total ? (k * o.episodes + f * n) / total : 1)),
    });
    splits[split] = summarize(r.trajectories);
    trajectories[split] = r.trajectories;
    tokens += r.tokens;
  }
  return { splits, tokens, trajectories };
}
