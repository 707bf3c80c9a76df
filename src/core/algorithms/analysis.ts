/**
 * Running an analyzer over a step's groups (OPID, Skill-GRPO): trajectories → analyzer groups with per-step
 * discounted returns (γ = 0.95), one analysis per group, failures kept as reasons (the run goes on), and the
 * analyzer's counters turned into the step's metrics.
 */
import type { Analyzer, AnalyzerGroup, AnalysisResult, TrajectorySkills } from '../analyzer/types';
import { discountedReturns } from '../math/returns';
import type { Trajectory } from '../rollout/types';
import type { AlgorithmMetrics } from './types';

/**
 * Analyzer input for one group: the trajectories with per-step discounted returns, and each one's task `ref`
 * (privileged: only the `oracle` analyzer reads it).
 */
export function toAnalyzerGroup(env: string, trajs: readonly Trajectory[]): AnalyzerGroup {
  return {
    env,
    trajectories: trajs.map((t) => {
      const G = discountedReturns(t.steps.map((s) => s.reward));
      return {
        task: t.task,
        success: t.success,
        finalObservation: t.finalObservation,
        steps: t.steps.map((s, i) => ({ observation: s.observation, action: s.action, valid: s.valid, return: G[i] })),
        ref: t.ref,
      };
    }),
  };
}

/** Per-trajectory analysis of a batch: skills (or null) and the failure reason for nulls, if known. */
export interface BatchAnalysis {
  skills: (TrajectorySkills | null)[];
  errors: (string | undefined)[];
}

/**
 * Analyse each group (trajectories with the same `groupOf` value, in order). An analyzer that throws fails its
 * whole group (every trajectory null, reason = the error message) — the run goes on.
 */
export async function analyzeBatch(
  analyzer: Analyzer,
  env: string,
  trajs: readonly Trajectory[],
  groupOf: readonly number[],
): Promise<BatchAnalysis> {
  const groups = new Map<number, number[]>();
  groupOf.forEach((g, i) => groups.set(g, [...(groups.get(g) ?? []), i]));
  const skills: (TrajectorySkills | null)[] = trajs.map(() => null);
  const errors: (string | undefined)[] = trajs.map(() => undefined);
  await Promise.all(
    [...groups.values()].map(async (idx) => {
      let r: AnalysisResult;
      try {
        r = await analyzer.analyze(
          toAnalyzerGroup(
            env,
            idx.map((i) => trajs[i]),
          ),
        );
      } catch (e) {
        idx.forEach((i) => (errors[i] = `analyzer failed: ${(e as Error).message}`));
        return;
      }
      idx.forEach((i, k) => (skills[i] = r[k] ?? null));
    }),
  );
  return { skills, errors };
}

/**
 * Run the analyzer on a step and measure it: the batch analysis plus calls, failures, latency (ms) and failure
 * reasons added this step. A trajectory counts as failed when it got no skills and either has an error or was
 * meant to be analysed (with `failedOnly`, successes are skipped, not failed).
 */
export async function analyzeStep(
  analyzer: Analyzer,
  env: string,
  trajs: readonly Trajectory[],
  groupOf: readonly number[],
  failedOnly: boolean,
  now: () => number,
): Promise<{
  analysis: BatchAnalysis;
  metrics: Pick<
    AlgorithmMetrics,
    'analyzerCalls' | 'analyzerFailures' | 'analyzerLatencyMs' | 'analyzerFailureReasons'
  >;
  analysed: number;
}> {
  const before = analyzer.stats();
  const t = now();
  const analysis = await analyzeBatch(analyzer, env, trajs, groupOf);
  const latency = now() - t;
  const after = analyzer.stats();
  const meant = trajs.map((x, i) => analysis.errors[i] !== undefined || !(failedOnly && x.success));
  return {
    analysis,
    analysed: meant.filter(Boolean).length,
    metrics: {
      analyzerCalls: after.calls - before.calls,
      analyzerFailures: analysis.skills.filter((x, i) => x === null && meant[i]).length,
      analyzerLatencyMs: latency,
      analyzerFailureReasons: diffReasons(before.failureReasons, after.failureReasons, analysis.errors),
    },
  };
}

/** Failure reasons added between two analyzer counters, plus thrown-analyzer errors. */
function diffReasons(
  a: Record<string, number>,
  b: Record<string, number>,
  errors: readonly (string | undefined)[],
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(b)) {
    const d = v - (Object.hasOwn(a, k) ? a[k] : 0);
    if (d > 0) out[k] = d;
  }
  for (const e of errors) if (e) out[e] = (Object.hasOwn(out, e) ? out[e] : 0) + 1;
  return out;
}
