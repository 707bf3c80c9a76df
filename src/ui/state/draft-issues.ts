/**
 * Every problem of the settings as the page's controls show them, one list for all fields, so that each invalid
 * field keeps its own message while it stays invalid. `parseRunConfig` (core/run/config.ts) stops at the schema:
 * while one field is out of range (Steps −4) it does not check the cross-field rules (Mini-batches ≤ B·G), so a
 * cross-field error already shown would vanish. Pure function.
 */
import { ConfigError, isRunConfigKey, parseRunConfig, type ConfigIssue, type RunConfig } from '../../core/run/config';

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
