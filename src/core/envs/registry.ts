/**
 * The environment registry: names → `EnvSpec` (docs/architecture.md). An unknown name fails listing
 * the known ones (verl style).
 */
import { household } from './household';
import { shop } from './shop';
import type { EnvSpec } from './types';

const SPECS: readonly EnvSpec[] = [household, shop];

/** Registered environment names, in display order. */
export const ENV_NAMES: readonly string[] = SPECS.map((s) => s.name);

/** The env family registered under `name`. @throws Error `unknown env "x"; accepted: household` on an unknown name. */
export function getEnvSpec(name: string): EnvSpec {
  const spec = SPECS.find((s) => s.name === name);
  if (!spec) throw new Error(`unknown env "${name}"; accepted: ${ENV_NAMES.join(', ')}`);
  return spec;
}
