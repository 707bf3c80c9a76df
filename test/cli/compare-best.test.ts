/**
 * `npm run compare` has one "best" evaluation in all four outputs (the plain table, `--json`, `--markdown`, `--csv`):
 * the results tables' (aggregate.ts `pickEval`), the evaluation with the highest mean success over the splits, ties to
 * the earlier, every split read from it — never each split's own maximum, which mixes evaluations.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { handRunJson } from '../helpers/run-json';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'opd-compare-best-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const compare = (args: string[]) =>
  spawnSync('node_modules/.bin/tsx', ['cli/compare.ts', ...args], { encoding: 'utf8', timeout: 120_000 });

const split = (r: number, pick: number) => ({
  successRate: r,
  episodes: 20,
  byTaskType: { pick: { successRate: pick, episodes: 4 } },
});

/**
 * A run whose per-split maxima come from different evaluations: test-seen peaks at step 1 (65%) while the mean peaks
 * at step 2 (50% / 50%); step 3 ties step 2's mean and loses the tie (the earlier wins). Its re-evaluation of step 1
 * after a resume (a later line for the same step) replaces the first one.
 */
function runDir(name: string): string {
  const dir = path.join(tmp, name);
  fs.mkdirSync(dir);
  const run = handRunJson({ steps: 3, seed: 5 });
  fs.writeFileSync(path.join(dir, 'run.json'), JSON.stringify(run) + '\n');
  const step = (s: number) => ({ event: 'step', step: s, successRate: 0.5, rewardMean: 0, policyLoss: 0 });
  const ev = (s: number, seen: number, unseen: number) => ({
    event: 'eval',
    step: s,
    splits: { 'test-seen': split(seen, seen), 'test-unseen': split(unseen, 1 - unseen) },
  });
  const events = [
    ev(0, 0.1, 0.1),
    step(1),
    ev(1, 0.9, 0.0), // replaced below by the re-evaluation of step 1
    ev(1, 0.65, 0.05),
    step(2),
    ev(2, 0.5, 0.5),
    step(3),
    ev(3, 0.6, 0.4),
    { event: 'done', steps: 3 },
  ];
  fs.writeFileSync(path.join(dir, 'events.jsonl'), events.map((e) => JSON.stringify(e)).join('\n') + '\n');
  return dir;
}

describe('compare: one definition of best', () => {
  const dir = runDir('grpo-5');

  it('the plain table, --json, --markdown and --csv give the same best: step 2, 50.0% / 50.0%', () => {
    const outs = [[], ['--json'], ['--markdown'], ['--csv']].map((f) => compare([dir, ...f]));
    for (const o of outs) {
      expect(o.stderr).toBe('');
      expect(o.status).toBe(0);
    }
    const [plain, json, md, csv] = outs.map((o) => o.stdout);

    const [head, , row] = plain.trimEnd().split('\n');
    const cells = row.split(/\s{2,}/);
    const col = (name: string) => cells[head.split(/\s{2,}/).indexOf(name)];
    expect(col('test-seen final')).toBe('60.0%');
    expect(col('test-seen best')).toBe('50.0%');
    expect(col('test-unseen best')).toBe('50.0%');
    expect(col('best eval (top mean)')).toBe('step 2');

    const r = JSON.parse(json).runs[0];
    expect(r.bestEval).toEqual({ 'test-seen': 0.5, 'test-unseen': 0.5 });
    expect(r.bestEvalStep).toBe(2);
    expect(r.finalEval).toEqual({ 'test-seen': 0.6, 'test-unseen': 0.4 });
    expect(r.finalEvalStep).toBe(3);

    const mdCells = (l: string) =>
      l
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim());
    const mdLines = md.split('\n');
    const mdHead = mdCells(mdLines[0]);
    const mdRow = mdCells(mdLines[2]);
    expect(mdRow[mdHead.indexOf('best test-seen')]).toBe('50.0%');
    expect(mdRow[mdHead.indexOf('best test-unseen')]).toBe('50.0%');

    const [csvHead, csvRow] = csv.split('\r\n').map((l) => l.split(','));
    const at = (name: string) => csvRow[csvHead.indexOf(name)];
    expect(at('best step')).toBe('2');
    expect(at('best test-seen')).toBe('0.5');
    expect(at('best test-unseen')).toBe('0.5');
    expect(at('best test-seen/pick')).toBe('0.5'); // the task types come from the same evaluation
    expect(at('final step')).toBe('3');
  }, 120_000);
});
