/**
 * A broken run.json or events.jsonl given to a command that reads a run — compare, train --resume, train --from-run,
 * experiment (the results table) — is refused (exit 2) with a message naming the file, where it breaks (line and
 * column of run.json, the line of events.jsonl and the field) and what to do about it.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { handRunJson } from '../helpers/run-json';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'opd-run-file-errors-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const cli = (script: string, args: string[]) =>
  spawnSync('node_modules/.bin/tsx', [`cli/${script}.ts`, ...args], { encoding: 'utf8', timeout: 120_000 });

const RUN_FIX = "restore it from a copy (such as the run's .opdrun file) or train the run again";
const EVENTS_FIX = "repair or delete that line, or restore the file from a copy (such as the run's .opdrun file)";

/** A step line of events.jsonl. */
const step = (s: number) => JSON.stringify({ event: 'step', step: s, successRate: 0.5, rewardMean: 0, policyLoss: 0 });

/**
 * A hand-made run directory `dir` (run.json as train writes it, two steps) whose run.json has a stray comma after
 * `"seed": 1,`; returns where it is, as the message names it: `at line L, column C (unexpected ",")`.
 */
function brokenRunJson(dir: string): string {
  fs.mkdirSync(dir, { recursive: true });
  const lines = JSON.stringify(handRunJson({ steps: 2, seed: 1 }), null, 2).split('\n');
  const at = lines.findIndex((l) => l.trim() === '"seed": 1,');
  lines[at] += ',';
  fs.writeFileSync(path.join(dir, 'run.json'), lines.join('\n') + '\n');
  fs.writeFileSync(path.join(dir, 'events.jsonl'), step(1) + '\n');
  return `at line ${at + 1}, column ${lines[at].length} (unexpected ",")`;
}

describe('a broken run file names the file, where it breaks and the fix', () => {
  it('compare: a run.json that is not JSON, and an events.jsonl line with a bad field', () => {
    const dir = path.join(tmp, 'compare-run');
    const at = brokenRunJson(dir);
    const r = cli('compare', [dir]);
    expect(r.status).toBe(2);
    expect(at).toMatch(/^at line 1\d, column 1\d /); // the stray comma, past the record's first fields
    expect(r.stderr.split('\n')[0]).toBe(`compare: ${dir}: run.json: not valid JSON ${at}; ${RUN_FIX}`);

    const ev = path.join(tmp, 'compare-events');
    fs.mkdirSync(ev);
    fs.writeFileSync(path.join(ev, 'run.json'), JSON.stringify(handRunJson({ steps: 2 })) + '\n');
    fs.writeFileSync(path.join(ev, 'events.jsonl'), `${step(1)}\n${step(2).replace('"step":2', '"step":"two"')}\n`);
    const e = cli('compare', [ev]);
    expect(e.status).toBe(2);
    expect(e.stderr.split('\n')[0]).toBe(
      `compare: ${ev}: events.jsonl line 2 (step event): step: Invalid input: expected number, received string; ` +
        EVENTS_FIX,
    );
  }, 120_000);

  it('train --resume: an events.jsonl line cut short', () => {
    const dir = path.join(tmp, 'resume');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'run.json'), JSON.stringify(handRunJson({ steps: 4 }), null, 2) + '\n');
    fs.writeFileSync(path.join(dir, 'events.jsonl'), `${step(1)}\n${step(2).slice(0, 20)}\n${step(3)}\n`);
    const snapshot = fs.readFileSync(path.join(dir, 'events.jsonl'));
    const r = cli('train', ['--resume', dir]);
    expect(r.status).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(
      `train: --resume: ${dir}: events.jsonl line 2: not valid JSON (a cut or corrupt line); ${EVENTS_FIX}`,
    );
    expect(fs.readFileSync(path.join(dir, 'events.jsonl')).equals(snapshot)).toBe(true); // nothing written
  }, 120_000);

  it('train --from-run: a run.json that is not JSON', () => {
    const dir = path.join(tmp, 'from-run');
    const at = brokenRunJson(dir);
    const r = cli('train', ['--algo', 'agentic-opd', '--from-run', dir, '--steps', '1']);
    expect(r.status).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(`train: --from-run: ${dir}: run.json: not valid JSON ${at}; ${RUN_FIX}`);
  }, 120_000);

  it('experiment: a run folder of the table whose run.json is not JSON', () => {
    const out = path.join(tmp, 'table');
    const dir = path.join(out, 'runs', 'grpo-1');
    const at = brokenRunJson(dir);
    const r = cli('experiment', ['opid-table', '--preset', 'easy', '--seeds', '1', '--steps', '2', '--out', out]);
    expect(r.status).toBe(2);
    const fix =
      "restore the file, or move the run's folder away (it is trained again from step 0) or use another --out";
    expect(r.stderr.split('\n')[0]).toBe(`experiment: ${path.join(dir, 'run.json')}: not valid JSON ${at}; ${fix}`);
  }, 120_000);
});
