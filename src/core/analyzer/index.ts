/**
 * Analyzer factory: the embedded `heuristic` analyzer, or the `http` one for an OpenAI-compatible
 * endpoint. The API key comes from the caller (CLI: env var OPD_ANALYZER_API_KEY; page: a field never saved).
 */
import type { RunConfig } from '../run/config';
import type { Analyzer } from './types';
import { HeuristicAnalyzer } from './heuristic';
import { HttpAnalyzer } from './http';

/** Build the analyzer a run config names. @throws Error from HttpAnalyzer on a non-http(s) URL. */
export function makeAnalyzer(cfg: RunConfig, apiKey?: string): Analyzer {
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
