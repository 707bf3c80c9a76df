/**
 * `--eval-threads`: train's evaluations in worker threads (overlapping the next step) print the same events, in the
 * same order, as evaluations in the training thread; `eval --split a,b` in threads prints what one run per split
 * prints.
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';

const TIMING = ['tokensPerSecond', 'stepMs', 'elapsedMs', 'evalMs', 'analyzerLatencyMs', 'phaseMs'];
function run(cli: string, args: string[]): Record<string, unknown>[] {
  const r = spawnSync('node_modules/.bin/tsx', [cli, ...args], { encoding: 'utf8', timeout: 600_000 });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
    .map((e) => Object.fromEntries(Object.entries(e).filter(([k]) => !TIMING.includes(k))));
}

describe('evaluation threads', () => {
  it(
    'train: the same events with 2 evaluation threads (each evaluation beside the next step) as with ' +
      'none (skill-grpo: episode skills in the prompts)',
    () => {
      const args = [
        '--algo',
        'skill-grpo',
        '--init',
        'scratch',
        '--steps',
        '3',
        '--tasks',
        '2',
        '--group',
        '2',
        '--mini-batches',
        '2',
        '--seed',
        '2',
        '--eval-every',
        '2',
        '--eval-episodes',
        '5',
        '--json',
      ];
      const inThread = run('cli/train.ts', [...args, '--eval-threads', '0']);
      const threaded = run('cli/train.ts', [...args, '--eval-threads', '2']);
      expect(threaded).toEqual(inThread);
      expect(inThread.filter((e) => e.event === 'eval').map((e) => e.step)).toEqual([0, 2, 3]);
    },
  );

  it('eval: --split test-seen,test-unseen in threads prints what one run per split prints', () => {
    const common = ['--policy', 'base', '--episodes', '4', '--first-task', '3', '--seed', '5', '--json'];
    const both = run('cli/eval.ts', [...common, '--split', 'test-seen,test-unseen', '--eval-threads', '2']);
    const seen = run('cli/eval.ts', [...common, '--split', 'test-seen', '--eval-threads', '0']);
    const unseen = run('cli/eval.ts', [...common, '--split', 'test-unseen', '--eval-threads', '0']);
    expect(both).toEqual([...seen, ...unseen]);
    expect(seen.at(-1)).toMatchObject({ event: 'summary', split: 'test-seen', episodes: 4 });
  });
});
