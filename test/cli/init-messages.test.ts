/**
 * `train --init`, `eval --policy` and `pretrain --init` given the wrong kind of path: nothing, a folder, a JSON or
 * text file. Each is named for what it is, with what to give instead, before any technical detail (exit 2, nothing
 * on stdout); the messages come from one place (cli/weightsfile.ts).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'opd-init-msg-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function train(args: string[]) {
  return spawnSync('node_modules/.bin/tsx', ['cli/train.ts', ...args, '--steps', '1'], {
    encoding: 'utf8',
    timeout: 100_000,
  });
}

function run(script: string, args: string[]) {
  return spawnSync('node_modules/.bin/tsx', [`cli/${script}.ts`, ...args], { encoding: 'utf8', timeout: 100_000 });
}

/**
 * The loader's detail for `{"config": {"seed": 1}}\n` (24 bytes; the first 8 read as a header length of
 * 7451599682962399867).
 */
const JSON_DETAIL =
  '(weights file: header length 7451599682962399867 (the first 8 bytes, little-endian) must be 2..16 to ' +
  "fit in the file's 24 bytes; the file is corrupt or not safetensors — re-save it with train --save)";

describe('train: a path of the wrong kind', () => {
  it('--init DIR: a directory, with a .safetensors file or --resume to give', () => {
    const dir = path.join(tmp, 'run');
    fs.mkdirSync(dir);
    const r = train(['--init', dir]);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n')[0]).toBe(
      `train: --init: "${dir}" is a directory, not a weights file; give the path of a .safetensors file, ` +
        `e.g. one written by train --save, or a run directory's checkpoint --init ${dir}/ckpt-<k>.safetensors ` +
        `(to continue that run, use --resume ${dir})`,
    );
  }, 110_000);

  it('--init some.json: not a safetensors file, it looks like JSON; then the loader detail', () => {
    const file = path.join(tmp, 'some.json');
    // 24 bytes; the first 8 read as a header length of 7451599682962399867
    fs.writeFileSync(file, '{"config": {"seed": 1}}\n');
    const r = train(['--init', file]);
    expect(r.status).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(
      `train: --init ${file}: not a safetensors weights file (it starts with "{": it looks like JSON); ` +
        `give a .safetensors file written by train --save, or a run directory's ckpt-<k>.safetensors ` +
        `${JSON_DETAIL}; --init also takes base or scratch`,
    );
  }, 110_000);

  it('--init bsae (no such file, near a word it takes): what --init takes, and the word it most likely meant', () => {
    const r = train(['--init', 'bsae']);
    expect(r.status).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(
      'train: --init: no weights file at "bsae" (base, scratch or a .safetensors file written by train ' +
        '--save); did you mean base?',
    );
  }, 110_000);
});

describe('eval --policy and pretrain --init: a path of the wrong kind, worded as train --init', () => {
  it(
    'eval --policy some.json: not a safetensors file, it looks like JSON; what --policy takes; then the ' +
      'loader detail',
    () => {
      const file = path.join(tmp, 'policy.json');
      fs.writeFileSync(file, '{"config": {"seed": 1}}\n');
      const r = run('eval', ['--policy', file, '--backend', 'cpu']);
      expect(r.status).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.split('\n')[0]).toBe(
        `eval: --policy ${file}: not a safetensors weights file (it starts with "{": it looks like JSON); ` +
          `give a .safetensors file written by train --save, or a run directory's ckpt-<k>.safetensors ` +
          `${JSON_DETAIL}; --policy also takes expert, random or base`,
      );
    },
    110_000,
  );

  it('eval --policy notes.txt: it looks like text', () => {
    const file = path.join(tmp, 'notes.txt');
    fs.writeFileSync(file, 'hello\n');
    const r = run('eval', ['--policy', file, '--backend', 'cpu']);
    expect(r.status).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(
      `eval: --policy ${file}: not a safetensors weights file (it looks like text); give a .safetensors ` +
        `file written by train --save, or a run directory's ckpt-<k>.safetensors ` +
        ('(weights file is 6 bytes: too short to be safetensors; the file is corrupt or not safetensors ' +
          '— re-save it with train --save); --policy also takes expert, random or base'),
    );
  }, 110_000);

  it('eval --policy DIR and eval --policy expret: a directory (its checkpoint to give); a near-miss of a word', () => {
    const dir = path.join(tmp, 'evalrun');
    fs.mkdirSync(dir);
    const d = run('eval', ['--policy', `${dir}/`]);
    expect(d.status).toBe(2);
    expect(d.stderr.split('\n')[0]).toBe(
      `eval: --policy: "${dir}/" is a directory, not a weights file; give the path of a .safetensors ` +
        `file, e.g. one written by train --save, or a run directory's checkpoint --policy ${dir}/ckpt-<k>.safetensors`,
    );
    const w = run('eval', ['--policy', 'expret']);
    expect(w.status).toBe(2);
    expect(w.stderr.split('\n')[0]).toBe(
      'eval: --policy: no weights file at "expret" (expert, random, base or a .safetensors file written ' +
        'by train --save); did you mean expert?',
    );
  }, 110_000);

  it("pretrain --init some.json: the same words, with pretrain's other word (base; not train's scratch)", () => {
    const file = path.join(tmp, 'init.json');
    fs.writeFileSync(file, '{"config": {"seed": 1}}\n');
    const r = run('pretrain', ['--init', file, '--backend', 'cpu', '--out', path.join(tmp, 'p.safetensors')]);
    expect(r.status).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(
      `pretrain: --init ${file}: not a safetensors weights file (it starts with "{": it looks like JSON); ` +
        `give a .safetensors file written by train --save, or a run directory's ckpt-<k>.safetensors ` +
        `${JSON_DETAIL}; --init also takes base`,
    );
    const m = run('pretrain', ['--init', 'bsae', '--out', path.join(tmp, 'p.safetensors')]);
    expect(m.stderr).toBe(
      'pretrain: --init: no weights file at "bsae" (base or a .safetensors file written by train --save); did you ' +
        'mean base?\n',
    );
  }, 110_000);
});
