/**
 * A small, typed command-line flag parser shared by the CLIs (cli/*.ts).
 *
 * Flags are declared once in a spec table (key = flag name without `--`); `parseArgs` returns a typed object.
 * Parsing is `node:util` parseArgs (strict; positional arguments only through `parseArgsAndPositionals`); this
 * module adds types, ranges, choices and messages.
 * Accepted forms: `--name value`, `--name=value`, and for booleans `--name` (true) or `--name=true|false`.
 * A flag may be given once: a second occurrence is refused (`repeatedFlag`), in every form.
 * Every error is a `UsageError` whose message names the flag and the accepted values; CLIs print it with
 * `usage(spec)` on stderr and exit with code 2 (`USAGE_EXIT_CODE`).
 */
import { parseArgs as nodeParseArgs } from 'node:util';
import { lookAlikeNote, nearestName } from '../src/core/near';
import { readNumberText } from '../src/core/number-text';

/** Exit code for bad command-line input (BSD sysexits-style "usage" convention used by many CLIs). */
export const USAGE_EXIT_CODE = 2;

/**
 * Bad command-line input. `flag` is the offending flag (without `--`), when there is one; `value` is the value given
 * to it, when that value is what was refused (a choice, type or range error).
 */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly flag?: string,
    readonly value?: string,
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
/**
 * An integer (`int`) or finite number (`float`) within [min, max] (inclusive; either bound optional), written as links
 * write numbers (core/number-text.ts): `20`, `0.5`, `1e-3`; an integer is a whole value (`1e3`, `5.0`).
 */
export interface NumberFlag {
  type: 'int' | 'float';
  help: string;
  default?: number;
  min?: number;
  max?: number;
  required?: boolean;
}
/** A switch: absent = `default` (false when not given). */
export interface BooleanFlag {
  type: 'boolean';
  help: string;
  default?: boolean;
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
  return Object.keys(spec)
    .map((k) => `--${k}`)
    .join(', ');
}

function convert(name: string, f: FlagSpec, raw: string): string | number | boolean {
  const flag = `--${name}`;
  if (f.type === 'boolean') {
    if (raw === 'true') return true;
    if (raw === 'false') return false;
    throw new UsageError(`${flag} takes no value or true|false, got "${raw}"`, name, raw);
  }
  if (f.type === 'string') {
    if (f.choices && !f.choices.includes(raw)) throw new UsageError(choiceError(name, f.choices, raw), name, raw);
    return raw;
  }
  const isInt = f.type === 'int';
  // One rule with links (core/number-text.ts): decimal digits, point and exponent; an integer is a whole value (1e3).
  const read = readNumberText(raw);
  const ok = read !== null && (isInt ? Number.isInteger(read) : Number.isFinite(read));
  const v = read ?? NaN;
  if (
    !ok ||
    (isInt && !Number.isSafeInteger(v)) ||
    (f.min !== undefined && v < f.min) ||
    (f.max !== undefined && v > f.max)
  ) {
    // An integer past 2^53 − 1 (`--task 99999999999999999999`) is refused as too large, not as "not an integer".
    const huge = ok && isInt && !Number.isSafeInteger(v) && (f.max === undefined || f.max >= Number.MAX_SAFE_INTEGER);
    const why = huge ? `, beyond the largest integer it takes (${Number.MAX_SAFE_INTEGER})` : '';
    throw new UsageError(
      numberError(name, describe(f), raw, f.default ?? f.min ?? f.max, f.default !== undefined, why),
      name,
      raw,
    );
  }
  return v;
}

/**
 * `; did you mean X?` naming the entry of `names` that `raw` most likely meant (nearestName, src/core/near.ts: `op` →
 * opid, `wsm` → wasm, `sh0p` → shop), naming the look-alike letters of `raw` when it holds any
 * (lookAlikeNote; Cyrillic `ѕһор`: `; did you mean shop? (written with look-alikes of Latin letters: ѕ U+0455,
 * …)`), or '' when none is near enough.
 */
