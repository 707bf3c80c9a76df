/**
 * Shareable links: the run config in `location.hash` as `#v=2&envVersion=<env>-v2&k=v&…` (TF Playground style:
 * one table of URL properties, here the run-config schema itself, core/run/config.ts).
 *
 * Written: the schema version `v`, the environment version of the run's env, and every field that differs from the
 * shipped defaults (the preset: from the env's own default, so `env=<name>` alone means that env's default preset).
 * Read leniently: keys are data, looked up as own properties only (`constructor`, `__proto__` … are unknown
 * settings); bad or unknown fields are dropped (their defaults kept) and named, an unknown key with the
 * setting it most likely meant (`nearestKey`); a `?` right after the `#` is dropped; an extra `#` is read as `&` and
 * named; a link from an older schema is migrated; a link made with another environment version opens with a notice.
 * Never throws.
 */
import { getEnvSpec } from '../../core/envs/registry';
import { editDistance } from '../../core/envs/hint';
import { nearestName } from '../../core/near';
import {
  DEFAULT_CONFIG,
  defaultFor,
  fieldMeta,
  fieldSchema,
  isRunConfigKey,
  parseRunConfigLenient,
  RUN_CONFIG_KEYS,
  SCHEMA_VERSION,
  type ConfigIssue,
  type RunConfig,
  type RunConfigKey,
} from '../../core/run/config';
import { visibleText } from '../../core/visible-text';
import { NUMBER_TEXT_RULE, readNumberText } from '../../core/number-text';
import { acceptedText } from './messages';

/** Longest key or value quoted back in a link notice (characters). */
const MAX_KEY = 40;
/** At most this many problems are listed one by one; the rest are counted in one more issue. */
const MAX_ISSUES = 20;
/** Link keys that are not settings: the schema version and the environment version. */
const VERSION_KEY = 'v',
  ENV_VERSION_KEY = 'envVersion';
/** Link keys of the stored checkpoint a run starts from: its name and the sha256 of its bytes. */
const CHECKPOINT_KEY = 'ckpt',
  CHECKPOINT_SHA_KEY = 'ckptSha256';

/** The stored checkpoint a linked run starts from: its name and the sha256 (64 lowercase hex digits) of its bytes. */
export interface LinkCheckpoint {
  name: string;
  sha256: string;
}

function short(v: string): string {
  return v.length > MAX_KEY ? `${v.slice(0, MAX_KEY)}…` : v;
}

/** Shortest secret `encodeHash` looks for (a shorter one would match ordinary values by chance). */
const MIN_SECRET = 4;

/**
 * Encodes a config as a hash string without the leading `#`: `v`, `envVersion`, then the non-default fields in
 * schema order.
 * @param secrets strings that must never appear in a link (the analyzer's API key): a field whose value contains one
 *   (say, a key pasted into the model field) is left out. Secrets shorter than 4 characters are ignored.
 * @param checkpoint the stored checkpoint the run starts from, written last as `ckpt=<name>&ckptSha256=<hex>`.
 */
export function encodeHash(
  config: RunConfig,
  secrets: readonly string[] = [],
  checkpoint: LinkCheckpoint | null = null,
): string {
  const left = new Set(fieldsHoldingSecret(config, secrets));
  const parts = [
    `${VERSION_KEY}=${SCHEMA_VERSION}`,
    `${ENV_VERSION_KEY}=${encodeURIComponent(getEnvSpec(config.env).version)}`,
  ];
  for (const key of RUN_CONFIG_KEYS) {
    const v = config[key];
    if (key === 'schemaVersion' || v === defaultFor(key, config.env) || left.has(key)) continue;
    parts.push(`${encodeURIComponent(key)}=${encodeURIComponent(String(v))}`);
  }
  if (checkpoint)
    parts.push(
      `${CHECKPOINT_KEY}=${encodeURIComponent(checkpoint.name)}`,
      `${CHECKPOINT_SHA_KEY}=${checkpoint.sha256}`,
    );
  return parts.join('&');
}

