/**
 * The analyzer a page run uses (OPID / Skill-GRPO). The run config names the kind (`heuristic`, `http` or the
 * privileged `oracle`), URL, model and timeout; the key and the prompt template come from the page separately
 * (`AnalyzerExtras`), so they never travel in the config, a link or an export. For `http` the worker builds the
 * HttpAnalyzer itself (the trainer's default factory knows no template); for `heuristic`, `oracle` (built from the
 * config's env and preset by core/analyzer `makeAnalyzer`) and `grpo` it leaves the choice to the trainer.
 */
import type { RunConfig } from '../core/run/config';
import type { Analyzer } from '../core/analyzer/types';
import { HttpAnalyzer } from '../core/analyzer/http';
import type { AnalyzerExtras } from './api';
import { algorithmTraits } from '../core/algorithm-catalog';

/**
 * The analyzer to pass in the trainer's options, or undefined when the trainer's default is right (an algorithm without
 * one, such as `grpo`; `heuristic` and `oracle` need neither key nor template).
 * @throws Error from HttpAnalyzer naming the field and the fix (a base URL that is not http(s), an empty model, a key
 *   with characters a header cannot carry); its messages never contain the key.
 */
export function runAnalyzer(config: RunConfig, extras: AnalyzerExtras): Analyzer | undefined {
  if (!algorithmTraits(config.algo).usesAnalyzer || config.analyzer !== 'http') return undefined;
  return new HttpAnalyzer({
    baseUrl: config.analyzerUrl,
    model: config.analyzerModel,
    timeoutMs: config.analyzerTimeoutMs,
    maxStepSkills: config.maxStepSkills,
    failedOnly: config.failedOnly,
    apiKey: extras.apiKey,
    promptTemplate: extras.promptTemplate,
  });
}
