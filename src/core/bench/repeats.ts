/**
 * Summaries of a workload timed several times in a row, as microbenchmarks report them (e.g. Python's `timeit`
 * documentation recommends the best of several repeats; Google Benchmark reports the median next to the mean): on a
 * machine shared with other jobs a slow repeat says how busy the machine was, while the best repeat is the closest
 * to what the code itself can do. Pure: the timing is the caller's (src/core/bench/workloads.ts `matmulGflops`).
 */

/** Best, median and every repeat of a rate measured several times (same unit as the input, e.g. GFLOP/s). */
export interface RateRepeats {
  /** The highest rate of the repeats: the least disturbed one. */
  best: number;
  /** The median rate: the middle repeat, or the mean of the two middle ones for an even count. */
  median: number;
  /** Every repeat's rate, in the order measured. */
  runs: number[];
}

/**
 * Summarises repeated measurements of a rate (higher is faster): best = the maximum, median as in `RateRepeats`.
 * @param rates one rate per timed repeat, in the order measured (finite, ≥ 0).
 * @throws Error when `rates` is empty or holds a negative, NaN or infinite value (naming its index).
 */
export function summarizeRates(rates: readonly number[]): RateRepeats {
  if (rates.length === 0) throw new Error('summarizeRates: rates is empty; time at least one repeat');
  rates.forEach((r, i) => {
    if (!Number.isFinite(r) || r < 0)
      throw new Error(`summarizeRates: rates[${i}] must be a finite rate ≥ 0, got ${r}`);
  });
  const sorted = [...rates].sort((a, b) => a - b);
  const n = sorted.length,
    mid = n >> 1;
  const median = n % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  return { best: sorted[n - 1], median, runs: [...rates] };
}
