/**
 * The page's controls, derived from the run-config schema (core/run/config.ts): which group a setting sits in, its
 * label, unit, hint and tooltip (`.meta()`), and its control (select, checkbox, number or text input, with range and
 * step from `fieldSchema`). Adding a setting to the schema with a group adds its control here with no edit in src/ui.
 * Pure functions, so tests check them without a browser.
 */
import {
  fieldMeta,
  fieldSchema,
  fieldsOfGroup,
  FIELD_GROUPS,
  type FieldGroup,
  type FieldJsonSchema,
  type FieldMeta,
  type RunConfig,
  type RunConfigKey,
} from '../../core/run/config';
import { ENV_SPECS, getEnvSpec } from '../../core/envs/registry';
import type { EnvSpec } from '../../core/envs/types';
import { ALGORITHM_CATALOG, isAlgorithmName } from '../../core/algorithm-catalog';

/** What a setting is shown as. `unsupported`: the schema type has no control (a test keeps this from happening). */
export type ControlKind = 'select' | 'checkbox' | 'number' | 'text' | 'unsupported';

/** Everything a `<Field>` needs besides value, issues and callbacks. */
export interface ControlSpec {
  key: RunConfigKey;
  kind: ControlKind;
  label: string;
  unit: string;
  /** One short line under the control: the help's first sentence, plus the sentence saying what 0 means. */
  hint: string;
  /** The whole help and the recommended value (tooltip of label and hint). */
  title: string;
  options?: readonly string[];
  optionLabels?: Record<string, string>;
  /** Options shown but not choosable with the draft's env (e.g. `heuristic` where the env has no embedded analyzer). */
  disabledOptions?: readonly string[];
  min?: number;
  max?: number;
  step?: number | 'any';
}

/** Groups shown outside the settings panel: `run` in the top bar, `analyzer` in its own panel, `internal` nowhere. */
export const OTHER_GROUPS: readonly FieldGroup[] = ['run', 'analyzer', 'internal'];
/** Groups of the left settings panel, in FIELD_GROUPS order: every other group, so a new group shows too. */
export const PANEL_GROUPS: readonly FieldGroup[] = FIELD_GROUPS.filter((g) => !OTHER_GROUPS.includes(g));

const HEADINGS: Partial<Record<FieldGroup, string>> = {
  environment: 'Environment',
  training: 'Training',
  advanced: 'Advanced',
  rollouts: 'Rollouts',
  evaluation: 'Evaluation',
  settings: 'Settings',
  run: 'Run',
  analyzer: 'Analyzer',
};

/**
 * The heading of a group in the page: an algorithm's group its `settingsTitle` ("Skills (OPID)"); an unnamed group
 * shows its name capitalised.
 */
export function groupHeading(group: FieldGroup): string {
  if (isAlgorithmName(group)) return ALGORITHM_CATALOG[group].settingsTitle;
  return HEADINGS[group] ?? group.charAt(0).toUpperCase() + group.slice(1);
}

/** True when a group applies to the draft: a group named after an algorithm shows only while it is the run's. */
export function groupVisible(group: FieldGroup, draft: Pick<RunConfig, 'algo'>): boolean {
  return !isAlgorithmName(group) || group === draft.algo;
}

/** The panel's groups that apply to the draft, each with its heading and fields (empty groups left out). */
export function panelSections(
  draft: Pick<RunConfig, 'algo'>,
): { group: FieldGroup; heading: string; keys: RunConfigKey[] }[] {
  return PANEL_GROUPS.filter((g) => groupVisible(g, draft))
    .map((group) => ({ group, heading: groupHeading(group), keys: fieldsOfGroup(group) }))
    .filter((s) => s.keys.length > 0);
}

/** Words a period may end inside a sentence ("e.g. http://…", "et al. 2017", "eq. 7"). */
const ABBREVIATIONS = /(?:^|[\s(])(?:e\.g|i\.e|al|eq|cf|vs|Dr|App|Fig|Sec)$/;

/**
 * Split a help text into sentences: a period and a space, outside parentheses and quotes and not after an
 * abbreviation ("Schulman et al. 2017, eq. 7)" and "(an inadmissible action gets "Nothing happens.")" stay whole).
 */
export function sentences(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '(') depth++;
    else if (c === ')') depth = Math.max(0, depth - 1);
    else if (c === '"') quoted = !quoted;
    else if (
      c === '.' &&
      depth === 0 &&
      !quoted &&
      /^\s+\S/.test(text.slice(i + 1, i + 3)) &&
      !ABBREVIATIONS.test(text.slice(start, i))
    ) {
      out.push(text.slice(start, i + 1).trim());
      start = i + 1;
    }
  }
  const rest = text.slice(start).trim();
  if (rest) out.push(rest);
  return out;
}

/** Longest hint line kept whole; a longer one loses its asides in parentheses, then is cut at a word with "…". */
export const HINT_MAX = 120;

/** Remove " (…)" asides (citations, file paths, examples) at the outer level; "KL(π_old ‖ π)" is kept. */
function dropAsides(text: string): string {
  let out = '';
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (depth === 0 && c === '(' && text[i - 1] === ' ') {
      depth = 1;
      out = out.replace(/ $/, '');
    } else if (depth > 0) {
      if (c === '(') depth++;
      else if (c === ')') depth--;
    } else out += c;
  }
  return out;
}

