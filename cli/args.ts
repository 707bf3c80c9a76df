/**
 * A small, typed command-line flag parser shared by the CLIs (cli/*.ts).
 *
 * Flags are declared once in a spec table (key = flag name without `--`); `parseArgs` returns a typed object.
 * Accepted forms: `--name value`, `--name=value`, and for booleans `--name` (true) or `--name=true|false`.
 * Every error is a `UsageError` whose message names the flag and the accepted values; CLIs print it with
 * `usage(spec)` on stderr and exit with code 2 (`USAGE_EXIT_CODE`).
 */

/** Exit code for bad command-line input (BSD sysexits-style "usage" convention used by many CLIs). */
export const USAGE_EXIT_CODE = 2;

/** Bad command-line input. `flag` is the offending flag (without `--`), when there is one. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly flag?: string,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

/** A free string, optionally restricted to `choices`. */
export interface StringFlag {
  type: 'string';
  help: string;
  default?: string;
  choices?: readonly string[];
  required?: boolean;
}
/** An integer (`int`) or finite number (`float`) within [min, max] (inclusive; either bound optional). */
export interface NumberFlag {
  type: 'int' | 'float';
  help: string;
  default?: number;
  min?: number;
  max?: number;
  required?: boolean;
}
/** A switch: absent = false. */
export interface BooleanFlag {
  type: 'boolean';
  help: string;
}
/** One flag's declaration. */
export type FlagSpec = StringFlag | NumberFlag | BooleanFlag;
/** A CLI's flag table. */
export type FlagTable = Record<string, FlagSpec>;

type ValueOf<F> = F extends BooleanFlag
  ? boolean
  : F extends NumberFlag
    ? number
    : F extends { choices: readonly (infer C)[] }
      ? C
      : string;

/** Parsed flags: booleans always present; others present when they have a default or are required. */
export type ParsedArgs<S extends FlagTable> = {
  [K in keyof S]: S[K] extends BooleanFlag
    ? boolean
    : S[K] extends { default: unknown } | { required: true }
      ? ValueOf<S[K]>
      : ValueOf<S[K]> | undefined;
};

function accepted(spec: FlagTable): string {
  return Object.keys(spec).map((k) => `--${k}`).join(', ');
}

function convert(name: string, f: FlagSpec, raw: string): string | number | boolean {
  const flag = `--${name}`;
  if (f.type === 'boolean') {
    if (raw === 'true') return true;
    if (raw === 'false') return false;
    throw new UsageError(`${flag} takes no value or true|false, got "${raw}"`, name);
  }
  if (f.type === 'string') {
    if (f.choices && !f.choices.includes(raw)) {
      throw new UsageError(`${flag} must be one of: ${f.choices.join(', ')} (got "${raw}")`, name);
    }
    return raw;
  }
  const isInt = f.type === 'int';
  const ok = isInt ? /^[+-]?\d+$/.test(raw) : raw.trim() !== '' && Number.isFinite(Number(raw));
  const v = Number(raw);
  if (!ok || (isInt && !Number.isSafeInteger(v)) || (f.min !== undefined && v < f.min) || (f.max !== undefined && v > f.max)) {
    throw new UsageError(`${flag} must be ${describe(f)}, got "${raw}"`, name);
  }
  return v;
}

/**
 * Parse `argv` (e.g. `process.argv.slice(2)`) against a flag table.
 * @throws UsageError on an unknown flag, a positional argument, a missing value, a value outside the flag's
 *   choices or range, or a missing required flag. The message names the flag and what it accepts.
 */
export function parseArgs<const S extends FlagTable>(argv: readonly string[], spec: S): ParsedArgs<S> {
  const out: Record<string, unknown> = {};
  for (const [name, f] of Object.entries(spec)) {
    if (f.type === 'boolean') out[name] = false;
    else if (f.default !== undefined) out[name] = f.default;
  }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('--') || arg === '--') {
      throw new UsageError(`unexpected argument "${arg}"; accepted flags: ${accepted(spec)}`);
    }
    const eq = arg.indexOf('=');
    const name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
    const f = Object.prototype.hasOwnProperty.call(spec, name) ? spec[name] : undefined;
    if (!f) throw new UsageError(`unknown flag --${name}; accepted flags: ${accepted(spec)}`, name);
    let raw: string;
    if (eq >= 0) raw = arg.slice(eq + 1);
    else if (f.type === 'boolean') raw = 'true';
    else if (i + 1 < argv.length && !argv[i + 1].startsWith('--')) raw = argv[++i];
    else throw new UsageError(`--${name} needs a value (${describe(f)})`, name);
    out[name] = convert(name, f, raw);
  }
  for (const [name, f] of Object.entries(spec)) {
    if (f.type !== 'boolean' && f.required && out[name] === undefined) {
      throw new UsageError(`--${name} is required (${describe(f)})`, name);
    }
  }
  return out as ParsedArgs<S>;
}

/** What a flag accepts, e.g. `one of: a, b`, `an integer ≥ 0`, `a number in 0..1`. */
function describe(f: FlagSpec): string {
  if (f.type === 'boolean') return 'a switch';
  if (f.type === 'string') return f.choices ? `one of: ${f.choices.join(', ')}` : 'a string';
  const what = f.type === 'int' ? 'an integer' : 'a number';
  if (f.min !== undefined && f.max !== undefined) return `${what} in ${f.min}..${f.max}`;
  if (f.min !== undefined) return `${what} ≥ ${f.min}`;
  if (f.max !== undefined) return `${what} ≤ ${f.max}`;
  return what;
}

/** Help text: a usage line and one line per flag with what it accepts and its default. */
export function usage(command: string, spec: FlagTable): string {
  const lines = [`usage: ${command} [flags]`, 'flags:'];
  const w = Math.max(12, ...Object.keys(spec).map((n) => n.length));
  for (const [name, f] of Object.entries(spec)) {
    const def = f.type !== 'boolean' && f.default !== undefined ? `; default ${f.default}` : '';
    const req = f.type !== 'boolean' && f.required ? '; required' : '';
    lines.push(`  --${name.padEnd(w)} ${f.help} (${describe(f)}${def}${req})`);
  }
  return lines.join('\n');
}
