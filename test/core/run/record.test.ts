/** The run-record format (src/core/run/record.ts): validation with line numbers, coverage numbers, run summaries. */
import { describe, expect, it } from 'vitest';
import {
  RecordError,
  addValidation,
  emptyValRecord,
  parseEvents,
  parseRunRecord,
  parseValRecord,
  type ValRecord,
} from '../../../src/core/run/record';
import {
  checkpointLine,
  checkpointMismatch,
  configChanges,
  formatConfigChanges,
} from '../../../src/core/run/resume-checks';
import { coverage } from '../../../src/core/run/coverage';
import { summarizeRun } from '../../../src/core/run/summary';
import { DEFAULT_CONFIG } from '../../../src/core/run/config';

const val = (rows: [number, number[]][], types: string[]): ValRecord => ({
  format: 'opd-playground-val',
  version: 1,
  preset: 'default',
  tasks: types.length,
  samples: 4,
  taskTypes: types,
  checkpoints: rows.map(([step, passRates]) => ({ step, passRates })),
});

describe('coverage of the solved matrix (solved: pass rate ≥ 0.5)', () => {
  it('counts per checkpoint, best, union, oracle and forgotten — overall and per task type', () => {
    //             task:   0     1     2     3     4
    const v = val(
      [
        [10, [1, 0.5, 0, 0.25, 0]],
        [20, [0.75, 0, 0.25, 1, 1]],
        [30, [0, 0.25, 0, 0.5, 0.75]],
      ],
      ['pick', 'pick', 'heat', 'heat', 'cool'],
    );
    const r = coverage(v);
    expect(r.checkpoints.map((c) => c.solved)).toEqual([2, 3, 2]);
    expect(r.best.step).toBe(20);
    expect(r.union).toEqual({ solved: 4, tasks: [0, 1, 3, 4] });
    expect(r.oracleMeanPassRate).toBeCloseTo((1 + 0.5 + 0.25 + 1 + 1) / 5, 12);
    expect(r.forgotten).toEqual({ count: 1, tasks: [1] }); // task 1 solved at step 10, failed by step 20
    expect(r.byTaskType.pick).toMatchObject({
      tasks: 2,
      best: 1,
      union: 2,
      forgotten: 1,
      solvedPerCheckpoint: [2, 1, 0],
    });
    expect(r.byTaskType.heat).toMatchObject({ tasks: 2, best: 1, union: 1, forgotten: 0 });
    expect(Object.keys(r.byTaskType)).toEqual(['cool', 'heat', 'pick']);
    expect(r.rule).toMatch(/≥ 0.5/);
  });
  it('breaks ties by mean pass rate, then the earlier step; refuses an empty record', () => {
    expect(
      coverage(
        val(
          [
            [1, [1, 0]],
            [2, [1, 0.25]],
          ],
          ['a', 'a'],
        ),
      ).best.step,
    ).toBe(2);
    expect(
      coverage(
        val(
          [
            [1, [1, 0]],
            [2, [1, 0]],
          ],
          ['a', 'a'],
        ),
      ).best.step,
    ).toBe(1);
    expect(() => coverage(val([], ['a']))).toThrow(/fewer than one checkpoint/);
  });
  it('addValidation replaces rows from the same step on (a resumed run redoes them)', () => {
    let v = emptyValRecord({ preset: 'easy', valTasks: 2, valSamples: 4 });
    v = addValidation(v, 2, [1, 0], ['pick', 'pick']);
    v = addValidation(v, 4, [0.5, 0], ['pick', 'pick']);
    v = addValidation(v, 4, [0.25, 0], ['pick', 'pick']);
    expect(v.checkpoints).toEqual([
      { step: 2, passRates: [1, 0] },
      { step: 4, passRates: [0.25, 0] },
    ]);
    expect(parseValRecord(JSON.stringify(v))).toEqual(v);
  });
});