export function didYouMean(raw: string, names: readonly string[]): string {
  const near = nearestName(raw, names);
  return near === null ? '' : `; did you mean ${near}?${lookAlikeNote(raw)}`;
}

/**
 * The message for a flag given a value outside its choices, as every CLI words it: the flag, the values it accepts,
 * the value given and the value it most likely meant (didYouMean), e.g. `--algo must be one of: grpo, opid,
 * skill-grpo, agentic-opd (got "op"); did you mean opid?`. `name`: the flag without `--`.
 */
export function choiceError(name: string, choices: readonly string[], raw: string): string {
  return `--${name} must be one of: ${choices.join(', ')} (got "${raw}")${didYouMean(raw, choices)}`;
}

/**
 * The message for a number flag given a value it does not accept, as every CLI words it: the flag, what it accepts,
 * the value given and the fix, e.g. `--steps must be an integer in 1..100, got "-1"; give e.g. --steps 20 (the
 * default)`. `example`: a value the flag accepts (its default, then `isDefault` true says so, or a bound); the fix is
 * left out when it is undefined. `why`: text put right after the value given (`, beyond the largest integer it
 * takes (9007199254740991)`).
 */
export function numberError(
  name: string,
  accepts: string,
  raw: string,
  example?: number,
  isDefault = false,
  why = '',
): string {
  const fix = example === undefined ? '' : `; give e.g. --${name} ${example}${isDefault ? ' (the default)' : ''}`;
  return `--${name} must be ${accepts}, got "${raw}"${why}${fix}`;
}

/**
 * Message of a `node:util` parseArgs error (ERR_PARSE_ARGS_*) rewritten to name the flag and what it accepts, as a
 * UsageError; undefined for any other error. For CLIs that call `node:util` parseArgs themselves (compare takes
 * positional arguments) and want the same messages as `parseArgs` here.
 */
export function translate(e: unknown, argv: readonly string[], spec: FlagTable): UsageError | undefined {
  const err = e as { code?: string; message?: string };
  const msg = String(err.message ?? '');
  if (err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const name = /'([^']*)'/.exec(msg)?.[1] ?? '';
    if (!name.startsWith('--')) {
      // A short option (`-x`, `-abc`): the CLIs take long flags only, so it is a stray argument.
      const raw = argv.find((a) => a.startsWith(name) && !a.startsWith('--')) ?? name;
      return new UsageError(`unexpected argument "${raw}"; accepted flags: ${accepted(spec)}`);
    }
    // A misspelt flag (`--stpes`, `--Steps`, `--ste`) names the flag it most likely meant (nearestName, core/near.ts).
    const hint = didYouMean(
      name.slice(2),
      Object.keys(spec).map((k) => `--${k}`),
    );
    return new UsageError(`unknown flag ${name}${hint}; accepted flags: ${accepted(spec)}`, name.slice(2));
  }
  if (err.code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') {
    const raw = /^Unexpected argument '([\s\S]*)'\. This command/.exec(msg)?.[1] ?? msg;
    return new UsageError(`unexpected argument "${raw}"; accepted flags: ${accepted(spec)}`);
  }
  if (err.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    // "Option '--x <value>' argument missing", "Option '--x' argument is ambiguous…" (the next argument is a flag),
    // "Option '--x' does not take an argument" (a boolean given a value).
    const name = /Option '--([^' ]+)/.exec(msg)?.[1];
    const f = name !== undefined && Object.hasOwn(spec, name) ? spec[name] : undefined;
    if (name !== undefined && f) {
      if (f.type === 'boolean') {
        const raw = argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? '';
        return new UsageError(`--${name} takes no value or true|false, got "${raw}"`, name, raw);
      }
      return new UsageError(`--${name} needs a value (${describe(f)})`, name);
    }
  }
  return undefined;
}

