/**
 * `npm run train` never trains on NaN (src/core/train/finite.ts): settings that diverge stop the run at the step that
 * met the non-finite value, print the error naming the step, the quantity and the settings, say which checkpoint the
 * run can continue from and how, write no checkpoint or --save file holding a non-finite value, and exit 1.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as tf from '../../src/core/tf';
import { getEnvSpec } from '../../src/core/envs/registry';
import { buildTokenizer, loadPolicy } from '../../src/core/model/policy';
import { useBackend } from '../helpers/backend';

/** Run `npm run train` with tsx; returns exit code, stdout and stderr. */
function train(args: string[]) {
  const r = spawnSync('node_modules/.bin/tsx', ['cli/train.ts', ...args], { encoding: 'utf8', timeout: 240_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const tok = buildTokenizer(getEnvSpec('household'));
beforeAll(() => useBackend('wasm'));

/** Loads a weights file as the trainer would (loadPolicy refuses NaN or Infinity) and frees it. */
function loadsFinite(file: string): void {
  const p = loadPolicy(new Uint8Array(fs.readFileSync(file)), tok);
  tf.dispose(Object.values(p.params));
}

describe('train stops at the first non-finite value', () => {
  it('--lr 1 --kl-beta 10 --max-grad-norm 0: exits 1 naming the step, the quantity and the settings', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'opd-nan-'));
    const save = path.join(dir, 'policy.safetensors');
    const r = train(['--lr', '1', '--kl-beta', '10', '--max-grad-norm', '0', '--save', save]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(
      /train: step 1: the gradient norm is NaN; the run stopped and the step's update was not kept/,
    );
    expect(r.err).toMatch(/learning rate \(1\) or the KL weight β \(10\), turn on gradient clipping \(max grad norm/);
    expect(r.err).toContain('train: the settings now: --lr 1, --kl-beta 10, --max-grad-norm 0 (off), --entropy-coef 0');
    expect(r.err).toContain('no checkpoint was kept (--run-dir DIR keeps checkpoints');
    // No step event: step 1 was the stopped one.
    expect(r.out).not.toMatch(/step 1\/120/);
    expect(r.out).not.toMatch(/^done/m);
    // --save holds the weights from before step 1, all finite.
    expect(r.err).toContain(`--save ${save} holds the weights from before step 1 (the last finite ones)`);
    loadsFinite(save);
    fs.rmSync(dir, { recursive: true, force: true });
  }, 240_000);

  it('--run-dir: only finite checkpoints, the error event in --json and events.jsonl, how to continue', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'opd-nan-'));
    const dir = path.join(root, 'run');
    const save = path.join(root, 'policy.safetensors');
    // Measured on wasm: step 1 stays finite, step 2's gradient norm is NaN.
    const r = train([
      ...['--seed', '2', '--tasks', '1', '--group', '2', '--mini-batches', '2', '--ppo-epochs', '16'],
      ...['--lr', '1', '--kl-beta', '10', '--max-grad-norm', '0', '--eval-every', '0', '--checkpoint-every', '1'],
      ...['--steps', '3', '--run-dir', dir, '--save', save, '--json'],
    ]);
    expect(r.code).toBe(1);
    const lines = r.out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { event: string; step?: number });
    const err = lines.find((e) => e.event === 'error');
    expect(err).toMatchObject({
      event: 'error',
      step: 2,
      quantity: 'gradNorm',
      value: 'NaN',
      lastCheckpoint: 1,
      settings: { learningRate: 1, klBeta: 10, maxGradNorm: 0, entropyCoef: 0 },
    });
    expect(lines.at(-1)).toEqual(err);
    expect(lines.filter((e) => e.event === 'step').map((e) => e.step)).toEqual([1]);
    expect(lines.some((e) => e.event === 'done')).toBe(false);
    // Only step 1's checkpoint, and every weights file in the folder loads (all finite).
    const files = fs.readdirSync(dir);
    expect(files.filter((f) => f.startsWith('ckpt-')).sort()).toEqual(['ckpt-1.safetensors', 'ckpt-1.state']);
    for (const f of files.filter((f) => f.endsWith('.safetensors'))) loadsFinite(path.join(dir, f));
    loadsFinite(save);
    const events = fs
      .readFileSync(path.join(dir, 'events.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { event: string; step?: number });
    expect(events.at(-1)).toMatchObject({ event: 'error', step: 2, quantity: 'gradNorm' });
    const ckpt = path.join(dir, 'ckpt-1.safetensors');
    expect(r.err).toContain(`train: ${dir} keeps its last good checkpoint, step 1 (${ckpt}). --resume ${dir} keeps`);
    expect(r.err).toContain(`npm run train -- --init ${ckpt} --run-dir NEW_DIR with a lower --lr or --kl-beta`);
    fs.rmSync(root, { recursive: true, force: true });
  }, 240_000);
});
