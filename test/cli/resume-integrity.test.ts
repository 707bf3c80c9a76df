/**
 * train --resume checks that the run directory is the one the run wrote: run.json's config equal to the config of
 * events.jsonl's start line, and the latest checkpoint's two files equal to the sha256 its checkpoint line records.
 * Otherwise exit 2 naming the fields or the file and the fix, with nothing rewritten. A checkpoint line without
 * hashes (older records) resumes unchecked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'opd-integrity-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const RUN = path.join(tmp, 'run');
const COMMON = [
  '--env',
  'household',
  '--model',
  'nano',
  '--tasks',
  '2',
  '--group',
  '2',
  '--mini-batches',
  '1',
  '--seed',
  '3',
  '--backend',
  'wasm',
  '--eval-every',
  '0',
  '--checkpoint-every',
  '1',
  '--algo',
  'grpo',
  '--lr',
  '0.0001',
  '--json',
];

function cli(args: string[]) {
  return spawnSync('node_modules/.bin/tsx', ['cli/train.ts', ...args], { encoding: 'utf8', timeout: 300_000 });
}
const sha = (file: string) => crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
/** Every file of a directory with its bytes, to show that a refusal rewrote nothing. */
const snapshot = (dir: string) =>
  Object.fromEntries(
    fs
      .readdirSync(dir)
      .sort()
      .map((f) => [f, fs.readFileSync(path.join(dir, f)).toString('base64')]),
  );
/** A copy of the run to tamper with. */
function copy(name: string): string {
  const d = path.join(tmp, name);
  fs.cpSync(RUN, d, { recursive: true });
  return d;
}
function refused(dir: string, msg: RegExp) {
  const before = snapshot(dir);
  const r = cli(['--resume', dir, '--steps', '3']);
  expect(r.stderr).toMatch(msg);
  expect(r.status).toBe(2);
  expect(snapshot(dir)).toEqual(before);
}

describe('train --resume checks the run directory', () => {
  beforeAll(() => {
    const r = cli([...COMMON, '--steps', '2', '--run-dir', RUN]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  }, 300_000);

  it('records the sha256 of both files in each checkpoint line', () => {
    const lines = fs
      .readFileSync(path.join(RUN, 'events.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((e) => e.event === 'checkpoint');
    expect(lines).toEqual(
      [1, 2].map((k) => ({
        event: 'checkpoint',
        step: k,
        file: `ckpt-${k}.safetensors`,
        stateFile: `ckpt-${k}.state`,
        sha256: {
          weights: sha(path.join(RUN, `ckpt-${k}.safetensors`)),
          state: sha(path.join(RUN, `ckpt-${k}.state`)),
        },
      })),
    );
  });

  it('refuses a run.json whose config was edited, naming the fields (old → new) and the fix', () => {
    const d = copy('edited');
    const run = JSON.parse(fs.readFileSync(path.join(d, 'run.json'), 'utf8'));
    run.config.learningRate = 0.5;
    run.config.groupSize = 4;
    fs.writeFileSync(path.join(d, 'run.json'), JSON.stringify(run, null, 2) + '\n');
    refused(
      d,
      new RegExp(
        `--resume: ${d}/run.json's config differs from the config the run started with \\(the start line ` +
          `of ${d}/events.jsonl\\): ` +
          `groupSize 2 → 4, learningRate 0.0001 → 0.5; a resumed run keeps its config: restore run.json, ` +
          (`or, to change settings, start a new run from the checkpoint with --init ${d}/ckpt-2.safetensors ` +
            `and the new flags`),
      ),
    );
  }, 120_000);

  it('refuses a checkpoint whose weights or state bytes changed, naming the file', () => {
    const d = copy('zeroed');
    const w = path.join(d, 'ckpt-2.safetensors');
    const bytes = fs.readFileSync(w);
    bytes.fill(0, bytes.length - 100);
    fs.writeFileSync(w, bytes);
    refused(
      d,
      new RegExp(
        `--resume: ${w} differs from the checkpoint the run wrote \\(sha256 ${sha(w).slice(0, 12)}…, ` +
          `events.jsonl records ${sha(path.join(RUN, 'ckpt-2.safetensors')).slice(0, 12)}…: corrupt or ` +
          `replaced\\); remove this checkpoint's two files to resume from the one before`,
      ),
    );
    const e = copy('state');
    const s = path.join(e, 'ckpt-2.state');
    fs.copyFileSync(path.join(e, 'ckpt-1.state'), s);
    refused(e, new RegExp(`--resume: ${s} differs from the checkpoint the run wrote`));
  }, 120_000);

  it(
    "resumes from the checkpoint before once the bad checkpoint's files are removed, and a line without " +
      'hashes unchecked',
    () => {
      const d = copy('removed');
      const w = path.join(d, 'ckpt-2.safetensors');
      fs.rmSync(w);
      fs.rmSync(path.join(d, 'ckpt-2.state'));
      const r = cli(['--resume', d, '--steps', '2']);
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      // events.jsonl as written before checkpoint lines held hashes: the zeroed checkpoint is not checked.
      const old = copy('old');
      const ev = path.join(old, 'events.jsonl');
      fs.writeFileSync(
        ev,
        fs
          .readFileSync(ev, 'utf8')
          .split('\n')
          .map((l) => (l.includes('"checkpoint"') ? JSON.stringify({ ...JSON.parse(l), sha256: undefined }) : l))
          .join('\n'),
      );
      const ow = path.join(old, 'ckpt-2.safetensors');
      const ob = fs.readFileSync(ow);
      ob[ob.length - 1] ^= 1; // the last weight byte: the file still loads
      fs.writeFileSync(ow, ob);
      const o = cli(['--resume', old, '--steps', '3']);
      expect(o.stderr).toBe('');
      expect(o.status).toBe(0);
    },
    300_000,
  );
});
