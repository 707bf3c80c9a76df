/**
 * train --resume says where it continues from: the text start line names the checkpoint's step; a newer checkpoint
 * file without its pair (an interrupted checkpoint write) is named as skipped on stderr; and a run directory whose
 * events.jsonl lost the step events up to its latest checkpoint (emptied, cut at a line boundary) is refused (exit 2,
 * nothing rewritten) instead of continuing with its history gone.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'opd-resume-notes-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function train(args: string[]) {
  return spawnSync('node_modules/.bin/tsx', ['cli/train.ts', ...args], { encoding: 'utf8', timeout: 300_000 });
}
const steps = (dir: string) =>
  fs
    .readFileSync(path.join(dir, 'events.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
    .filter((e) => e.event === 'step')
    .map((e) => e.step);

describe('train --resume: where it continues from', () => {
  const A = path.join(tmp, 'a');
  it('names the checkpoint it continues from, and a newer checkpoint file without its pair as skipped', () => {
    const a = train([
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
      '0',
      '--checkpoint-every',
      '2',
      '--steps',
      '4',
      '--run-dir',
      A,
    ]);
    expect(a.status).toBe(0);
    const B = path.join(tmp, 'half');
    fs.cpSync(A, B, { recursive: true });
    fs.rmSync(path.join(B, 'ckpt-4.state'));
    const b = train(['--resume', B]);
    expect(b.status).toBe(0);
    expect(b.stderr).toBe(
      'train: warning: --resume: ckpt-4.safetensors without ckpt-4.state (an interrupted checkpoint ' +
        'write?) is skipped; the run continues from the checkpoint of step 2\n',
    );
    expect(b.stdout.split('\n')[0]).toBe(
      'training grpo on household/easy, model nano (100464 params, vocab 529), backend wasm, seed 5; ' +
        'resumed from the checkpoint of step 2',
    );
    expect(steps(B)).toEqual([1, 2, 3, 4]);
    expect(fs.existsSync(path.join(B, 'ckpt-4.state'))).toBe(true); // step 4's checkpoint written again, whole
  }, 300_000);

  it('refuses a run directory whose events.jsonl lost the steps up to its latest checkpoint', () => {
    for (const [name, cut] of [
      ['emptied', () => ''],
      ['cut', (t: string) => t.split('\n').slice(0, 2).join('\n') + '\n'],
    ] as const) {
      const C = path.join(tmp, name);
      fs.cpSync(A, C, { recursive: true });
      const ev = path.join(C, 'events.jsonl');
      fs.writeFileSync(ev, cut(fs.readFileSync(ev, 'utf8')));
      const before = fs.readFileSync(ev),
        run = fs.readFileSync(path.join(C, 'run.json'));
      const lines = before.length ? before.toString().trim().split('\n').length : 0;
      const r = train(['--resume', C, '--steps', '6']);
      expect(r.status, name).toBe(2);
      expect(r.stderr).toBe(
        `train: --resume: ${ev} holds no step event of step 4, the latest checkpoint (it holds ${lines} ` +
          `line${lines === 1 ? '' : 's'}: emptied, cut or replaced?); resuming would lose the run's ` +
          `history: restore the file, or start a new run from the checkpoint with --init ` +
          `${path.join(C, 'ckpt-4.safetensors')}\n`,
      );
      expect(fs.readFileSync(ev).equals(before)).toBe(true);
      expect(fs.readFileSync(path.join(C, 'run.json')).equals(run)).toBe(true);
    }
  }, 300_000);
});
