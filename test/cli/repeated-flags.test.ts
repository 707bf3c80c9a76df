/**
 * A flag given twice is refused by every command before any work starts (the shared parser, cli/args.ts
 * `repeatedFlag`): exit code 2, nothing on stdout, and a first stderr line naming the command, the flag, both values
 * and the fix, in every form (`--steps 5 --steps=50`, a boolean's `--json` with `--json=false`).
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';

/** Runs `cli/<script>.ts` with `args` (outside npm, so npm's own flags play no part). */
function cli(script: string, args: string[]) {
  const env = { ...process.env, npm_lifecycle_event: '' };
  return spawnSync('node_modules/.bin/tsx', [`cli/${script}.ts`, ...args], { encoding: 'utf8', timeout: 120_000, env });
}

describe('a flag given twice, through the commands', () => {
  it('train: exit 2 before training, the flag, both values and the fix; no "(accepted: …)" added', () => {
    const r = cli('train', ['--algo', 'grpo', '--steps', '5', '--steps=50']);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'train: --steps given twice (5, then 50): give --steps once\n' +
        'run npm run train -- --help for every flag, its accepted values and default\n',
    );
    const b = cli('train', ['--json', '--steps', '5', '--json=false']);
    expect(b.status).toBe(2);
    expect(b.stdout).toBe('');
    expect(b.stderr.split('\n')[0]).toBe('train: --json given twice (true, then false): give --json once');
  }, 120_000);

  it('eval: exit 2 before any episode, the message then the usage', () => {
    const r = cli('eval', ['--episodes', '5', '--policy', 'expert', '--episodes', '50']);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    const lines = r.stderr.split('\n');
    expect(lines[0]).toBe('eval: --episodes given twice (5, then 50): give --episodes once');
    expect(lines[1]).toBe('usage: npm run eval -- [flags]');
  }, 120_000);

  it('every other command: exit 2 with the same first line', () => {
    const cases: [string, string[], string][] = [
      ['play', ['--split', 'train', '--split=val'], 'play: --split given twice (train, then val)'],
      ['pretrain', ['--seed=1', '--seed', '2'], 'pretrain: --seed given twice (1, then 2)'],
      ['experiment', ['opid-table', '--seeds', '1', '--seeds', '2'], 'experiment: --seeds given twice (1, then 2)'],
      ['serve', ['--port', '0', '--port', '8700'], 'serve: --port given twice (0, then 8700)'],
      ['bench', ['--seq', '8', '--seq', '16'], 'bench: --seq given twice (8, then 16)'],
      ['compare', ['a', '--json', 'b', '--json=false'], 'compare: --json given twice (true, then false)'],
      ['coverage', ['--run', 'a', '--run', 'b'], 'coverage: --run given twice (a, then b)'],
      ['export-tasks', ['--train', '3', '--train=4'], 'export-tasks: --train given twice (3, then 4)'],
      ['pack', ['--force', 'a', 'b', '--force'], 'pack: --force given twice (true, then true)'],
      ['bench-serve', ['--envs', '1', '--envs', '2'], 'bench:serve: --envs given twice (1, then 2)'],
    ];
    for (const [script, args, first] of cases) {
      const r = cli(script, args);
      const flag = /--[a-z-]+/.exec(first.slice(first.indexOf(':') + 1))![0];
      expect({ script, status: r.status, first: r.stderr.split('\n')[0] }).toEqual({
        script,
        status: 2,
        first: `${first}: give ${flag} once`,
      });
      expect(r.stdout).toBe('');
    }
  }, 600_000);
});
