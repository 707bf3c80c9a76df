/**
 * The shared CLI flag parser (node:util parseArgs underneath): forms, types, ranges, choices and the errors that name
 * the flag.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  UsageError,
  choiceError,
  didYouMean,
  npmTookFlags,
  parseArgs,
  parseArgsAndPositionals,
  usage,
  wrapHanging,
  HELP_WIDTH,
} from '../../cli/args';

const SPEC = {
  env: { type: 'string', choices: ['household', 'shop'], default: 'household', help: 'environment' },
  name: { type: 'string', help: 'a name' },
  steps: { type: 'int', min: 1, max: 100, default: 10, help: 'steps' },
  lr: { type: 'float', min: 0, max: 1, help: 'learning rate' },
  seed: { type: 'int', min: 0, required: true, help: 'seed' },
  json: { type: 'boolean', help: 'JSON output' },
} as const;

/** The UsageError thrown by parsing `argv`. */
function usageError(argv: string[]): UsageError {
  try {
    parseArgs(argv, SPEC);
  } catch (e) {
    if (e instanceof UsageError) return e;
    throw e;
  }
  throw new Error(`no error for ${argv.join(' ')}`);
}

describe('parseArgs', () => {
  it('applies defaults and parses every form', () => {
    expect(parseArgs(['--seed', '3'], SPEC)).toEqual({ env: 'household', steps: 10, seed: 3, json: false });
    const a = parseArgs(['--env=shop', '--steps', '7', '--lr', '1e-3', '--json', '--name', 'x y', '--seed=0'], SPEC);
    expect(a).toEqual({ env: 'shop', steps: 7, lr: 0.001, json: true, name: 'x y', seed: 0 });
    expect(parseArgs(['--seed', '1', '--json=false'], SPEC).json).toBe(false);
  });

  it('names the flag and what it accepts in every error', () => {
    expect(usageError(['--seed', '1', '--env', 'foo'])).toMatchObject({
      flag: 'env',
      message: '--env must be one of: household, shop (got "foo")',
    });
    expect(usageError(['--seed', '-1']).message).toBe('--seed must be an integer ≥ 0, got "-1"; give e.g. --seed 0');
    expect(usageError(['--seed', '1.5']).message).toBe(
      '--seed must be an integer ≥ 0, got "1.5"; give ' + 'e.g. --seed 0',
    );
    expect(usageError(['--seed', 'abc']).flag).toBe('seed');
    expect(usageError(['--seed', '1', '--steps', '101']).message).toBe(
      '--steps must be an integer in 1..100, got "101"; give e.g. --steps 10 (the default)',
    );
    expect(usageError(['--seed', '1', '--lr', 'nan']).message).toBe(
      '--lr must be a number in 0..1, got "nan"; give e.g. --lr 0',
    );
    expect(usageError(['--seed', '1', '--lr', '']).flag).toBe('lr');
    expect(usageError(['--seed']).message).toBe('--seed needs a value (an integer ≥ 0)');
    expect(usageError(['--seed', '--json']).message).toBe('--seed needs a value (an integer ≥ 0)');
    expect(usageError([]).message).toBe('--seed is required (an integer ≥ 0)');
    expect(usageError(['--seed', '1', '--bogus']).message).toBe(
      'unknown flag --bogus; accepted flags: --env, --name, --steps, --lr, --seed, --json',
    );
    expect(usageError(['--seed', '1', 'extra']).message).toMatch(/^unexpected argument "extra"; accepted flags: --env/);
    expect(usageError(['--seed', '1', '--json=yes']).message).toBe('--json takes no value or true|false, got "yes"');
    expect(usageError(['--toString']).message).toMatch(/^unknown flag --toString/);
  });

  it('an integer past 2^53 − 1 is refused as too large', () => {
    expect(usageError(['--seed', '99999999999999999999']).message).toBe(
      '--seed must be an integer ≥ 0, got "99999999999999999999", beyond the largest integer it takes ' +
        '(9007199254740991); give e.g. --seed 0',
    );
    // With a smaller max, the range says it all.
    expect(usageError(['--seed', '1', '--steps', '99999999999999999999']).message).toBe(
      '--steps must be an integer in 1..100, got "99999999999999999999"; give e.g. --steps 10 (the default)',
    );
  });

  it('an unknown flag names the flag it most likely meant', () => {
    const all = '; accepted flags: --env, --name, --steps, --lr, --seed, --json';
    expect(usageError(['--seed', '1', '--stpes', '3'])).toMatchObject({
      flag: 'stpes',
      message: `unknown flag --stpes; did you mean --steps?${all}`,
    });
    expect(usageError(['--seed', '1', '--ste=3']).message).toBe(`unknown flag --ste; did you mean --steps?${all}`);
    expect(usageError(['--seed', '1', '--Seed', '2']).message).toBe(`unknown flag --Seed; did you mean --seed?${all}`);
  });

  it("a value outside a flag's choices names the choices and the one it most likely meant", () => {
    expect(usageError(['--seed', '1', '--env', 'shp'])).toMatchObject({
      flag: 'env',
      value: 'shp',
      message: '--env must be one of: household, shop (got "shp"); did you mean shop?',
    });
    expect(usageError(['--seed', '1', '--env=house']).message).toBe(
      '--env must be one of: household, shop (got "house"); did you mean household?',
    ); // a prefix
    expect(usageError(['--seed', '1', '--env', 'SHOP']).message).toBe(
      '--env must be one of: household, shop (got "SHOP"); did you mean shop?',
    ); // case
    expect(choiceError('algo', ['grpo', 'opid', 'skill-grpo', 'agentic-opd'], 'op')).toBe(
      '--algo must be one of: grpo, opid, skill-grpo, agentic-opd (got "op"); did you mean opid?',
    );
    expect(choiceError('backend', ['cpu', 'wasm', 'webgpu'], 'gpu')).toBe(
      '--backend must be one of: cpu, wasm, webgpu (got "gpu"); did you mean webgpu?',
    );
    expect(didYouMean('tset-seen', ['train', 'test-seen', 'test-unseen', 'val'])).toBe('; did you mean test-seen?');
    expect(didYouMean('xyz', ['grpo', 'opid'])).toBe('');
  });

  it('node:util parseArgs errors become messages naming the flag (unknown flag, missing value, positional)', () => {
    // ERR_PARSE_ARGS_UNKNOWN_OPTION, with `--x=value` too
    expect(usageError(['--seed', '1', '--bogus=3'])).toMatchObject({
      flag: 'bogus',
      message: expect.stringMatching(/^unknown flag --bogus; accepted flags: --env, /),
    });
    // ERR_PARSE_ARGS_INVALID_OPTION_VALUE (argument missing / ambiguous: the next argument is a flag)
    expect(usageError(['--seed', '1', '--steps'])).toMatchObject({
      flag: 'steps',
      message: '--steps needs a value (an integer in 1..100)',
    });
    expect(usageError(['--env', '--seed', '1'])).toMatchObject({
      flag: 'env',
      message: '--env needs a value (one of: household, shop)',
    });
    expect(usageError(['--seed', '1', '--lr', '--json']).message).toBe('--lr needs a value (a number in 0..1)');
    // ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL, before or after the flags, and after a `--`
    expect(usageError(['extra', '--seed', '1']).message).toMatch(
      /^unexpected argument "extra"; accepted flags: --env, --name/,
    );
    expect(usageError(['--seed', '1', '--', 'x']).message).toMatch(/^unexpected argument "--"/);
    expect(usageError(['--seed', '1', '--']).message).toMatch(/^unexpected argument "--"/);
    // short options are not flags of these CLIs
    expect(usageError(['--seed', '1', '-x']).message).toMatch(/^unexpected argument "-x"; accepted flags/);
    expect(usageError(['--seed', '1', '-jx']).message).toMatch(/^unexpected argument "-jx"/);
    expect(usageError(['--__proto__', '1']).message).toMatch(/^unknown flag --__proto__/);
    expect(usageError(['--seed', '1', '--no-json']).message).toMatch(/^unknown flag --no-json/);
  });

  it('--flag=value, --flag value and boolean forms', () => {
    expect(parseArgs(['--seed=4', '--name=a=b', '--steps=9'], SPEC)).toMatchObject({ seed: 4, name: 'a=b', steps: 9 });
    expect(parseArgs(['--seed', '1', '--name', ''], SPEC).name).toBe('');
    expect(parseArgs(['--seed', '1', '--name=--x'], SPEC).name).toBe('--x');
    // a value starting with one dash is a value
    expect(parseArgs(['--seed', '1', '--name', '-x'], SPEC).name).toBe('-x');
    expect(parseArgs(['--seed', '1', '--json'], SPEC).json).toBe(true);
    expect(parseArgs(['--seed', '1', '--json=true'], SPEC).json).toBe(true);
    expect(parseArgs(['--seed', '1', '--json=false'], SPEC).json).toBe(false);
    expect(usageError(['--seed', '1', '--json=1'])).toMatchObject({
      flag: 'json',
      value: '1',
      message: '--json takes no value or true|false, got "1"',
    });
    // a boolean's default applies when it is absent
    const on = { v: { type: 'boolean', default: true, help: 'verbose' } } as const;
    expect(parseArgs([], on).v).toBe(true);
    expect(parseArgs(['--v=false'], on).v).toBe(false);
    // a separate true/false is the boolean's value, as argparse's and TRL's users write it
    expect(parseArgs(['--v', 'false'], on).v).toBe(false);
    expect(parseArgs(['--seed', '1', '--json', 'true'], SPEC)).toMatchObject({ json: true, seed: 1 });
    expect(parseArgs(['--json', 'false', '--seed', '2'], SPEC)).toMatchObject({ json: false, seed: 2 });
  });

  it('a flag given twice is refused in every form, naming the flag, both values and the fix', () => {
    const e = usageError(['--seed', '1', '--steps', '5', '--steps', '50']);
    expect(e).toMatchObject({ flag: 'steps', message: '--steps given twice (5, then 50): give --steps once' });
    expect(e.value).toBeUndefined(); // neither value is refused: train adds no "(accepted: …)" to the message
    // `--flag=value` and `--flag value` are the same flag, whatever the order
    expect(usageError(['--steps=5', '--seed', '1', '--steps', '5']).message).toBe(
      '--steps given twice (5, then 5): give --steps once',
    );
    expect(usageError(['--seed', '1', '--name', '-x', '--name=y']).message).toBe(
      '--name given twice (-x, then y): give --name once',
    );
    // a boolean: `--json`, `--json=true|false` and `--json true|false` are all the same flag
    expect(usageError(['--seed', '1', '--json', '--json=false']).message).toBe(
      '--json given twice (true, then false): give --json once',
    );
    expect(usageError(['--seed', '1', '--json=false', '--json']).message).toBe(
      '--json given twice (false, then true): give --json once',
    );
    expect(usageError(['--seed', '1', '--json', 'false', '--json', 'true']).message).toBe(
      '--json given twice (false, then true): give --json once',
    );
    expect(usageError(['--seed', '1', '--json', '--json']).message).toBe(
      '--json given twice (true, then true): give --json once',
    );
    // the same value twice, and a third occurrence: refused at the second
    expect(usageError(['--seed', '1', '--seed', '1']).message).toBe('--seed given twice (1, then 1): give --seed once');
    expect(usageError(['--seed', '1', '--seed', '2', '--seed', '3']).message).toBe(
      '--seed given twice (1, then 2): give --seed once',
    );
    // values are checked in argv order: a bad first value is reported before the repeat
    expect(usageError(['--seed', '1', '--steps', '0', '--steps', '5']).message).toBe(
      '--steps must be an integer in 1..100, got "0"; give e.g. --steps 10 (the default)',
    );
    // with positional arguments too (compare, pack)
    expect(() => parseArgsAndPositionals(['a', '--seed', '1', 'b', '--seed=2'], SPEC)).toThrow(
      /^--seed given twice \(1, then 2\): give --seed once$/,
    );
    // after `--` a flag-like word is a positional argument, not a second flag
    expect(parseArgsAndPositionals(['--seed', '1', '--', '--seed'], SPEC).positionals).toEqual(['--seed']);
  });

  it('negative numbers are values: checked against the range, never taken for flags', () => {
    const signed = { x: { type: 'float', min: -2, max: 2, help: 'x' }, n: { type: 'int', help: 'n' } } as const;
    expect(parseArgs(['--x', '-1.5', '--n', '-3'], signed)).toEqual({ x: -1.5, n: -3 });
    expect(parseArgs(['--x=-2'], signed).x).toBe(-2);
    expect(parseArgs(['--x', '-1e-3'], signed).x).toBe(-0.001);
    expect(usageError(['--seed', '1', '--lr', '-1'])).toMatchObject({
      flag: 'lr',
      value: '-1',
      message: '--lr must be a number in 0..1, got "-1"; give e.g. --lr 0',
    });
    expect(usageError(['--seed', '1', '--lr=-0.5']).message).toBe(
      '--lr must be a number in 0..1, got "-0.5"; give e.g. --lr 0',
    );
    expect(usageError(['--seed', '-x']).message).toBe('--seed must be an integer ≥ 0, got "-x"; give e.g. --seed 0');
  });

  it('the fix in a number message: the default, else a bound; none for a flag with neither', () => {
    expect(usageError(['--seed', '1', '--lr', '2'])).toMatchObject({
      message: '--lr must be a number in 0..1, got "2"; give e.g. --lr 0',
    });
    const free = { n: { type: 'int', help: 'n' }, m: { type: 'float', max: 3, help: 'm' } } as const;
    const msg = (argv: string[]) => {
      try {
        parseArgs(argv, free);
      } catch (e) {
        return (e as UsageError).message;
      }
      return 'no error';
    };
    expect(msg(['--n', 'x'])).toBe('--n must be an integer, got "x"');
    expect(msg(['--m', '4'])).toBe('--m must be a number ≤ 3, got "4"; give e.g. --m 3');
  });

  it(
    'parseArgsAndPositionals (compare, pack): positionals anywhere, booleans in every form the other ' + 'CLIs accept',
    () => {
      const spec = { json: { type: 'boolean', help: 'JSON' }, help: { type: 'boolean', help: 'usage' } } as const;
      expect(parseArgsAndPositionals(['a', '--json', 'b'], spec)).toEqual({
        flags: { json: true, help: false },
        positionals: ['a', 'b'],
      });
      expect(parseArgsAndPositionals(['a', '--json=true'], spec)).toEqual({
        flags: { json: true, help: false },
        positionals: ['a'],
      });
      expect(parseArgsAndPositionals(['--json=false', 'a'], spec)).toEqual({
        flags: { json: false, help: false },
        positionals: ['a'],
      });
      expect(parseArgsAndPositionals(['--json', 'false', 'a'], spec)).toEqual({
        flags: { json: false, help: false },
        positionals: ['a'],
      });
      expect(parseArgsAndPositionals(['a', '--', 'true'], spec)).toEqual({
        flags: { json: false, help: false },
        positionals: ['a', 'true'],
      });
      expect(parseArgsAndPositionals(['--', '--json', '-x'], spec)).toEqual({
        flags: { json: false, help: false },
        positionals: ['--json', '-x'],
      });
      const err = (argv: string[]) => {
        try {
          parseArgsAndPositionals(argv, spec);
        } catch (e) {
          return (e as UsageError).message;
        }
        return 'no error';
      };
      expect(err(['a', '--json=yes'])).toBe('--json takes no value or true|false, got "yes"');
      expect(err(['a', '--bogus'])).toBe('unknown flag --bogus; accepted flags: --json, --help');
    },
  );

  it('prints one help line per flag', () => {
    const text = usage('npm run x --', SPEC);
    expect(text.split('\n')).toHaveLength(2 + Object.keys(SPEC).length);
    expect(text).toContain('--steps        steps (an integer in 1..100; default 10)');
    expect(text).toContain('--seed         seed (an integer ≥ 0; required)');
  });
});

