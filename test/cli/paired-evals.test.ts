/**
 * scripts/paired-evals.ts: success per task type and the paired difference to the base, mean ± s.e. of the
 * per-episode differences (hand-computed below); files that are not the same episodes and settings are refused, and
 * bad input exits 2 naming the file.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paired-'));
/** An eval --json file of split `s` whose episode i has type types[i] and success wins[i], then its summary. */
function evalFile(name: string, types: string[], wins: boolean[], seed = 1): string {
  const file = path.join(dir, name);
  const lines = types.map((t, i) =>
    JSON.stringify({ event: 'episode', split: 's', index: i, taskType: t, success: wins[i], reward: +wins[i] }),
  );
  const summary = JSON.stringify({ event: 'summary', env: 'household', preset: 'easy', split: 's', seed });
  fs.writeFileSync(file, [...lines, summary].join('\n') + '\n');
  return file;
}
const run = (args: string[]) =>
  spawnSync('node_modules/.bin/tsx', ['scripts/paired-evals.ts', ...args], { encoding: 'utf8', timeout: 60_000 });
const refused = (args: string[], why: string) =>
  expect(run(args)).toMatchObject({ status: 2, stdout: '', stderr: expect.stringContaining(why) });

const TYPES = ['b', 'a', 'a', 'b'];
const base = evalFile('base.jsonl', TYPES, [false, true, false, false]);

describe('paired-evals', () => {
  it('per type and overall: success and the paired Δ (hand-computed)', () => {
    const x = evalFile('x.jsonl', TYPES, [true, true, true, false]);
    const r = run([base, `x=${x}`]);
    expect(r.status, r.stderr).toBe(0);
    // a: diffs 0, 1 → mean 0.5, sd √0.5, s.e. √(0.5 / 2) = 0.5; all: 1, 0, 1, 0 → s.e. √((1/3) / 4) = 0.2887
    expect(r.stdout).toBe(
      [
        '',
        '### s',
        '',
        '| task type | episodes | base | x | Δ x |',
        '|---|---|---|---|---|',
        '| a | 2 | 50.0 | 100.0 | +50.0 ± 50.0 |',
        '| b | 2 | 0.0 | 50.0 | +50.0 ± 50.0 |',
        '| all | 4 | 25.0 | 75.0 | +50.0 ± 28.9 |',
        '',
      ].join('\n'),
    );
  });

  it('reads a gzip-compressed file as the plain one', () => {
    const gz = path.join(dir, 'x.jsonl.gz');
    fs.writeFileSync(gz, zlib.gzipSync(fs.readFileSync(evalFile('xz.jsonl', TYPES, [true, true, true, false]))));
    expect(run([base, `x=${gz}`]).stdout).toContain('| all | 4 | 25.0 | 75.0 | +50.0 ± 28.9 |');
  });

  it('one episode has no standard error', () => {
    const one = evalFile('one.jsonl', ['a'], [true]);
    const r = run([one, `y=${evalFile('one-y.jsonl', ['a'], [false])}`]);
    expect(r.stdout).toContain('| a | 1 | 100.0 | 0.0 | -100.0 ± — |');
  });

  it('refuses files that are not the same episodes or settings', () => {
    refused([base, `p=${evalFile('part.jsonl', TYPES.slice(0, 2), [true, true])}`], 'holds 2 episodes, the base 4');
    refused(
      [base, `t=${evalFile('type.jsonl', ['b', 'a', 'b', 'b'], [true, true, true, true])}`],
      'is b, in the base a',
    );
    refused([base, `s=${evalFile('seed.jsonl', TYPES, [true, true, true, true], 2)}`], 'with seed 2, the base with 1');
    const twice = path.join(dir, 'twice.jsonl');
    fs.writeFileSync(twice, fs.readFileSync(base, 'utf8') + fs.readFileSync(base, 'utf8'));
    refused([twice, `x=${base}`], 'episode s/0 appears twice');
  });

  it('a malformed line, a missing file, a folder and bad pairs exit 2 naming them', () => {
    const bad = path.join(dir, 'bad.jsonl');
    fs.writeFileSync(bad, '{"event":"episode","split":"s","index":-1,"taskType":"a","success":true}\n');
    refused([base, `x=${bad}`], `${bad}:1: not an episode line`);
    refused([base, 'x=/no/such.jsonl'], 'no file at /no/such.jsonl');
    refused([base, `x=${dir}`], `no file at ${dir}`);
    refused([base, 'x='], 'NAME=FILE needs a file after "="');
    refused([base, 'justafile'], 'is not NAME=FILE');
    refused([base, `x=${base}`, `x=${base}`], 'the name x is given twice');
  });
});
