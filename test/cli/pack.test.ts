/**
 * cli/pack.ts and compare on a packed run: a run directory packed into one .opdrun file and unpacked again gives the
 * same files; `compare` reads the file as it reads the directory; a damaged file exits 2 naming the problem.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { encodeTensors } from '../../src/core/model/io';
import { handRunJson } from '../helpers/run-json';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'opd-pack-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function cli(script: string, args: string[]) {
  return spawnSync('node_modules/.bin/tsx', [`cli/${script}.ts`, ...args], { encoding: 'utf8', timeout: 120_000 });
}

/** A hand-made run directory: 2 of 4 steps, one evaluation, a checkpoint at step 2. */
function runDir(dir: string): void {
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'run.json'), JSON.stringify(handRunJson({ steps: 4, seed: 3 }), null, 2) + '\n');
  const split = (r: number) => ({ successRate: r, episodes: 4, byTaskType: {} });
  fs.writeFileSync(
    path.join(dir, 'events.jsonl'),
    [
      { event: 'step', step: 1, successRate: 0.25, rewardMean: 0, policyLoss: 0 },
      { event: 'step', step: 2, successRate: 0.5, rewardMean: 0, policyLoss: 0 },
      { event: 'eval', step: 2, splits: { 'test-seen': split(0.75), 'test-unseen': split(0.5) } },
      { event: 'checkpoint', step: 2, file: 'ckpt-2.safetensors', stateFile: 'ckpt-2.state' },
    ]
      .map((e) => JSON.stringify(e) + '\n')
      .join(''),
  );
  fs.writeFileSync(
    path.join(dir, 'ckpt-2.safetensors'),
    encodeTensors([{ name: 'w', shape: [1], data: Float32Array.of(1) }], {
      format: 'opd-playground',
      modelSize: 'nano',
    }),
  );
  fs.writeFileSync(path.join(dir, 'ckpt-2.state'), Uint8Array.of(1, 2, 3));
  fs.writeFileSync(path.join(dir, 'notes.txt'), 'not part of the record');
}

describe('cli/pack.ts and compare FILE.opdrun', () => {
  const dir = path.join(tmp, 'grpo-3'),
    file = path.join(tmp, 'grpo-3.opdrun'),
    back = path.join(tmp, 'back');
  it('packs, unpacks to the same files, and compare reads the file like the folder', () => {
    runDir(dir);
    const p = cli('pack', [dir, file]);
    expect(p.stderr).toBe('');
    expect(p.stdout).toBe(`packed ${dir} into ${file} (${fs.statSync(file).size} bytes)\n`);
    const u = cli('pack', ['--unpack', file, back]);
    expect(u.status).toBe(0);
    expect(fs.readdirSync(back).sort()).toEqual(['ckpt-2.safetensors', 'ckpt-2.state', 'events.jsonl', 'run.json']);
    for (const f of fs.readdirSync(back))
      expect(fs.readFileSync(path.join(back, f)).equals(fs.readFileSync(path.join(dir, f)))).toBe(true);
    const a = JSON.parse(cli('compare', [dir, '--json']).stdout),
      b = JSON.parse(cli('compare', [file, '--json']).stdout);
    expect(b).toEqual(a);
    expect(b.runs[0]).toMatchObject({
      name: 'grpo-3',
      seed: 3,
      stepsDone: 2,
      stepsPlanned: 4,
      finalEval: { 'test-seen': 0.75, 'test-unseen': 0.5 },
      checkpoints: 1,
    });
  }, 120_000);
  it('refuses a damaged file and a non-empty target folder (exit 2, nothing written)', () => {
    const cut = path.join(tmp, 'cut.opdrun');
    const bytes = fs.readFileSync(file);
    fs.writeFileSync(cut, bytes.subarray(0, bytes.length - 2));
    const c = cli('compare', [cut]);
    expect(c.status).toBe(2);
    expect(c.stderr).toMatch(/cut.opdrun: the file is truncated: its header lists \d+ bytes of files but \d+ follow/);
    const u = cli('pack', ['--unpack', file, dir]);
    expect(u.status).toBe(2);
    expect(u.stderr).toMatch(/is not a new or empty folder/);
  }, 120_000);
});
