/**
 * `npm run compare` names each run's environment and preset (run.json's config `env` and `preset`): runs of different
 * envs side by side are told apart in the plain table, whose columns stay aligned, and in `--json`.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { handRunJson } from '../helpers/run-json';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'opd-compare-env-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const compare = (args: string[]) =>
  spawnSync('node_modules/.bin/tsx', ['cli/compare.ts', ...args], { encoding: 'utf8', timeout: 120_000 });

/** A hand-made run directory: 1 of 2 steps at training success 0.5 on `env`/`preset`, seed 3, no evaluation. */
function runDir(name: string, env: string, preset: string): string {
  const dir = path.join(tmp, name);
  fs.mkdirSync(dir);
  const run = handRunJson({ env, preset, steps: 2, seed: 3 }, { envVersions: {} });
  fs.writeFileSync(path.join(dir, 'run.json'), JSON.stringify(run) + '\n');
  fs.writeFileSync(
    path.join(dir, 'events.jsonl'),
    JSON.stringify({ event: 'step', step: 1, successRate: 0.5, rewardMean: 0, policyLoss: 0 }) + '\n',
  );
  return dir;
}

describe('compare: the environment of each run', () => {
  const home = runDir('grpo-home', 'household', 'easy');
  const shop = runDir('grpo-shop', 'shop', 'default');

  it('the plain table has env and preset columns, aligned to the widest cell', () => {
    const r = compare([home, shop]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(
      [
        'run        env        preset   algo  seed  steps             best eval (top mean)  train final  ckpts  ' +
          'val final',
        '---------  ---------  -------  ----  ----  ----------------  --------------------  -----------  -----  ' +
          '---------',
        'grpo-home  household  easy     grpo  3     1/2 (unfinished)  —                     50.0%        0      —',
        'grpo-shop  shop       default  grpo  3     1/2 (unfinished)  —                     50.0%        0      —',
        '',
      ].join('\n'),
    );
  }, 120_000);

  it('--json gives env and preset per run', () => {
    const r = compare([home, shop, '--json']);
    expect(r.status).toBe(0);
    const runs = (JSON.parse(r.stdout) as { runs: { name: string; env: string; preset: string }[] }).runs;
    expect(runs.map((x) => [x.name, x.env, x.preset])).toEqual([
      ['grpo-home', 'household', 'easy'],
      ['grpo-shop', 'shop', 'default'],
    ]);
  }, 120_000);
});
