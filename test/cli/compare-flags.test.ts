/**
 * `npm run compare` refuses an unknown flag as the other CLIs do: exit 2, the flag and the accepted flags named; its
 * `--help` lists every flag with its meaning, the columns and the one definition of "best".
 */
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

  it('--help: exit 0, the usage, the columns, the definition of best and every flag with its meaning', () => {
    const r = compare(['--help']);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
    const out = r.stdout;
    expect(out.split('\n')[0]).toBe(
      'usage: npm run compare -- DIR1|FILE1.opdrun DIR2|FILE2.opdrun [...] [--json | --markdown | --csv]',
    );
    expect(out).toContain(
      'best = the evaluation with the highest mean success over the splits (ties: the earlier);\n' +
        '  every split is read from that one evaluation, as the results tables (npm run experiment) pick it.',
    );
    for (const col of ['<split> final', '<split> best', 'best eval (top mean)', 'train final', 'val final'])
      expect(out).toContain(col);
    const flagLines = out.split('\n').filter((l) => /^ {2}--/.test(l));
    expect(flagLines.map((l) => l.trim().split(/\s+/)[0])).toEqual(['--json', '--markdown', '--csv', '--help']);
    for (const l of flagLines) expect(l.trim().split(/\s{2,}/)[1]?.length ?? 0).toBeGreaterThan(15); // a meaning
    expect(flagLines[0]).toContain('bestEval and bestEvalStep');
  });
});
