/**
 * Shareable links: the run config in `location.hash` as `#k=v&…` (DESIGN.md §3 "Run config and links").
 *
 * Only fields that differ from the shipped defaults are written, plus the seed (always). Reading is lenient:
 * bad or unknown fields are dropped (their defaults kept) and reported, so a foreign link still opens.
 */
import {
  DEFAULT_CONFIG,
  parseRunConfigLenient,
  type ConfigIssue,
  type RunConfig,
  type RunConfigKey,
} from '../../core/run/config';

/** Longest key or value quoted back in a link notice (characters). */
const MAX_KEY = 40;

function short(v: string): string {
  return v.length > MAX_KEY ? `${v.slice(0, MAX_KEY)}…` : v;
}

/** Shortest secret `encodeHash` looks for (a shorter one would match ordinary values by chance). */
const MIN_SECRET = 4;

/**
 * Encodes the non-default fields (and the seed) as a hash string without the leading `#`.
 * @param secrets strings that must never appear in a link (the analyzer's API key, issue #4): a field whose value
 *   contains one (say, a key pasted into the model field) is left out. Secrets shorter than 4 characters are ignored.
 */
export function encodeHash(config: RunConfig, secrets: readonly string[] = []): string {
  const left = new Set(fieldsHoldingSecret(config, secrets));
  const parts: string[] = [];
  for (const key of Object.keys(DEFAULT_CONFIG) as RunConfigKey[]) {
    const v = config[key];
    if ((key !== 'seed' && v === DEFAULT_CONFIG[key]) || left.has(key)) continue;
    parts.push(`${encodeURIComponent(key)}=${encodeURIComponent(String(v))}`);
  }
  return parts.join('&');
}

/** Fields of `config` that `encodeHash(config, secrets)` leaves out because they contain a secret. */
export function fieldsHoldingSecret(config: RunConfig, secrets: readonly string[]): RunConfigKey[] {
  const hidden = secrets.map((s) => s.trim()).filter((s) => s.length >= MIN_SECRET);
  return (Object.keys(DEFAULT_CONFIG) as RunConfigKey[]).filter((k) => {
    const v = config[k];
    return typeof v === 'string' && hidden.some((s) => v.includes(s));
  });
}

/**
 * Decodes a hash (with or without `#`) into a config.
 * @returns the config (defaults for missing or bad fields) and one issue per ignored or repeated field (the last
 *   of a repeated key wins); never throws.
 */
export function decodeHash(hash: string): { config: RunConfig; issues: ConfigIssue[] } {
  const raw: Record<string, unknown> = {};
  const issues: ConfigIssue[] = [];
  const dupes = new Map<string, { times: number; value: string }>();
  const body = hash.replace(/^#/, '');
  for (const part of body.split('&')) {
    if (!part) continue;
    const eq = part.indexOf('=');
    let key: string, value: string;
    try {
      key = decodeURIComponent(eq < 0 ? part : part.slice(0, eq));
      value = decodeURIComponent(eq < 0 ? '' : part.slice(eq + 1));
    } catch {
      issues.push({ field: part.slice(0, 40), message: 'not valid URL encoding, ignored' });
      continue;
    }
    if (key.length > MAX_KEY) key = `${key.slice(0, MAX_KEY)}…`; // a long bogus key must not stretch the notice
    // A repeated key: the last one wins (as URLSearchParams.get would not), and the user is told.
    if (key in raw) dupes.set(key, { times: (dupes.get(key)?.times ?? 1) + 1, value });
    // Numbers and booleans travel as text; convert where the schema's default has that type so zod can check them.
    const kind = typeof (DEFAULT_CONFIG as Record<string, unknown>)[key];
    if (kind === 'number') raw[key] = value.trim() !== '' && Number.isFinite(Number(value)) ? Number(value) : value;
    else if (kind === 'boolean') raw[key] = value === 'true' ? true : value === 'false' ? false : value;
    else raw[key] = value;
  }
  const r = parseRunConfigLenient(raw);
  const twice = [...dupes].map(([field, d]) => ({
    field,
    message: `given ${d.times === 2 ? 'twice' : `${d.times} times`}; using ${short(d.value)}`,
  }));
  return { config: r.config, issues: [...issues, ...twice, ...r.issues] };
}