/**
 * Rewrites `argv` into forms `node:util` parseArgs reads the way this module documents:
 * `--name -1` (a value starting with one dash, e.g. a negative number) becomes `--name=-1`, so that it is checked
 * as a value (and reported as out of range) instead of being taken for a flag; `--flag=true|false` of a boolean
 * becomes `--flag` (its argv index is recorded in `falseAt` for `false`); `--flag true|false` (a separate value) is
 * refused with the forms to write, in every CLI (a positional `true` would otherwise be read as a path). A lone `--` is
 * refused, unless
 * `positionals` (the CLI takes positional arguments): then it ends the flags.
 */
function normalise(
  argv: readonly string[],
  spec: FlagTable,
  positionals = false,
): { args: string[]; falseAt: Set<number> } {
  const args: string[] = [];
  const falseAt = new Set<number>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--' && positionals) {
      args.push(...argv.slice(i)); // every later argument is a positional one
      break;
    }
    if (arg === '--') throw new UsageError(`unexpected argument "--"; accepted flags: ${accepted(spec)}`);
    if (!arg.startsWith('--')) {
      args.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
    const f = Object.hasOwn(spec, name) ? spec[name] : undefined;
    if (f?.type === 'boolean' && eq < 0 && (argv[i + 1] === 'true' || argv[i + 1] === 'false')) {
      // `--lad-gate false` as TRL's and argparse's users write it: the next word is the flag's value (a positional
      // argument spelled "true" or "false" is written after `--`).
      if (argv[i + 1] === 'false') falseAt.add(args.length);
      args.push(`--${name}`);
      i++;
      continue;
    }
    if (f?.type === 'boolean' && eq >= 0) {
      const raw = arg.slice(eq + 1);
      if (raw !== 'true' && raw !== 'false')
        throw new UsageError(`--${name} takes no value or true|false, got "${raw}"`, name, raw);
      if (raw === 'false') falseAt.add(args.length);
      args.push(`--${name}`);
    } else if (f && f.type !== 'boolean' && eq < 0 && i + 1 < argv.length && /^-(?!-)/.test(argv[i + 1])) {
      args.push(`--${name}=${argv[++i]}`);
    } else args.push(arg);
  }
  return { args, falseAt };
}

/**
 * Parse `argv` (e.g. `process.argv.slice(2)`) against a flag table, with `node:util` parseArgs (strict, no
 * positionals); its errors are rewritten to name the flag and what it accepts.
 * @throws UsageError on an unknown flag, a positional argument, a missing value, a value outside the flag's
 *   choices or range, a flag given twice, or a missing required flag. The message names the flag and what it accepts.
 */
export function parseArgs<const S extends FlagTable>(argv: readonly string[], spec: S): ParsedArgs<S> {
  return parse(argv, spec, false).flags;
}

/**
 * As `parseArgs`, for a CLI that also takes positional arguments (compare's run directories, pack's paths): flags
 * and positional arguments in any order, `--` ends the flags. Booleans accept the same forms as in every CLI
 * (`--json`, `--json=true`, `--json=false`).
 * @returns the flags and the positional arguments in argv order.
 * @throws UsageError as `parseArgs` (but never for a positional argument).
 */
export function parseArgsAndPositionals<const S extends FlagTable>(
  argv: readonly string[],
  spec: S,
): { flags: ParsedArgs<S>; positionals: string[] } {
  return parse(argv, spec, true);
}

/**
 * The message for flags that `npm run` kept for itself: `npm run train --steps 3` (without `--` before the flags)
 * hands the script `3` alone and sets the environment variable `npm_config_steps`, so the run would go on with the
 * default steps, or stop at a stray `3`. Returns null unless the command runs under npm (`npm_lifecycle_event` set)
 * and some flag of `spec` that `argv` lacks is set as `npm_config_<flag, - as _>` in `env`; otherwise names each
 * such flag and the command written with `--`, e.g. `npm took --steps for itself: with npm run, the command's flags go
 * after "--", as in: npm run train -- --steps …`.
 * @param env the process environment (process.env).
 */
