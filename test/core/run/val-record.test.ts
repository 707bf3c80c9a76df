/**
 * val.json validation (src/core/run/record.ts `parseValRecord`): hand-written bad files get the exact message naming
 * the file, the checkpoint's step, the val task, the value and the fix; every record the writers make (emptyValRecord
 * + addValidation, with pass rates successes / samples as core/train/evaluation.ts computes them) parses; an imported
 * pack (src/core/run-files/pack.ts) holding a bad val.json is refused with the same message.
 */
import { describe, expect, it } from 'vitest';
import {
  PASS_RATE_TOLERANCE,
  RecordError,
  addValidation,
  emptyValRecord,
  parseValRecord,
} from '../../../src/core/run/record';
import { DEFAULT_CONFIG } from '../../../src/core/run/config';
import { PackError, packRun, textFile, unpackRun } from '../../../src/core/run-files/pack';
import { encodeTensors } from '../../../src/core/model/io';

/** A val.json text: samples 2, three val tasks, checkpoints 10 and 20 as given, and `extra` keys put on top. */
const valText = (rows: Record<string, unknown>[], extra: Record<string, unknown> = {}, samples = 2): string =>
  JSON.stringify({
    format: 'opd-playground-val',
    version: 1,
    preset: 'easy',
    tasks: 3,
    samples,
    taskTypes: ['pick', 'pick', 'heat'],
    checkpoints: rows,
    ...extra,
  });
const good = [
  { step: 10, passRates: [0, 0.5, 1] },
  { step: 20, passRates: [1, 1, 0] },
];
/** The message `parseValRecord(text)` throws (a RecordError), or "parsed". */
function refusal(text: string, file?: string): string {
  try {
    parseValRecord(text, file);
    return 'parsed';
  } catch (e) {
    expect(e).toBeInstanceOf(RecordError);
    return (e as Error).message;
  }
}
const FIX20 =
  'the file was edited or written by another tool; restore it as train wrote it (the validation line of ' +
  "step 20 in events.jsonl holds the run's pass rates) or train the run again";
const SHAPE =
  '(expected an opd-playground-val version 1 record, as train --run-dir --val-tasks n writes it; restore ' +
  'the file or train the run again)';

describe('parseValRecord refuses impossible pass rates', () => {
  it('a rate that is not k/samples: 0.3 with samples 2', () => {
    expect(refusal(valText([good[0], { step: 20, passRates: [1, 0.3, 0] }]))).toBe(
      `val.json: checkpoint 20, val task 1: pass rate 0.3 is not k/2 for any whole k in 0..2 (samples 2; ` +
        `a pass rate is successes / samples); ${FIX20}`,
    );
    // The file name given by the reader (a path) leads the message.
    expect(refusal(valText([{ step: 20, passRates: [0.25, 0, 0] }]), 'runs/a/val.json')).toBe(
      `runs/a/val.json: checkpoint 20, val task 0: pass rate 0.25 is not k/2 for any whole k in 0..2 ` +
        `(samples 2; a pass rate is successes / samples); ${FIX20}`,
    );
  });

  it('rates outside [0, 1], including 1e999 (JSON reads it as Infinity)', () => {
    expect(refusal(valText([{ step: 20, passRates: [0, 0, 1.5] }]))).toBe(
      `val.json: checkpoint 20, val task 2: pass rate 1.5 is outside [0, 1] (a pass rate is successes / ` +
        `samples); ${FIX20}`,
    );
    expect(refusal(valText([{ step: 20, passRates: [-0.5, 0, 0] }]))).toBe(
      `val.json: checkpoint 20, val task 0: pass rate -0.5 is outside [0, 1] (a pass rate is successes / ` +
        `samples); ${FIX20}`,
    );
    expect(refusal(valText([{ step: 20, passRates: [0, 0, 0] }]).replace('[0,0,0]', '[0,1e999,0]'))).toBe(
      `val.json: checkpoint 20, val task 1: pass rate Infinity is outside [0, 1] (a pass rate is ` +
        `successes / samples); ${FIX20}`,
    );
    expect(refusal(valText([{ step: 20, passRates: [0, 0, 0] }]).replace('[0,0,0]', '[0,0,-1e999]'))).toBe(
      `val.json: checkpoint 20, val task 2: pass rate -Infinity is outside [0, 1] (a pass rate is ` +
        `successes / samples); ${FIX20}`,
    );
    expect(refusal(valText([{ step: 20, passRates: [0, '1', 0] }]))).toBe(
      `val.json: checkpoints.0.passRates.1: expected a number ${SHAPE}`,
    );
    expect(refusal(valText([{ step: 20, passRates: [0, null, 0] }]))).toBe(
      `val.json: checkpoints.0.passRates.1: expected a number ${SHAPE}`,
    );
  });

  it('k/r printed with fewer digits passes within PASS_RATE_TOLERANCE·r; three digits of 1/3 do not', () => {
    expect(PASS_RATE_TOLERANCE).toBe(1e-6);
    // |0.3333333·3 − 1| = 1e-7 ≤ 3e-6; |0.333·3 − 1| = 1e-3.
    expect(
      parseValRecord(valText([{ step: 20, passRates: [0.3333333, 0.6666667, 1] }], {}, 3)).checkpoints[0].passRates,
    ).toEqual([0.3333333, 0.6666667, 1]);
    expect(refusal(valText([{ step: 20, passRates: [0, 0.333, 1] }], {}, 3))).toBe(
      `val.json: checkpoint 20, val task 1: pass rate 0.333 is not k/3 for any whole k in 0..3 (samples ` +
        `3; a pass rate is successes / samples); ${FIX20}`,
    );
  });
});

