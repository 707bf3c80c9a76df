/**
 * The analyzer interface (OPID, Yang et al. 2026, §3; docs/references.md#opid): reads the finished trajectories of one
 * group and writes hindsight skills — one episode skill per trajectory and step skills at up to K critical steps (the
 * set C_τ). Implementations: `heuristic` (embedded, deterministic, no network), `http` (an OpenAI-compatible
 * chat-completions endpoint) and the privileged `oracle` (the environment's expert, replaying each trajectory's task
 * from its `ref`: a ceiling of what skills can give, not a fair comparison). Only the oracle reads the environment's
 * hidden state or its expert; the others see what a trajectory shows and never its `ref`.
 */
import type { TaskRef } from '../envs/types';
import type { TrajectorySkills } from '../math/skill';

export type { TrajectorySkills } from '../math/skill';

/**
 * Analyzer kinds (RunConfig.analyzer): embedded `heuristic`, `http` (an OpenAI-compatible endpoint), or the privileged
 * `oracle` (the environment's expert; oracle.ts).
 */
export const ANALYZER_KINDS = ['heuristic', 'http', 'oracle'] as const;
/** One of ANALYZER_KINDS. */
export type AnalyzerKind = (typeof ANALYZER_KINDS)[number];

/** One step of a trajectory as the analyzer sees it. */
export interface AnalyzerStep {
  /** The observation the action answered (raw env text). */
  observation: string;
  /** The action taken. */
  action: string;
  /** False when the env answered `Nothing happens.` (inadmissible action). */
  valid: boolean;
  /** Discounted return from this step, G_t = Σ_{k≥t} γ^{k−t} r_k with γ = 0.95 (unitless reward). */
  return: number;
}

/** One trajectory as the analyzer sees it. */
export interface AnalyzerTrajectory {
  task: string;
  success: boolean;
  /** The observation after the last action (so the analyzer can see how the episode ended). */
  finalObservation: string;
  steps: AnalyzerStep[];
  /**
   * Privileged: the address of the trajectory's task, read only by the `oracle` analyzer (it replays the task); the
   * `http` analyzer never sends it and the `heuristic` one never reads it. Absent: the oracle fails the trajectory.
   */
  ref?: TaskRef;
}

/** The trajectories of one group (same task, G rollouts). */
export interface AnalyzerGroup {
  env: string;
  trajectories: AnalyzerTrajectory[];
}

/** Per trajectory: its skills, or `null` when its analysis failed (it then gets no skill signal). */
export type AnalysisResult = (TrajectorySkills | null)[];

/** Counters an analyzer reports for the run's metrics (Metrics). */
export interface AnalyzerStats {
  /** Requests made (heuristic: trajectories analysed). */
  calls: number;
  /** Trajectories whose analysis failed after retries. */
  failures: number;
  /** Sum of call latencies (ms). */
  latencyMs: number;
  /** Failure counts by reason, in words a user understands (e.g. "HTTP 429 (rate limited)": 3). */
  failureReasons: Record<string, number>;
}

/** Analyzer options shared by implementations. */
export interface AnalyzerOptions {
  /** K: max step skills per trajectory (household/shop 5, search-QA 2). */
  maxStepSkills: number;
  /** `failedOnly`: analyse only failed trajectories; successful ones get no skills (null). */
  failedOnly?: boolean;
}

/** An analyzer: one group in, skills per trajectory out. Must not throw for bad model replies: return null entries. */
export interface Analyzer {
  readonly name: string;
  analyze(group: AnalyzerGroup, signal?: AbortSignal): Promise<AnalysisResult>;
  /** Cumulative counters since creation. */
  stats(): AnalyzerStats;
}

/** γ of the discounted return shown to the analyzer (OPID: G_t with γ = 0.95). */
export const ANALYZER_GAMMA = 0.95;

/** Counters of an analyzer that has made no call yet. */
export function emptyStats(): AnalyzerStats {
  return { calls: 0, failures: 0, latencyMs: 0, failureReasons: {} };
}

/**
 * Check K, the most step skills an analyzer writes per trajectory (AnalyzerOptions.maxStepSkills).
 * @throws Error naming the analyzer when K is not an integer ≥ 0.
 */
export function checkMaxStepSkills(analyzer: string, k: number): void {
  if (!Number.isInteger(k) || k < 0)
    throw new Error(`${analyzer} analyzer: maxStepSkills must be an integer ≥ 0, got ${k}`);
}
