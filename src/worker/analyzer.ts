/**
 * The analyzer a page run uses (OPID / Skill-GRPO). The run config names the kind (`heuristic`, `http` or the
 * privileged `oracle`), URL, model and timeout; the key and the prompt template come from the page separately
 * (`AnalyzerExtras`), so they never travel in the config, a link or an export. For `http` the worker builds the
 * analyzer itself with core/analyzer `makeAnalyzer` and the page's key and template (the trainer's default factory
 * knows no template); for `heuristic` (the env's embedded analyzer), `oracle` and `grpo` it leaves the choice to the
 * trainer.
 */
import type { RunConfig } from '../core/run/config';
import type { Analyzer } from '../core/analyzer/types';
import { makeAnalyzer } from '../core/analyzer';
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
  return makeAnalyzer(config, extras.apiKey, extras.promptTemplate);
}
