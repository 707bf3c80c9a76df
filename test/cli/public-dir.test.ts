/**
 * `OPD_PUBLIC_DIR`, the folder whose base/ holds the base policies the CLI reads (cli/base.ts): a relative value is
 * resolved against the folder npm was run from (`INIT_CWD`, which npm sets), not the repository; where it is set, a
 * missing base policy is said to have been looked for under it, with unsetting it as a way back to the shipped ones,
 * and a value naming a file or nothing is named as such; `pretrain` without --out writes under its base/ (made when
 * missing), where train and eval read, and keeps an existing file there unless --force.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SHIPPED_PUBLIC_DIR, publicDirOf } from '../../cli/base';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'opd-public-dir-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Run a CLI with OPD_PUBLIC_DIR=`dir` and INIT_CWD=tmp (as npm run from tmp sets it). */
function run(script: string, args: string[], dir: string) {
  const env = { ...process.env, OPD_PUBLIC_DIR: dir, INIT_CWD: tmp };
  const r = spawnSync('node_modules/.bin/tsx', [`cli/${script}.ts`, ...args], {
    encoding: 'utf8',
    timeout: 200_000,
    env,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const TINY_PRETRAIN = ['--iters', '1', '--tasks', '1', '--batch', '4', '--measure-episodes', '0'];

describe('OPD_PUBLIC_DIR', () => {
  it('a relative value resolves against INIT_CWD (else the working folder); unset or empty: the shipped one', () => {
    expect(publicDirOf({ OPD_PUBLIC_DIR: 'mine', INIT_CWD: '/home/u/work' }, '/repo')).toBe('/home/u/work/mine');
    expect(publicDirOf({ OPD_PUBLIC_DIR: 'mine' }, '/repo')).toBe('/repo/mine');
    expect(publicDirOf({ OPD_PUBLIC_DIR: '/srv/bases', INIT_CWD: '/home/u' }, '/repo')).toBe('/srv/bases');
    expect(publicDirOf({}, '/repo')).toBe(SHIPPED_PUBLIC_DIR);
    expect(publicDirOf({ OPD_PUBLIC_DIR: '' }, '/repo')).toBe(SHIPPED_PUBLIC_DIR);
    expect(SHIPPED_PUBLIC_DIR).toBe(path.resolve('public'));
  });

  it('a value that is a file, or names nothing, is named as such (train, eval)', () => {
    fs.writeFileSync(path.join(tmp, 'a-file'), 'x');
    const f = run('train', ['--steps', '1'], 'a-file');
    expect([f.code, f.out]).toEqual([2, '']);
    expect(f.err).toBe(
      `train: --init base: no base policy for household/easy: OPD_PUBLIC_DIR=a-file (${tmp}/a-file) is not a ` +
        'folder; unset OPD_PUBLIC_DIR to use the shipped base policies, or set it to a folder whose base/ holds ' +
        'yours, or pass --init scratch to start from fresh weights\n',
    );
    const m = run('eval', ['--policy', 'base', '--episodes', '1'], 'nowhere');
    expect(m.code).toBe(2);
    expect(m.err).toBe(
      `eval: --policy base: no base policy for household/easy: OPD_PUBLIC_DIR=nowhere (${tmp}/nowhere) does not ` +
        'exist; unset OPD_PUBLIC_DIR to use the shipped base policies, or set it to a folder whose base/ holds ' +
        'yours, or score another policy: --policy expert, random or a .safetensors file\n',
    );
  }, 200_000);

  it('pretrain without --out writes under its base/, where eval reads it, and keeps it unless --force', () => {
    fs.mkdirSync(path.join(tmp, 'mine'));
    const written = path.join(tmp, 'mine', 'base', 'household-easy.safetensors');
    const p = run('pretrain', TINY_PRETRAIN, 'mine');
    expect(p.err).toBe('');
    expect(p.code).toBe(0);
    expect(p.out.trimEnd().split('\n').slice(-2)[0]).toBe(
      `wrote ${written} (${fs.statSync(written).size} bytes) and ${written.replace(/safetensors$/, 'json')}`,
    );
    const e = run('eval', ['--policy', 'base', '--episodes', '1'], 'mine');
    expect(e.err).toBe('');
    expect(e.out.split('\n')[0]).toMatch(/^base on household\/easy test-seen: success \d+\.\d% of 1 episode/);
    const k = run('pretrain', TINY_PRETRAIN, 'mine');
    expect([k.code, k.out]).toEqual([2, '']);
    expect(k.err).toBe(
      `pretrain: --out: ${written} is the base policy for household/easy under OPD_PUBLIC_DIR=mine and is ` +
        'kept; pass --out FILE to write elsewhere, or --force to replace it\n',
    );
    const bad = run('pretrain', TINY_PRETRAIN, 'a-file');
    expect(bad.code).toBe(2);
    expect(bad.err).toBe(
      `pretrain: OPD_PUBLIC_DIR=a-file (${tmp}/a-file) is not a folder; without --out pretrain writes under its ` +
        'base/ (where train and eval read base policies): create that folder, unset OPD_PUBLIC_DIR to write the ' +
        'shipped ones, or pass --out FILE\n',
    );
  }, 400_000);
});
