/**
 * `train` refuses a run-setting flag that the chosen algorithm does not read (e.g. --opd-topk with --algo grpo):
 * `ignoredFlagIssues` (cli/train-flags.ts) over `algorithmsUsing` (src/core/run/config.ts), and the CLI's exit 2.
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { ignoredFlagIssues } from '../../cli/train-flags';
import { algorithmsUsing } from '../../src/core/run/config';

describe('algorithmsUsing', () => {
  it('names the algorithms that read a field; undefined for fields every algorithm reads', () => {
    expect(algorithmsUsing('opdTopK')).toEqual(['agentic-opd']);
    expect(algorithmsUsing('teacherSelect')).toEqual(['agentic-opd']);
    expect(algorithmsUsing('lambdaSkill')).toEqual(['opid']);
    expect(algorithmsUsing('ablation')).toEqual(['opid']);
    expect(algorithmsUsing('failedOnly')).toEqual(['opid', 'skill-grpo']);
    expect(algorithmsUsing('maxStepSkills')).toEqual(['opid', 'skill-grpo']);
    expect(algorithmsUsing('skillMemoryTopK')).toEqual(['skill-grpo']);
    expect(algorithmsUsing('analyzerUrl')).toEqual(['opid', 'skill-grpo']);
    expect(algorithmsUsing('learningRate')).toBeUndefined();
    expect(algorithmsUsing('seed')).toBeUndefined();
  });
});

describe('ignoredFlagIssues', () => {
  it('names the flag, the algorithm that reads it and the fix', () => {
    expect(ignoredFlagIssues(['--algo', 'grpo', '--opd-topk', '16'], 'grpo')).toEqual([
      '--opd-topk is read only by --algo agentic-opd; --algo grpo ignores it. Drop --opd-topk, or use ' +
        '--algo agentic-opd',
    ]);
    expect(ignoredFlagIssues(['--lad-gate=false', '--seed', '3'], 'opid')).toEqual([
      '--lad-gate is read only by --algo agentic-opd; --algo opid ignores it. Drop --lad-gate, or use ' +
        '--algo agentic-opd',
    ]);
    expect(ignoredFlagIssues(['--analyzer', 'http'], 'agentic-opd')).toEqual([
      '--analyzer is read only by --algo opid or --algo skill-grpo; --algo agentic-opd ignores it. Drop ' +
        '--analyzer, or use --algo opid or --algo skill-grpo',
    ]);
  });

  it('accepts the flags the algorithm reads, flags every algorithm reads, and non-setting flags', () => {
    expect(
      ignoredFlagIssues(
        ['--algo', 'skill-grpo', '--failed-only', '--max-step-skills', '3', '--skill-memory-top-k', '2'],
        'skill-grpo',
      ),
    ).toEqual([]);
    expect(
      ignoredFlagIssues(
        [
          '--opd-topk',
          '4',
          '--lad-gate=false',
          '--teacher-select',
          'union',
          '--opd-coef',
          '2',
          '--task-coef',
          '1',
          '--from-run',
          'x',
        ],
        'agentic-opd',
      ),
    ).toEqual([]);
    expect(
      ignoredFlagIssues(['--lr', '1e-4', '--seed', '2', '--json', '--run-dir', 'r', '--eval-threads', '0'], 'grpo'),
    ).toEqual([]);
  });
});

describe('train CLI', () => {
  it('train --algo grpo --opd-topk 16 --lambda-skill 1 exits 2 naming both flags, nothing trained', () => {
    const r = spawnSync(
      'node_modules/.bin/tsx',
      ['cli/train.ts', '--algo', 'grpo', '--opd-topk', '16', '--lambda-skill', '1', '--steps', '1'],
      { encoding: 'utf8', timeout: 120_000 },
    );
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'train: --opd-topk is read only by --algo agentic-opd; --algo grpo ignores it. Drop --opd-topk, or ' +
        'use --algo agentic-opd\n' +
        '--lambda-skill is read only by --algo opid; --algo grpo ignores it. Drop --lambda-skill, or use --algo opid\n',
    );
  });
});
