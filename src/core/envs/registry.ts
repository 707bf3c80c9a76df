/**
 * The environment registry: names → `EnvSpec` (docs/architecture.md, "How to add an environment"). An environment is
 * one folder under src/core/envs/ plus one line in SPECS below; the run schema, the page, the worker and the CLI read
 * every name, default and capability from here and the specs. An unknown name fails listing the known ones (verl
 * style).
 */
import { household } from './household';
import { shop } from './shop';
import { searchqa } from './searchqa';
import type { EnvSpec } from './types';

/** Every registered env family, in display order; the first is the default (DEFAULT_ENV). */
export const ENV_SPECS: readonly EnvSpec[] = [household, shop, searchqa];

/** Registered environment names, in display order. */
export const ENV_NAMES: readonly string[] = ENV_SPECS.map((s) => s.name);

/**
 * The env a run, the page, Play and every CLI command use when none is named: the first registered (`household`).
 * Its `defaultPreset` is the run schema's default preset.
 */
export const DEFAULT_ENV: string = ENV_NAMES[0];

/** The env family registered under `name`. @throws Error `unknown env "x"; accepted: household` on an unknown name. */
export function getEnvSpec(name: string): EnvSpec {
  const spec = ENV_SPECS.find((s) => s.name === name);
  if (!spec) throw new Error(`unknown env "${name}"; accepted: ${ENV_NAMES.join(', ')}`);
  return spec;
}

/** The preset used for env `name` when none is named (its spec's `defaultPreset`). @throws Error on an unknown env. */
export function defaultPresetOf(name: string): string {
  return getEnvSpec(name).defaultPreset;
}

/**
 * The registered envs and their presets in words, for `--help` and error messages, e.g.
 * `household (presets: default, easy, easy-pick2; when none is named: easy)`.
 */
export function envsInWords(): string {
  return ENV_SPECS.map(
    (s) => `${s.name} (presets: ${s.presets.join(', ')}; when none is named: ${s.defaultPreset})`,
  ).join('; ');
}

/**
 * `types` (task type names, e.g. from a results table, which does not record its env) in the order their env lists
 * them: the registered envs in order, each env's presets in order, each preset's types in its order
 * (`EnvSpec.taskTypes`, e.g. ALFWorld's pick, look, clean, heat, cool, pick2), first occurrence kept; a type no
 * registered env has goes last, sorted. Duplicates in `types` appear once.
 */
export function inEnvOrder(types: Iterable<string>): string[] {
  const order = [...new Set(ENV_SPECS.flatMap((s) => s.presets.flatMap((p) => s.taskTypes(p))))];
  const rank = (t: string) => (order.includes(t) ? order.indexOf(t) : order.length);
  return [...new Set(types)].sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
}