describe('parseValRecord refuses other damage', () => {
  it('unknown keys, at the top level and in a checkpoint row, named with the keys that belong there', () => {
    expect(refusal(valText(good, { note: 'hand-edited' }))).toBe(
      `val.json: (top level): unknown key "note" (only format, version, preset, tasks, samples, ` +
        `taskTypes, checkpoints belong there) ${SHAPE}`,
    );
    expect(refusal(valText([good[0], { ...good[1], successRate: 0.667, valMs: 5 }]))).toBe(
      `val.json: checkpoints.1: unknown keys "successRate", "valMs" (only step, passRates belong there) ${SHAPE}`,
    );
  });

  it('a row of the wrong length, repeated or decreasing steps, a step below 1', () => {
    expect(refusal(valText([{ step: 10, passRates: [0, 1] }]))).toBe(
      'val.json: checkpoints.0 (step 10) has 2 pass rates, tasks is 3',
    );
    expect(refusal(valText([good[0], { ...good[1], step: 10 }]))).toBe(
      'val.json: checkpoints.1: steps must increase (10 then 10)',
    );
    expect(refusal(valText([good[1], good[0]]))).toBe('val.json: checkpoints.1: steps must increase (20 then 10)');
    expect(refusal(valText([{ ...good[0], step: 0 }]))).toMatch(
      /^val\.json: checkpoints\.0\.step: Too small: expected number to be >=1 \(expected an opd-playground-val/,
    );
  });

  it('a good file parses to what it holds', () => {
    expect(parseValRecord(valText(good)).checkpoints).toEqual(good);
  });
});

describe('every val.json the writers make parses', () => {
  it(
    'emptyValRecord + addValidation with pass rates successes / samples, for every samples 1..64 and ' + 'every count',
    () => {
      for (let r = 1; r <= 64; r++) {
        const tasks = r + 1;
        const types = Array.from({ length: tasks }, (_, q) => (q % 2 ? 'heat' : 'pick'));
        let v = emptyValRecord({ ...DEFAULT_CONFIG, valTasks: tasks, valSamples: r });
        // Val task q succeeds k = q times at the first checkpoint, r − q at the second (every k in 0..r).
        v = addValidation(
          v,
          10,
          types.map((_, q) => q / r),
          types,
        );
        v = addValidation(
          v,
          20,
          types.map((_, q) => (r - q) / r),
          types,
        );
        const text = JSON.stringify(v) + '\n'; // as cli/rundir.ts writeVal and the page's val.json download write it
        expect(parseValRecord(text)).toEqual(v);
        expect(parseValRecord(JSON.stringify(v, null, 1))).toEqual(v); // as scripts/revalidate.ts writes it
      }
    },
  );
});

describe('an imported pack with an impossible pass rate', () => {
  it("is refused as a corrupt run record, with val.json's message", () => {
    const run = JSON.stringify({
      format: 'opd-playground-run',
      version: 1,
      config: { ...DEFAULT_CONFIG, steps: 20, valTasks: 3, valSamples: 2, checkpointEvery: 10 },
      envVersions: { household: 'household-v2' },
      command: 'page',
      argv: [],
      backend: 'wasm',
      params: 1,
      vocabSize: 2,
      initWeights: null,
      createdAt: '2026-01-01T00:00:00.000Z',
      resumes: [],
    });
    const weights = encodeTensors([{ name: 'w', shape: [1], data: Float32Array.of(1) }], {
      format: 'opd-playground',
      modelSize: 'nano',
    });
    const files = (val: string) =>
      new Map([
        ['run.json', textFile(run)],
        ['events.jsonl', textFile('')],
        ['val.json', textFile(val)],
        ['ckpt-20.safetensors', weights],
        ['ckpt-20.state', Uint8Array.of(1)],
      ]);
    expect(unpackRun(packRun('r', files(valText(good)), {})).val?.checkpoints).toEqual(good);
    const bad = packRun('r', files(valText([good[0], { step: 20, passRates: [1, 0.3, 0] }])), {});
    expect(() => unpackRun(bad)).toThrow(PackError);
    expect(() => unpackRun(bad)).toThrow(
      `corrupt run record: val.json: checkpoint 20, val task 1: pass rate 0.3 is not k/2 for any whole k ` +
        `in 0..2 (samples 2; a pass rate is successes / samples); ${FIX20}`,
    );
  });
});
