/**
 * Writes of a run directory that fail: a short append to events.jsonl (a full disk) throws an Error naming the file
 * and leaves no cut line; a system error of a write (ENOSPC, EROFS, EACCES, ENOENT …) becomes a message naming the
 * file, what was kept and what to do; an atomic write that fails leaves no temporary file.
 */
import { afterAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EventLog, writeFailureMessage } from '../../cli/rundir';
import { RunRecorder } from '../../cli/train-rundir';
import { writeAtomic } from '../../cli/files';
import { DEFAULT_CONFIG } from '../../src/core/run/config';
import type { TrainEvent } from '../../src/core/train/events';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'opd-write-errors-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const errno = (code: string) => Object.assign(new Error(`${code}: failed`), { code });

describe('EventLog.append checks the bytes written', () => {
  it('a short write throws naming the file and cuts the partial line away', () => {
    const dir = fs.mkdtempSync(path.join(tmp, 'short-'));
    new EventLog(dir).append({ event: 'step', step: 1 });
    const before = fs.readFileSync(path.join(dir, 'events.jsonl'), 'utf8');
    // A writer that writes 5 bytes of the line and reports them, as write(2) does on a full disk.
    const log = new EventLog(dir, (fd, b) => fs.writeSync(fd, b.subarray(0, 5)));
    expect(() => log.append({ event: 'step', step: 2 })).toThrow(
      `${path.join(dir, 'events.jsonl')}: only 5 of the line's 26 bytes were written (the disk is full?)`,
    );
    expect(fs.readFileSync(path.join(dir, 'events.jsonl'), 'utf8')).toBe(before);
    log.close();
  });

  it('a whole write appends the line', () => {
    const dir = fs.mkdtempSync(path.join(tmp, 'whole-'));
    const log = new EventLog(dir, (fd, b) => fs.writeSync(fd, b));
    log.append({ event: 'step', step: 1 });
    log.close();
    expect(fs.readFileSync(path.join(dir, 'events.jsonl'), 'utf8')).toBe('{"event":"step","step":1}\n');
  });
});

describe('writeFailureMessage', () => {
  it('names the file, the error in words, the checkpoint kept and the resume command', () => {
    expect(writeFailureMessage('runs/a', 'runs/a/events.jsonl', errno('ENOSPC'), 4, 'npm run train -- x')).toBe(
      'cannot write runs/a/events.jsonl: the disk is full (ENOSPC); the run is kept up to its checkpoint of step ' +
        '4 (ckpt-4.safetensors, ckpt-4.state); free space on the disk, then continue it with npm run train -- ' +
        '--resume runs/a (the steps after it are redone)',
    );
  });

  it('without a checkpoint: nothing to continue, and the command that starts it again', () => {
    const m = writeFailureMessage('runs/a', 'runs/a/run.json', errno('EROFS'), null, 'npm run train -- --run-dir a');
    expect(m).toBe(
      'cannot write runs/a/run.json: the file system is read-only (EROFS); the run had no checkpoint yet, so ' +
        'there is nothing to continue; make it writable (or copy the run folder to a writable disk), then start ' +
        'it again: rm -r runs/a && npm run train -- --run-dir a',
    );
    expect(writeFailureMessage('a', 'a/x', errno('EACCES'), 2, 'c')).toMatch(/permission denied \(EACCES\)/);
    expect(writeFailureMessage('a', 'a/x', new Error('not a system error'), 2, 'c')).toBeNull();
  });
});

describe('RunRecorder turns a failed write into that message', () => {
  it('a run folder removed under the run: ENOENT naming run.json', () => {
    const dir = fs.mkdtempSync(path.join(tmp, 'gone-'));
    const rec = new RunRecorder(dir, DEFAULT_CONFIG, 'npm run train -- --run-dir D', 'cpu', null, null);
    fs.rmSync(dir, { recursive: true });
    const start = {
      event: 'start',
      config: DEFAULT_CONFIG,
      backend: 'cpu',
      params: 1,
      vocabSize: 1,
      envVersions: {},
    } as TrainEvent;
    expect(() => rec.take(start)).toThrow(
      `cannot write ${path.join(dir, 'run.json')}: the file or its folder is gone (removed, or the disk ` +
        `unmounted?) (ENOENT); the run had no checkpoint yet, so there is nothing to continue; restore the run ` +
        `folder, then start it again: rm -r ${dir} && npm run train -- --run-dir D`,
    );
  });
});

describe('writeAtomic', () => {
  it('removes its temporary file when the write fails', () => {
    const dir = fs.mkdtempSync(path.join(tmp, 'atomic-'));
    const target = path.join(dir, 'run.json');
    fs.mkdirSync(target); // a folder in the way: the rename fails
    fs.writeFileSync(path.join(target, 'x'), 'x');
    expect(() => writeAtomic(target, 'data')).toThrow();
    expect(fs.readdirSync(dir)).toEqual(['run.json']);
  });
});
