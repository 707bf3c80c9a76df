/**
 * The Checkpoints view's data shaping from a hand-made solved matrix: heatmap columns grouped by task type, cells with
 * their words; best vs union vs oracle bars and forgotten tasks as core coverage() defines them (hand-computed);
 * teacher rounds with the chosen teacher first; the LAD-share series.
 */
import { describe, expect, it } from 'vitest';
import {
  bytesText,
  coverageBars,
  forgottenTasks,
  heatmap,
  ladSeries,
  roundRows,
} from '../../src/ui/state/checkpoints-view';
import type { ValRecord } from '../../src/core/run/record';
import type { StepEvent } from '../../src/core/train/events';

/**
 * 5 val tasks × 2 episodes. Solved (≥ 0.5): step 2 {0, 2}, step 4 {0, 1, 4}, step 6 {1, 3, 4}. Steps 4 and 6 solve 3
 * each; step 6 has the higher mean pass rate (0.5 vs 0.4), so it is the best. Union {0..4} = 5. Oracle: per-task
 * maxima [1, 1, 0.5, 0.5, 1], mean 0.8. Forgotten by step 6: task 0 (solved at 2 and 4) and task 2 (solved at 2).
 */
const VAL: ValRecord = {
  format: 'opd-playground-val',
  version: 1,
  preset: 'easy',
  tasks: 5,
  samples: 2,
  taskTypes: ['pick', 'clean', 'pick', 'heat', 'clean'],
  checkpoints: [
    { step: 2, passRates: [1, 0, 0.5, 0, 0] },
    { step: 4, passRates: [0.5, 1, 0, 0, 0.5] },
    { step: 6, passRates: [0, 1, 0, 0.5, 1] },
  ],
};

describe('Checkpoints view data', () => {
  it('heatmap: rows by step, columns grouped by task type (alphabetical), values in words', () => {
    const h = heatmap(VAL, [4, 6]);
    expect(h.groups).toEqual([
      { type: 'clean', tasks: [1, 4] },
      { type: 'heat', tasks: [3] },
      { type: 'pick', tasks: [0, 2] },
    ]);
    expect(h.rows.map((r) => [r.step, r.kept, r.solved])).toEqual([
      [2, false, 2],
      [4, true, 3],
      [6, true, 3],
    ]);
    expect(h.rows[0].cells.map((c) => c.task)).toEqual([1, 4, 3, 0, 2]);
    expect(h.rows[0].cells.map((c) => c.rate)).toEqual([0, 0, 0, 1, 0.5]);
    expect(h.rows[0].cells.map((c) => c.solved)).toEqual([false, false, false, true, true]);
    expect(h.rows[0].cells[4].label).toBe('step 2, val task 2 (pick): pass rate 50% (1 of 2), solved');
    expect(h.rows[1].cells[0].label).toBe('step 4, val task 1 (clean): pass rate 100% (2 of 2), solved');
    expect(h.rows[2].cells[3].label).toBe('step 6, val task 0 (pick): pass rate 0% (0 of 2)');
    expect([h.tasks, h.samples]).toEqual([5, 2]);
  });

  it('bars: best 3/5, union 5/5, oracle mean pass rate 0.8; per type', () => {
    const b = coverageBars(VAL);
    expect(b.bestStep).toBe(6);
    expect(b.bars.map((x) => [x.id, x.value])).toEqual([
      ['best', 0.6],
      ['union', 1],
      ['oracle', 0.8],
    ]);
    expect(b.bars.map((x) => x.text)).toEqual([
      '3 of 5 val tasks solved (60%)',
      '5 of 5 val tasks solved by some checkpoint (100%)',
      'mean pass rate 80%',
    ]);
    expect(b.bars[0].label).toBe('Best checkpoint (step 6)');
    expect(b.byType).toEqual([
      { type: 'clean', tasks: 2, best: 2, union: 2 },
      { type: 'heat', tasks: 1, best: 1, union: 1 },
      { type: 'pick', tasks: 2, best: 0, union: 2 },
    ]);
  });

  it('noise line: union − best 2; one policy with pooled rates gives union 4.3 at 2 episodes per task', () => {
    // Pooled p = [0.5, 2/3, 1/6, 1/6, 0.5]; solved needs 1 of 2, s = 1 − (1 − p)²; E[union] = Σ 1 − (1 − s)³
    // = 2·0.984375 + 0.998628 + 2·0.665102 = 4.2976.
    const t = coverageBars(VAL).noise;
    expect(t).toMatch(
      new RegExp(
        '^Union − best: 2 val tasks\\. ' +
          "If all 3 checkpoints were one policy \\(each task's pass rate pooled over them\\), " +
          'noise alone would give \\d\\.\\d at 2 episodes per task \\(best \\d\\.\\d, union 4\\.3\\)\\. ' +
          'With 16 episodes per task it would be \\d\\.\\d\\.$',
      ),
    );
  });

  it('forgotten: tasks 0 and 2, with the earlier steps that solved them', () => {
    expect(forgottenTasks(VAL)).toEqual([
      { task: 0, type: 'pick', solvedAt: [2, 4], bestRate: 0 },
      { task: 2, type: 'pick', solvedAt: [2], bestRate: 0 },
    ]);
  });

  it('rounds: the chosen teacher first with the scores that chose it; union has none', () => {
    const rows = roundRows([
      {
        round: 1,
        afterStep: 0,
        teacherId: 4,
        scores: [
          { id: 2, score: 1, gain: 1, typeCoverage: 1 },
          { id: 4, score: 2, gain: 2, typeCoverage: 2 },
        ],
        studentSolved: 3,
        nothingToLearn: false,
      },
      { round: 2, afterStep: 5, teacherId: null, scores: [], studentSolved: 5, nothingToLearn: true },
    ]);
    expect(rows[0]).toEqual({
      round: 1,
      afterStep: 0,
      teacher: 'step 4',
      scores: ['step 4: score 2 (gain 2, 2 types)', 'step 2: score 1 (gain 1, 1 type)'],
      studentSolved: 3,
      nothingToLearn: false,
    });
    expect(rows[1].teacher).toBe('one per task (union)');
  });

  it('LAD series from step events; byte counts in words', () => {
    const s = (step: number, extra: Partial<StepEvent>) => ({ event: 'step', step, ...extra }) as StepEvent;
    expect(
      ladSeries(
        [
          s(1, {}),
          s(2, { ladShare: 0.25, teacherId: 4, reverseKl: 0.5, teacherRolloutCalls: 3 }),
          s(3, { ladShare: 0, teacherId: null }),
        ],
        8,
      ),
    ).toEqual([
      { step: 2, ladShare: 0.25, teacherId: 4, reverseKl: 0.5, teacherEpisodes: 24 },
      { step: 3, ladShare: 0, teacherId: null, reverseKl: 0, teacherEpisodes: 0 },
    ]);
    expect([bytesText(999), bytesText(392_540), bytesText(3_140_000)]).toEqual(['999 B', '393 kB', '3.1 MB']);
  });
});
