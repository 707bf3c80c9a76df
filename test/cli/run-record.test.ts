/**
 * train --run-dir / --resume, coverage and compare through the CLI: a run of 4 steps straight and one of 2 steps
 * resumed to 4 record the same step events (timing excluded) and the same val.json; the resumed events.jsonl is
 * cut back to the checkpoint; bad input exits 2 with a reason and overwrites nothing.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'opd-record-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const COMMON = [
  '--env',
  'household',
  '--model',
  'nano',
  '--tasks',
  '2',
  '--group',
  '2',
  '--mini-batches',
  '2',
  '--seed',
  '5',
  '--backend',
  'wasm',
  '--eval-every',
  '2',
  '--eval-episodes',
  '2',
  '--checkpoint-every',
  '2',
  '--val-tasks',
  '3',
  '--val-samples',
  '2',
  '--algo',
  'skill-grpo',
  '--json',
];
const TIMING = ['tokensPerSecond', 'stepMs', 'elapsedMs', 'analyzerLatencyMs', 'phaseMs', 'valMs', 'evalMs'];

function cli(script: string, args: string[]) {
  return spawnSync('node_modules/.bin/tsx', [`cli/${script}.ts`, ...args], { encoding: 'utf8', timeout: 300_000 });
}
const events = (dir: string) =>
  fs
    .readFileSync(path.join(dir, 'events.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
const strip = (evs: Record<string, unknown>[], kinds: string[]) =>
  evs
    .filter((e) => kinds.includes(e.event as string))
    .map((e) => Object.fromEntries(Object.entries(e).filter(([k]) => !TIMING.includes(k))));

describe('run directory and resume (CLI)', () => {
  const A = path.join(tmp, 'straight'),
    B = path.join(tmp, 'resumed');

  it('4 steps straight = 2 steps + --resume --steps 4: same step, eval and validation events and val.json', () => {
    const a = cli('train', [...COMMON, '--steps', '4', '--run-dir', A]);
    expect(a.stderr).toBe('');
    expect(a.status).toBe(0);
    const b1 = cli('train', [...COMMON, '--steps', '2', '--run-dir', B]);
    expect(b1.status).toBe(0);
    const b2 = cli('train', ['--resume', B, '--steps', '4', '--json']);
    expect(b2.stderr).toBe('');
    expect(b2.status).toBe(0);
    const ea = events(A),
      eb = events(B);
    expect(eb.map((e) => e.event)).toEqual([
      'start',
      'eval',
      'step',
      'step',
      'eval',
      'validation',
      'checkpoint',
      'start',
      'step',
      'step',
      'eval',
      'validation',
      'checkpoint',
      'done',
    ]);
    expect(eb[7].resumedFrom).toBe(2);
    for (const kinds of [['step'], ['eval'], ['validation'], ['checkpoint']])
      expect(strip(eb, kinds)).toEqual(strip(ea, kinds));
    expect(fs.readFileSync(path.join(B, 'val.json'), 'utf8')).toBe(fs.readFileSync(path.join(A, 'val.json'), 'utf8'));
    expect(
      fs.readFileSync(path.join(B, 'ckpt-4.safetensors')).equals(fs.readFileSync(path.join(A, 'ckpt-4.safetensors'))),
    ).toBe(true);
    const run = JSON.parse(fs.readFileSync(path.join(B, 'run.json'), 'utf8'));
    expect(run).toMatchObject({
      format: 'opd-playground-run',
      version: 1,
      backend: 'wasm',
      config: { steps: 2, algo: 'skill-grpo' },
    });
    expect(run.resumes).toMatchObject([{ fromStep: 2, steps: 4 }]);
    expect(fs.readdirSync(B).sort()).toEqual([
      'ckpt-2.safetensors',
      'ckpt-2.state',
      'ckpt-4.safetensors',
      'ckpt-4.state',
      'events.jsonl',
      'run.json',
      'val.json',
    ]);
  }, 600_000);

  it('refuses what a resume cannot honour (exit 2, nothing written)', () => {
    const before = fs.readFileSync(path.join(B, 'events.jsonl'));
    const cases: [string[], RegExp][] = [
      [['--resume', B, '--steps', '4'], /plan is 4 steps \(4 steps done \(finished\), latest checkpoint at step 4\)/],
      [['--resume', B, '--steps', '6', '--lr', '0.001'], /--lr 0.001 differs from the run's 0.0001/],
      [['--resume', B, '--steps', '6', '--run-dir', path.join(tmp, 'x')], /drop --run-dir/],
      [['--resume', path.join(tmp, 'none')], /no run directory/],
      [[...COMMON, '--steps', '2', '--run-dir', A], /not empty/],
      [['--val-tasks', '2', '--steps', '1'], /--val-tasks needs --run-dir/],
    ];
    for (const [args, msg] of cases) {
      const r = cli('train', args);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(msg);
    }
    expect(fs.readFileSync(path.join(B, 'events.jsonl')).equals(before)).toBe(true);
  }, 120_000);

  it('resume after an interruption drops the lines past the checkpoint', () => {
    const C = path.join(tmp, 'cut');
    fs.cpSync(B, C, { recursive: true });
    for (const f of ['ckpt-4.safetensors', 'ckpt-4.state']) fs.rmSync(path.join(C, f));
    const r = cli('train', ['--resume', C]);
    expect(r.status).toBe(0);
    const ec = events(C);
    expect(ec.filter((e) => e.event === 'step').map((e) => e.step)).toEqual([1, 2, 3, 4]);
    expect(ec.filter((e) => e.event === 'start').map((e) => e.resumedFrom)).toEqual([undefined, 2, 2]);
    expect(strip(ec, ['step'])).toEqual(strip(events(B), ['step']));
  }, 300_000);

  it('coverage and compare read the runs; bad input exits 2 naming the problem', () => {
    const cov = cli('coverage', ['--run', A, '--json']);
    expect(cov.status).toBe(0);
    const rep = JSON.parse(cov.stdout);
    expect(rep.checkpoints.map((c: { step: number }) => c.step)).toEqual([2, 4]);
    expect(rep).toHaveProperty('union.solved');
    expect(rep.noise.atRecorded).toMatchObject({ checkpoints: 2, samples: rep.samples });
    expect(rep.noise.atRecorded.expectedGap).toBeCloseTo(
      rep.noise.atRecorded.expectedUnion - rep.noise.atRecorded.expectedBest,
      12,
    );
    const text = cli('coverage', ['--run', A]).stdout;
    expect(text).toMatch(/union \(solved by any checkpoint\)/);
    expect(text).toMatch(/noise baseline — val tasks solved if all 2 checkpoints were one and the same policy/);
    const cmp = cli('compare', [A, B, '--json']);
    expect(cmp.status).toBe(0);
    expect(JSON.parse(cmp.stdout).runs.map((r: { name: string; stepsDone: number }) => [r.name, r.stepsDone])).toEqual([
      ['straight', 4],
      ['resumed', 4],
    ]);
    expect(cli('compare', [A, B]).stdout).toMatch(/straight[\s\S]*resumed/);

    const bad = path.join(tmp, 'bad');
    fs.mkdirSync(bad);
    const expect2 = (script: string, args: string[], msg: RegExp) => {
      const r = cli(script, args);
      expect(r.status, `${script} ${args.join(' ')}`).toBe(2);
      expect(r.stderr).toMatch(msg);
    };
    expect2('coverage', ['--run', path.join(tmp, 'nope')], /no run directory/);
    expect2('coverage', ['--run', bad], /no val.json/);
    fs.writeFileSync(path.join(bad, 'val.json'), '{"format":');
    expect2('coverage', ['--run', bad], /val.json: not valid JSON/);
    fs.writeFileSync(
      path.join(bad, 'val.json'),
      JSON.stringify({
        format: 'opd-playground-val',
        version: 1,
        preset: 'easy',
        tasks: 1,
        samples: 2,
        taskTypes: ['pick'],
        checkpoints: [],
      }),
    );
    expect2('coverage', ['--run', bad], /fewer than one checkpoint/);
    expect2('compare', [], /at least one run directory/);
    expect2('compare', [A, bad], /no run.json/);
    fs.cpSync(A, path.join(tmp, 'corrupt'), { recursive: true });
    const ev = path.join(tmp, 'corrupt', 'events.jsonl');
    const lines = fs.readFileSync(ev, 'utf8').split('\n');
    lines[2] = lines[2].slice(0, 20);
    fs.writeFileSync(ev, lines.join('\n'));
    const snapshot = fs.readFileSync(ev);
    expect2('compare', [path.join(tmp, 'corrupt')], /events.jsonl line 3: not valid JSON/);
    expect2('train', ['--resume', path.join(tmp, 'corrupt'), '--steps', '6'], /events.jsonl line 3/);
    expect(fs.readFileSync(ev).equals(snapshot)).toBe(true);
  }, 300_000);
});