describe('flags npm run kept for itself (no "--" before them)', () => {
  afterEach(() => vi.unstubAllEnvs());
  // `npm run train --steps 3 --json` runs the script with argv ["3"] and sets npm_config_steps=true,
  // npm_config_json=true;
  // `--steps=3` sets npm_config_steps=3 and passes nothing.
  const npm = {
    npm_lifecycle_event: 'train',
    npm_config_cache: '/root/.npm',
    npm_config_steps: 'true',
    npm_config_json: 'true',
  };
  it('names each flag npm took and the command written with "--"', () => {
    expect(npmTookFlags(['3'], SPEC, npm)).toBe(
      'npm took --steps, --json for itself: with npm run, the command\'s flags go after "--", as in: npm ' +
        'run train -- --steps … --json',
    );
    expect(npmTookFlags([], SPEC, { npm_lifecycle_event: 'eval', npm_config_lr: '0.5' })).toBe(
      'npm took --lr for itself: with npm run, the command\'s flags go after "--", as in: npm run eval -- --lr 0.5',
    );
  });
  it("says nothing outside npm, for npm's own settings, or for a flag the command was given", () => {
    expect(npmTookFlags(['3'], SPEC, { npm_config_steps: 'true' })).toBeNull(); // not run by npm
    expect(
      npmTookFlags([], SPEC, { npm_lifecycle_event: 'train', npm_config_cache: '/root/.npm', npm_config_yes: 'true' }),
    ).toBeNull();
    expect(npmTookFlags(['--steps', '3', '--json=false'], SPEC, npm)).toBeNull();
  });
  it('parseArgs refuses a run whose flags npm took, before reading a stray value as an argument', () => {
    for (const [k, v] of Object.entries(npm)) vi.stubEnv(k, v);
    expect(usageError(['3']).message).toBe(
      'npm took --steps, --json for itself: with npm run, the command\'s flags go after "--", as in: npm ' +
        'run train -- --steps … --json',
    );
    vi.unstubAllEnvs();
    expect(usageError(['3']).message).toMatch(/^unexpected argument "3"/);
  });
});

