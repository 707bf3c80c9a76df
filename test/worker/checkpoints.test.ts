/**
 * The worker's in-memory checkpoint store: the solved matrix built from validation events, weights kept within the
 * byte budget (the oldest non-best dropped first, a checkpoint larger than the budget not kept), the distillation
 * stage's rounds and validations, and clear().
 */
import { describe, expect, it } from 'vitest';
import { CheckpointStore, DEFAULT_CHECKPOINT_BUDGET_BYTES } from '../../src/worker/checkpoints';
import { DEFAULT_CONFIG } from '../../src/core/run/config';

const val = (step: number, passRates: number[]) => ({
  step,
  samples: 2,
  passRates,
  taskTypes: passRates.map(() => 'pick'),
});
const bytes = (n: number, fill: number) => new Uint8Array(n).fill(fill);

describe('CheckpointStore', () => {
  it('keeps the solved matrix and weights within the budget, dropping the oldest that is not the best', () => {
    const s = new CheckpointStore(100);
    expect(s.snapshot()).toEqual({ val: null, kept: [], usedBytes: 0, budgetBytes: 100, dropped: [], distill: null });
    // Step 1 solves both tasks (the best), steps 2 and 3 one each.
    s.addValidation(val(1, [1, 1]), DEFAULT_CONFIG);
    s.addCheckpoint(1, bytes(40, 1));
    s.addValidation(val(2, [1, 0]), DEFAULT_CONFIG);
    s.addCheckpoint(2, bytes(40, 2));
    s.addValidation(val(3, [0, 0.5]), DEFAULT_CONFIG);
    s.addCheckpoint(3, bytes(40, 3)); // 120 > 100: step 2 goes (step 1 is the best)
    let snap = s.snapshot();
    expect(snap.kept).toEqual([
      { step: 1, bytes: 40 },
      { step: 3, bytes: 40 },
    ]);
    expect(snap.usedBytes).toBe(80);
    expect(snap.dropped).toEqual([2]);
    expect(snap.val).toEqual({
      format: 'opd-playground-val',
      version: 1,
      preset: 'easy',
      tasks: 2,
      samples: 2,
      taskTypes: ['pick', 'pick'],
      checkpoints: [
        { step: 1, passRates: [1, 1] },
        { step: 2, passRates: [1, 0] },
        { step: 3, passRates: [0, 0.5] },
      ],
    });
    expect(s.sources().map((c) => [c.step, c.bytes[0], c.label])).toEqual([
      [1, 1, 'the checkpoint at step 1'],
      [3, 3, 'the checkpoint at step 3'],
    ]);
    expect(s.config()?.preset).toBe('easy');
    // Larger than the whole budget: not kept, listed as dropped; the others stay.
    s.addValidation(val(4, [0, 0]), DEFAULT_CONFIG);
    s.addCheckpoint(4, bytes(101, 4));
    snap = s.snapshot();
    expect(snap.kept.map((k) => k.step)).toEqual([1, 3]);
    expect(snap.dropped).toEqual([2, 4]);
  });

  it('records a distillation stage; clear() forgets everything', () => {
    const s = new CheckpointStore();
    expect(s.budgetBytes).toBe(DEFAULT_CHECKPOINT_BUDGET_BYTES);
    // none started: ignored
    s.addRound({ round: 1, afterStep: 0, teacherId: 1, scores: [], studentSolved: 0, nothingToLearn: false });
    s.addValidation(val(1, [1, 0]), DEFAULT_CONFIG);
    s.addCheckpoint(1, bytes(8, 1));
    s.startDistill(1, [2, 3]);
    const round = {
      round: 1,
      afterStep: 0,
      teacherId: 3,
      scores: [
        { id: 2, score: 1, gain: 1, typeCoverage: 1 },
        { id: 3, score: 2, gain: 2, typeCoverage: 1 },
      ],
      studentSolved: 1,
      nothingToLearn: false,
    };
    s.addRound(round);
    s.addDistillValidation({ step: 2, passRates: [1, 1] });
    s.addDistillValidation({ step: 2, passRates: [0, 1] }); // a redone validation replaces the row
    expect(s.snapshot().distill).toEqual({
      studentStep: 1,
      teachers: [2, 3],
      rounds: [round],
      validations: [{ step: 2, passRates: [0, 1] }],
    });
    s.clear();
    expect(s.snapshot()).toEqual({
      val: null,
      kept: [],
      usedBytes: 0,
      budgetBytes: DEFAULT_CHECKPOINT_BUDGET_BYTES,
      dropped: [],
      distill: null,
    });
    expect(() => new CheckpointStore(0)).toThrow(/positive number of bytes/);
  });
});