/** Fields of `config` that `encodeHash(config, secrets)` leaves out because they contain a secret. */
export function fieldsHoldingSecret(config: RunConfig, secrets: readonly string[]): RunConfigKey[] {
  const hidden = secrets.map((s) => s.trim()).filter((s) => s.length >= MIN_SECRET);
  return RUN_CONFIG_KEYS.filter((k) => {
    const v = config[k];
    return typeof v === 'string' && hidden.some((s) => v.includes(s));
  });
}

/**
 * Migrations of link values from older schema versions, applied in order (version n → n+1). Each returns notes on
 * what it changed or dropped. Version 1 (links without `v`) differs from 2 only by writing the seed always and
 * having fewer accepted values, so nothing needs renaming.
 */
const MIGRATIONS: Readonly<Record<number, (raw: Map<string, string>) => ConfigIssue[]>> = {
  1: () => [],
};

/**
 * A link value as the schema's type: numbers and booleans travel as text. Numbers are read as the CLI reads them
 * (core/number-text.ts); text that is not written as a number was already refused by `notANumber`.
 */
function typed(key: RunConfigKey, value: string): unknown {
  const kind = typeof DEFAULT_CONFIG[key];
  // `1e400` reads as Infinity, which the schema names ("received Infinity") with the accepted range.
  if (kind === 'number') return readNumberText(value) ?? value;
  if (kind === 'boolean') return value === 'true' ? true : value === 'false' ? false : value;
  return value;
}

/**
 * The issue for a number setting whose link value is not written as a number (`steps=0x10`, `steps=`), naming what
 * to write, e.g. `"0x10" is not a number; write an integer from 1 to 100000 in decimal digits (a point and an
 * exponent such as 2e3 are allowed), e.g. steps=120; ignored`. Null for any other setting or value.
 */
function notANumber(key: RunConfigKey, value: string): ConfigIssue | null {
  if (typeof DEFAULT_CONFIG[key] !== 'number' || readNumberText(value) !== null) return null;
  const what = value === '' ? 'empty' : `"${short(visibleText(value))}" is not a number`;
  return {
    field: key,
    message: `${what}; write ${acceptedText(key)} in ${NUMBER_TEXT_RULE}, e.g. ${key}=${DEFAULT_CONFIG[key]}; ignored`,
  };
}

/** Link keys that are not run settings but are read (versions, start checkpoint): no suggestion is made for them. */
const OTHER_KEYS = [VERSION_KEY, ENV_VERSION_KEY, CHECKPOINT_KEY, CHECKPOINT_SHA_KEY];

/**
 * The run-config field (or link key) an unknown link key most likely meant, or null: the field whose CLI flag it is
 * (`lr` → learningRate, `tasks` → tasksPerStep), the field it names in another case or spelling (`LR_SCHEDULE`,
 * `lr-schedule` → lrSchedule), else the field or link key whose name or flag is nearest by edit distance, within
 * max(1, ⌊length/3⌋) edits of the key folded the same way (`seeds` → seed); ties go to the earlier field in
 * schema order.
 */
export function nearestKey(key: string): string | null {
  const fold = (s: string) => s.toLowerCase().replace(/[-_\s]/g, '');
  const k = fold(key);
  if (k === '') return null;
  const names: Array<[string, string]> = [];
  for (const f of RUN_CONFIG_KEYS) {
    if (f === 'schemaVersion') continue;
    const flag = fieldMeta(f).flag;
    if (flag === key) return f;
    names.push([fold(f), f]);
    if (flag) names.push([fold(flag), f]);
  }
  for (const o of OTHER_KEYS) names.push([fold(o), o]);
  const same = names.find(([n]) => n === k);
  if (same) return same[1];
  const limit = Math.max(1, Math.floor(k.length / 3));
  let best: string | null = null;
  let bestD = limit + 1;
  for (const [n, f] of names) {
    const d = editDistance(k, n, bestD - 1);
    if (d < bestD) [best, bestD] = [f, d];
  }
  return best;
}

