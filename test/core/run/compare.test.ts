/** The Compare view's table (src/core/run/compare.ts) with hand-computed values, and its CSV and Markdown text. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG, type RunConfig } from '../../../src/core/run/config';
import { compareCsv, compareMarkdown, compareRuns, type CompareInput } from '../../../src/core/run/compare';
import { parseEvents, parseRunRecord } from '../../../src/core/run/record';

function input(
  name: string,
  config: Partial<RunConfig>,
  evals: [number, number, number, number][],
  trainLast: number,
): CompareInput {
  const run = parseRunRecord(
    JSON.stringify({
      format: 'opd-playground-run',
      version: 1,
      config: { ...DEFAULT_CONFIG, steps: 4, ...config },
      envVersions: {},
      command: 'page',
      argv: [],
      backend: 'wasm',
      params: 1,
      vocabSize: 2,
      initWeights: null,
      createdAt: 't',
      resumes: [],
    }),
  );
  // [step, test-seen, test-seen pick, test-unseen]
  const lines = evals.flatMap(([step, seen, pick, unseen]) => [
    ...(step > 0 ? [{ event: 'step', step, successRate: trainLast, rewardMean: 0, policyLoss: 0 }] : []),
    {
      event: 'eval',
      step,
      splits: {
        'test-seen': { successRate: seen, episodes: 4, byTaskType: { pick: { successRate: pick, episodes: 2 } } },
        'test-unseen': { successRate: unseen, episodes: 4, byTaskType: {} },
      },
    },
  ]);
  return { name, run, events: parseEvents(lines.map((l) => JSON.stringify(l)).join('\n')) };
}

const a = input(
  'grpo',
  { algo: 'grpo' },
  [
    [0, 0.25, 0.5, 0],
    [2, 0.75, 1, 0.5],
    [4, 0.5, 0.5, 0.25],
  ],
  0.625,
);
const b = input(
  'opid, λ 0.3',
  { algo: 'opid', learningRate: 0.0005 },
  [
    [0, 0.25, 0.5, 0],
    [4, 0.5, 0, 1],
  ],
  0.5,
);

describe('compareRuns', () => {
  it('reads final and best (highest mean over splits) per split and task type, and marks differing settings', () => {
    const t = compareRuns([a, b]);
    expect(t.keys).toEqual(['test-seen', 'test-unseen', 'test-seen/pick']);
    expect(t.final).toEqual([
      [0.5, 0.25, 0.5],
      [0.5, 1, 0],
    ]);
    // a: means 0.125, 0.625, 0.375 → step 2; b: 0.125, 0.75 → step 4
    expect(t.best).toEqual([
      [0.75, 0.5, 1],
      [0.5, 1, 0],
    ]);
    expect(t.bestStep).toEqual([2, 4]);
    expect(t.finalStep).toEqual([4, 4]);
    expect(t.steps).toEqual(['4/4', '4/4']);
    expect(t.trainFinal).toEqual([0.625, 0.5]);
    expect(t.settings.filter((s) => s.differs)).toEqual([
      { key: 'algo', values: ['grpo', 'opid'], differs: true },
      { key: 'learningRate', values: ['0.0001', '0.0005'], differs: true },
    ]);
    expect(t.settings.find((s) => s.key === 'seed')).toEqual({ key: 'seed', values: ['1', '1'], differs: false });
    expect(() => compareRuns([a, a])).toThrow(/two runs are named "grpo"/);
  });
  it('writes CSV (quoted where needed) and Markdown', () => {
    const t = compareRuns([a, b]);
    expect(compareCsv(t)).toBe(
      'run,steps,train final,final step,final test-seen,final test-unseen,final test-seen/pick,best ' +
        'step,best test-seen,best test-unseen,best test-seen/pick,algo,learningRate\r\n' +
        'grpo,4/4,0.625,4,0.5,0.25,0.5,2,0.75,0.5,1,grpo,0.0001\r\n' +
        '"opid, λ 0.3",4/4,0.5,4,0.5,1,0,4,0.5,1,0,opid,0.0005\r\n',
    );
    expect(compareMarkdown(t)).toBe(
      '| run | steps | train final | final test-seen | final test-unseen | best test-seen | best test-unseen |\n' +
        '| --- | --- | --- | --- | --- | --- | --- |\n' +
        '| grpo | 4/4 | 62.5% | 50.0% | 25.0% | 75.0% | 50.0% |\n' +
        '| opid, λ 0.3 | 4/4 | 50.0% | 50.0% | 100.0% | 50.0% | 100.0% |\n' +
        '\nSettings that differ:\n\n' +
        ('| setting | grpo | opid, λ 0.3 |\n| --- | --- | --- |\n| algo | **grpo** | **opid** |\n| ' +
          'learningRate | **0.0001** | **0.0005** |\n'),
    );
  });
  it('names a differing setting whose key is a column name "setting <key>", so that no CSV column name repeats', () => {
    const longer = input(
      'grpo 8 steps',
      { algo: 'grpo', steps: 8 },
      [
        [0, 0.25, 0.5, 0],
        [4, 0.5, 0.5, 0.25],
      ],
      0.625,
    );
    const csv = compareCsv(compareRuns([a, longer])).split('\r\n');
    expect(csv[0]).toBe(
      'run,steps,train final,final step,final test-seen,final test-unseen,final test-seen/pick,best ' +
        'step,best test-seen,best test-unseen,best test-seen/pick,setting steps',
    );
    expect(csv[1]).toBe('grpo,4/4,0.625,4,0.5,0.25,0.5,2,0.75,0.5,1,4');
    expect(csv[2]).toBe('grpo 8 steps,4/8,0.625,4,0.5,0.25,0.5,4,0.5,0.25,0.5,8');
    expect(new Set(csv[0].split(',')).size).toBe(csv[0].split(',').length);
  });
  it('leaves cells empty for a run without evaluations', () => {
    const none = input('none', {}, [], 0);
    const t = compareRuns([a, none]);
    expect(t.final[1]).toEqual([null, null, null]);
    expect(compareCsv(t).split('\r\n')[2]).toBe('none,0/4,,,,,,,,,');
  });
});
