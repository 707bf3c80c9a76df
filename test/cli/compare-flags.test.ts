/** `npm run compare` refuses an unknown flag as the other CLIs do: exit 2, the flag and the accepted flags named. */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';

const compare = (args: string[]) =>
  spawnSync('node_modules/.bin/tsx', ['cli/compare.ts', ...args], { encoding: 'utf8', timeout: 300_000 });

describe('compare: bad flags', () => {
  it(
    '--bogus: exit 2, "unknown flag --bogus; accepted flags: --json, --markdown, --csv, --help", where ' +
      '--help is, and the usage',
    () => {
      const r = compare(['--bogus', 'runs/a']);
      expect(r.status).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(
        'compare: unknown flag --bogus; accepted flags: --json, --markdown, --csv, --help\n' +
          'run npm run compare -- --help for its usage\n' +
          'usage: npm run compare -- DIR1|FILE1.opdrun DIR2|FILE2.opdrun [...] [--json | --markdown | --csv]\n',
      );
    },
  );

  it('a short option is named the same way', () => {
    const r = compare(['-x']);
    expect(r.status).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(
      'compare: unexpected argument "-x"; accepted flags: --json, --markdown, --csv, --help',
    );
  });
});
