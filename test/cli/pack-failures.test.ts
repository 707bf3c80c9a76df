/**
 * cli/pack.ts when something is wrong: every failure is one message naming the file, what was kept and what to do —
 * no stack trace, no raw system error — with exit 2 for bad input (a missing input, a folder that is not a run, a
 * truncated or corrupt run file, a missing output folder, an existing output file, a folder as output) and exit 1
 * for a write the system refuses; nothing is left behind, and the temporary files of a killed pack or unpack are
 * removed by the next one (cli/files.ts `removeStaleTemporaries`, also run by every `writeAtomic`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { encodeTensors } from '../../src/core/model/io';
import { checkpointLine } from '../../src/core/run/resume-checks';
import { sha256 } from '../../cli/from-run';
import { packFailureMessage } from '../../cli/packfile';
import { removeStaleTemporaries, writeAtomic } from '../../cli/files';
import { handRunJson } from '../helpers/run-json';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'opd-pack-failures-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const USAGE = 'usage: npx tsx cli/pack.ts DIR FILE.opdrun [--force]   |   npx tsx cli/pack.ts --unpack FILE.opdrun DIR';

function pack(args: string[]) {
  return spawnSync('node_modules/.bin/tsx', ['cli/pack.ts', ...args], { encoding: 'utf8', timeout: 120_000 });
}
/** The pid of a process that has ended. */
const deadPid = () => spawnSync(process.execPath, ['-e', '']).pid!;
const errno = (code: string, p: string) => Object.assign(new Error(`${code}: failed, open '${p}'`), { code, path: p });

/** A hand-made run directory: 2 of 4 steps, a checkpoint at step 2 whose events.jsonl line holds its sha256. */
function runDir(dir: string): void {
  fs.mkdirSync(dir);
  const run = handRunJson({ steps: 4, seed: 3 });
  fs.writeFileSync(path.join(dir, 'run.json'), JSON.stringify(run, null, 2) + '\n');
  const weights = encodeTensors([{ name: 'w', shape: [4], data: Float32Array.of(1, 2, 3, 4) }], {
    format: 'opd-playground',
    modelSize: 'nano',
  });
  const state = Uint8Array.of(1, 2, 3, 4, 5, 6, 7, 8);
  fs.writeFileSync(path.join(dir, 'ckpt-2.safetensors'), weights);
  fs.writeFileSync(path.join(dir, 'ckpt-2.state'), state);
  const events = [
    { event: 'step', step: 1, successRate: 0.25, rewardMean: 0, policyLoss: 0 },
    { event: 'step', step: 2, successRate: 0.5, rewardMean: 0, policyLoss: 0 },
    checkpointLine(2, { weights: sha256(weights), state: sha256(state) }),
  ];
  fs.writeFileSync(path.join(dir, 'events.jsonl'), events.map((e) => JSON.stringify(e) + '\n').join(''));
}

const run = path.join(tmp, 'grpo-3'),
  good = path.join(tmp, 'grpo-3.opdrun');
beforeAll(() => {
  runDir(run);
  expect(pack([run, good]).status).toBe(0);
}, 120_000);

/** The failure's stderr: one message line (no stack trace) and, for bad input, the usage. */
function expectMessage(r: ReturnType<typeof pack>, status: number, message: string): void {
  expect(r.status).toBe(status);
  expect(r.stdout).toBe('');
  expect(r.stderr).toBe(`pack: ${message}\n` + (status === 2 ? `${USAGE}\n` : ''));
}