/** `%` followed by two hex digits: a percent-escape still there after one decoding. */
const ESCAPE = /%[0-9A-Fa-f]{2}/;

/** `decodeURIComponent(s)`, or null when `s` is not valid URL encoding. */
function decodeOrNull(s: string): string | null {
  try {
    return decodeURIComponent(s);
  } catch {
    return null;
  }
}

/**
 * The issue for a link part percent-encoded twice (`%2573teps=5`, `seed=%2537`, or the whole link
 * `#v%253D2%2526seed%253D3`, whose `%2526` / `%253D` are `&` / `=` encoded twice), given its key and value decoded
 * once; null for any other part. A key still holding an escape is always this (no setting name has `%`); a value
 * only where the setting is a number, a switch or a choice (a free text may hold `%`). The part is ignored and the
 * message quotes what the link should read, decoded once more.
 */
function doublyEncoded(key: string, value: string): ConfigIssue | null {
  const badKey = ESCAPE.test(key);
  const choice =
    isRunConfigKey(key) && (typeof DEFAULT_CONFIG[key] !== 'string' || fieldSchema(key).enum !== undefined);
  if (!badKey && !(choice && ESCAPE.test(value))) return null;
  const k2 = badKey ? decodeOrNull(key) : key,
    v2 = decodeOrNull(value);
  if (k2 === null || v2 === null) return null;
  const fixed = v2 === '' && /[=&]/.test(k2) ? k2 : `${k2}=${v2}`;
  // The whole link encoded twice decodes once into one key holding `=` and `&`: it is the link, not a setting.
  const field = /[=&]/.test(k2) ? '(link)' : short(k2);
  const seen = `${key}${badKey && value === '' ? '' : `=${value}`}`;
  return {
    field,
    message:
      `percent-encoded twice ("${short(seen)}" still holds %-escapes after decoding; "%25" is an ` +
      `encoded "%"), ignored; the link should read ${field === '(link)' ? '#' : ''}${short(fixed)}. ` +
      `Copy the link again with Copy link, or decode it once`,
  };
}

/** A repeated link key: how many times it was given and the value used (the last one). */
interface Repeat {
  times: number;
  value: string;
}

/**
 * Decodes a hash (with or without `#`) into a config.
 * @returns the config (defaults for missing or bad fields) and one issue per ignored, repeated or migrated field, the
 *   schema or environment version when it differs, at most 20 listed one by one and the rest counted; and the stored
 *   checkpoint the run starts from (`ckpt` with a valid `ckptSha256`; left out when absent or incomplete, with an
 *   issue for the latter). Never throws.
 */
export function decodeHash(hash: string): { config: RunConfig; issues: ConfigIssue[]; checkpoint?: LinkCheckpoint } {
  const issues: ConfigIssue[] = [];
  const body = linkBody(hash, issues);
  const { raw, dupes } = readParts(body, issues);
  const { vText, linkEnvVersion } = takeVersions(raw);
  const checkpoint = takeCheckpoint(raw, issues);
  migrate(vText, raw, issues);
  const { partial, notNumbers } = settingsOf(raw);
  const r = parseRunConfigLenient(partial);
  const envIssue = envVersionIssue(linkEnvVersion, r.config);
  if (envIssue) issues.push(envIssue);
  const twice = [...dupes].map(([field, d]) => ({
    field,
    message: `given ${d.times === 2 ? 'twice' : `${d.times} times`}; using ${short(d.value)}`,
  }));
  const capped = listIssues([...issues, ...twice, ...notNumbers, ...r.issues], raw);
  return { config: r.config, issues: capped, ...(checkpoint ? { checkpoint } : {}) };
}

