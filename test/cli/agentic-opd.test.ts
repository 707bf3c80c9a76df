/**
 * Agentic-OPD's distillation stage from a GRPO run directory (train --algo agentic-opd --from-run DIR): the student
 * is the best-validation checkpoint, the teachers the others; step events carry the teacher numbers; a run directory
 * without two validated checkpoints is refused with exit 2 and left intact.
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const cli = (args: string[]) => spawnSync('node_modules/.bin/tsx', ['cli/train.ts', ...args], { encoding: 'utf8', timeout: 600_000 });
const COMMON = ['--tasks', '2', '--group', '4', '--mini-batches', '2', '--seed', '3', '--eval-every', '0', '--json'];

describe('train --algo agentic-opd --from-run', () => {
  it('distils from the run\'s other checkpoints; refuses a run with one checkpoint or without --from-run', () => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'opd-agentic-'));
    const run = path.join(d, 'run');
    expect(cli([...COMMON, '--steps', '4', '--checkpoint-every', '2', '--val-tasks', '8', '--run-dir', run]).status).toBe(0);
    const r = cli([...COMMON, '--algo', 'agentic-opd', '--from-run', run, '--steps', '1']);
    expect(r.status).toBe(0);
    const evs = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    const teachers = evs.find((e) => e.event === 'teachers');
    expect(teachers.teachers.length).toBe(1);
    expect([2, 4]).toContain(teachers.student);
    expect(teachers.teachers).toEqual([teachers.student === 2 ? 4 : 2]);
    const step = evs.find((e) => e.event === 'step');
    expect(step.teacherId).toBe(teachers.teachers[0]);
    expect(step.ladShare).toBeGreaterThanOrEqual(0);
    expect(step.ladShare).toBeLessThanOrEqual(1);
    expect(step.teacherRound).toBe(1);
    // One checkpoint: exit 2 naming what is needed; nothing written into the run directory.
    const one = path.join(d, 'one');
    fs.mkdirSync(one);
    fs.copyFileSync(path.join(run, 'run.json'), path.join(one, 'run.json'));
    fs.copyFileSync(path.join(run, 'ckpt-2.safetensors'), path.join(one, 'ckpt-2.safetensors'));
    const before = fs.readdirSync(one).sort();
    const o = cli([...COMMON, '--algo', 'agentic-opd', '--from-run', one, '--steps', '1']);
    expect(o.status).toBe(2);
    expect(o.stderr).toMatch(/holds 1 checkpoint; Agentic-OPD needs at least two \(a student and a teacher\)/);
    expect(fs.readdirSync(one).sort()).toEqual(before);
    const n = cli([...COMMON, '--algo', 'agentic-opd', '--steps', '1']);
    expect(n.status).toBe(2);
    expect(n.stderr).toMatch(/pass --from-run DIR/);
    fs.rmSync(d, { recursive: true, force: true });
  });
});
