/**
 * A number flag given a value outside its range is worded the same in every CLI: the flag, the accepted range, the
 * value given and the fix (`--steps must be an integer in [1, 100000], got "-1"; give e.g. --steps 120 (the
 * default)`), never the schema's bare "Too small: expected number to be >=1".
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { givenValue, rangeIssue } from '../../cli/train-flags';
import { DEFAULT_CONFIG } from '../../src/core/run/config';

function cli(script: string, args: string[]) {
  return spawnSync('node_modules/.bin/tsx', [`cli/${script}.ts`, ...args], { encoding: 'utf8', timeout: 120_000 });
}

describe('number flags out of range', () => {
  it('rangeIssue: flag, schema range, the text given and the default as the fix; nothing for a value in range', () => {
    expect(DEFAULT_CONFIG.steps).toBe(120);
    expect(rangeIssue('steps', -1, ['--steps', '-1'])).toBe(
      '--steps must be an integer in [1, 100000], got "-1"; give e.g. --steps 120 (the default)',
    );
    expect(rangeIssue('learningRate', 1000, ['--lr=1e3'])).toBe(
      '--lr must be a number in [1e-7, 1], got "1e3"; give e.g. --lr 0.0001 (the default)',
    );
    expect(rangeIssue('steps', 5, ['--steps', '5'])).toBeUndefined();
    expect(rangeIssue('algo', 3, [])).toBeUndefined();
    expect(rangeIssue('toString', -1, [])).toBeUndefined();
    expect(givenValue(['--steps', '3', '--steps=-2'], 'steps')).toBe('-2');
    expect(givenValue(['--lr', '1'], 'steps')).toBeUndefined();
  });

  it('train --steps -1 and --lr 5: exit 2, one house-style line each, nothing on stdout', () => {
    const r = cli('train', ['--steps', '-1', '--lr', '5']);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'train: --steps must be an integer in [1, 100000], got "-1"; give e.g. --steps 120 (the default)\n' +
        '--lr must be a number in [1e-7, 1], got "5"; give e.g. --lr 0.0001 (the default)\n',
    );
  }, 120_000);

  it('eval --episodes 0 is worded the same way (the shared parser, cli/args.ts)', () => {
    const r = cli('eval', ['--episodes', '0']);
    expect(r.status).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(
      'eval: --episodes must be an integer in 1..100000, got "0"; give e.g. --episodes 60 (the default)',
    );
  }, 120_000);
});
