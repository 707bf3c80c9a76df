/**
 * Agentic-OPD's distillation stage from a GRPO run directory (train --algo agentic-opd --from-run DIR): the student
 * is the best-validation checkpoint, the teachers the others (HCN's first choice hand-computed from a hand-made
 * solved matrix); a distillation of 4 steps equals one of 2 steps resumed to 4 (step and validation events, weights),
 * and so does a union-teacher one of 2 steps (which distils training tasks off the val panel);
 * run.json records the source and its sha256, and a resume after the source changed is refused; every bad source is
 * refused with exit 2, a message saying what is needed, and nothing written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decodeSafetensors, encodeSafetensors, encodeTensors } from '../../src/core/model/io';
import { modelConfig } from '../../src/core/model/config';
import { paramShapes } from '../../src/core/model/params';

const cli = (args: string[]) =>
  spawnSync('node_modules/.bin/tsx', ['cli/train.ts', ...args], { encoding: 'utf8', timeout: 600_000 });
const COMMON = ['--tasks', '2', '--group', '4', '--mini-batches', '2', '--seed', '3', '--eval-every', '0', '--json'];
const TIMING = ['tokensPerSecond', 'stepMs', 'elapsedMs', 'phaseMs', 'valMs', 'evalMs'];
const events = (dir: string) =>
  fs
    .readFileSync(path.join(dir, 'events.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
const strip = (evs: Record<string, unknown>[], kind: string) =>
  evs
    .filter((e) => e.event === kind)
    .map((e) => Object.fromEntries(Object.entries(e).filter(([k]) => !TIMING.includes(k))));
const sha = (p: string) => crypto.createHash('sha256').update(fs.readFileSync(p)).digest('hex');
/** Every file of a folder with its sha256 (to show nothing was written). */
const snapshot = (dir: string) =>
  Object.fromEntries(
    fs
      .readdirSync(dir)
      .sort()
      .map((f) => [f, sha(path.join(dir, f))]),
  );

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'opd-agentic-'));
const SRC = path.join(tmp, 'src');
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/**
 * The solved matrix the source run is given (pass rates over 2 episodes; solved = ≥ 0.5): step 2 solves {0,1,2,3}
 * (the best), step 1 {0,1,4}, step 3 {4,5}. HCN's first round with P = {0,1,2,3}: teacher 1 scores w₁(4) = 1, teacher
 * 3 scores w₃(4) + w₃(5) = 2, so teacher 3 is chosen with score 2.
 */
const ROWS = [
  { step: 1, passRates: [1, 0.5, 0, 0, 1, 0] },
  { step: 2, passRates: [1, 1, 0.5, 1, 0, 0] },
  { step: 3, passRates: [0, 0, 0, 0, 0.5, 1] },
];
function setVal(dir: string, rows: { step: number; passRates: number[] }[], tasks = 6): void {
  const p = path.join(dir, 'val.json');
  const v = JSON.parse(fs.readFileSync(p, 'utf8'));
  fs.writeFileSync(
    p,
    JSON.stringify({ ...v, tasks, taskTypes: v.taskTypes.slice(0, tasks), checkpoints: rows }) + '\n',
  );
}
/** A copy of the source run to break. */
function copySrc(name: string): string {
  const d = path.join(tmp, name);
  fs.cpSync(SRC, d, { recursive: true });
  return d;
}
/** Replace a checkpoint with a well-formed `small` model (zero weights) of the same vocabulary and metadata. */
function makeSmall(file: string): void {
  const w = decodeSafetensors(new Uint8Array(fs.readFileSync(file)));
  const cfg = modelConfig('small', Number(w.meta.vocabSize));
  const values = new Map(
    paramShapes(cfg).map(([name, shape]) => [name, new Float32Array(shape.reduce((a, b) => a * b, 1))]),
  );
  fs.writeFileSync(file, encodeSafetensors(cfg, values, { ...w.meta, modelSize: 'small' }));
}
/** Rewrite a checkpoint file's metadata (same tensors). */
function rewriteMeta(file: string, edit: (m: Record<string, string>) => void): void {
  const w = decodeSafetensors(new Uint8Array(fs.readFileSync(file)));
  const meta = { ...w.meta };
  edit(meta);
  fs.writeFileSync(
    file,
    encodeTensors(
      [...w.values].map(([name, data]) => ({ name, shape: w.shapes.get(name)!, data })),
      meta,
    ),
  );
}