describe('validation of record files', () => {
  it('names the line and field of a bad events.jsonl line; skips unknown kinds by own property only', () => {
    const good = JSON.stringify({ event: 'step', step: 1, successRate: 0.5, rewardMean: 0.5, policyLoss: 0.1 });
    expect(parseEvents(`${good}\n\n`)).toHaveLength(1);
    expect(() => parseEvents(`${good}\n{"event":"step","step":2`)).toThrow(/events.jsonl line 2: not valid JSON/);
    expect(() => parseEvents(`${good}\n${good}\n{"event":"step","step":0,"successRate":2}`)).toThrow(
      /line 3 \(step event\): step/,
    );
    expect(() => parseEvents('[1]')).toThrow(/line 1: expected an object/);
    expect(parseEvents('{"event":"constructor"}\n{"event":"__proto__"}\n{"event":"toString","step":1}')).toEqual([]);
  });
  it('checks run.json and its config field by field', () => {
    const run = {
      format: 'opd-playground-run',
      version: 1,
      config: DEFAULT_CONFIG,
      envVersions: { household: 'household-v2' },
      command: 'x',
      argv: [],
      backend: 'wasm',
      params: 1,
      vocabSize: 2,
      initWeights: null,
      createdAt: 't',
      resumes: [],
    };
    expect(parseRunRecord(JSON.stringify(run)).config).toEqual(DEFAULT_CONFIG);
    expect(() => parseRunRecord('{')).toThrow(/run.json: not valid JSON/);
    expect(() => parseRunRecord(JSON.stringify({ ...run, version: 2 }))).toThrow(/run.json: version/);
    expect(() => parseRunRecord(JSON.stringify({ ...run, config: { ...DEFAULT_CONFIG, tasksPerStep: 0 } }))).toThrow(
      /config.tasksPerStep/,
    );
    expect(() =>
      parseRunRecord(JSON.stringify({ ...run, config: { ...DEFAULT_CONFIG, valTasks: 3, checkpointEvery: 0 } })),
    ).toThrow(/config.valTasks/);
    const { params: _p, ...noParams } = run;
    expect(() => parseRunRecord(JSON.stringify(noParams))).toThrow(RecordError);
    expect(() => parseValRecord(JSON.stringify({ ...val([[1, [1]]], ['a']), tasks: 2 }))).toThrow(
      /taskTypes has 1 entry,/,
    );
    expect(() =>
      parseValRecord(
        JSON.stringify(
          val(
            [
              [2, [1]],
              [1, [1]],
            ],
            ['a'],
          ),
        ),
      ),
    ).toThrow(/steps must increase/);
  });
  it('summarises a run for compare', () => {
    const run = parseRunRecord(
      JSON.stringify({
        format: 'opd-playground-run',
        version: 1,
        config: { ...DEFAULT_CONFIG, steps: 3, seed: 7 },
        envVersions: {},
        command: 'x',
        argv: [],
        backend: 'wasm',
        params: 1,
        vocabSize: 2,
        initWeights: null,
        createdAt: 't',
        resumes: [],
      }),
    );
    const split = (r: number) => ({ successRate: r, episodes: 4, byTaskType: {} });
    const lines = [
      { event: 'eval', step: 0, splits: { 'test-seen': split(0.5), 'test-unseen': split(0.25) } },
      { event: 'step', step: 1, successRate: 0.25, rewardMean: 0, policyLoss: 0 },
      { event: 'eval', step: 1, splits: { 'test-seen': split(0.75), 'test-unseen': split(0) } },
      { event: 'step', step: 2, successRate: 0.5, rewardMean: 0, policyLoss: 0 },
      { event: 'checkpoint', step: 2, file: 'ckpt-2.safetensors', stateFile: 'ckpt-2.state' },
    ];
    const s = summarizeRun('r1', run, parseEvents(lines.map((l) => JSON.stringify(l)).join('\n')));
    expect(s).toMatchObject({
      name: 'r1',
      algo: 'grpo',
      seed: 7,
      stepsDone: 2,
      stepsPlanned: 3,
      finalEvalStep: 1,
      finalTrainSuccess: 0.5,
      checkpoints: 1,
      done: false,
    });
    expect(s.finalEval).toEqual({ 'test-seen': 0.75, 'test-unseen': 0 });
    // best = the evaluation with the highest mean over the splits (aggregate.ts pickEval): steps 0 and 1 tie at
    // 0.375, the earlier wins; not each split's own maximum (0.75 / 0.25, from different evaluations)
    expect(s.bestEval).toEqual({ 'test-seen': 0.5, 'test-unseen': 0.25 });
    expect(s.bestEvalStep).toBe(0);
    // A resume that extended the run to 5 steps: planned steps are the resume's, not the first config's.
    const extended = { ...run, resumes: [{ fromStep: 2, steps: 5, command: 'y', at: 't2' }] };
    expect(summarizeRun('r1', extended, parseEvents(lines.map((l) => JSON.stringify(l)).join('\n'))).stepsPlanned).toBe(
      5,
    );
  });
});

