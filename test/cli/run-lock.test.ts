/**
 * One writer per run directory (cli/runlock.ts): a second `train` on a directory another one writes exits 2 naming
 * the holder while the first finishes with all its steps and its done line; a lock left by a dead process on this
 * host is taken over with a note (and the temporary files of its interrupted writes removed); one of another host
 * is refused naming the host; `--force` breaks a live one with a warning; a folder stopped before its first
 * checkpoint is named as such with the command that starts it again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LOCK_FILE } from '../../cli/runlock';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'opd-run-lock-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const SMALL = [
  ...['--env', 'household', '--model', 'nano', '--tasks', '4', '--group', '2', '--mini-batches', '1'],
  ...['--seed', '3', '--backend', 'wasm', '--eval-every', '0', '--algo', 'grpo', '--lr', '0.0001'],
  ...['--eval-threads', '0', '--json'],
];
const TSX = 'node_modules/.bin/tsx';

function cli(args: string[]) {
  return spawnSync(TSX, ['cli/train.ts', ...args], { encoding: 'utf8', timeout: 300_000 });
}
const lines = (dir: string) =>
  fs
    .readFileSync(path.join(dir, 'events.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { event: string; step?: number });
const stepsOf = (dir: string) => lines(dir).flatMap((e) => (e.event === 'step' ? [e.step] : []));
/** The pid of a process that has ended. */
const deadPid = () => spawnSync(process.execPath, ['-e', '']).pid!;
function writeLock(dir: string, holder: object): void {
  fs.writeFileSync(path.join(dir, LOCK_FILE), JSON.stringify(holder));
}
/** A finished 2-step run with checkpoints at steps 1 and 2, copied for each test. */
const BASE = path.join(tmp, 'base');
function copy(name: string): string {
  const d = path.join(tmp, name);
  fs.cpSync(BASE, d, { recursive: true });
  return d;
}

describe('train holds a lock on its run directory', () => {
  beforeAll(() => {
    const r = cli([...SMALL, '--steps', '2', '--checkpoint-every', '1', '--run-dir', BASE]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(fs.existsSync(path.join(BASE, LOCK_FILE))).toBe(false);
  }, 300_000);

  it('refuses a second writer (exit 2, naming the holder); the first keeps every step and its done line', async () => {
    const dir = path.join(tmp, 'two');
    const first = spawn(TSX, ['cli/train.ts', ...SMALL, '--steps', '6', '--checkpoint-every', '2', '--run-dir', dir]);
    let err1 = '';
    first.stderr.on('data', (b) => (err1 += String(b)));
    const exited = new Promise<number | null>((resolve) => first.on('exit', (code) => resolve(code)));
    const lock = path.join(dir, LOCK_FILE);
    while (!fs.existsSync(lock) || !fs.existsSync(path.join(dir, 'run.json')))
      await new Promise((r) => setTimeout(r, 50));
    const holder = JSON.parse(fs.readFileSync(lock, 'utf8')) as { pid: number; host: string };
    expect(holder.host).toBe(os.hostname());
    // the holder is paused while the other writers try, so a loaded machine cannot let it finish first
    process.kill(holder.pid, 'SIGSTOP');
    try {
      const second = cli(['--resume', dir, '--steps', '4']);
      expect(second.status).toBe(2);
      expect(second.stderr).toContain(`${dir} is being written by another train: pid ${holder.pid} on host`);
      expect(second.stderr).toMatch(/since \d{4}-\d\d-\d\dT/);
      expect(second.stderr).toMatch(/one writer at a time: wait for it to end/);
      // --run-dir on the same folder names the holder too (not just "not empty")
      const third = cli([...SMALL, '--steps', '2', '--run-dir', dir]);
      expect(third.status).toBe(2);
      expect(third.stderr).toContain(`--run-dir: ${dir} is being written by another train: pid ${holder.pid}`);
    } finally {
      process.kill(holder.pid, 'SIGCONT');
    }
    expect(await exited).toBe(0);
    expect(err1).toBe('');
    expect(stepsOf(dir)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(lines(dir).at(-1)!.event).toBe('done');
    expect(fs.existsSync(lock)).toBe(false);
  }, 300_000);

  it("takes over a stale lock (this host, the pid gone) with a note and removes its writes' temporary files", () => {
    const dir = copy('stale');
    const pid = deadPid();
    writeLock(dir, { pid, host: os.hostname(), since: '2026-01-01T00:00:00.000Z', command: 'npm run train' });
    fs.writeFileSync(path.join(dir, `ckpt-3.state.tmp-${pid}`), 'half');
    const r = cli(['--resume', dir, '--steps', '3']);
    expect(r.status).toBe(0);
    expect(r.stderr).toContain(`train: note: ${dir} was locked by pid ${pid} on host ${os.hostname()}`);
    expect(r.stderr).toMatch(/which no longer runs \(a crash or kill\); the lock is taken over/);
    expect(r.stderr).toContain(`removed temporary files of an interrupted write in ${dir}: ckpt-3.state.tmp-${pid}`);
    expect(fs.existsSync(path.join(dir, `ckpt-3.state.tmp-${pid}`))).toBe(false);
    expect(fs.existsSync(path.join(dir, LOCK_FILE))).toBe(false);
    expect(stepsOf(dir)).toEqual([1, 2, 3]);
  }, 300_000);

  it('refuses a lock of another host naming it; --force breaks it with a warning', () => {
    const dir = copy('other-host');
    writeLock(dir, { pid: 1, host: 'build-box-7', since: '2026-01-01T00:00:00.000Z', command: 'npm run train' });
    const r = cli(['--resume', dir, '--steps', '3']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`${dir} is locked by train pid 1 on host build-box-7 since 2026-01-01T00:00:00.000Z`);
    expect(r.stderr).toMatch(/another host, whose process this host cannot check; if that run has ended, pass --force/);
    const forced = cli(['--resume', dir, '--steps', '3', '--force']);
    expect(forced.status).toBe(0);
    expect(forced.stderr).toContain(
      `train: warning: --force breaks the lock of ${dir} held by pid 1 on host build-box-7`,
    );
    expect(stepsOf(dir)).toEqual([1, 2, 3]);
  }, 300_000);

  it('--force breaks a live lock of this host with a warning', () => {
    const dir = copy('live');
    // This test's own process: alive on this host.
    writeLock(dir, { pid: process.pid, host: os.hostname(), since: '2026-01-01T00:00:00.000Z', command: 'x' });
    const r = cli(['--resume', dir, '--steps', '3']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`is being written by another train: pid ${process.pid}`);
    const forced = cli(['--resume', dir, '--steps', '3', '--force']);
    expect(forced.status).toBe(0);
    expect(forced.stderr).toMatch(
      /warning: --force breaks the lock .* if that train still runs, it stops at its next write/,
    );
    expect(fs.existsSync(path.join(dir, LOCK_FILE))).toBe(false);
  }, 300_000);

  it('names a folder stopped before its first checkpoint, with the command to start it again', () => {
    const dir = copy('no-ckpt');
    for (const f of fs.readdirSync(dir)) if (f.startsWith('ckpt-')) fs.rmSync(path.join(dir, f));
    const r = cli(['--resume', dir, '--steps', '3']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`--resume: ${dir} was stopped before its first checkpoint (it holds 2 step events`);
    expect(r.stderr).toContain(`the first is written at step 1): there is nothing to continue. Start it again: rm -r`);
    expect(r.stderr).toContain(`--run-dir ${BASE}`); // the recorded command
    expect(fs.existsSync(path.join(dir, LOCK_FILE))).toBe(false);
  }, 300_000);
});