beforeAll(() => {
  const r = cli([
    ...COMMON,
    '--steps',
    '3',
    '--checkpoint-every',
    '1',
    '--val-tasks',
    '6',
    '--val-samples',
    '2',
    '--run-dir',
    SRC,
  ]);
  expect(r.status, r.stderr).toBe(0);
  setVal(SRC, ROWS);
}, 600_000);

describe('train --algo agentic-opd --from-run', () => {
  it(
    '4 steps straight = 2 steps + --resume --steps 4 (teacher choice, HCN, LAD, RNG, Adam); run.json ' +
      'records the source',
    () => {
      const A = path.join(tmp, 'straight'),
        B = path.join(tmp, 'resumed');
      const srcBefore = snapshot(SRC);
      const a = cli([
        ...COMMON,
        '--algo',
        'agentic-opd',
        '--from-run',
        SRC,
        '--steps',
        '4',
        '--checkpoint-every',
        '2',
        '--run-dir',
        A,
      ]);
      expect(a.status, a.stderr).toBe(0);
      const out = a.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(out.find((e) => e.event === 'teachers')).toMatchObject({
        student: 2,
        studentSolved: 4,
        teachers: [1, 3],
        unionGap: 2,
        noiseGap: expect.any(Number),
      }); // union 6 of 6, best (step 2) 4
      const ea = events(A);
      const steps = strip(ea, 'step');
      expect(steps.map((e) => e.step)).toEqual([1, 2, 3, 4]);
      expect(steps[0]).toMatchObject({ teacherId: 3, teacherScore: 2, teacherRound: 1 });
      // The validation after step 2 starts round 2 (HCN re-selects from the distilled student's solved tasks).
      expect(steps[2].teacherRound).toBe(2);
      for (const e of steps) {
        expect(e.ladShare as number).toBeGreaterThanOrEqual(0);
        expect(e.ladShare as number).toBeLessThanOrEqual(1);
      }
      // LAD distilled something (else this test would not exercise the teacher scoring).
      expect(steps.some((e) => (e.ladShare as number) > 0)).toBe(true);

      const b1 = cli([
        ...COMMON,
        '--algo',
        'agentic-opd',
        '--from-run',
        SRC,
        '--steps',
        '2',
        '--checkpoint-every',
        '2',
        '--run-dir',
        B,
      ]);
      expect(b1.status, b1.stderr).toBe(0);
      const b2 = cli(['--resume', B, '--steps', '4', '--json']);
      expect(b2.stderr).toBe('');
      expect(b2.status).toBe(0);
      const eb = events(B);
      expect(strip(eb, 'step')).toEqual(steps);
      expect(strip(eb, 'validation')).toEqual(strip(ea, 'validation'));
      expect(
        fs.readFileSync(path.join(B, 'ckpt-4.safetensors')).equals(fs.readFileSync(path.join(A, 'ckpt-4.safetensors'))),
      ).toBe(true);
      expect(fs.readFileSync(path.join(B, 'ckpt-4.state')).equals(fs.readFileSync(path.join(A, 'ckpt-4.state')))).toBe(
        true,
      );

      const run = JSON.parse(fs.readFileSync(path.join(B, 'run.json'), 'utf8'));
      expect(run.fromRun).toEqual({
        dir: path.resolve(SRC),
        valSha256: sha(path.join(SRC, 'val.json')),
        student: { step: 2, file: 'ckpt-2.safetensors', sha256: sha(path.join(SRC, 'ckpt-2.safetensors')) },
        teachers: [1, 3].map((s) => ({
          step: s,
          file: `ckpt-${s}.safetensors`,
          sha256: sha(path.join(SRC, `ckpt-${s}.safetensors`)),
        })),
      });
      expect(snapshot(SRC)).toEqual(srcBefore);

      // The source changes (a teacher's file replaced by another checkpoint, or the solved matrix edited): refused.
      const C = path.join(tmp, 'changed');
      fs.cpSync(B, C, { recursive: true });
      fs.rmSync(path.join(C, 'ckpt-4.safetensors'));
      fs.rmSync(path.join(C, 'ckpt-4.state'));
      const rec = JSON.parse(fs.readFileSync(path.join(C, 'run.json'), 'utf8'));
      const S2 = copySrc('src-changed');
      fs.writeFileSync(path.join(C, 'run.json'), JSON.stringify({ ...rec, fromRun: { ...rec.fromRun, dir: S2 } }));
      fs.copyFileSync(path.join(S2, 'ckpt-2.safetensors'), path.join(S2, 'ckpt-3.safetensors'));
      const before = snapshot(C);
      const r = cli(['--resume', C, '--steps', '4', '--json']);
      expect(r.status).toBe(2);
      expect(r.stderr).toContain(
        `the source run changed since this distillation started: ${path.join(S2, 'ckpt-3.safetensors')} ` +
          `differs from the file the stage read`,
      );
      expect(r.stderr).toMatch(/restore it, or start a new distillation with --from-run/);
      expect(snapshot(C)).toEqual(before);
      setVal(
        S2,
        ROWS.map((x) => (x.step === 1 ? { ...x, passRates: [1, 1, 1, 1, 1, 1] } : x)),
      );
      fs.copyFileSync(path.join(SRC, 'ckpt-3.safetensors'), path.join(S2, 'ckpt-3.safetensors'));
      const v = cli(['--resume', C, '--steps', '4', '--json']);
      expect(v.status).toBe(2);
      expect(v.stderr).toContain(`${path.join(S2, 'val.json')} differs from the file the stage read`);
      // Another source directory than the recorded one.
      const o = cli(['--resume', C, '--steps', '4', '--from-run', SRC]);
      expect(o.status).toBe(2);
      expect(o.stderr).toMatch(
        /differs from the run's .*; a resumed distillation keeps its source, so drop --from-run/,
      );
      expect(snapshot(C)).toEqual(before);
    },
    900_000,
  );

  it(
    '--teacher-select union distils training tasks (off the val panel) and a resumed run equals a ' + 'straight one',
    () => {
      const A = path.join(tmp, 'union-straight'),
        B = path.join(tmp, 'union-resumed');
      const U = ['--algo', 'agentic-opd', '--from-run', SRC, '--teacher-select', 'union', '--checkpoint-every', '1'];
      const a = cli([...COMMON, ...U, '--steps', '2', '--run-dir', A]);
      expect(a.status, a.stderr).toBe(0);
      expect(a.stderr).not.toMatch(/union teacher/); // teachers 1 and 3 solve val tasks, so no start warning
      const steps = strip(events(A), 'step');
      for (const e of steps) expect(e.teacherId).toBeNull();
      // Every training task is off the panel; before the union gave them teachers no step distilled anything.
      expect(steps.some((e) => (e.ladShare as number) > 0)).toBe(true);
      // The union's search plays teacher episodes (none memoised at step 1); gated tokens exactly where LAD distilled.
      expect(steps[0].teacherRolloutCalls as number).toBeGreaterThan(0);
      for (const e of steps) expect((e.gatedTokens as number) > 0).toBe((e.ladShare as number) > 0);
      const b1 = cli([...COMMON, ...U, '--steps', '1', '--run-dir', B]);
      expect(b1.status, b1.stderr).toBe(0);
      const b2 = cli(['--resume', B, '--steps', '2', '--json']);
      expect(b2.status, b2.stderr).toBe(0);
      // Equal step events include teacherRolloutCalls: the resumed run kept the memo of step 1's teacher episodes.
      expect(strip(events(B), 'step')).toEqual(steps);
      expect(
        fs.readFileSync(path.join(B, 'ckpt-2.safetensors')).equals(fs.readFileSync(path.join(A, 'ckpt-2.safetensors'))),
      ).toBe(true);
      expect(fs.readFileSync(path.join(B, 'ckpt-2.state')).equals(fs.readFileSync(path.join(A, 'ckpt-2.state')))).toBe(
        true,
      );
    },
    900_000,
  );

  it('refuses a source it cannot distil from: exit 2, what is needed and how, nothing written', () => {
    const bad: [string, (d: string) => void, RegExp][] = [
      [
        'one-file',
        (d) => ['ckpt-1', 'ckpt-3'].forEach((c) => fs.rmSync(path.join(d, `${c}.safetensors`))),
        new RegExp(
          'holds 1 checkpoint; Agentic-OPD needs at least two \\(a student and a teacher\\): ' +
            'train the GRPO stage with --run-dir, --checkpoint-every k and --val-tasks n',
        ),
      ],
      [
        'one-validated',
        (d) => setVal(d, ROWS.slice(1, 2)),
        new RegExp(
          '1 checkpoint has both weights and a validation; Agentic-OPD needs at least two ' +
            '\\(a student and a teacher\\); train the GRPO stage with --run-dir',
        ),
      ],
      [
        'no-val',
        (d) => fs.rmSync(path.join(d, 'val.json')),
        /has no val\.json \(no validation results\); train the GRPO stage with --val-tasks n/,
      ],
      [
        'empty-panel',
        (d) =>
          setVal(
            d,
            ROWS.map((x) => ({ step: x.step, passRates: [] })),
            0,
          ),
        /the validation panel is empty \(0 val tasks\).*; train the GRPO stage with --val-tasks n \(e\.g\. 64\)/,
      ],
      [
        'nothing',
        (d) =>
          setVal(
            d,
            ROWS.map((x) => ({ step: x.step, passRates: x.step === 2 ? [1, 1, 1, 1, 1, 1] : x.passRates })),
          ),
        new RegExp(
          'nothing to distil: the best checkpoint \\(step 2\\) already solves all 6 of 6 val tasks ' +
            'that any checkpoint solves \\(the union\\).*; validate on more tasks \\(--val-tasks\\)',
        ),
      ],
      [
        'missing',
        (d) => fs.rmSync(path.join(d, 'ckpt-3.safetensors')),
        /val\.json validates step 3 but .*ckpt-3\.safetensors is missing; restore the file or train the run again/,
      ],
      [
        'corrupt',
        (d) =>
          fs.writeFileSync(
            path.join(d, 'ckpt-3.safetensors'),
            fs.readFileSync(path.join(d, 'ckpt-3.safetensors')).subarray(0, 5000),
          ),
        /ckpt-3\.safetensors: weights file: .*\(a corrupt or foreign checkpoint\); restore the file from a copy/,
      ],
      [
        'model',
        (d) => makeSmall(path.join(d, 'ckpt-1.safetensors')),
        new RegExp(
          "ckpt-1\\.safetensors: holds a small model, the run's model is nano; " +
            "every checkpoint of the stage must be of the run's model size",
        ),
      ],
      [
        'vocab',
        (d) => rewriteMeta(path.join(d, 'ckpt-1.safetensors'), (m) => (m.vocabHash = '0123456789abcdef')),
        /ckpt-1\.safetensors: weights file: vocabulary hash 0123456789abcdef differs from this code's/,
      ],
      [
        'env',
        (d) =>
          rewriteMeta(
            path.join(d, 'ckpt-3.safetensors'),
            (m) => (m.envVersions = JSON.stringify({ household: 'household-v1' })),
          ),
        /ckpt-3\.safetensors: made with environment version household-v1; this is household-v2, whose tasks differ/,
      ],
    ];
    for (const [name, breakIt, msg] of bad) {
      const d = copySrc(name);
      breakIt(d);
      const before = snapshot(d);
      const out = path.join(tmp, `${name}-out`);
      const r = cli([...COMMON, '--algo', 'agentic-opd', '--from-run', d, '--steps', '1', '--run-dir', out]);
      expect(r.status, name).toBe(2);
      expect(r.stderr, name).toMatch(msg);
      expect(snapshot(d), name).toEqual(before);
      expect(fs.existsSync(out), name).toBe(false);
    }
    const n = cli([...COMMON, '--algo', 'agentic-opd', '--steps', '1']);
    expect(n.status).toBe(2);
    expect(n.stderr).toMatch(/pass --from-run DIR/);
  }, 300_000);
});
