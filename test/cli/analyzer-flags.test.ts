/**
 * The http analyzer's own flags (--analyzer-url, --analyzer-model, --analyzer-timeout-ms) with an analyzer that does
 * not read them (heuristic, the default, or oracle) are refused as a flag of another algorithm is: exit 2, one line
 * per flag naming it, the analyzer and the fix (`analyzerFlagIssues`, cli/train-flags.ts), on a new run and on
 * --resume. The start line names the analyzer of an algorithm that uses one (`analyzerWords`, cli/train-print.ts).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { analyzerFlagIssues } from '../../cli/train-flags';
import { analyzerWords, skillVariantWords, startLine, startOrigin } from '../../cli/train-print';
import { DEFAULT_CONFIG } from '../../src/core/run/config';
import type { StartEvent } from '../../src/core/train/events';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'opd-analyzer-flags-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const SMALL = [
  ...['--model', 'nano', '--tasks', '2', '--group', '2', '--mini-batches', '1', '--seed', '3', '--backend', 'wasm'],
  ...['--eval-every', '0', '--eval-threads', '0', '--steps', '1'],
];
function train(args: string[]) {
  return spawnSync('node_modules/.bin/tsx', ['cli/train.ts', ...args], { encoding: 'utf8', timeout: 300_000 });
}

describe('analyzerFlagIssues', () => {
  it('names each http-only flag, the analyzer (as given, the default or the run’s) and the fix', () => {
    expect(
      analyzerFlagIssues(['--analyzer', 'heuristic', '--analyzer-url', 'http://h:1'], {
        algo: 'opid',
        analyzer: 'heuristic',
      }),
    ).toEqual([
      '--analyzer-url is read only by --analyzer http; --analyzer heuristic ignores it. Drop --analyzer-url, or ' +
        'use --analyzer http',
    ]);
    expect(analyzerFlagIssues(['--analyzer-model=m', '--analyzer-timeout-ms', '500'], DEFAULT_CONFIG)).toEqual([]);
    expect(
      analyzerFlagIssues(
        ['--analyzer-model=m', '--analyzer-timeout-ms', '500'],
        { algo: 'skill-grpo', analyzer: 'oracle' },
        true,
      ),
    ).toEqual([
      "--analyzer-model is read only by --analyzer http; --analyzer oracle (the run's) ignores it. Drop " +
        '--analyzer-model, or use --analyzer http',
      "--analyzer-timeout-ms is read only by --analyzer http; --analyzer oracle (the run's) ignores it. Drop " +
        '--analyzer-timeout-ms, or use --analyzer http',
    ]);
    expect(analyzerFlagIssues(['--analyzer-model', 'm'], { algo: 'opid', analyzer: 'heuristic' })).toEqual([
      '--analyzer-model is read only by --analyzer http; --analyzer heuristic (the default) ignores it. Drop ' +
        '--analyzer-model, or use --analyzer http',
    ]);
  });

  it('accepts them with --analyzer http, and leaves an algorithm without an analyzer to ignoredFlagIssues', () => {
    const argv = ['--analyzer', 'http', '--analyzer-url', 'http://h:1', '--analyzer-model', 'm'];
    expect(analyzerFlagIssues(argv, { algo: 'opid', analyzer: 'http' })).toEqual([]);
    expect(analyzerFlagIssues(['--analyzer-url', 'http://h:1'], { algo: 'grpo', analyzer: 'heuristic' })).toEqual([]);
  });
});

describe('train refuses them (exit 2, nothing trained)', () => {
  it('with --analyzer heuristic, oracle, and the default', () => {
    const h = train([...SMALL, '--algo', 'opid', '--analyzer', 'heuristic', '--analyzer-url', 'http://h:1']);
    expect(h.status).toBe(2);
    expect(h.stdout).toBe('');
    expect(h.stderr).toBe(
      'train: --analyzer-url is read only by --analyzer http; --analyzer heuristic ignores it. Drop ' +
        '--analyzer-url, or use --analyzer http\n',
    );
    const o = train([...SMALL, '--algo', 'skill-grpo', '--analyzer', 'oracle', '--analyzer-timeout-ms', '500']);
    expect(o.status).toBe(2);
    expect(o.stderr).toBe(
      'train: --analyzer-timeout-ms is read only by --analyzer http; --analyzer oracle ignores it. Drop ' +
        '--analyzer-timeout-ms, or use --analyzer http\n',
    );
    const d = train([...SMALL, '--algo', 'opid', '--analyzer-model', 'qwen2.5:7b']);
    expect(d.status).toBe(2);
    expect(d.stderr).toBe(
      'train: --analyzer-model is read only by --analyzer http; --analyzer heuristic (the default) ignores it. ' +
        'Drop --analyzer-model, or use --analyzer http\n',
    );
  }, 300_000);

  it('on --resume of a run with the oracle analyzer; the start line names the analyzer', () => {
    const dir = path.join(tmp, 'opid-oracle');
    const r = train([...SMALL, '--algo', 'opid', '--analyzer', 'oracle', '--run-dir', dir]);
    expect(r.status).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe(
      'training opid on household/easy, model nano (100464 params, vocab 529), from the shipped base policy, ' +
        'backend wasm, seed 3, analyzer oracle (privileged)',
    );
    const before = fs.readFileSync(path.join(dir, 'events.jsonl'));
    const again = train(['--resume', dir, '--steps', '2', '--analyzer-timeout-ms', '20000']);
    expect(again.status).toBe(2);
    expect(again.stderr).toBe(
      "train: --analyzer-timeout-ms is read only by --analyzer http; --analyzer oracle (the run's) ignores it. " +
        'Drop --analyzer-timeout-ms, or use --analyzer http\n',
    );
    expect(fs.readFileSync(path.join(dir, 'events.jsonl')).equals(before)).toBe(true);
    const h = train([...SMALL, '--algo', 'skill-grpo']);
    expect(h.status).toBe(0);
    expect(h.stdout.split('\n')[0]).toBe(
      'training skill-grpo on household/easy, model nano (100464 params, vocab 529), from the shipped base ' +
        'policy, backend wasm, seed 3, analyzer heuristic',
    );
  }, 300_000);
});

describe('the start line', () => {
  const ev = { event: 'start', params: 10, vocabSize: 5 } as StartEvent;
  it('names the analyzer of an algorithm that uses one, and none for one that does not', () => {
    const http = { ...DEFAULT_CONFIG, algo: 'opid' as const, analyzer: 'http' as const };
    expect(analyzerWords({ ...http, analyzerUrl: 'http://localhost:11434', analyzerModel: 'qwen2.5:7b' })).toBe(
      'analyzer http http://localhost:11434 qwen2.5:7b',
    );
    expect(analyzerWords({ ...DEFAULT_CONFIG, algo: 'opid', analyzer: 'oracle' })).toBe('analyzer oracle (privileged)');
    expect(analyzerWords({ ...DEFAULT_CONFIG, algo: 'grpo', analyzer: 'oracle' })).toBeNull();
    expect(analyzerWords({ ...DEFAULT_CONFIG, algo: 'agentic-opd' })).toBeNull();
    expect(startLine({ ...ev, resumedFrom: 4 }, { ...DEFAULT_CONFIG, algo: 'skill-grpo' }, 'wasm')).toBe(
      'training skill-grpo on household/easy, model nano (10 params, vocab 5), backend wasm, seed 1, analyzer ' +
        'heuristic; resumed from the checkpoint of step 4',
    );
    expect(startLine(ev, { ...DEFAULT_CONFIG, algo: 'grpo' }, 'cpu')).toBe(
      'training grpo on household/easy, model nano (10 params, vocab 5), backend cpu, seed 1',
    );
  });

  it('says where the weights come from, and an A_skill variant beyond the paper as the analyzer is named', () => {
    const file = { from: 'file', weights: new Uint8Array(), name: 'runs/a.safetensors' } as const;
    expect(startOrigin({ from: 'base' })).toBe('from the shipped base policy');
    expect(startOrigin({ from: 'scratch' })).toBe('from scratch');
    expect(startOrigin(file)).toBe('from runs/a.safetensors');
    expect(startOrigin(file, { model: 'nano', sha256: 'ab' })).toBe('from runs/a.safetensors, grown from nano');
    expect(startOrigin({ from: 'resume' })).toBeNull();
    const oracle = { ...DEFAULT_CONFIG, algo: 'opid' as const, analyzer: 'oracle' as const };
    expect(startLine(ev, { ...oracle, skillVariant: 'centred' }, 'wasm', 'from scratch')).toBe(
      'training opid on household/easy, model nano (10 params, vocab 5), from scratch, backend wasm, seed 1, ' +
        'analyzer oracle (privileged), skill variant centred',
    );
    expect(skillVariantWords({ ...oracle, skillVariant: 'paper' })).toBeNull();
    expect(skillVariantWords({ ...oracle, skillVariant: 'where-ep-zero' })).toBe('skill variant where-ep-zero');
    expect(skillVariantWords({ ...DEFAULT_CONFIG, algo: 'grpo', skillVariant: 'centred' })).toBeNull();
  });
});