describe('pack DIR FILE.opdrun: bad input exits 2 naming the file, what was kept and what to do', () => {
  it('a missing run directory, a folder that is not a run, a folder as output', () => {
    const nope = path.join(tmp, 'nope');
    expectMessage(
      pack([nope, path.join(tmp, 'x.opdrun')]),
      2,
      `no run directory at "${nope}": give a folder written by npm run train -- --run-dir DIR; nothing was written`,
    );
    const notes = path.join(tmp, 'notes');
    fs.mkdirSync(notes);
    fs.writeFileSync(path.join(notes, 'a.txt'), 'x');
    expectMessage(
      pack([notes, path.join(tmp, 'x.opdrun')]),
      2,
      `"${notes}" is not a run directory (it holds no run.json): give a folder written by npm run train -- ` +
        `--run-dir DIR; nothing was written`,
    );
    expectMessage(
      pack([run, notes]),
      2,
      `"${notes}" is a folder; give a file path inside it, e.g. ${path.join(notes, 'run.opdrun')}; nothing was ` +
        `written`,
    );
    expect(fs.existsSync(path.join(tmp, 'x.opdrun'))).toBe(false);
  }, 120_000);

  it('an output folder that does not exist; an output file that exists is kept unless --force', () => {
    const missing = path.join(tmp, 'missing', 'x.opdrun');
    expectMessage(
      pack([run, missing]),
      2,
      `the folder ${path.dirname(missing)} of "${missing}" does not exist; create it first (mkdir -p ` +
        `${path.dirname(missing)}), or give a path in an existing folder; nothing was written`,
    );
    expect(fs.existsSync(path.dirname(missing))).toBe(false);
    const before = fs.readFileSync(good);
    const other = path.join(tmp, 'other.opdrun');
    fs.writeFileSync(other, 'keep me');
    expectMessage(
      pack([run, other]),
      2,
      `"${other}" exists (7 bytes); it is left as it is: give another path, or pass --force to replace it; ` +
        `nothing was written`,
    );
    expect(fs.readFileSync(other, 'utf8')).toBe('keep me');
    const forced = pack([run, other, '--force']);
    expect(forced.status).toBe(0);
    expect(forced.stdout).toBe(`packed ${run} into ${other} (${before.length} bytes)\n`);
    expect(fs.readFileSync(other).equals(before)).toBe(true);
  }, 120_000);

  it('a write the system refuses: exit 1 naming the file and the cause, no temporary file left', () => {
    const long = path.join(tmp, `${'a'.repeat(248)}.opdrun`); // its temporary name is over 255 bytes
    expectMessage(
      pack([run, long]),
      1,
      `cannot write ${long}: the file name is too long for the file system (ENAMETOOLONG); nothing was written ` +
        `(${long} is as it was; the run directory ${run} is unchanged); give a shorter file name`,
    );
    expect(fs.readdirSync(tmp).filter((f) => f.startsWith('aaaa'))).toEqual([]);
  }, 120_000);
});

describe('pack --unpack FILE.opdrun DIR: bad input exits 2, nothing unpacked', () => {
  it('a missing run file, a folder given as the run file', () => {
    const nope = path.join(tmp, 'nope.opdrun'),
      out = path.join(tmp, 'u1');
    expectMessage(
      pack(['--unpack', nope, out]),
      2,
      `no run file at "${nope}": give the path of a .opdrun file (the Runs view's Export, or npx tsx cli/pack.ts ` +
        `DIR FILE.opdrun); nothing was unpacked`,
    );
    expectMessage(
      pack(['--unpack', run, out]),
      2,
      `"${run}" is a run directory, not a run file (.opdrun): give it where a run directory is expected, or ` +
        `pack it with npx tsx cli/pack.ts ${run} FILE.opdrun; nothing was unpacked`,
    );
    expect(fs.existsSync(out)).toBe(false);
  }, 120_000);

  it('a truncated run file, and one whose checkpoint bytes are damaged (sizes whole, sha256 not)', () => {
    const bytes = fs.readFileSync(good);
    const cut = path.join(tmp, 'cut.opdrun'),
      bad = path.join(tmp, 'bad.opdrun'),
      out = path.join(tmp, 'u2');
    fs.writeFileSync(cut, bytes.subarray(0, bytes.length - 10));
    const r = pack(['--unpack', cut, out]);
    expect(r.status).toBe(2);
    expect(r.stderr.split('\n')[0]).toMatch(
      new RegExp(
        `^pack: ${cut.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: the file is truncated: its header lists \\d+ ` +
          `bytes of files but \\d+ follow \\(an interrupted download or copy\\?\\); export the run again; nothing ` +
          `was unpacked$`,
      ),
    );
    const damaged = Buffer.from(bytes);
    damaged[damaged.length - 1] ^= 0xff; // the last byte: ckpt-2.state's
    fs.writeFileSync(bad, damaged);
    const b = pack(['--unpack', bad, out]);
    expect(b.status).toBe(2);
    const recorded = sha256(Uint8Array.of(1, 2, 3, 4, 5, 6, 7, 8)),
      actual = sha256(Uint8Array.of(1, 2, 3, 4, 5, 6, 7, 8 ^ 0xff));
    expect(b.stderr.split('\n')[0]).toBe(
      `pack: ${bad}: its ckpt-2.state differs from the checkpoint the run wrote (sha256 ${actual.slice(0, 12)}…, ` +
        `its events.jsonl records ${recorded.slice(0, 12)}…): the file is corrupt; export or pack the run again; ` +
        `nothing was unpacked`,
    );
    expect(fs.existsSync(out)).toBe(false);
  }, 120_000);

  it('a target that cannot be written leaves no folder behind, not even the parent it made', () => {
    const out = path.join(tmp, 'made-parent', 'b'.repeat(250));
    const r = pack(['--unpack', good, out]);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      `pack: cannot write ${out}: the file name is too long for the file system (ENAMETOOLONG); nothing was ` +
        `unpacked (${out} is as it was; ${good} is unchanged); give a shorter file name\n`,
    );
    expect(fs.existsSync(path.join(tmp, 'made-parent'))).toBe(false);
  }, 120_000);
});

