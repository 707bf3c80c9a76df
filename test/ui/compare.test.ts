/** The Compare view's pure parts (src/ui/state/compare.ts): smoothing, overlaid series, byte counts. */
import { describe, expect, it } from 'vitest';
import {
  COMPARE_METRICS,
  SHORT_NAME,
  bytesText,
  compareChart,
  runColor,
  shortName,
  smooth,
} from '../../src/ui/state/compare';
import type { RecordEvent } from '../../src/core/run/record';

describe('smooth (bias-corrected EMA)', () => {
  it('matches hand-computed values and skips nulls', () => {
    // w = 0.5: s1 = 0.5·1 = 0.5 → 0.5/0.5 = 1; s2 = 0.25 + 0.5·3 = 1.75 → 1.75/0.75 = 2.333…; s3 = 0.875 + 0 =
    // 0.875 → 0.875/0.875 = 1
    const out = smooth([1, null, 3, 0], 0.5);
    expect(out[0]).toBeCloseTo(1, 12);
    expect(out[1]).toBeNull();
    expect(out[2]).toBeCloseTo(7 / 3, 12);
    expect(out[3]).toBeCloseTo(1, 12);
    expect(smooth([1, 2], 0)).toEqual([1, 2]);
    expect(() => smooth([1], 1)).toThrow(/smoothing must be in \[0, 1\)/);
  });
});

describe('compareChart', () => {
  const ev = (o: object) => o as RecordEvent;
  const a = [
    ev({ event: 'step', step: 1, successRate: 0.5 }),
    ev({ event: 'step', step: 2, successRate: 1 }),
    ev({ event: 'eval', step: 2, splits: { 'test-seen': { successRate: 0.25 } } }),
  ];
  const b = [ev({ event: 'step', step: 2, successRate: 0 }), ev({ event: 'step', step: 3, successRate: 0.5 })];
  it('puts each run on the union of steps, null where it has no point, one colour each', () => {
    const c = compareChart(
      [
        { name: 'a', events: a },
        { name: 'b', events: b },
      ],
      COMPARE_METRICS[0],
      0,
    );
    expect(c.xs).toEqual([1, 2, 3]);
    expect(c.series).toEqual([
      { label: 'a', color: runColor(0), values: [0.5, 1, null] },
      { label: 'b', color: runColor(1), values: [null, 0, 0.5] },
    ]);
    const seen = compareChart(
      [
        { name: 'a', events: a },
        { name: 'b', events: b },
      ],
      COMPARE_METRICS[1],
      0,
    );
    expect(seen).toEqual({
      xs: [2],
      series: [
        { label: 'a', color: runColor(0), values: [0.25] },
        { label: 'b', color: runColor(1), values: [null] },
      ],
    });
  });
  it('smooths each run over its own points', () => {
    const c = compareChart([{ name: 'b', events: b }], COMPARE_METRICS[0], 0.5);
    // b: 0 then 0.5 → s1 = 0 → 0; s2 = 0 + 0.25 = 0.25 → 0.25/0.75 = 1/3
    expect(c.series[0].values[0]).toBe(0);
    expect(c.series[0].values[1]).toBeCloseTo(1 / 3, 12);
    expect(runColor(8)).toBe(runColor(0));
  });
  it('writes byte counts in powers of 1024', () => {
    expect([
      bytesText(512),
      bytesText(1536),
      bytesText(5 * 1024 ** 2 + 1024 ** 2 / 2),
      bytesText(1.2 * 1024 ** 3),
    ]).toEqual(['512 B', '1.5 kB', '5.5 MB', '1.20 GB']);
  });
});

describe('shortName (legends and cards)', () => {
  it('keeps names up to the limit (default names whole) and cuts longer ones to the limit around …', () => {
    expect(SHORT_NAME).toBe(64);
    const dflt = 'agentic-opd household/medium seed 12 · 2026-11-30 11:20';
    expect(shortName(dflt)).toBe(dflt);
    expect(shortName('a'.repeat(64))).toBe('a'.repeat(64));
    const long = `${'a'.repeat(150)}${'b'.repeat(150)}`;
    expect(shortName(long)).toBe(`${'a'.repeat(32)}…${'b'.repeat(31)}`);
    expect(shortName(long).length).toBe(64);
    expect(shortName('grpo household/easy seed 1', 11)).toBe('grpo …eed 1');
    expect(shortName('grpo household', 6)).toBe('grp…ld');
  });
});
