/**
 * What the Weights panel says the next run starts from ("Next run: starts from …"): the weights a new run —
 * Start after a finished or stopped run, Restart, Reset — really uses. A run configured by the page started from
 * what the next one will use (the worker's resolved InitSource label). A run continued with Runs → Resume started
 * from its own checkpoint, which no new run uses: a new run is configured from the page's settings (`init`, the
 * seed, env/preset and model), so the label is said from them, in the worker's words (worker/init-labels.ts).
 */
import type { RunConfig } from '../../core/run/config';
import type { InitSource } from '../../worker/api';
import { baseLabel, scratchLabel } from '../../worker/init-labels';

/** What the page knows about where runs start from. */
export interface NextInitInput {
  /** The configured run's start as the worker resolved it; null before the first configure. */
  initSource: Pick<InitSource, 'label'> | null;
  /** True when the configured run is a stored run continued from its checkpoint (Runs → Resume). */
  resumed: boolean;
  /** The page's settings, from which the next configure resolves the start. */
  config: Pick<RunConfig, 'init' | 'seed' | 'env' | 'preset' | 'model'>;
}

/**
 * The label of where the next new run's weights come from ('' while unknown, before the first configure). A chosen
 * stored checkpoint (the panel's Start from) is shown by the panel itself and is not covered here.
 */
export function nextInitLabel({ initSource, resumed, config }: NextInitInput): string {
  if (!resumed) return initSource?.label ?? '';
  return config.init === 'scratch' ? scratchLabel(config.seed) : baseLabel(config.env, config.preset, config.model);
}
