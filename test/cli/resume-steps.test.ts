/**
 * `train --resume DIR --steps N` keeps or extends the run's plan (cli/resume-steps.ts): N below the plan is refused
 * (exit 2, nothing written) naming the steps done, the latest checkpoint and the plan; a finished run resumed to its
 * plan has nothing to do. An extension is recorded so that run.json (its latest resume's steps), events.jsonl (the
 * resume's start line and its done line) and compare (steps done/planned, and its `steps` setting) agree.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { resumeSteps } from '../../cli/resume-steps';
import { compareRuns } from '../../src/core/run/compare';
import { parseEvents, parseRunRecord, type RecordEvent, type RunRecord } from '../../src/core/run/record';
import { DEFAULT_CONFIG } from '../../src/core/run/config';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'opd-resume-steps-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const SMALL = [
  ...['--model', 'nano', '--tasks', '2', '--group', '2', '--mini-batches', '1', '--seed', '3', '--backend', 'wasm'],
  ...['--eval-every', '0', '--eval-threads', '0', '--algo', 'grpo'],
];
function cli(script: string, args: string[]) {
  return spawnSync('node_modules/.bin/tsx', [`cli/${script}.ts`, ...args], { encoding: 'utf8', timeout: 300_000 });
}
const record = (dir: string) => ({
  run: parseRunRecord(fs.readFileSync(path.join(dir, 'run.json'), 'utf8')),
  events: parseEvents(fs.readFileSync(path.join(dir, 'events.jsonl'), 'utf8')),
});
const snapshot = (dir: string) =>
  fs
    .readdirSync(dir)
    .sort()
    .map((f) => `${f}:${fs.readFileSync(path.join(dir, f)).toString('base64')}`);

describe('resumeSteps', () => {
  const run = (steps: number, resumes: number[] = []): RunRecord =>
    ({
      config: { ...DEFAULT_CONFIG, steps },
      resumes: resumes.map((s, i) => ({ fromStep: 2 + i, steps: s, command: 'c', at: 't' })),
    }) as unknown as RunRecord;
  const steps = (n: number) => Array.from({ length: n }, (_, i) => ({ event: 'step', step: i + 1 }) as RecordEvent);
  it('continues to the plan without --steps, extends with a larger N', () => {
    expect(resumeSteps('d', run(10), steps(5), undefined, 4)).toEqual({ steps: 10 });
    expect(resumeSteps('d', run(10, [20]), steps(12), undefined, 12)).toEqual({ steps: 20 });
    expect(resumeSteps('d', run(10), steps(5), 10, 4)).toEqual({ steps: 10 });
    expect(resumeSteps('d', run(10), steps(5), 30, 4)).toEqual({ steps: 30 });
  });
  it('refuses N below the plan, naming the steps done, the checkpoint and the plan', () => {
    expect(resumeSteps('runs/a', run(10, [20]), steps(13), 15, 12)).toEqual({
      refusal:
        "--steps 15 is below the run's plan of 20 steps (run.json: its latest resume's, from step 2; 13 steps " +
        'done, latest checkpoint at step 12). A resumed run keeps or extends its plan: drop --steps to continue ' +
        'to step 20, or pass --steps N ≥ 20; to use the run as it was at an earlier step, take its checkpoint ' +
        'of that step (runs/a/ckpt-<k>.safetensors, for eval --policy or train --init)',
    });
  });
});

describe('train --resume --steps N', () => {
  const A = path.join(tmp, 'a'),
    B = path.join(tmp, 'b');
  beforeAll(() => {
    const r = cli('train', [...SMALL, '--steps', '4', '--checkpoint-every', '2', '--run-dir', A]);
    expect(r.status).toBe(0);
    fs.cpSync(A, B, { recursive: true });
  }, 300_000);

  it('refuses N below the plan (exit 2, nothing written), also above the checkpoint it would continue from', () => {
    const C = path.join(tmp, 'c'); // stopped after step 4, before its checkpoint: the latest is step 2's
    fs.cpSync(A, C, { recursive: true });
    for (const f of ['ckpt-4.safetensors', 'ckpt-4.state']) fs.rmSync(path.join(C, f));
    const before = snapshot(C);
    const r = cli('train', ['--resume', C, '--steps', '3']);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(
      "train: --resume: --steps 3 is below the run's plan of 4 steps (run.json's config; 4 steps done " +
        '(finished), latest checkpoint at step 2). A resumed run keeps or extends its plan: drop --steps to ' +
        'continue to step 4, or pass --steps N ≥ 4; to use the run as it was at an earlier step, take its ' +
        `checkpoint of that step (${C}/ckpt-<k>.safetensors, for eval --policy or train --init)\n`,
    );
    expect(snapshot(C)).toEqual(before);
  }, 300_000);

  it('a finished run: N below its plan refused naming it; its plan has nothing to do', () => {
    const before = snapshot(A);
    const r = cli('train', ['--resume', A, '--steps', '3']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(
      "train: --resume: --steps 3 is below the run's plan of 4 steps (run.json's config; 4 steps done " +
        '(finished), latest checkpoint at step 4). A resumed run keeps or extends its plan: drop --steps to ' +
        'continue to step 4, or pass --steps N ≥ 4 (N > 4 to train on)',
    );
    const same = cli('train', ['--resume', A]);
    expect(same.status).toBe(2);
    expect(same.stderr).toBe(
      "train: --resume: the run's plan is 4 steps (4 steps done (finished), latest checkpoint at step 4): " +
        'nothing to do; pass --steps N > 4 to extend it\n',
    );
    expect(snapshot(A)).toEqual(before);
  }, 300_000);

  it('an extension: run.json, events.jsonl and compare agree on the plan; a shorter N is then refused', () => {
    const r = cli('train', ['--resume', B, '--steps', '5']);
    expect(r.status).toBe(0);
    const { run, events } = record(B);
    expect(run.config.steps).toBe(4); // the config the run started with
    expect(run.resumes.map((x) => [x.fromStep, x.steps])).toEqual([[4, 5]]);
    const starts = events.flatMap((e) => (e.event === 'start' ? [(e.config as { steps: number }).steps] : []));
    expect(starts).toEqual([4, 5]);
    expect(events.flatMap((e) => (e.event === 'done' ? [(e as { steps: number }).steps] : []))).toEqual([5]);
    const json = JSON.parse(cli('compare', [B, A, '--json']).stdout) as { runs: object[] };
    expect(json.runs).toMatchObject([
      { name: 'b', stepsDone: 5, stepsPlanned: 5, done: true },
      { name: 'a', stepsDone: 4, stepsPlanned: 4, done: true },
    ]);
    const t = compareRuns([
      { name: 'b', ...record(B) },
      { name: 'a', ...record(A) },
    ]);
    expect(t.steps).toEqual(['5/5', '4/4']);
    expect(t.settings.find((s) => s.key === 'steps')).toEqual({ key: 'steps', values: ['5', '4'], differs: true });
    const md = cli('compare', [B, A, '--markdown']).stdout;
    expect(md).toContain('| steps | **5** | **4** |');
    const shorter = cli('train', ['--resume', B, '--steps', '4']);
    expect(shorter.status).toBe(2);
    expect(shorter.stderr).toContain(
      "--steps 4 is below the run's plan of 5 steps (run.json: its latest resume's, from step 4; 5 steps done " +
        '(finished), latest checkpoint at step 5)',
    );
  }, 300_000);
});
