/**
 * Analyzer factory: the embedded `heuristic` analyzer, or the `http` one for an OpenAI-compatible
 * endpoint. The API key comes from the caller (CLI: env var OPD_ANALYZER_API_KEY; page: a field never saved).
 */
import type { Analyzer, AnalyzerKind } from './types';
import { HeuristicAnalyzer } from './heuristic';
import { HttpAnalyzer } from './http';

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
}

/**
 * Build the analyzer a run config names (a RunConfig is an AnalyzerConfig).
 * @throws Error from HttpAnalyzer on a non-http(s) URL.
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
  return new HeuristicAnalyzer(common);
}
