/**
 * The analyzer interface (OPID, Yang et al. 2026, §3; docs/references.md#opid): reads the finished trajectories of one
 * group and writes hindsight skills — one episode skill per trajectory and step skills at up to K critical steps (the
 * set C_τ). Implementations: `heuristic` (embedded, deterministic, no network), `http` (an OpenAI-compatible
 * chat-completions endpoint) and the privileged `oracle` (the environment's expert, replaying each trajectory's task
 * from its `ref`: a ceiling of what skills can give, not a fair comparison). Only the oracle reads the environment's
 * hidden state or its expert; the others see what a trajectory shows and never its `ref`.
 *
 * The interface's types live in src/core/envs/types.ts (re-exported here), so that an environment's embedded analyzer
 * (EnvSpec.analyzer) can implement it without importing this folder.
 */
export type {
  Analyzer,
  AnalyzerGroup,
  AnalyzerOptions,
  AnalyzerStats,
  AnalyzerStep,
  AnalyzerTrajectory,
  AnalysisResult,
  TrajectorySkills,
} from '../envs/types';
export { checkMaxStepSkills, emptyStats } from '../envs/types';

/**
 * Analyzer kinds (RunConfig.analyzer): embedded `heuristic`, `http` (an OpenAI-compatible endpoint), or the privileged
 * `oracle` (the environment's expert; oracle.ts).
 */
export const ANALYZER_KINDS = ['heuristic', 'http', 'oracle'] as const;
/** One of ANALYZER_KINDS. */
export type AnalyzerKind = (typeof ANALYZER_KINDS)[number];

/** γ of the discounted return shown to the analyzer (OPID: G_t with γ = 0.95). */
export const ANALYZER_GAMMA = 0.95;
