/**
 * `train --init` given the wrong kind of path: a folder, a JSON file. Each is named for what it is, with what to
 * give instead, before any technical detail (exit 2, nothing on stdout).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'opd-init-msg-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function train(args: string[]) {
  return spawnSync('node_modules/.bin/tsx', ['cli/train.ts', ...args, '--steps', '1'], { encoding: 'utf8', timeout: 100_000 });
}

describe('train: a path of the wrong kind', () => {
  it('--init DIR: a directory, with a .safetensors file or --resume to give', () => {
    const dir = path.join(tmp, 'run');
    fs.mkdirSync(dir);
    const r = train(['--init', dir]);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n')[0]).toBe(
      `train: --init: "${dir}" is a directory, not a weights file; give the path of a .safetensors file, e.g. one written by --save, or a run directory's checkpoint --init ${dir}/ckpt-<k>.safetensors (to continue that run, use --resume ${dir})`,
    );
  }, 110_000);

  it('--init some.json: not a safetensors file, it looks like JSON; then the loader detail', () => {
    const file = path.join(tmp, 'some.json');
    fs.writeFileSync(file, '{"config": {"seed": 1}}\n'); // 24 bytes; the first 8 read as a header length of 7451599682962399867
    const r = train(['--init', file]);
    expect(r.status).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(
      `train: --init ${file}: not a safetensors weights file (it starts with "{": it looks like JSON); give a .safetensors file written by train --save, or a run directory's ckpt-<k>.safetensors `
      + '(weights file: header length 7451599682962399867 (the first 8 bytes, little-endian) must be 2..16 to fit in the file\'s 24 bytes; the file is corrupt or not safetensors — re-save it with train --save)',
    );
  }, 110_000);
});
