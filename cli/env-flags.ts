/**
 * `--env` and `--preset` as every command declares them (train reads them from the run schema instead, with the same
 * defaults): the registered environments (src/core/envs/registry.ts), the default one, and each env's own default
 * preset. Their `--help` lines list every registered env with its presets, so a new env shows up without a change
 * here.
 */
import { DEFAULT_ENV, ENV_NAMES, envsInWords, getEnvSpec } from '../src/core/envs/registry';
import type { EnvSpec } from '../src/core/envs/types';
import { choiceError, didYouMean, UsageError } from './args';
import { visibleText } from '../src/core/visible-text';

/** The `--env` flag: one of the registered envs, default DEFAULT_ENV. */
export const ENV_FLAG = {
  type: 'string',
  help: `environment: ${envsInWords()}`,
  default: DEFAULT_ENV,
  choices: ENV_NAMES,
} as const;

/** The `--preset` flag: one of the env's presets; absent, the env's own default (EnvSpec.defaultPreset). */
export const PRESET_FLAG = {
  type: 'string',
  help: "environment preset, one of the env's presets (default: the env's own, as --env lists)",
} as const;

/**
 * The preset a command uses: `given`, checked against the env's presets, or the env's default preset.
 * @throws UsageError naming the env, its presets (and the nearest one) for an unknown preset, as train words it:
 * `--preset: searchqa has no preset "easy"; one of default`.
 */
export function presetFor(spec: EnvSpec, given: string | undefined): string {
  const preset = given ?? spec.defaultPreset;
  if (!spec.presets.includes(preset))
    throw new UsageError(
      `--preset: ${spec.name} has no preset "${visibleText(preset.slice(0, 40))}"; one of ` +
        `${spec.presets.join(', ')}${didYouMean(preset, spec.presets)}`,
      'preset',
      preset,
    );
  return preset;
}

/** The env and preset a command uses (`presetFor`). @throws UsageError on an unknown env or preset. */
export function envAndPreset(env: string, preset: string | undefined): { spec: EnvSpec; preset: string } {
  if (!ENV_NAMES.includes(env)) throw new UsageError(choiceError('env', ENV_NAMES, env), 'env', env);
  const spec = getEnvSpec(env);
  return { spec, preset: presetFor(spec, preset) };
}
