/**
 * Messages a new user on shop meets: where no base policy ships (an empty `OPD_PUBLIC_DIR`, as a folder of one's own
 * base policies that lacks searchqa's), each refusal names the flag and the fix that applies to the command (train:
 * --init scratch; eval: another --policy), a cut
 * checkpoint of a run directory is called cut, and household weights given to shop name the environment they were
 * made on (exit 2, nothing run).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'opd-shop-msg-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function run(script: string, args: string[], env: NodeJS.ProcessEnv = process.env) {
  const r = spawnSync('node_modules/.bin/tsx', [`cli/${script}.ts`, ...args], {
    encoding: 'utf8',
    timeout: 100_000,
    env,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const TINY = ['--init', 'scratch', '--steps', '1', '--tasks', '1', '--group', '2', '--mini-batches', '1'];

describe('shop: messages a new user meets', () => {
  beforeAll(() => {
    const r = run('train', [
      ...TINY,
      '--eval-every',
      '0',
      '--run-dir',
      path.join(tmp, 'hh'),
      '--checkpoint-every',
      '1',
    ]);
    expect(r.code).toBe(0);
  }, 100_000);

  it('no base policy (an empty OPD_PUBLIC_DIR): train says --init scratch, eval names the other policies', () => {
    const empty = path.join(tmp, 'public');
    fs.mkdirSync(empty);
    const env = { ...process.env, OPD_PUBLIC_DIR: empty };
    const t = run('train', ['--env', 'searchqa', '--steps', '1'], env);
    expect(t.code).toBe(2);
    expect(t.err).toBe(
      `train: --init base: no base policy for searchqa/default: it was looked for under OPD_PUBLIC_DIR=${empty} ` +
        `(${empty}/base/searchqa-default.json is missing); unset OPD_PUBLIC_DIR to use the shipped base policies, ` +
        'or make one there with npm run pretrain -- --env searchqa --preset default, or pass --init scratch to ' +
        'start from fresh weights\n',
    );
    const e = run('eval', ['--env', 'searchqa', '--policy', 'base'], env);
    expect(e.code).toBe(2);
    expect(e.err).toContain(
      '--preset default, or score another policy: --policy expert, random or a .safetensors file\n',
    );
    expect(e.err).not.toContain('start from scratch');
  });

  it("a run directory's checkpoint cut short is called cut, not a file of another kind", () => {
    const cut = path.join(tmp, 'cut');
    fs.cpSync(path.join(tmp, 'hh'), cut, { recursive: true });
    const ckpt = path.join(cut, 'ckpt-1.safetensors');
    fs.truncateSync(ckpt, 1000);
    const e = run('eval', ['--policy', ckpt, '--episodes', '1']);
    expect(e.code).toBe(2);
    expect(e.err).toMatch(/^eval: --policy \S+ckpt-1\.safetensors: the weights file is cut short: /);
    expect(e.err).toMatch(
      /: its header alone is \d+ bytes, but only 992 follow \(an interrupted write or copy\?\); give another /,
    );
    expect(e.err).toContain('give another weights file, e.g. another checkpoint of the run\n');
  });

  it('household weights given to shop name the environment they were made on, and the one asked for', () => {
    const ckpt = path.join(tmp, 'hh', 'ckpt-1.safetensors');
    for (const r of [
      run('eval', ['--env', 'shop', '--policy', ckpt, '--episodes', '1']),
      run('train', ['--env', 'shop', '--init', ckpt, '--steps', '1']),
      run('pretrain', ['--env', 'shop', '--init', ckpt, '--out', path.join(tmp, 'no.safetensors')]),
    ]) {
      expect(r.code).toBe(2);
      expect(r.err).toContain(
        'these weights were made on the household environment, not shop (each environment has its own ' +
          'vocabulary, so weights fit only the one they were made on): use them with --env household, or give ' +
          'weights made on shop\n',
      );
    }
  });
});
