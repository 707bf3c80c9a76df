/**
 * val.json through the CLI's run-directory reader and writer (cli/rundir.ts) and `npm run coverage`: what writeVal
 * writes, readVal reads back; a hand-edited val.json with an impossible pass rate or an unknown key makes coverage
 * exit 2 with the folder, the checkpoint's step, the val task, the value and the fix, and print no report.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readVal, writeVal } from '../../cli/rundir';
import { addValidation, emptyValRecord } from '../../src/core/run/record';
import { DEFAULT_CONFIG } from '../../src/core/run/config';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'opd-val-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A run folder under tmp holding only val.json with `text`. */
function runDir(name: string, text: string): string {
  const d = path.join(tmp, name);
  fs.mkdirSync(d);
  fs.writeFileSync(path.join(d, 'val.json'), text);
  return d;
}
const coverageCli = (dir: string) =>
  spawnSync('node_modules/.bin/tsx', ['cli/coverage.ts', '--run', dir], { encoding: 'utf8', timeout: 120_000 });
const FIX = (step: number) =>
  `the file was edited or written by another tool; restore it as train wrote it (the validation line of ` +
  `step ${step} in events.jsonl holds the run's pass rates) or train the run again`;

describe('val.json in a run directory', () => {
  it('writeVal then readVal gives the record back (samples 4: pass rates 0, 1/4, …, 1)', () => {
    const types = ['pick', 'pick', 'heat', 'cool', 'clean'];
    let v = emptyValRecord({ ...DEFAULT_CONFIG, valTasks: 5, valSamples: 4 });
    v = addValidation(v, 10, [0, 1 / 4, 2 / 4, 3 / 4, 1], types);
    v = addValidation(v, 20, [1, 3 / 4, 2 / 4, 1 / 4, 0], types);
    const d = path.join(tmp, 'written');
    fs.mkdirSync(d);
    writeVal(d, v);
    expect(readVal(d)).toEqual(v);
  });

  it('coverage exits 2 naming the folder, checkpoint, val task, value and fix; prints no report', () => {
    const base = {
      format: 'opd-playground-val',
      version: 1,
      preset: 'easy',
      tasks: 2,
      samples: 2,
      taskTypes: ['pick', 'heat'],
    };
    const ok = runDir('ok', JSON.stringify({ ...base, checkpoints: [{ step: 10, passRates: [0.5, 1] }] }));
    const good = coverageCli(ok);
    expect(good.status, good.stderr).toBe(0);
    expect(good.stdout).toMatch(/union \(solved by any checkpoint\)/);

    const rate = runDir(
      'rate',
      JSON.stringify({
        ...base,
        checkpoints: [
          { step: 10, passRates: [0.5, 1] },
          { step: 20, passRates: [0.3, 1] },
        ],
      }),
    );
    const r = coverageCli(rate);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `coverage: ${rate}: val.json: checkpoint 20, val task 0: pass rate 0.3 is not k/2 for any whole k ` +
        `in 0..2 (samples 2; a pass rate is successes / samples); ${FIX(20)}\n`,
    );

    const key = runDir(
      'key',
      JSON.stringify({ ...base, checkpoints: [{ step: 10, passRates: [0.5, 1] }], bestStep: 10 }),
    );
    const k = coverageCli(key);
    expect(k.status).toBe(2);
    expect(k.stdout).toBe('');
    expect(k.stderr).toBe(
      `coverage: ${key}: val.json: (top level): unknown key "bestStep" (only format, version, preset, ` +
        `tasks, samples, taskTypes, checkpoints belong there) (expected an opd-playground-val version 1 ` +
        `record, as train --run-dir --val-tasks n writes it; restore the file or train the run again)\n`,
    );
  }, 300_000);
});