describe('--help wrapping', () => {
  it('wraps at spaces under a hanging indent and keeps the padded flag name', () => {
    const text = `  --a   ${'word '.repeat(6).trim()}`; // prefix 8 characters, then six 4-letter words
    expect(wrapHanging(text, 8, 20)).toBe(['  --a   word word', '        word word', '        word word'].join('\n'));
  });

  it('keeps a word longer than a line whole, and short text unchanged', () => {
    expect(wrapHanging('  --b  x https://example.com/a/very/long/path y', 7, 16)).toBe(
      ['  --b  x', '       https://example.com/a/very/long/path', '       y'].join('\n'),
    );
    expect(wrapHanging('  --c short', 6, 100)).toBe('  --c short');
  });

  it('keeps a number with the word before it and its unit, operators and a short example together', () => {
    // width 14, indent 2: "≥ 0)", "64 MiB", "16 × 8" and {"a":"b c"} would each be split at a plain space
    expect(wrapHanging('  xx yy (an integer ≥ 0)', 2, 14)).toBe(['  xx yy (an', '  integer ≥ 0)'].join('\n'));
    expect(wrapHanging('  at most 64 MiB', 2, 12)).toBe(['  at', '  most 64 MiB'].join('\n'));
    expect(wrapHanging('  a batch 16 × 8 = 128', 2, 12)).toBe(['  a', '  batch 16 × 8 = 128'].join('\n'));
    expect(wrapHanging('  e.g. {"a":"b c"} ok', 2, 12)).toBe(['  e.g.', '  {"a":"b c"}', '  ok'].join('\n'));
  });

  it('a line break in the description starts a new line at the indent', () => {
    expect(wrapHanging('  --p one.\ntwo.', 6, 100)).toBe(['  --p one.', '      two.'].join('\n'));
  });

  it('fits every line of a flag table to HELP_WIDTH', () => {
    const long = { x: { type: 'string', help: 'many words '.repeat(40).trim() } } as const;
    const lines = usage('cmd', long).split('\n');
    expect(lines.length).toBeGreaterThan(5);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(HELP_WIDTH);
    expect(lines[3]).toMatch(/^ {17}\S/); // 2 + 2 + 12 (min name width) + 1
  });
});
