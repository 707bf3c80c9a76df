/**
 * The algorithm registry: every training algorithm by name (as verl registers its advantage estimators). Adding an
 * algorithm = one new file implementing `Algorithm` (types.ts) plus its name here; the run-config schema takes its
 * accepted names from ALGORITHM_NAMES.
 */
import { grpo } from './grpo';
import { opid } from './opid';
import { skillGrpo } from './skill-grpo';
import { agenticOpd } from './agentic-opd';
import type { Algorithm } from './types';

/** Accepted algorithm names (RunConfig.algo, `--algo`, links). */
export const ALGORITHM_NAMES = ['grpo', 'opid', 'skill-grpo', 'agentic-opd'] as const;
/** One of ALGORITHM_NAMES. */
export type AlgorithmName = (typeof ALGORITHM_NAMES)[number];

const REGISTRY: Readonly<Record<AlgorithmName, Algorithm>> = {
  grpo,
  opid,
  'skill-grpo': skillGrpo,
  'agentic-opd': agenticOpd,
};

/**
 * The algorithm registered under `name` (own keys only).
 * @throws Error naming the known algorithms when `name` is not one of them.
 */
export function getAlgorithm(name: string): Algorithm {
  if (!Object.hasOwn(REGISTRY, name))
    throw new Error(`unknown algorithm "${name}"; known: ${ALGORITHM_NAMES.join(', ')}`);
  return REGISTRY[name as AlgorithmName];
}
