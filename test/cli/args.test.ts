/** The shared CLI flag parser: forms, types, ranges, choices and the errors that name the flag. */
import { describe, expect, it } from 'vitest';
import { UsageError, parseArgs, usage } from '../../cli/args';

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
    expect(parseArgs(['--seed', '1', '--steps', '2', '--steps', '5'], SPEC).steps).toBe(5); // last wins
  });

  it('names the flag and what it accepts in every error', () => {
    expect(usageError(['--seed', '1', '--env', 'foo'])).toMatchObject({
      flag: 'env', message: '--env must be one of: household, shop (got "foo")',
    });
    expect(usageError(['--seed', '-1']).message).toBe('--seed must be an integer ≥ 0, got "-1"');
    expect(usageError(['--seed', '1.5']).message).toBe('--seed must be an integer ≥ 0, got "1.5"');
    expect(usageError(['--seed', 'abc']).flag).toBe('seed');
    expect(usageError(['--seed', '1', '--steps', '101']).message).toBe('--steps must be an integer in 1..100, got "101"');
    expect(usageError(['--seed', '1', '--lr', 'nan']).message).toBe('--lr must be a number in 0..1, got "nan"');
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

  it('prints one help line per flag', () => {
    const text = usage('npm run x --', SPEC);
    expect(text.split('\n')).toHaveLength(2 + Object.keys(SPEC).length);
    expect(text).toContain('--steps        steps (an integer in 1..100; default 10)');
    expect(text).toContain('--seed         seed (an integer ≥ 0; required)');
  });
});
