/** `npm run export-tasks`: the task splits as JSONL rows in verl-agent's columns, one file per split. */
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exportTasks } from '../../cli/export-tasks';
import { getEnvSpec } from '../../src/core/envs/registry';

/** Run in-process; returns exit code, stdout and stderr. */
function run(argv: string[]) {
  let out = '';
  let err = '';
  const code = exportTasks(argv, { write: (s) => (out += s), error: (s) => (err += s) });
  return { code, out, err };
}

describe('export-tasks', () => {
  it('writes <env>-<preset>/<split>.jsonl with tasks 0 … N − 1 in verl-agent columns', () => {
    const dir = mkdtempSync(join(tmpdir(), 'opd-export-'));
    const r = run([
      '--out',
      dir,
      '--env',
      'household',
      '--preset',
      'default',
      '--train',
      '5',
      '--test',
      '3',
      '--val',
      '2',
    ]);
    expect(r.code).toBe(0);
    expect(readdirSync(join(dir, 'household-default')).sort()).toEqual([
      'test-seen.jsonl',
      'test-unseen.jsonl',
      'train.jsonl',
      'val.jsonl',
    ]);
    expect(r.out).toContain(`${join(dir, 'household-default', 'train.jsonl')}: 5 rows`);
    const rows = (split: string) =>
      readFileSync(join(dir, 'household-default', `${split}.jsonl`), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
    expect(rows('train').length).toBe(5);
    expect(rows('test-unseen').length).toBe(3);
    expect(rows('val').length).toBe(2);
    const env = getEnvSpec('household').create('default');
    const first = env.reset({ split: 'test-seen', index: 2 });
    expect(rows('test-seen')[2]).toEqual({
      data_source: 'household-default',
      prompt: [{ role: 'user', content: '' }],
      ability: 'agent',
      extra_info: { split: 'test-seen', index: 2, task: first.task, task_type: first.taskType },
      env_kwargs: { env: 'household', preset: 'default', split: 'test-seen', index: 2 },
    });
    // The same flags write the same bytes.
    const again = mkdtempSync(join(tmpdir(), 'opd-export-'));
    run(['--out', again, '--env', 'household', '--preset', 'default', '--train', '5', '--test', '3', '--val', '2']);
    for (const f of ['train.jsonl', 'val.jsonl'])
      expect(readFileSync(join(again, 'household-default', f), 'utf8')).toBe(
        readFileSync(join(dir, 'household-default', f), 'utf8'),
      );
  });

  it('refuses a missing --out, an unknown preset and a negative count, naming the flag (exit 2)', () => {
    expect(run([])).toMatchObject({ code: 2, err: expect.stringContaining('--out is required') });
    expect(run(['--out', '/tmp/x', '--env', 'household', '--preset', 'hard'])).toMatchObject({
      code: 2,
      err: expect.stringContaining('--preset: household has no preset "hard"; one of default, easy, easy-pick2'),
    });
    expect(run(['--out', '/tmp/x', '--train', '-1'])).toMatchObject({
      code: 2,
      err: expect.stringContaining('--train must be an integer in 0..1000000, got "-1"'),
    });
  });

  it('--help prints the usage and exits 0; an --out it cannot create or an empty one exits 2 naming it', () => {
    const h = run(['--help']);
    expect([h.code, h.err]).toEqual([0, '']);
    expect(h.out.split('\n')[0]).toBe('usage: npm run export-tasks -- [flags]');
    const file = join(mkdtempSync(join(tmpdir(), 'opd-export-')), 'plain');
    writeFileSync(file, 'x');
    expect(run(['--out', join(file, 'x'), '--train', '1'])).toEqual({
      code: 2,
      out: '',
      err:
        `export-tasks: --out: cannot create the folder "${join(file, 'x', 'household-easy')}" (ENOTDIR); give a ` +
        'folder you can write to\n',
    });
    const empty = run(['--out', '']);
    expect(empty.code).toBe(2);
    expect(empty.err.split('\n')[0]).toBe('export-tasks: --out must name a folder (got an empty string)');
  });
});
