/**
 * `npm run compare`'s plain table names the settings that differ between the runs, as --markdown and --csv do: two
 * runs that differ only in `--skill-variant` and model are told apart under the table ("settings that differ", one
 * row per run), beyond the settings the table has columns for (env, preset, algo, seed, steps); runs whose other
 * settings agree get no such section.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { handRunJson } from '../helpers/run-json';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'opd-compare-settings-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A hand-made opid run directory `name` in tmp with `config` changed: 1 of 2 steps, seed 4, no evaluation. */
function runDir(name: string, config: Record<string, unknown>): string {
  const dir = path.join(tmp, name);
  fs.mkdirSync(dir);
  const run = handRunJson({ algo: 'opid', steps: 2, seed: 4, ...config });
  fs.writeFileSync(path.join(dir, 'run.json'), JSON.stringify(run) + '\n');
  fs.writeFileSync(
    path.join(dir, 'events.jsonl'),
    JSON.stringify({ event: 'step', step: 1, successRate: 0.5, rewardMean: 0, policyLoss: 0 }) + '\n',
  );
  return dir;
}

const compare = (args: string[]) =>
  spawnSync('node_modules/.bin/tsx', ['cli/compare.ts', ...args], { encoding: 'utf8', timeout: 60_000 });

describe('compare: the plain table names the settings that differ', () => {
  const paper = runDir('paper-4', {}),
    centred = runDir('centred-4', { skillVariant: 'centred', model: 'nano-deep' }),
    seed5 = runDir('seed-5', { seed: 5 });

  it('skillVariant and model differ: a second table under the first, one row per run', () => {
    const r = compare([paper, centred]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines.slice(0, 2)).toEqual([
      'run        env        preset  algo  seed  steps             best eval (top mean)  train final  ckpts  val final',
      '---------  ---------  ------  ----  ----  ----------------  --------------------  -----------  -----  ---------',
    ]);
    expect(lines.slice(4)).toEqual([
      '',
      'settings that differ:',
      'run        model      skillVariant',
      'paper-4    nano       paper',
      'centred-4  nano-deep  centred',
      '',
    ]);
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThanOrEqual(120);
  });

  it('only a column the table shows differs (seed): no second table', () => {
    const r = compare([paper, seed5]);
    expect(r.status).toBe(0);
    expect(r.stdout).not.toContain('settings that differ');
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(4);
  });
});