export function npmTookFlags(
  argv: readonly string[],
  spec: FlagTable,
  env: Readonly<Record<string, string | undefined>>,
): string | null {
  const script = env.npm_lifecycle_event;
  if (!script) return null;
  const given = new Set(argv.filter((a) => a.startsWith('--')).map((a) => a.slice(2).split('=')[0]));
  const taken = Object.keys(spec).filter(
    (name) => !given.has(name) && Object.hasOwn(env, `npm_config_${name.replace(/-/g, '_')}`),
  );
  if (!taken.length) return null;
  const shown = taken.map((name) => {
    const v = env[`npm_config_${name.replace(/-/g, '_')}`];
    if (spec[name].type === 'boolean') return `--${name}`;
    return `--${name} ${v !== undefined && v !== '' && v !== 'true' ? v : '…'}`;
  });
  return (
    `npm took ${taken.map((n) => `--${n}`).join(', ')} for itself: with npm run, the command's flags ` +
    `go after "--", as in: npm run ${script} -- ${shown.join(' ')}`
  );
}

function parse<const S extends FlagTable>(
  argv: readonly string[],
  spec: S,
  allowPositionals: boolean,
): { flags: ParsedArgs<S>; positionals: string[] } {
  const took = npmTookFlags(argv, spec, process.env);
  if (took) throw new UsageError(took);
  const { args, falseAt } = normalise(argv, spec, allowPositionals);
  const options: Record<string, { type: 'string' | 'boolean' }> = {};
  for (const [name, f] of Object.entries(spec)) options[name] = { type: f.type === 'boolean' ? 'boolean' : 'string' };
  let tokens;
  try {
    tokens = nodeParseArgs({ args, options, strict: true, allowPositionals, tokens: true }).tokens;
  } catch (e) {
    throw translate(e, argv, spec) ?? e;
  }
  const positionals = tokens.flatMap((t) => (t.kind === 'positional' ? [t.value] : []));
  const out: Record<string, unknown> = {};
  for (const [name, f] of Object.entries(spec)) {
    if (f.type === 'boolean') out[name] = f.default ?? false;
    else if (f.default !== undefined) out[name] = f.default;
  }
  // Tokens in argv order: every value is checked; a flag given twice is refused (repeatedFlag).
  const given = new Map<string, string>();
  for (const t of tokens) {
    if (t.kind !== 'option') continue;
    const f = spec[t.name];
    const raw = f.type === 'boolean' ? String(!falseAt.has(t.index)) : (t.value ?? '');
    const before = given.get(t.name);
    if (before !== undefined) throw repeatedFlag(t.name, before, raw);
    given.set(t.name, raw);
    out[t.name] = f.type === 'boolean' ? raw === 'true' : convert(t.name, f, raw);
  }
  for (const [name, f] of Object.entries(spec)) {
    if (f.type !== 'boolean' && f.required && out[name] === undefined) {
      throw new UsageError(`--${name} is required (${describe(f)})`, name);
    }
  }
  return { flags: out as ParsedArgs<S>, positionals };
}

/**
 * The error for a flag given twice (`--steps 5 --steps 50`, `--steps=5 --steps 50`, or a boolean's `--json` and
 * `--json=false`): every CLI refuses it rather than let one of the two silently win, naming the flag, both values as
 * written (a boolean's as true or false) and the fix, e.g. `--steps given twice (5, then 50): give --steps once`.
 * `name`: the flag without `--`. The error's `flag` is `name`; its `value` is left unset, as neither value is what is
 * refused (a CLI that adds a flag's accepted values to a refused value's message adds nothing here).
 */
