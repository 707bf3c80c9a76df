/**
 * `npm run pretrain` without --out writes the env's base-policy file under public/base/; when that file exists (a
 * shipped base policy) it is kept unless --force says to replace it: the command exits 2 naming the file and both
 * ways on, before any demonstration is built, and the shipped files are unchanged.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';

const sha = (f: string) => createHash('sha256').update(fs.readFileSync(f)).digest('hex');

describe('pretrain keeps a shipped base policy', () => {
  it('without --out and --force: exit 2, the file named, nothing written', () => {
    const files = ['public/base/shop-default.safetensors', 'public/base/shop-default.json'];
    const before = files.map(sha);
    const r = spawnSync(
      'node_modules/.bin/tsx',
      ['cli/pretrain.ts', '--env', 'shop', '--iters', '1', '--tasks', '1', '--batch', '4', '--measure-episodes', '0'],
      { encoding: 'utf8', timeout: 100_000 },
    );
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'pretrain: --out: public/base/shop-default.safetensors is the shipped base policy for shop/default and is ' +
        'kept; pass --out FILE to write elsewhere, or --force to replace it (git checkout public/base/ restores the ' +
        'shipped one)\n',
    );
    expect(files.map(sha)).toEqual(before);
  }, 110_000);
});
