/**
 * `train --force` on a run directory another train still writes (cli/runlock.ts): the forcing train takes the lock
 * with a warning saying what happens; the forced-out train checks the lock before each write of the run, stops at
 * its next one with a message naming the new holder (exit 1, nothing more written) and leaves the new holder's lock
 * in place at its exit; the forcing train writes the record to its end and removes its own lock.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LOCK_FILE, acquireRunLock, assertOwnLock } from '../../cli/runlock';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'opd-run-lock-force-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const SMALL = [
  ...['--env', 'household', '--model', 'nano', '--tasks', '4', '--group', '2', '--mini-batches', '1'],
  ...['--seed', '3', '--backend', 'wasm', '--eval-every', '0', '--algo', 'grpo', '--lr', '0.0001'],
  ...['--eval-threads', '0', '--json'],
];
const TSX = 'node_modules/.bin/tsx';

/** A train started in the background (through tsx, which runs it in a child process): its exit code and stderr. */
function start(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const p = spawn(TSX, ['cli/train.ts', ...args]);
  let stderr = '';
  p.stderr.on('data', (b) => (stderr += String(b)));
  p.stdout.resume();
  return new Promise((resolve) => p.on('exit', (code) => resolve({ code, stderr })));
}
const until = async (ok: () => boolean) => {
  while (!ok()) await new Promise((r) => setTimeout(r, 50));
};
const events = (dir: string) =>
  fs
    .readFileSync(path.join(dir, 'events.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { event: string; step?: number; config?: { steps: number } });
const holder = (dir: string) =>
  JSON.parse(fs.readFileSync(path.join(dir, LOCK_FILE), 'utf8')) as { pid: number; command: string };

describe('train --resume DIR --force while another train writes DIR', () => {
  it('the forced-out train stops at its next write; the lock stays the new holder’s until it ends', async () => {
    const dir = path.join(tmp, 'run');
    const a = start([...SMALL, '--steps', '60', '--checkpoint-every', '2', '--run-dir', dir]);
    await until(() => fs.existsSync(path.join(dir, 'ckpt-2.state')));
    const pidA = holder(dir).pid;
    const b = start(['--resume', dir, '--force', '--steps', '64']);
    const endA = await a;
    expect(endA.code).toBe(1);
    const hb = holder(dir); // A has ended; B's lock is still there
    expect(hb.pid).not.toBe(pidA);
    expect(hb.command).toBe(`npm run train -- --resume ${dir} --force --steps 64`);
    expect(endA.stderr).toMatch(
      new RegExp(
        `^train: ${dir.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} is no longer this train's to write: another ` +
          `train took the lock with --force: pid ${hb.pid} on host ${os.hostname()} since .*--resume .* --force` +
          `.*; this train \\(pid ${pidA}\\) stops here and writes nothing more: the run record is that train's ` +
          `from its resume on \\(see it with npm run compare -- .* once it ends\\)\n$`,
      ),
    );
    const endB = await b;
    expect(endB.code).toBe(0);
    expect(endB.stderr).toContain(`train: warning: --force breaks the lock of ${dir} held by pid ${pidA} on host`);
    expect(endB.stderr).toContain(
      'if that train still runs, it stops at its next write of the run (it checks the lock before each one) ' +
        'and this train writes the record',
    );
    expect(fs.existsSync(path.join(dir, LOCK_FILE))).toBe(false);
    // One history: A's steps up to the checkpoint B resumed from, then B's, each step once, B's done last.
    const ev = events(dir);
    const from = (
      JSON.parse(fs.readFileSync(path.join(dir, 'run.json'), 'utf8')) as { resumes: { fromStep: number }[] }
    ).resumes[0].fromStep;
    expect(from).toBeGreaterThanOrEqual(2);
    expect(ev.flatMap((e) => (e.event === 'step' ? [e.step] : []))).toEqual(
      Array.from({ length: 64 }, (_, i) => i + 1),
    );
    expect(ev.filter((e) => e.event === 'start').map((e) => e.config!.steps)).toEqual([60, 64]);
    expect(ev.at(-1)!.event).toBe('done');
    // The record resumes: every checkpoint's bytes are the ones its line records.
    const again = spawnSync(TSX, ['cli/train.ts', '--resume', dir, '--steps', '65', '--json'], { encoding: 'utf8' });
    expect(again.stderr).toBe('');
    expect(again.status).toBe(0);
  }, 300_000);
});

describe('assertOwnLock', () => {
  it('passes while this process holds the lock and names the new holder once another took it', () => {
    const dir = fs.mkdtempSync(path.join(tmp, 'own-'));
    assertOwnLock(dir); // no lock taken here: nothing to check
    const lock = acquireRunLock(dir, { force: false, command: 'test' });
    expect(lock.owned()).toBe(true);
    assertOwnLock(dir);
    const other = { pid: 1, host: 'box-2', since: '2026-01-01T00:00:00.000Z', command: 'npm run train -- x' };
    fs.writeFileSync(path.join(dir, LOCK_FILE), JSON.stringify(other));
    expect(lock.owned()).toBe(false);
    expect(() => assertOwnLock(dir)).toThrow(
      `${dir} is no longer this train's to write: another train took the lock with --force: pid 1 on host box-2 ` +
        `since 2026-01-01T00:00:00.000Z (npm run train -- x); this train (pid ${process.pid}) stops here`,
    );
    lock.release(); // not its lock any more: left in place
    expect(JSON.parse(fs.readFileSync(path.join(dir, LOCK_FILE), 'utf8'))).toEqual(other);
    fs.rmSync(path.join(dir, LOCK_FILE));
    expect(() => assertOwnLock(dir)).toThrow(
      `${dir} is no longer this train's to write: the lock ${path.join(dir, LOCK_FILE)} is gone (removed by hand, ` +
        `or by a train that broke it with --force and has ended); this train (pid ${process.pid}) stops here and ` +
        `writes nothing more; once no train writes ${dir}, continue it with npm run train -- --resume ${dir}`,
    );
  });
});
