import { describe, expect, it } from 'vitest';
import { summarizeRates } from '../../../src/core/bench/repeats';

describe('summarizeRates', () => {
  it('best is the highest rate and median the middle one of an odd count, runs kept in order', () => {
    // sorted: 17.1, 24.1, 25.5, 28.8, 30.2 → best 30.2, median 25.5
    expect(summarizeRates([25.5, 17.1, 30.2, 24.1, 28.8])).toEqual({
      best: 30.2,
      median: 25.5,
      runs: [25.5, 17.1, 30.2, 24.1, 28.8],
    });
  });
  it('the median of an even count is the mean of the two middle rates', () => {
    // sorted: 10, 20, 30, 50 → median (20 + 30) / 2 = 25
    expect(summarizeRates([30, 10, 50, 20])).toEqual({ best: 50, median: 25, runs: [30, 10, 50, 20] });
  });
  it('one repeat is its own best and median', () => {
    expect(summarizeRates([12.5])).toEqual({ best: 12.5, median: 12.5, runs: [12.5] });
  });
  it("does not reorder the caller's array", () => {
    const rates = [3, 1, 2];
    summarizeRates(rates);
    expect(rates).toEqual([3, 1, 2]);
  });
  it('refuses an empty list and a non-finite or negative rate, naming the index', () => {
    expect(() => summarizeRates([])).toThrow('summarizeRates: rates is empty; time at least one repeat');
    expect(() => summarizeRates([1, Number.NaN])).toThrow('rates[1] must be a finite rate ≥ 0, got NaN');
    expect(() => summarizeRates([Infinity])).toThrow('rates[0] must be a finite rate ≥ 0, got Infinity');
    expect(() => summarizeRates([2, -1])).toThrow('rates[1] must be a finite rate ≥ 0, got -1');
  });
});
