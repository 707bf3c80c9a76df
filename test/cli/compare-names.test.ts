/**
 * `npm run compare` names every row by one input: a `.opdrun` file and the run directory it was packed from (or
 * unpacked to) carry the same run name, so each is told apart by the path given; `--json=true` is `--json`, as in
 * every CLI, and `--json true` is refused with the forms to write; `--markdown` and `--csv` print the page's Compare
 * table (its exports) with the settings that differ.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_CONFIG } from '../../src/core/run/config';
import { compareCsv, compareMarkdown, compareRuns } from '../../src/core/run/compare';
import { parseEvents, parseRunRecord } from '../../src/core/run/record';
import { handRunJson } from '../helpers/run-json';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'opd-compare-names-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function cli(script: string, args: string[]) {
  return spawnSync('node_modules/.bin/tsx', [`cli/${script}.ts`, ...args], { encoding: 'utf8', timeout: 120_000 });
}

/** A hand-made run directory `name` in tmp: 1 of 2 steps at training success 0.5, seed 4, no evaluation. */
function runDir(name: string, algo = DEFAULT_CONFIG.algo): string {
  const dir = path.join(tmp, name);
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'run.json'), JSON.stringify(handRunJson({ algo, steps: 2, seed: 4 })) + '\n');
  fs.writeFileSync(
    path.join(dir, 'events.jsonl'),
    JSON.stringify({ event: 'step', step: 1, successRate: 0.5, rewardMean: 0, policyLoss: 0 }) + '\n',
  );
  return dir;
}

describe('compare: one row per input', () => {
  const dir = runDir('grpo-4'),
    other = runDir('opid-4', 'opid'),
    file = path.join(tmp, 'grpo-4.opdrun');

  it('a packed file and its folder: both rows carry the path given; a run of its own name keeps it', () => {
    expect(cli('pack', [dir, file]).status).toBe(0);
    const r = cli('compare', [dir, file, other, '--json']);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout).runs.map((x: { name: string }) => x.name)).toEqual([
      `grpo-4 (${dir})`,
      `grpo-4 (${file})`,
      'opid-4',
    ]);
    const t = cli('compare', [file, dir]);
    expect(t.status).toBe(0);
    const rows = t.stdout
      .trimEnd()
      .split('\n')
      .slice(2)
      .map((l) => l.split(/\s{2,}/)[0]);
    expect(rows).toEqual([`grpo-4 (${file})`, `grpo-4 (${dir})`]);
    // One input alone keeps the run's name.
    expect(JSON.parse(cli('compare', [file, '--json']).stdout).runs[0].name).toBe('grpo-4');
  }, 120_000);

  it("--markdown / --csv print the page's Compare exports of the same runs, settings that differ included", () => {
    const read = (d: string, name: string) => ({
      name,
      run: parseRunRecord(fs.readFileSync(path.join(d, 'run.json'), 'utf8')),
      events: parseEvents(fs.readFileSync(path.join(d, 'events.jsonl'), 'utf8')),
    });
    const t = compareRuns([read(dir, 'grpo-4'), read(other, 'opid-4')]);
    const md = cli('compare', [dir, other, '--markdown']);
    expect(md.stderr).toBe('');
    expect(md.stdout).toBe(compareMarkdown(t));
    expect(md.stdout).toBe(
      '| run | steps | train final |\n| --- | --- | --- |\n| grpo-4 | 1/2 | 50.0% |\n| opid-4 | 1/2 | 50.0% |\n' +
        ('\nSettings that differ:\n\n| setting | grpo-4 | opid-4 |\n| --- | --- | --- |\n| algo | **grpo** ' +
          '| **opid** |\n'),
    );
    expect(cli('compare', [dir, other, '--csv']).stdout).toBe(compareCsv(t));
    const both = cli('compare', [dir, '--csv', '--json']);
    expect(both.status).toBe(2);
    expect(both.stderr.split('\n')[0]).toBe('compare: --json and --csv choose different outputs; give one of them');
  }, 120_000);

  it('--json=true is --json and --json=false the table, as in every CLI; --json true and --json false the same', () => {
    const on = cli('compare', [dir, '--json=true']);
    expect(on.status).toBe(0);
    expect(on.stdout).toBe(cli('compare', [dir, '--json']).stdout);
    const off = cli('compare', [dir, '--json=false']);
    expect(off.stdout.split('\n')[0]).toMatch(/^run\s+env\s+preset\s+algo\s+seed\s+steps/);
    const sep = cli('compare', [dir, '--json', 'true']);
    expect(sep.status).toBe(0);
    expect(sep.stdout).toBe(on.stdout);
    expect(cli('compare', [dir, '--json', 'false']).stdout).toBe(off.stdout);
    expect(cli('compare', [dir, '--json=yes']).stderr.split('\n')[0]).toBe(
      'compare: --json takes no value or true|false, got "yes"',
    );
    const p = cli('pack', ['--unpack=yes', file, path.join(tmp, 'x')]);
    expect(p.status).toBe(2);
    expect(p.stderr.split('\n')[0]).toBe('pack: --unpack takes no value or true|false, got "yes"');
  }, 120_000);
});