/** The hash's settings text: `#` and a `?` right after it dropped, a link encoded as a whole decoded once (named). */
function linkBody(hash: string, issues: ConfigIssue[]): string {
  // One `#` starts the settings; a second one (two links pasted together, or `##`) is read as `&` and named.
  // `#?steps=5` (a query string pasted after `#`): the `?` is no part of a key, so it is dropped.
  let body = hash.replace(/^#/, '').replace(/^\?/, '');
  // The whole link percent-encoded once (`#v%3D2%26algo%3Dopid`): no raw `=` or `&`, but decoding it once gives
  // `key=value…`. It is decoded and read, and named (a link encoded twice still holds escapes: doublyEncoded).
  const whole = /[=&]/.test(body) || !ESCAPE.test(body) ? null : decodeOrNull(body);
  if (whole !== null && /^[^=&#%]+=/.test(whole)) {
    issues.push({
      field: '(link)',
      message:
        `this link was percent-encoded as a whole ("${short(body)}"); it was decoded once and ` +
        `read. It should read #${short(whole)}. Copy the link again with Copy link`,
    });
    body = whole;
  }
  const hashes = body.split('#').length; // the leading one, plus each extra one
  if (hashes > 1)
    issues.push({
      field: '(link)',
      message:
        `holds ${hashes} "#" signs where a link has one, before its settings (#v=${SCHEMA_VERSION}&seed=3…); ` +
        `each extra "#" was read as "&". To fix the link, replace the extra "#" with "&" (or ` +
        `remove it)`,
    });
  return body;
}

/** The link's `key=value` parts, decoded (the last of a repeated key wins, the repeats counted); bad parts named. */
function readParts(body: string, issues: ConfigIssue[]): { raw: Map<string, string>; dupes: Map<string, Repeat> } {
  const raw = new Map<string, string>();
  const dupes = new Map<string, Repeat>();
  for (const part of body.split(/[&#]/)) {
    const eq = part.indexOf('=');
    if (!part || eq === 0) continue; // `&&` or `=x`: no key
    let key: string, value: string;
    try {
      key = decodeURIComponent(eq < 0 ? part : part.slice(0, eq));
      value = decodeURIComponent(eq < 0 ? '' : part.slice(eq + 1));
    } catch {
      issues.push({ field: short(part), message: 'not valid URL encoding, ignored' });
      continue;
    }
    const twice = doublyEncoded(key, value);
    if (twice) {
      issues.push(twice);
      continue;
    }
    key = short(key); // a long bogus key must not stretch the notice
    // A repeated key: the last one wins, and the user is told.
    if (raw.has(key)) dupes.set(key, { times: (dupes.get(key)?.times ?? 1) + 1, value });
    raw.set(key, value);
  }
  return { raw, dupes };
}

/** Takes the version keys out of `raw`: `v` (absent = 1) and the env version; neither is a setting. */
function takeVersions(raw: Map<string, string>): { vText: string | undefined; linkEnvVersion: string | undefined } {
  const vText = raw.get(VERSION_KEY) ?? raw.get('schemaVersion');
  raw.delete(VERSION_KEY);
  raw.delete('schemaVersion');
  const linkEnvVersion = raw.get(ENV_VERSION_KEY) || undefined;
  raw.delete(ENV_VERSION_KEY);
  return { vText, linkEnvVersion };
}

/** Takes the start checkpoint's keys out of `raw`: the checkpoint, or null (named when only part of it is given). */
function takeCheckpoint(raw: Map<string, string>, issues: ConfigIssue[]): LinkCheckpoint | null {
  const ckptName = raw.get(CHECKPOINT_KEY),
    ckptSha = raw.get(CHECKPOINT_SHA_KEY);
  raw.delete(CHECKPOINT_KEY);
  raw.delete(CHECKPOINT_SHA_KEY);
  let checkpoint: LinkCheckpoint | null = null;
  if (ckptName !== undefined || ckptSha !== undefined) {
    if (ckptName && ckptSha !== undefined && /^[0-9a-f]{64}$/.test(ckptSha))
      checkpoint = { name: ckptName, sha256: ckptSha };
    else
      issues.push({
        field: CHECKPOINT_KEY,
        message:
          `a start checkpoint needs both ${CHECKPOINT_KEY} (its name) and ${CHECKPOINT_SHA_KEY} ` +
          `(64 hex digits); ignored, so the run starts as Start from says`,
      });
  }
  return checkpoint;
}

/** Checks the link's schema version `vText` and migrates `raw` from an older one, naming what it did. */
function migrate(vText: string | undefined, raw: Map<string, string>, issues: ConfigIssue[]): void {
  const v = vText === undefined ? 1 : Number(vText);
  if (!Number.isInteger(v) || v < 1)
    issues.push({
      field: VERSION_KEY,
      message: `schema version "${short(vText ?? '')}" is not a version number; read as the current one`,
    });
  else if (v > SCHEMA_VERSION)
    issues.push({
      field: VERSION_KEY,
      message:
        `made by a newer version (schema ${v}; this page reads ${SCHEMA_VERSION}): settings it ` +
        `does not know are ignored`,
    });
  else
    for (let from = v; from < SCHEMA_VERSION; from++)
      issues.push(...(Object.hasOwn(MIGRATIONS, from) ? MIGRATIONS[from](raw) : []));
}

/** The link's values as the schema's types, for the lenient parse, and the issues of number settings not numbers. */
function settingsOf(raw: Map<string, string>): { partial: Record<string, unknown>; notNumbers: ConfigIssue[] } {
  const partial: Record<string, unknown> = Object.create(null);
  const notNumbers: ConfigIssue[] = [];
  for (const [key, value] of raw) {
    const bad = isRunConfigKey(key) ? notANumber(key, value) : null;
    if (bad) notNumbers.push(bad);
    else partial[key] = isRunConfigKey(key) ? typed(key, value) : value;
  }
  return { partial, notNumbers };
}

/** The issue for a link made with another version of `config`'s environment; null when the same or not given. */
function envVersionIssue(linkEnvVersion: string | undefined, config: RunConfig): ConfigIssue | null {
  const current = getEnvSpec(config.env).version;
  if (linkEnvVersion === undefined || linkEnvVersion === current) return null;
  return {
    field: ENV_VERSION_KEY,
    message:
      `made with environment version ${short(linkEnvVersion)}; this is ${current}: the tasks may ` +
      `differ, so its results are not comparable with this run's`,
  };
}

/** The first MAX_ISSUES issues, with suggestions where a key or choice was likely mistyped, and the rest counted. */
function listIssues(all: ConfigIssue[], raw: Map<string, string>): ConfigIssue[] {
  // An unknown key listed: suggest the setting it most likely meant (`lr` → learningRate).
  const listed = all.slice(0, MAX_ISSUES).map((i) => {
    if (isRunConfigKey(i.field)) return withNearChoice(i, raw.get(i.field));
    if (i.message !== 'unknown setting, ignored') return i;
    const near = nearestKey(i.field);
    return near === null ? i : { ...i, message: `unknown setting, ignored; did you mean ${near}?` };
  });
  return all.length > MAX_ISSUES
    ? [...listed, { field: '(link)', message: `${all.length - MAX_ISSUES} more problems, ignored` }]
    : listed;
}

/**
 * `issue` for a choice setting (`algo`, `lrSchedule`, …) whose link value was refused, with `; did you mean opid?`
 * added when the value is a prefix of one choice or a few edits from one (nearestName, core/near.ts: `algo=op`,
 * `lrSchedule=cosin`); any other issue unchanged.
 */
function withNearChoice(issue: ConfigIssue, value: string | undefined): ConfigIssue {
  if (value === undefined || !isRunConfigKey(issue.field)) return issue;
  const choices = fieldSchema(issue.field).enum;
  if (!choices || choices.includes(value)) return issue;
  const near = nearestName(value, choices.map(String));
  return near === null ? issue : { ...issue, message: `${issue.message}; did you mean ${near}?` };
}
