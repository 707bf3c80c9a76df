/**
 * Every problem of the settings as the page's controls show them, one list for all fields, so that each invalid
 * field keeps its own message while it stays invalid. `parseRunConfig` (core/run/config.ts) stops at the schema:
 * while one field is out of range (Steps −4) it does not check the cross-field rules (Mini-batches ≤ B·G), so a
 * cross-field error already shown would vanish. Pure functions, with `withField` (a setting changed, the preset
 * following the environment).
 */
import { algorithmTraits } from '../../core/algorithm-catalog';
import { ENV_NAMES, getEnvSpec } from '../../core/envs/registry';
import {
  ConfigError,
  crossFieldIssues,
  defaultFor,
  isRunConfigKey,
  parseRunConfig,
  type ConfigIssue,
  type RunConfig,
  type RunConfigKey,
} from '../../core/run/config';

/** The issues `parseRunConfig` reports for `c` ([] when valid); errors other than ConfigError are thrown on. */
function issuesOf(c: unknown): ConfigIssue[] {
  try {
    parseRunConfig(c);
    return [];
  } catch (e) {
    if (e instanceof ConfigError) return e.issues;
    throw e;
  }
}

/**
 * The schema issues of `draft` plus the cross-field issues of the other fields: the cross-field rules are checked on
 * `draft` with each out-of-range field replaced by its value in `fallback` (the last valid config, which the run
 * uses), and a rule's issue is added when its field has none yet (a rule on a replaced field is checked against the
 * run's value, e.g. Mini-batches ≤ the run's B·G while Tasks per step is out of range). [] when `draft` is valid.
 * @param draft the settings as the controls hold them (may be invalid).
 * @param fallback a valid config (the run's).
 * @throws whatever parseRunConfig throws other than ConfigError.
 */
export function draftIssues(draft: RunConfig, fallback: RunConfig): ConfigIssue[] {
  const issues = issuesOf(draft);
  const keyOf = (i: ConfigIssue) => i.field.split('.')[0];
  const bad = new Set(issues.map(keyOf));
  if (bad.size === 0) return issues;
  const patched: Record<string, unknown> = { ...draft };
  for (const k of bad) if (isRunConfigKey(k)) patched[k] = fallback[k];
  for (const i of issuesOf(patched)) if (!bad.has(keyOf(i))) issues.push(i);
  return issues;
}

/**
 * True when `c`'s analyzer base URL is unused (the analyzer is not `http`, or the algorithm has none) and breaks the
 * URL rule (core crossFieldIssues); false when it cannot be checked.
 */
function unusedBadUrl(c: RunConfig): boolean {
  try {
    if (c.analyzerUrl === '' || (c.analyzer === 'http' && algorithmTraits(c.algo).usesAnalyzer)) return false;
    return crossFieldIssues(c).some((i) => i.field === 'analyzerUrl');
  } catch {
    return false; // another field (an unknown environment) is broken: its own issue says so
  }
}

/**
 * The settings the page validates, runs and puts in the link: `draft` with an analyzer base URL that nothing uses (the
 * analyzer is not `http`, or the algorithm has no analyzer) and that breaks the URL rule left out (''). So a bad URL
 * typed while `http` was chosen neither blocks Start once another analyzer or algorithm is chosen nor travels in a
 * link (the rule keeps credentials out of links); the field keeps the text, and choosing `http` again shows its issue.
 */
export function runnableDraft(draft: RunConfig): RunConfig {
  return unusedBadUrl(draft) ? { ...draft, analyzerUrl: '' } : draft;
}

/**
 * `draft` with setting `key` changed to `value`. Choosing another environment also moves the preset to that env's
 * `defaultPreset` when the draft's preset is not one of its presets (every env names its own presets), so switching
 * env never leaves the page on a preset the env does not have, and `maxActionTokens` to the new env's default when it
 * held the old env's (a value the user chose stays).
 */
export function withField<K extends RunConfigKey>(draft: RunConfig, key: K, value: RunConfig[K]): RunConfig {
  const next = { ...draft, [key]: value };
  if (key !== 'env' || !ENV_NAMES.includes(next.env)) return next;
  const spec = getEnvSpec(next.env);
  const tokens =
    draft.maxActionTokens === defaultFor('maxActionTokens', draft.env)
      ? (defaultFor('maxActionTokens', next.env) as number)
      : draft.maxActionTokens;
  return {
    ...next,
    preset: spec.presets.includes(next.preset) ? next.preset : spec.defaultPreset,
    maxActionTokens: tokens,
  };
}
