/**
 * One of a run directory's own files (run.json, events.jsonl, val.json, a checkpoint) given where the run directory,
 * a run file (.opdrun) or a weights file is expected: every command names it as the run directory's file and says
 * what to pass instead (runDirFileMessage, cli/rundir.ts), instead of a format or parse error.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RunDirError, checkRunDir, runDirFileMessage } from '../../cli/rundir';
import { packDir, readPackFile, unpackToDir } from '../../cli/packfile';
import { notSafetensors } from '../../cli/weightsfile';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'opd-rundir-file-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A folder `runs/a` holding a run.json and an events.jsonl (their content is never read as a record here). */
const dir = path.join(tmp, 'runs', 'a');
fs.mkdirSync(dir, { recursive: true });
const runJson = path.join(dir, 'run.json');
fs.writeFileSync(runJson, '{"format": "opd-playground-run", "version": 1}\n');
fs.writeFileSync(path.join(dir, 'events.jsonl'), '{"event": "start"}\n');

/** The message of the RunDirError thrown by `f`. */
function runDirError(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    if (e instanceof RunDirError) return e.message;
    throw e;
  }
  throw new Error('no RunDirError');
}

function cli(script: string, args: string[]) {
  return spawnSync('node_modules/.bin/tsx', [`cli/${script}.ts`, ...args], { encoding: 'utf8', timeout: 100_000 });
}

describe('runDirFileMessage', () => {
  it("names each of a run directory's files by its name, with its folder to pass; null for other names", () => {
    expect(runDirFileMessage('runs/a/run.json', 'the run directory')).toBe(
      '"runs/a/run.json" is the run directory\'s run.json, not the run directory; pass its folder runs/a',
    );
    expect(runDirFileMessage('runs/a/events.jsonl', 'a run file (.opdrun)')).toBe(
      '"runs/a/events.jsonl" is the run directory\'s events.jsonl, not a run file (.opdrun); pass its folder runs/a',
    );
    expect(runDirFileMessage('val.json', 'the run directory')).toBe(
      '"val.json" is the run directory\'s val.json, not the run directory; pass its folder .',
    );
    expect(runDirFileMessage('r/ckpt-40.state', 'x', (d) => `use ${d}`)).toBe(
      '"r/ckpt-40.state" is the run directory\'s ckpt-40.state, not x; use r',
    );
    expect(runDirFileMessage('r/ckpt-40.safetensors', 'x')).toBe(
      '"r/ckpt-40.safetensors" is the run directory\'s ckpt-40.safetensors, not x; pass its folder r',
    );
    for (const other of ['r/run.json.bak', 'r/notes.json', 'r/ckpt-x.safetensors', 'r/a.opdrun'])
      expect(runDirFileMessage(other, 'x')).toBeNull();
  });

  it('checkRunDir, readPackFile, packDir and unpackToDir word it for what each expects', () => {
    expect(runDirError(() => checkRunDir(runJson))).toBe(
      `"${runJson}" is the run directory's run.json, not the run directory; pass its folder ${dir}`,
    );
    expect(runDirError(() => readPackFile(runJson))).toBe(
      `"${runJson}" is the run directory's run.json, not a run file (.opdrun); pass its folder ${dir}`,
    );
    expect(runDirError(() => packDir(runJson, path.join(tmp, 'x.opdrun')))).toBe(
      `"${runJson}" is the run directory's run.json, not the run directory; pass its folder ${dir}`,
    );
    expect(runDirError(() => unpackToDir(runJson, path.join(tmp, 'out')))).toBe(
      `"${runJson}" is the run directory's run.json, not a run file (.opdrun); its folder ${dir} is a run ` +
        `directory already: give it where a run directory is expected, or pack it with npx tsx cli/pack.ts ${dir} ` +
        `FILE.opdrun`,
    );
    expect(fs.existsSync(path.join(tmp, 'out'))).toBe(false);
    // Any other file that is no run file keeps the pack's own message.
    const other = path.join(tmp, 'notes.json');
    fs.writeFileSync(other, '{}\n');
    expect(runDirError(() => readPackFile(other))).toMatch(
      new RegExp(`^${other.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: .*not an OPD Playground run file`),
    );
  });

  it('a weights flag given run.json: its checkpoints to give (and, for train --init, --resume)', () => {
    const bytes = new Uint8Array(fs.readFileSync(runJson));
    expect(notSafetensors(runJson, bytes, '--policy')).toBe(
      `--policy: "${runJson}" is the run directory's run.json, not a weights file; give one of its ` +
        `checkpoints, --policy ${dir}/ckpt-<k>.safetensors`,
    );
    expect(notSafetensors(runJson, bytes, '--init', { resume: true })).toBe(
      `--init: "${runJson}" is the run directory's run.json, not a weights file; give one of its ` +
        `checkpoints, --init ${dir}/ckpt-<k>.safetensors (to continue that run, use --resume ${dir})`,
    );
  });
});

describe('the commands', () => {
  it('compare run.json and compare events.jsonl: exit 2, the folder to pass', () => {
    const r = cli('compare', [runJson]);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n')[0]).toBe(
      `compare: "${runJson}" is the run directory's run.json, not a run file (.opdrun); pass its folder ${dir}`,
    );
    const ev = path.join(dir, 'events.jsonl');
    expect(cli('compare', [ev]).stderr.split('\n')[0]).toBe(
      `compare: "${ev}" is the run directory's events.jsonl, not a run file (.opdrun); pass its folder ${dir}`,
    );
  }, 110_000);

  it(
    'train --resume run.json, train --from-run run.json and coverage --run run.json: exit 2, the folder ' + 'to pass',
    () => {
      const resume = cli('train', ['--resume', runJson]);
      expect(resume.status).toBe(2);
      expect(resume.stderr.split('\n')[0]).toBe(
        `train: --resume: "${runJson}" is the run directory's run.json, not the run directory; pass its folder ${dir}`,
      );
      const from = cli('train', ['--algo', 'agentic-opd', '--from-run', runJson]);
      expect(from.status).toBe(2);
      expect(from.stderr.split('\n')[0]).toBe(
        `train: --from-run: "${runJson}" is the run directory's run.json, not the run directory; pass its ` +
          `folder ${dir}`,
      );
      const cov = cli('coverage', ['--run', runJson]);
      expect(cov.status).toBe(2);
      expect(cov.stderr.split('\n')[0]).toBe(
        `coverage: "${runJson}" is the run directory's run.json, not the run directory; pass its folder ${dir}`,
      );
    },
    110_000,
  );
});
