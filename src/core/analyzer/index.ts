/**
 * Analyzer factory: the embedded `heuristic` analyzer, the `http` one for an OpenAI-compatible endpoint, or the
 * privileged `oracle` (the environment's expert). The API key comes from the caller (CLI: env var
 * OPD_ANALYZER_API_KEY; page: a field never saved).
 */
import type { Analyzer, AnalyzerKind } from './types';
import { HeuristicAnalyzer } from './heuristic';
import { HttpAnalyzer } from './http';
import { OracleAnalyzer } from './oracle';
import { getEnvSpec } from '../envs/registry';

/** The run-config fields (core/run/config.ts RunConfig) an analyzer is built from. */
export interface AnalyzerConfig {
  analyzer: AnalyzerKind;
  /** K: max step skills per trajectory. */
  maxStepSkills: number;
  failedOnly: boolean;
  /** Base URL of the http analyzer's OpenAI-compatible server. */
  analyzerUrl: string;
  analyzerModel: string;
  /** Per-request timeout of the http analyzer (ms). */
  analyzerTimeoutMs: number;
  /** The run's environment (registry name): the oracle replays its tasks with its expert. */
  env: string;
  /** The run's preset of that environment: the oracle's replays use it. */
  preset: string;
}

/**
 * Build the analyzer a run config names (a RunConfig is an AnalyzerConfig).
 * @throws Error from HttpAnalyzer on a non-http(s) URL; for `oracle`, on an unknown env or preset (naming the
 *   accepted ones).
 */
export function makeAnalyzer(cfg: AnalyzerConfig, apiKey?: string): Analyzer {
  const common = { maxStepSkills: cfg.maxStepSkills, failedOnly: cfg.failedOnly };
  if (cfg.analyzer === 'http')
    return new HttpAnalyzer({
      ...common,
      baseUrl: cfg.analyzerUrl,
      model: cfg.analyzerModel,
      apiKey,
      timeoutMs: cfg.analyzerTimeoutMs,
    });
  if (cfg.analyzer === 'oracle')
    return new OracleAnalyzer({ ...common, spec: getEnvSpec(cfg.env), preset: cfg.preset });
  return new HeuristicAnalyzer(common);
}
