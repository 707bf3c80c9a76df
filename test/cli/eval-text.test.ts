/**
 * `npm run eval`'s text output: the success line, then a table of success per task type whose header and rows line
 * up whatever the lengths of the type names (shop's top categories run from `beauty` to `electronics`) and of the
 * rates (`0.0%` to `100.0%`): every column padded to its widest cell, numbers aligned on the right; its rows (and
 * --json's byTaskType) in the env's order of task types, not the order the episodes met them.
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { alignColumns } from '../../cli/text-table';

describe('eval: success per task type as an aligned table', () => {
  it('alignColumns pads each column to its widest cell, numbers on the right, no trailing spaces', () => {
    const rows = [
      ['task type', 'success', 'episodes'],
      ['grocery', '100.0%', '6'],
      ['electronics', '50.0%', '12'],
      ['beauty', '0.0%', '1'],
    ];
    expect(alignColumns(rows, [false, true, true])).toEqual([
      'task type    success  episodes',
      'grocery       100.0%         6',
      'electronics    50.0%        12',
      'beauty          0.0%         1',
    ]);
    // Left-aligned throughout: the last column keeps no padding.
    expect(
      alignColumns([
        ['a', 'bb'],
        ['ccc', 'd'],
      ]),
    ).toEqual(['a    bb', 'ccc  d']);
  });

  it('the CLI prints the table under the success line (household/default, 12 episodes of the expert)', () => {
    const r = spawnSync(
      'node_modules/.bin/tsx',
      ['cli/eval.ts', '--policy', 'expert', '--preset', 'default', '--episodes', '12'],
      { encoding: 'utf8', timeout: 120_000 },
    );
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(
      [
        'expert on household/default test-seen: success 100.0% of 12 episodes (tasks 0..11)',
        '  task type  success  episodes',
        // the env's order (pick, look, clean, heat, cool, pick2), not the order the episodes met them (pick, pick2 …)
        '  pick        100.0%         1',
        '  clean       100.0%         2',
        '  cool        100.0%         4',
        '  pick2       100.0%         5',
        '',
      ].join('\n'),
    );
  }, 120_000);

  it("--json: the summary's byTaskType in the env's order too", () => {
    const r = spawnSync(
      'node_modules/.bin/tsx',
      ['cli/eval.ts', '--policy', 'expert', '--preset', 'default', '--episodes', '12', '--json'],
      { encoding: 'utf8', timeout: 120_000 },
    );
    expect(r.status).toBe(0);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.filter((l) => l.event === 'episode').map((l) => l.taskType)).toEqual([
      'pick',
      'pick2',
      'cool',
      'cool',
      'pick2',
      'cool',
      'pick2',
      'pick2',
      'cool',
      'pick2',
      'clean',
      'clean',
    ]);
    expect(Object.keys(lines[lines.length - 1].byTaskType)).toEqual(['pick', 'clean', 'cool', 'pick2']);
  }, 120_000);
});
