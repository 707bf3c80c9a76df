/**
 * The CLI's warning for weights made with another environment version (metadata `envVersions`, written by train):
 * they load, but the tasks may differ, so success rates are not comparable (model/policy.ts envVersionMismatch).
 */
import { getEnvSpec } from '../src/core/envs/registry';
import { envVersionMismatch } from '../src/core/model/policy';

/** Weights made for another version of the environment than this code's: the file, both versions, one sentence. */
export interface EnvVersionWarning {
  weights: string;
  made: string;
  current: string;
  message: string;
}

/** The warning for weights whose metadata `envVersions[env]` differs from the env's current version, or null. */
export function envVersionWarning(
  weights: string,
  meta: Record<string, string>,
  env: string,
): EnvVersionWarning | null {
  const m = envVersionMismatch(meta, getEnvSpec(env));
  return m && { weights, made: m.made, current: m.current, message: `weights ${weights} were ${m.message}` };
}