/**
 * The one-line hint of a help text: its first sentence and the one saying what 0 means ("0 = off."), if another;
 * over HINT_MAX characters without its asides in parentheses, then cut at a word. The tooltip has the whole help.
 */
export function shortHint(help: string): string {
  const [head = '', ...rest] = sentences(help);
  let first = head;
  let zero = rest.find((s) => /^0 = /.test(s)) ?? '';
  const join = () => (zero ? `${first} ${zero}` : first);
  if (join().length > HINT_MAX) [first, zero] = [dropAsides(first), dropAsides(zero)];
  const room = HINT_MAX + 40 - (zero ? zero.length + 1 : 0);
  if (first.length > room) first = `${first.slice(0, first.lastIndexOf(' ', room - 2)).replace(/[\s,;:]+$/, '')} …`;
  return join();
}

/** The tooltip: the whole help and the recommended value. */
export function fullHelp(meta: FieldMeta): string {
  return [meta.help, meta.recommended ? `Recommended: ${meta.recommended}.` : ''].filter(Boolean).join(' ');
}

/**
 * The control a JSON-Schema type gets: enum or given options → select, boolean → checkbox, number → number input,
 * string → text.
 */
export function controlKind(json: FieldJsonSchema, options?: readonly string[]): ControlKind {
  if (options || json.enum) return 'select';
  if (json.type === 'boolean') return 'checkbox';
  if (json.type === 'integer' || json.type === 'number') return 'number';
  if (json.type === 'string') return 'text';
  return 'unsupported';
}

/**
 * The control of one setting from its metadata and JSON-Schema facts (pure: works for a field not in the schema yet).
 * @param options options that depend on other settings (the env's presets); otherwise the enum's.
 */
export function controlFrom(
  key: RunConfigKey,
  meta: FieldMeta,
  json: FieldJsonSchema,
  options?: readonly string[],
): ControlSpec {
  const kind = controlKind(json, options);
  const spec: ControlSpec = {
    key,
    kind,
    label: meta.label,
    unit: meta.unit ?? '',
    hint: shortHint(meta.help),
    title: fullHelp(meta),
  };
  if (kind === 'select') {
    spec.options = options ?? json.enum;
    if (meta.optionLabels) spec.optionLabels = meta.optionLabels;
  } else if (kind === 'number') {
    spec.min = json.minimum;
    spec.max = json.maximum;
    spec.step = json.type === 'integer' ? 1 : 'any';
  }
  return spec;
}

/**
 * Options that come from another setting rather than the schema's enum: `preset` is checked against the env's
 * presets (core/envs/registry.ts). Undefined for every other key.
 */
export function dynamicOptions(key: RunConfigKey, draft: Pick<RunConfig, 'env'>): readonly string[] | undefined {
  if (key !== 'preset') return undefined;
  try {
    return getEnvSpec(draft.env).presets;
  } catch {
    return undefined; // unknown env: a text input, and the env's own error says why
  }
}

/**
 * Option labels that come from the registry rather than the schema: each `env` option names the env's presets, e.g.
 * `<env>: default / easy` (the Preset select then offers exactly those). Undefined for every other key.
 */
export function dynamicOptionLabels(key: RunConfigKey): Record<string, string> | undefined {
  if (key !== 'env') return undefined;
  return Object.fromEntries(ENV_SPECS.map((s) => [s.name, `${s.name}: ${s.presets.join(' / ')}`]));
}

/**
 * The analyzers an env cannot run, with the words their option gets: `heuristic` where the env brings no embedded
 * analyzer (EnvSpec.analyzer), labelled e.g. `heuristic (embedded: none for <env>)`; none where it brings one.
 * `oracle` (its expert) and `http` work with every env.
 */
export function unavailableAnalyzers(spec: Pick<EnvSpec, 'name' | 'analyzer'>): Record<string, string> {
  return spec.analyzer ? {} : { heuristic: `heuristic (embedded: none for ${spec.name})` };
}

/**
 * Options of `key` shown but not choosable with the draft's env, each with its label saying why: the analyzers the
 * env cannot run (unavailableAnalyzers). {} for every other key, and for an unknown env (its own error says why).
 */
export function dynamicUnavailable(key: RunConfigKey, draft: Pick<RunConfig, 'env'>): Record<string, string> {
  if (key !== 'analyzer') return {};
  try {
    return unavailableAnalyzers(getEnvSpec(draft.env));
  } catch {
    return {};
  }
}

/**
 * The control of a RunConfig setting for the current draft. An option the draft's env cannot use stays listed (a
 * draft or link may hold it, and the select must show it), disabled and labelled with the reason; the run schema's
 * cross-field check names the fix while it is chosen.
 */
export function controlOf(key: RunConfigKey, draft: Pick<RunConfig, 'env'>): ControlSpec {
  const spec = controlFrom(key, fieldMeta(key), fieldSchema(key), dynamicOptions(key, draft));
  const labels = dynamicOptionLabels(key);
  if (labels && spec.kind === 'select') spec.optionLabels = { ...spec.optionLabels, ...labels };
  const unavailable = dynamicUnavailable(key, draft);
  if (spec.kind === 'select' && Object.keys(unavailable).length > 0) {
    spec.optionLabels = { ...spec.optionLabels, ...unavailable };
    spec.disabledOptions = Object.keys(unavailable).filter((o) => spec.options?.includes(o));
  }
  return spec;
}
