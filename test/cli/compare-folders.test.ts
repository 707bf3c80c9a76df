/**
 * `npm run compare` given an experiment's output folder (runs/<method>-<seed>/ run directories beside
 * <method>-<seed>.jsonl copies of their events, table.json …): the folder, or its runs/ folder, stands for the run
 * directories in it, named in a note on stderr (cli/compare-inputs.ts); a `<method>-<seed>.jsonl` copy is refused
 * naming its run directory; a folder holding no run is refused saying where runs were looked for.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { compareInputPaths } from '../../cli/compare-inputs';
import { handRunJson } from '../helpers/run-json';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'opd-compare-folders-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const USAGE = 'usage: npm run compare -- DIR1|FILE1.opdrun DIR2|FILE2.opdrun [...] [--json | --markdown | --csv]';
function compare(args: string[]) {
  return spawnSync('node_modules/.bin/tsx', ['cli/compare.ts', ...args], { encoding: 'utf8', timeout: 120_000 });
}

/** A hand-made run directory: `done` of 4 steps at training success 0.5 (finished at 4), its algorithm and seed. */
function runDir(dir: string, algo: string, seed: number, done: number): void {
  fs.mkdirSync(dir, { recursive: true });
  const run = handRunJson({ algo, steps: 4, seed });
  fs.writeFileSync(path.join(dir, 'run.json'), JSON.stringify(run));
  const lines = Array.from({ length: done }, (_, i) => ({
    event: 'step',
    step: i + 1,
    successRate: 0.5,
    rewardMean: 0,
    policyLoss: 0,
  }));
  const end = done === 4 ? [{ event: 'done', steps: 4, elapsedMs: 1 }] : [];
  fs.writeFileSync(path.join(dir, 'events.jsonl'), [...lines, ...end].map((e) => JSON.stringify(e) + '\n').join(''));
}

/** An experiment's output folder as `npm run experiment` leaves it: two finished runs, one not started. */
const out = path.join(tmp, 'opid-table');
beforeAll(() => {
  runDir(path.join(out, 'runs', 'grpo-1'), 'grpo', 1, 4);
  runDir(path.join(out, 'runs', 'opid-1'), 'opid', 1, 2);
  fs.mkdirSync(path.join(out, 'runs', 'opid-2')); // made, nothing recorded yet
  fs.copyFileSync(path.join(out, 'runs', 'grpo-1', 'events.jsonl'), path.join(out, 'grpo-1.jsonl'));
  fs.writeFileSync(path.join(out, 'table.json'), '{}');
});

describe('compare on an experiment’s output folder', () => {
  it('the folder stands for its runs/ run directories, named in a note; the table is theirs', () => {
    const r = compare([out, '--json']);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe(
      `compare: note: ${out} is not a run directory (no run.json); comparing the 2 run directories in ` +
        `${path.join(out, 'runs')}: grpo-1, opid-1\n`,
    );
    const runs = (JSON.parse(r.stdout) as { runs: { name: string; algo: string; stepsDone: number }[] }).runs;
    expect(runs.map((x) => [x.name, x.algo, x.stepsDone])).toEqual([
      ['grpo-1', 'grpo', 4],
      ['opid-1', 'opid', 2],
    ]);
    const inRuns = compare([path.join(out, 'runs')]);
    expect(inRuns.status).toBe(0);
    expect(inRuns.stderr).toBe(
      `compare: note: ${path.join(out, 'runs')} is not a run directory (no run.json); comparing the 2 run ` +
        `directories in it: grpo-1, opid-1\n`,
    );
    expect(inRuns.stdout.split('\n').slice(2, 4)).toEqual([
      'grpo-1  household  easy    grpo  1     4/4               —                     50.0%        0      —',
      'opid-1  household  easy    opid  1     2/4 (unfinished)  —                     50.0%        0      —',
    ]);
  }, 120_000);

  it('a <method>-<seed>.jsonl copy is refused naming its run directory; a folder without runs says so', () => {
    const copy = path.join(out, 'grpo-1.jsonl');
    const r = compare([copy]);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(
      `compare: "${copy}" is a copy of a run's events (npm run experiment writes <method>-<seed>.jsonl for each ` +
        `finished run), not a run directory or run file (.opdrun); give its run directory ` +
        `${path.join(out, 'runs', 'grpo-1')}\n${USAGE}\n`,
    );
    const empty = path.join(tmp, 'empty');
    fs.mkdirSync(path.join(empty, 'runs'), { recursive: true });
    const e = compare([empty]);
    expect(e.status).toBe(2);
    expect(e.stderr).toBe(
      `compare: ${empty}: no run.json (not a run directory written by train --run-dir), and no run directory in ` +
        `it or in ${path.join(empty, 'runs')}; give run directories (folders with a run.json) or .opdrun files\n` +
        `${USAGE}\n`,
    );
  }, 120_000);
});

describe('compareInputPaths', () => {
  it('keeps run directories, files and missing paths as given and expands folders of runs in order', () => {
    const grpo = path.join(out, 'runs', 'grpo-1');
    const missing = path.join(tmp, 'nope');
    expect(compareInputPaths([grpo, missing, out])).toEqual({
      paths: [grpo, missing, grpo, path.join(out, 'runs', 'opid-1')],
      notes: [
        `${out} is not a run directory (no run.json); comparing the 2 run directories in ` +
          `${path.join(out, 'runs')}: grpo-1, opid-1`,
      ],
    });
  });
});