export function repeatedFlag(name: string, first: string, second: string): UsageError {
  return new UsageError(`--${name} given twice (${first}, then ${second}): give --${name} once`, name);
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

/** Width of `--help` text in characters: lines wrap at spaces to fit (a word longer than a line stays whole). */
export const HELP_WIDTH = 100;

/** A word that is an operator (`×`, `=`, `+`, `−`, `→`, `≥`, `≤`, `·`) or ends with one. */
const OPERATOR_END = /[×=+−→≥≤·]$/;
/** A unit that stays with the number before it. */
const UNIT = /^(KiB|MiB|GiB|B|ms|s|min|h|%|nats|tokens|bytes)[,;.)]*$/;

/** Whether `next` must stay on the line of `atom` (the words before it): see `wrapHanging`. */
function glued(atom: string, prev: string, next: string): boolean {
  // an unclosed { or [ of an example, up to 60 characters (an open form named in prose, `search[`, stays breakable)
  const open = (o: string, c: string) => atom.length < 60 && atom.split(o).length > atom.split(c).length;
  return (
    open('{', '}') ||
    open('[', ']') ||
    /^[0-9]/.test(next) ||
    OPERATOR_END.test(prev) ||
    OPERATOR_END.test(next) ||
    (/^[0-9][0-9.,]*$/.test(prev) && UNIT.test(next))
  );
}

/**
 * `text` wrapped at spaces into lines of at most `width` characters: its first `indent` characters (a flag's name,
 * padded) are kept as they are, and every following line is indented by `indent` spaces (a hanging indent under
 * the description); a `\n` in the description starts a new line at that indent. Some words stay together, as an
 * unbreakable group: a number with the word before it (`≥ 0`, `B 4`, `λ 0.001`) and a unit after it (`64 MiB`),
 * words around an operator (`16 × 8`, `A = A_ep + λ·A_skill`) and a `{…}` or `[…]` example of up to 60
 * characters; a group longer than a line is kept whole on its own line. Runs of spaces in the description become
 * one. Returns the lines joined with `\n`.
 */
export function wrapHanging(text: string, indent: number, width = HELP_WIDTH): string {
  const out: string[] = [];
  const pad = ' '.repeat(indent);
  text
    .slice(indent)
    .split('\n')
    .forEach((para, k) => {
      const atoms: string[] = [];
      let prev = '';
      for (const word of para.split(' ').filter((w) => w !== '')) {
        if (atoms.length && glued(atoms[atoms.length - 1], prev, word)) atoms[atoms.length - 1] += ` ${word}`;
        else atoms.push(word);
        prev = word;
      }
      let line = k === 0 ? text.slice(0, indent) : pad;
      let fresh = true; // no atom on `line` yet
      for (const atom of atoms) {
        if (!fresh && line.length + 1 + atom.length > width) {
          out.push(line);
          line = pad;
          fresh = true;
        }
        line += fresh ? atom : ` ${atom}`;
        fresh = false;
      }
      out.push(line);
    });
  return out.join('\n');
}

/** Help text: a usage line and one entry per flag (wrapped to `HELP_WIDTH`) with what it accepts and its default. */
export function usage(command: string, spec: FlagTable): string {
  const lines = [`usage: ${command} [flags]`, 'flags:'];
  const w = Math.max(12, ...Object.keys(spec).map((n) => n.length));
  for (const [name, f] of Object.entries(spec)) {
    const def = f.default !== undefined && f.default !== false ? `; default ${f.default}` : '';
    const req = f.type !== 'boolean' && f.required ? '; required' : '';
    lines.push(wrapHanging(`  --${name.padEnd(w)} ${f.help} (${describe(f)}${def}${req})`, w + 5));
  }
  return lines.join('\n');
}

/**
 * `argv` as one POSIX shell line that gives back the same arguments when pasted: an argument made only of
 * `A–Z a–z 0–9 _ - . / = : , @ % +` is written as is, any other (spaces, quotes, `$`, an empty one) in single
 * quotes, a single quote inside written `'\''`. For the commands recorded in run files and manifests.
 */
export function shellLine(argv: readonly string[]): string {
  return argv.map((a) => (/^[A-Za-z0-9_\-./=:,@%+]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}