describe('temporary files of an interrupted pack or unpack', () => {
  it('the next pack or unpack of the same path removes those of a killed process, with a note', () => {
    const dead = deadPid();
    const out = path.join(tmp, 'again.opdrun'),
      dir = path.join(tmp, 'again');
    fs.writeFileSync(`${out}.tmp-${dead}`, 'half a pack');
    fs.mkdirSync(`${dir}.tmp-${dead}`);
    fs.writeFileSync(path.join(`${dir}.tmp-${dead}`, 'run.json'), '{');
    const p = pack([run, out]);
    expect(p.status).toBe(0);
    expect(p.stderr).toBe(`pack: note: removed ${out}.tmp-${dead}, left by an interrupted pack or unpack\n`);
    const u = pack(['--unpack', out, dir]);
    expect(u.status).toBe(0);
    expect(u.stderr).toBe(`pack: note: removed ${dir}.tmp-${dead}, left by an interrupted pack or unpack\n`);
    expect(u.stdout).toBe(`unpacked 4 files into ${dir}\n`);
    expect(fs.readdirSync(tmp).filter((f) => f.includes('.tmp-'))).toEqual([]);
    expect(fs.readdirSync(dir).sort()).toEqual(['ckpt-2.safetensors', 'ckpt-2.state', 'events.jsonl', 'run.json']);
  }, 120_000);

  it('writeAtomic removes a dead writer’s temporary file of its target and keeps a live one’s and others', () => {
    const d = fs.mkdtempSync(path.join(tmp, 'atomic-'));
    const target = path.join(d, 'run.json');
    const dead = deadPid();
    fs.writeFileSync(`${target}.tmp-${dead}`, 'x');
    fs.writeFileSync(`${target}.tmp-${process.ppid}`, 'a live writer'); // the process that runs this test: alive
    fs.writeFileSync(path.join(d, `val.json.tmp-${dead}`), 'another file');
    writeAtomic(target, 'data');
    expect(fs.readdirSync(d).sort()).toEqual(['run.json', `run.json.tmp-${process.ppid}`, `val.json.tmp-${dead}`]);
    expect(removeStaleTemporaries(path.join(d, 'val.json'))).toEqual([path.join(d, `val.json.tmp-${dead}`)]);
  });
});

describe('packFailureMessage', () => {
  it('a refused write: the file without its temporary suffix, the cause, what was kept and what to do', () => {
    expect(
      packFailureMessage(errno('EROFS', `/mnt/ro/a.opdrun.tmp-${123}`), 'pack', 'runs/a', '/mnt/ro/a.opdrun'),
    ).toBe(
      'cannot write /mnt/ro/a.opdrun: the file system is read-only (EROFS); nothing was written (/mnt/ro/a.opdrun ' +
        'is as it was; the run directory runs/a is unchanged); give a path on a writable disk',
    );
    expect(packFailureMessage(errno('EACCES', '/srv/out.opdrun.tmp-9'), 'pack', 'runs/a', '/srv/out.opdrun')).toBe(
      'cannot write /srv/out.opdrun: permission denied (EACCES); nothing was written (/srv/out.opdrun is as it ' +
        'was; the run directory runs/a is unchanged); give a path in a folder you can write, or make /srv writable',
    );
    expect(packFailureMessage(errno('ENOSPC', '/d/u.tmp-77/ckpt-2.state'), 'unpack', 'a.opdrun', '/d/u')).toBe(
      'cannot write /d/u/ckpt-2.state: the disk is full (ENOSPC); nothing was unpacked (/d/u is as it was; ' +
        'a.opdrun is unchanged); free space on the disk of /d, or give a path on another disk',
    );
  });

  it('a refused read names the input; an error that is no system error gives null', () => {
    expect(packFailureMessage(errno('EACCES', 'runs/a/ckpt-2.state'), 'pack', 'runs/a', 'a.opdrun')).toBe(
      'cannot read runs/a/ckpt-2.state: permission denied (EACCES); nothing was written (a.opdrun is as it was; ' +
        'the run directory runs/a is unchanged); make runs/a/ckpt-2.state readable',
    );
    expect(packFailureMessage(new Error('boom'), 'pack', 'a', 'b')).toBeNull();
  });
});