describe('resume checks: configChanges and checkpointMismatch', () => {
  const start = (config: Record<string, unknown>) =>
    JSON.stringify({ event: 'start', config, backend: 'cpu', params: 1, envVersions: {} });
  const H = (c: string) => c.repeat(64);

  it(
    'names the run.json fields that differ from the first start line, old → new; fields the line lacks ' +
      'are not compared',
    () => {
      const { learningRate, ...older } = DEFAULT_CONFIG; // a start line written before learningRate existed
      expect(learningRate).toBe(0.0001);
      const ev = parseEvents([start({ ...DEFAULT_CONFIG, seed: 3 }), start({ ...DEFAULT_CONFIG, seed: 9 })].join('\n'));
      expect(configChanges(ev, { ...DEFAULT_CONFIG, seed: 3 })).toEqual([]);
      const changed = configChanges(ev, { ...DEFAULT_CONFIG, seed: 3, learningRate: 0.5, algo: 'opid' });
      expect(formatConfigChanges(changed)).toBe('algo "grpo" → "opid", learningRate 0.0001 → 0.5');
      expect(configChanges(parseEvents(start(older)), { ...DEFAULT_CONFIG, learningRate: 0.5 })).toEqual([]);
      expect(configChanges([], { ...DEFAULT_CONFIG, learningRate: 0.5 })).toEqual([]);
    },
  );

  it("compares a checkpoint's files with the hashes of its latest line; a line without hashes is not checked", () => {
    const line = (step: number, w?: string) =>
      JSON.stringify(checkpointLine(step, w ? { weights: H(w), state: H('b') } : undefined));
    expect(JSON.parse(line(2, 'a'))).toEqual({
      event: 'checkpoint',
      step: 2,
      file: 'ckpt-2.safetensors',
      stateFile: 'ckpt-2.state',
      sha256: { weights: H('a'), state: H('b') },
    });
    const ev = parseEvents([line(2, 'a'), line(4)].join('\n'));
    expect(checkpointMismatch(ev, 2, { weights: H('a'), state: H('b') })).toBeNull();
    expect(checkpointMismatch(ev, 2, { weights: H('c'), state: H('d') })).toEqual({
      file: 'ckpt-2.safetensors',
      recorded: H('a'),
      actual: H('c'),
    });
    expect(checkpointMismatch(ev, 2, { weights: H('a'), state: H('d') })).toEqual({
      file: 'ckpt-2.state',
      recorded: H('b'),
      actual: H('d'),
    });
    expect(checkpointMismatch(ev, 4, { weights: H('c'), state: H('d') })).toBeNull();
    expect(() =>
      parseEvents(JSON.stringify({ ...checkpointLine(2), sha256: { weights: 'ab', state: H('b') } })),
    ).toThrow(/line 1 \(checkpoint event\): sha256.weights: a sha256 as 64 lowercase hex digits/);
  });
});
