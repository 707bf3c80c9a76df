/**
 * The algorithm registry: every training algorithm's implementation by name (as verl registers its advantage
 * estimators). Adding an algorithm = one new file implementing `Algorithm` (types.ts) with its traits in
 * core/algorithm-catalog.ts, plus one line here; the run-config schema takes its accepted names from
 * core/algorithm-catalog.ts ALGORITHM_NAMES.
 */
import { grpo } from './grpo';
import { opid } from './opid';
import { skillGrpo } from './skill-grpo';
import { agenticOpd } from './agentic-opd';
import { ALGORITHM_NAMES, isAlgorithmName, type AlgorithmName, type AlgorithmTraits } from '../algorithm-catalog';
import type { Algorithm, AlgorithmBase, AlgorithmExtras, AlgorithmRun } from './types';

export { ALGORITHM_NAMES, type AlgorithmName } from '../algorithm-catalog';

/**
 * An algorithm as the trainer holds it: its traits and a `create` that takes the base and the plain extras
 * together (TrainOptions.algorithmInit spread beside the base) and hands the algorithm its own checked `Init`.
 */
export interface RegisteredAlgorithm extends AlgorithmTraits {
  /**
   * Build the per-run instance from the base (cfg, env, analyzer, key) and the extras beside it.
   * @throws Error from the algorithm's `readInit` (a missing or malformed input) or `create`.
   */
  create(init: AlgorithmBase & AlgorithmExtras): AlgorithmRun;
}

/** `a` with its generics erased: `readInit` checks the extras `create` then reads typed. */
function register<Init extends object, Options extends object>(a: Algorithm<Init, Options>): RegisteredAlgorithm {
  return {
    ...a,
    create({ cfg, env, analyzer, analyzerApiKey, ...extra }) {
      return a.create({ ...a.readInit(extra), cfg, env, analyzer, analyzerApiKey });
    },
  };
}

const REGISTRY: Readonly<Record<AlgorithmName, RegisteredAlgorithm>> = {
  grpo: register(grpo),
  opid: register(opid),
  'skill-grpo': register(skillGrpo),
  'agentic-opd': register(agenticOpd),
};

/**
 * The algorithm registered under `name` (own keys only).
 * @throws Error naming the known algorithms when `name` is not one of them.
 */
export function getAlgorithm(name: string): RegisteredAlgorithm {
  if (!isAlgorithmName(name)) throw new Error(`unknown algorithm "${name}"; known: ${ALGORITHM_NAMES.join(', ')}`);
  return REGISTRY[name];
}
