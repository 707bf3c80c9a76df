/**
 * scripts/paired-evals.ts: success per task type and the paired difference to the base, mean ± s.e. of the
 * per-episode differences over the episodes both files hold (hand-computed below); bad input exits 2 naming the file.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paired-'));
/** An eval --json file of `split` s whose episode i has type types[i] and success wins[i]. */
function evalFile(name: string, types: string[], wins: boolean[]): string {
  const file = path.join(dir, name);
  const lines = types.map((t, i) =>
    JSON.stringify({ event: 'episode', split: 's', index: i, taskType: t, success: wins[i], reward: +wins[i] }),
  );
  fs.writeFileSync(file, ['{"event":"summary"}', ...lines].join('\n') + '\n');
  return file;
}
const run = (args: string[]) =>
  spawnSync('node_modules/.bin/tsx', ['scripts/paired-evals.ts', ...args], { encoding: 'utf8', timeout: 60_000 });

describe('paired-evals', () => {
  it('per type and overall: success and the paired Δ (hand-computed)', () => {
    const base = evalFile('base.jsonl', ['a', 'a', 'b', 'b'], [true, false, false, false]);
    const x = evalFile('x.jsonl', ['a', 'a', 'b', 'b'], [true, true, false, true]);
    const r = run([base, `x=${x}`]);
    expect(r.status, r.stderr).toBe(0);
    // a: diffs 0, 1 → mean 0.5, sd √0.5, s.e. √(0.5 / 2) = 0.5; all: 0, 1, 0, 1 → s.e. √((1/3) / 4) = 0.2887
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

  it('a malformed episode line, a missing file and a bad pair exit 2 naming them', () => {
    const bad = path.join(dir, 'bad.jsonl');
    fs.writeFileSync(bad, '{"event":"episode","split":"s","index":-1,"taskType":"a","success":true}\n');
    const base = evalFile('b2.jsonl', ['a'], [true]);
    expect(run([base, `x=${bad}`])).toMatchObject({ status: 2, stderr: expect.stringContaining(`${bad}:1: not an`) });
    expect(run([base, 'x=/no/such.jsonl'])).toMatchObject({ status: 2, stderr: expect.stringContaining('no file at') });
    expect(run([base, 'justafile'])).toMatchObject({ status: 2, stderr: expect.stringContaining('is not NAME=FILE') });
  });
});
