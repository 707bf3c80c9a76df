/**
 * The charts' tick labels, value tables and the Checkpoints view's coverage bars: neighbouring rate ticks never read
 * the same ("0 %" twice on a small range; pctTick with the ticks' spacing), nor do plain ones (a KL of 1e-5
 * nats/token gets "5e-5", not "0" at every tick; numTick), a chart's value table keeps the step-0
 * evaluation the chart draws once the run has more steps than the table's rows (tableRows), and a coverage bar's
 * length is its value's share of the track (barWidth), the same rule for best, union and oracle.
 */
import { describe, expect, it } from 'vitest';
import { numTick, pctTick, tickStep } from '../../src/ui/state/format';
import { successChart, tableRows } from '../../src/ui/state/chart-data';
import { barWidth } from '../../src/ui/state/checkpoints-view';
import type { EvalEvent, StepEvent } from '../../src/core/train/events';

/** Tick labels as Chart.svelte writes them: each tick with the spacing of its axis. */
const labels = (ticks: number[]) => ticks.map((v) => pctTick(v, tickStep(ticks)));

describe('rate axis ticks', () => {
  it('small ranges get the decimals they need: no label repeats', () => {
    for (const ticks of [
      [0, 0.002, 0.004, 0.006],
      [0, 0.0002, 0.0004],
      [0.1, 0.1025, 0.105],
      [0.99, 0.995, 1],
      [0, 0.25, 0.5, 0.75, 1],
    ]) {
      const l = labels(ticks);
      expect(new Set(l).size, l.join(' | ')).toBe(ticks.length);
    }
    expect(labels([0, 0.002, 0.004])).toEqual(['0 %', '0.2 %', '0.4 %']);
    expect(labels([0, 0.0002, 0.0004])).toEqual(['0 %', '0.02 %', '0.04 %']);
    expect(labels([0, 0.25, 0.5, 0.75, 1])).toEqual(['0 %', '25 %', '50 %', '75 %', '100 %']);
    expect(labels([0.1, 0.30000000000000004, 0.5])).toEqual(['10 %', '30 %', '50 %']);
    expect(labels([0.5])).toEqual(['50 %']); // one tick: the default 1 decimal at most
    expect(tickStep([0, 0, 0.1])).toBeCloseTo(0.1);
    expect(tickStep([0.3])).toBeUndefined();
  });
});

describe('plain axis ticks', () => {
  const plain = (ticks: number[]) => ticks.map((v) => numTick(v, tickStep(ticks)));
  it('tiny spacings in exponent form, others with the decimals they need and thousands separators', () => {
    expect(plain([0, 0.00005, 0.0001])).toEqual(['0', '5e-5', '1e-4']);
    expect(plain([0, 0.00002, 0.00004, 0.00006])).toEqual(['0', '2e-5', '4e-5', '6e-5']);
    expect(plain([-0.0001, 0, 0.0001])).toEqual(['-0.0001', '0', '0.0001']);
    expect(plain([-0.00001, 0, 0.00001])).toEqual(['-1e-5', '0', '1e-5']);
    expect(plain([0.00015000000000000001, 0.0002])).toEqual(['1.5e-4', '2e-4']);
    expect(plain([0.15, 0.2, 0.25])).toEqual(['0.15', '0.2', '0.25']);
    expect(plain([0.013, 0.0135, 0.014])).toEqual(['0.013', '0.0135', '0.014']);
    expect(plain([20000, 25000])).toEqual(['20,000', '25,000']);
    expect(plain([0.5])).toEqual(['0.5']); // one tick: 3 decimals at most
  });
});

describe('chart value table', () => {
  const step = (s: number) => ({ event: 'step', step: s, successRate: s / 20 }) as StepEvent;
  const evalAt = (s: number) =>
    ({
      event: 'eval',
      step: s,
      splits: { 'test-seen': { successRate: 0.1 }, 'test-unseen': { successRate: 0.05 } },
    }) as unknown as EvalEvent;

  it('keeps the step-0 evaluation when the run has more steps than rows', () => {
    const data = successChart(
      Array.from({ length: 12 }, (_, k) => step(k + 1)),
      [evalAt(0), evalAt(10)],
    );
    const rows = tableRows(data, 8);
    expect(rows.map((r) => r.x)).toEqual([0, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(data.series[1].values[rows[0].i]).toBe(0.1);
  });

  it('adds nothing when every step fits, or the first step has no value', () => {
    const data = successChart([step(1), step(2)], [evalAt(0)]);
    expect(tableRows(data, 8).map((r) => r.x)).toEqual([0, 1, 2]);
    const noEval = successChart(
      Array.from({ length: 10 }, (_, k) => step(k + 1)),
      [],
    );
    noEval.series[0].values[0] = null;
    expect(tableRows(noEval, 8).map((r) => r.x)).toEqual([3, 4, 5, 6, 7, 8, 9, 10]);
  });
});

describe('coverage bars', () => {
  it("a bar's width is its value's share of the track, clamped to [0, 1]", () => {
    expect(barWidth(0.5)).toBe('50%');
    expect(barWidth(2 / 6)).toBe('33.33%');
    expect(barWidth(0.8125)).toBe('81.25%');
    expect(barWidth(1.2)).toBe('100%');
    expect(barWidth(Number.NaN)).toBe('0%');
    const w = [1 / 6, 3 / 6, 0.62].map((v) => parseFloat(barWidth(v)));
    expect(w[1] / w[0]).toBeCloseTo(3, 2);
    expect(w[2] / w[1]).toBeCloseTo(0.62 / 0.5, 2);
  });
});
