/**
 * A run file (.opdrun) given where weights are expected (`train --init`, `eval --policy`) is named as a run file, by
 * its first bytes, with how to use it (unpack, then --resume or a checkpoint), and a truncated one says it is
 * truncated: not the weights loader's "corrupt or not safetensors".
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isRunPack, packRun } from '../../src/core/run-files/pack';
import { encodeTensors } from '../../src/core/model/io';
import { handRunJson } from '../helpers/run-json';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'opd-init-pack-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function cli(script: string, args: string[]) {
  return spawnSync('node_modules/.bin/tsx', [`cli/${script}.ts`, ...args], { encoding: 'utf8', timeout: 120_000 });
}

const enc = new TextEncoder();
/** A packed run of 0 steps: run.json only. */
const bytes = packRun('grpo-5', new Map([['run.json', enc.encode(JSON.stringify(handRunJson({ seed: 5 })) + '\n')]]));
const whole = path.join(tmp, 'grpo-5.opdrun'),
  cut = path.join(tmp, 'cut.opdrun');
fs.writeFileSync(whole, bytes);
fs.writeFileSync(cut, bytes.subarray(0, bytes.length - 10));

describe('a run file where weights are expected', () => {
  it('isRunPack: by the first bytes, whole or truncated; safetensors and short files are not', () => {
    expect(isRunPack(bytes)).toBe(true);
    expect(isRunPack(bytes.subarray(0, 35))).toBe(true);
    expect(isRunPack(bytes.subarray(0, 34))).toBe(false);
    expect(isRunPack(encodeTensors([{ name: 'w', shape: [1], data: Float32Array.of(1) }], {}))).toBe(false);
    expect(isRunPack(new Uint8Array(0))).toBe(false);
  });

  it('train --init FILE.opdrun: exit 2, named a run file, with unpack + --resume / a checkpoint', () => {
    const r = cli('train', ['--init', whole, '--steps', '1']);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `train: --init ${whole}: this is a run file (.opdrun, a packed run record), not a weights file. To use it, ` +
        (`unpack it (npx tsx cli/pack.ts --unpack ${whole} DIR), then continue the run with npm run train ` +
          `-- --resume DIR, or start from one of its checkpoints with --init DIR/ckpt-<k>.safetensors\n`),
    );
  }, 120_000);

  it('a truncated one: named a run file and truncated, with the byte counts', () => {
    const r = cli('train', ['--init', cut]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(
      new RegExp(
        `^train: --init ${cut}: this is a run file \\(\\.opdrun, a packed run record\\), not a weights ` +
          `file, and it is damaged: ` +
          (`the file is truncated: its header lists ${bytes.length - bytes.indexOf(0x0a) - 1} bytes of ` +
            `files but ${bytes.length - bytes.indexOf(0x0a) - 11} follow .*\\. Once it is whole, unpack it`),
      ),
    );
    expect(r.stderr).not.toMatch(/safetensors —|not safetensors/);
    const e = cli('eval', ['--policy', cut, '--episodes', '1']);
    expect(e.status).toBe(2);
    expect(e.stderr.split('\n')[0]).toMatch(
      new RegExp(
        `^eval: --policy ${cut}: this is a run file .* and it is damaged: the file is truncated: .*start ` +
          `from one of its checkpoints with --policy DIR/ckpt-<k>\\.safetensors$`,
      ),
    );
  }, 120_000);
});
