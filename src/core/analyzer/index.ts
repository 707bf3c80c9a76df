/**
 * Analyzer factory: the run's env's embedded `heuristic` analyzer (EnvSpec.analyzer), the `http` one for an
 * OpenAI-compatible endpoint (its prompt told about the env: EnvSpec.commands and EnvSpec.analyzerPrompt), or the
 * privileged `oracle` (the environment's expert). The API key comes from the caller (CLI: env var
 * OPD_ANALYZER_API_KEY; page: a field never saved).
 */
import type { Analyzer, AnalyzerKind } from './types';
import { HttpAnalyzer } from './http';
import { OracleAnalyzer } from './oracle';
import { promptEnv, type PromptTemplate } from './prompt';
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
  /**
   * The run's environment (registry name): its embedded analyzer is `heuristic`, its commands and examples go into
   * the `http` prompt, and the oracle replays its tasks with its expert.
   */
  env: string;
  /** The run's preset of that environment: the oracle's replays and the `http` prompt's commands use it. */
  preset: string;
}

/**
 * The message of `heuristic` on an env without an embedded analyzer: names the env and the analyzers that work with
 * any env.
 */
export function noHeuristicMessage(env: string): string {
  return (
    `the ${env} environment has no embedded heuristic analyzer; use --analyzer oracle (its expert, privileged) or ` +
    '--analyzer http (an OpenAI-compatible server: --analyzer-url, --analyzer-model)'
  );
}

/**
 * Build the analyzer a run config names (a RunConfig is an AnalyzerConfig).
 * @param apiKey the `http` analyzer's key (never stored).
 * @param promptTemplate the `http` analyzer's prompt template (default: DEFAULT_HTTP_PROMPT).
 * @throws Error on an unknown env; for `heuristic`, when the env has no embedded analyzer (`noHeuristicMessage`) or K
 *   is bad; from HttpAnalyzer on a non-http(s) URL; for `oracle`, on an unknown preset (naming the accepted ones).
 */
export function makeAnalyzer(cfg: AnalyzerConfig, apiKey?: string, promptTemplate?: PromptTemplate): Analyzer {
  const common = { maxStepSkills: cfg.maxStepSkills, failedOnly: cfg.failedOnly };
  const spec = getEnvSpec(cfg.env);
  if (cfg.analyzer === 'http')
    return new HttpAnalyzer({
      ...common,
      baseUrl: cfg.analyzerUrl,
      model: cfg.analyzerModel,
      apiKey,
      timeoutMs: cfg.analyzerTimeoutMs,
      promptTemplate,
      env: promptEnv(spec, cfg.preset),
    });
  if (cfg.analyzer === 'oracle') return new OracleAnalyzer({ ...common, spec, preset: cfg.preset });
  if (!spec.analyzer) throw new Error(noHeuristicMessage(spec.name));
  return spec.analyzer(common);
}
