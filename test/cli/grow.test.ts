/**
 * `pretrain --init` and `train --init` with nano weights and `--model nano-deep`: the weights are grown
 * (core/model/grow.ts) and the pretrain manifest / run.json record `grownFrom`; weights of another size are refused
 * as before, naming both sizes and the fix (exit 2, nothing written).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { getEnvSpec } from '../../src/core/envs/registry';
import { modelConfig } from '../../src/core/model/config';
import { decodeSafetensors, encodeSafetensors } from '../../src/core/model/io';
import { initValues } from '../../src/core/model/params';
import { buildTokenizer } from '../../src/core/model/policy';
import { Rng } from '../../src/core/rng';
import { sha256Hex } from '../../src/core/sha256';
import { vocabHash } from '../../src/core/tokenizer/tokenizer';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'opd-grow-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const NANO = 'public/base/household-default.safetensors';

function run(script: string, args: string[]) {
  return spawnSync('node_modules/.bin/tsx', [`cli/${script}.ts`, ...args], { encoding: 'utf8', timeout: 200_000 });
}

/** A `small` weights file in the household vocabulary (seeded init). */
function smallFile(): string {
  const tok = buildTokenizer(getEnvSpec('household'));
  const cfg = modelConfig('small', tok.size);
  const file = path.join(tmp, 'small.safetensors');
  const meta = { format: 'opd-playground', modelSize: 'small', vocabSize: String(tok.size), vocabHash: vocabHash(tok) };
  fs.writeFileSync(file, encodeSafetensors(cfg, initValues(cfg, new Rng(1)), meta));
  return file;
}

const COMMON = ['--env', 'household', '--preset', 'default', '--model', 'nano-deep', '--backend', 'wasm'];

describe('pretrain --model nano-deep --init NANO', () => {
  it('grows the nano, trains 2 iterations and records grownFrom in the manifest', async () => {
    const out = path.join(tmp, 'deep.safetensors');
    const r = run('pretrain', [
      ...COMMON,
      '--init',
      NANO,
      '--iters',
      '2',
      '--tasks',
      '4',
      '--batch',
      '8',
      '--measure-episodes',
      '0',
      '--out',
      out,
    ]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const sha = await sha256Hex(new Uint8Array(fs.readFileSync(NANO)));
    expect(r.stdout.split('\n')[0]).toBe(
      `pretraining nano-deep on household/default (from ${NANO}, sha256 ${sha.slice(0, 8)}…, grown from nano: its ` +
        'blocks, then identity blocks), backend wasm, seed 1',
    );
    const m = JSON.parse(fs.readFileSync(path.join(tmp, 'deep.json'), 'utf8'));
    expect([m.model, m.grownFrom, m.pretrain.initFrom, m.pretrain.initSha256]).toEqual([
      'nano-deep',
      { model: 'nano', sha256: sha },
      NANO,
      sha,
    ]);
    const w = decodeSafetensors(new Uint8Array(fs.readFileSync(out)));
    expect([w.meta.modelSize, w.shapes.get('h3.mlp.wproj'), w.shapes.has('h4.ln1.g')]).toEqual([
      'nano-deep',
      [192, 48],
      false,
    ]);
  }, 210_000);

  it('refuses small weights with the message of any other size mismatch', () => {
    const file = smallFile();
    const r = run('pretrain', [...COMMON, '--init', file, '--out', path.join(tmp, 'no.safetensors')]);
    expect([r.status, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toBe(
      `pretrain: --init: ${file} holds model size small, not --model nano-deep; set --model small\n`,
    );
    expect(fs.existsSync(path.join(tmp, 'no.safetensors'))).toBe(false);
  }, 210_000);
});

describe('train --model nano-deep --init NANO', () => {
  it('grows the nano and records grownFrom in run.json', async () => {
    const dir = path.join(tmp, 'run');
    const r = run('train', [
      ...COMMON,
      '--init',
      NANO,
      '--steps',
      '1',
      '--tasks',
      '2',
      '--group',
      '2',
      '--mini-batches',
      '1',
      '--eval-every',
      '0',
      '--run-dir',
      dir,
    ]);
    expect(r.status).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe(
      'training grpo on household/default, model nano-deep (157008 params, vocab 529), from ' +
        `${NANO}, grown from nano, backend wasm, seed 1`,
    );
    const sha = await sha256Hex(new Uint8Array(fs.readFileSync(NANO)));
    const rec = JSON.parse(fs.readFileSync(path.join(dir, 'run.json'), 'utf8'));
    // config.init is the schema's base|scratch (its default here): the file is initWeights (docs/cli.md)
    expect([rec.params, rec.initWeights, rec.grownFrom, rec.config.model, rec.config.init]).toEqual([
      157008,
      NANO,
      { model: 'nano', sha256: sha },
      'nano-deep',
      'base',
    ]);
  }, 210_000);

  it('refuses small weights, naming both sizes and the fix', () => {
    const file = smallFile();
    const r = run('train', [...COMMON, '--init', file, '--steps', '1']);
    expect([r.status, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toBe(`train: --init ${file} holds a small model, not --model nano-deep; pass --model small\n`);
  }, 210_000);
});

describe('nano-deep and --init base', () => {
  it('train --model nano-deep from the nano base policy: refused, naming the file that grows it', () => {
    const r = run('train', [...COMMON, '--steps', '1']);
    expect([r.status, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toBe(
      'train: --init base: the shipped base policy for household/default is a nano model; pass --model nano, or ' +
        '--init scratch, or --init public/base/household-default.safetensors to grow it into nano-deep\n',
    );
  }, 210_000);

  it('pretrain --model nano-deep --init base grows the shipped base policy of the env and preset', async () => {
    const out = path.join(tmp, 'deep-base.safetensors');
    const r = run('pretrain', [
      ...COMMON,
      ...['--init', 'base', '--iters', '1', '--tasks', '2', '--batch', '4', '--measure-episodes', '0'],
      ...['--out', out],
    ]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const sha = await sha256Hex(new Uint8Array(fs.readFileSync(NANO)));
    expect(r.stdout.split('\n')[0]).toBe(
      `pretraining nano-deep on household/default (from ${NANO}, sha256 ${sha.slice(0, 8)}…, grown from nano: its ` +
        'blocks, then identity blocks), backend wasm, seed 1',
    );
    const m = JSON.parse(fs.readFileSync(path.join(tmp, 'deep-base.json'), 'utf8'));
    expect([m.grownFrom, m.pretrain.initFrom]).toEqual([{ model: 'nano', sha256: sha }, NANO]);
  }, 210_000);
});
