/**
 * How much of a solved matrix's union-over-best gap sampling noise alone would produce.
 *
 * A val task counts as solved at a checkpoint when at least half of its r episodes succeed (SOLVED_AT). With small
 * r, a task that every checkpoint solves with probability 0.4 is "solved" by some checkpoints and not by others by
 * chance, so the union over K checkpoints exceeds the best single checkpoint even when no checkpoint knows anything
 * another does not. Agentic-OPD (2026; docs/references.md#agentic-opd) reads that gap as knowledge the best checkpoint
 * lost; this module gives the gap expected if every checkpoint were the same policy, so a user sees how much of the
 * observed gap is real.
 *
 * Null model ("one policy"): every checkpoint plays task q with the same success probability p_q, the task's pass
 * rate pooled over all checkpoints (mean of the matrix column), and its r episodes are independent Bernoulli(p_q)
 * draws. Then, exactly (no sampling):
 * - s_q = P(Binomial(r, p_q) ≥ k_min), k_min = ⌈SOLVED_AT·r⌉: the chance one checkpoint solves q;
 * - E[union] = Σ_q 1 − (1 − s_q)^K;
 * - a checkpoint's solved count X = Σ_q Bernoulli(s_q) (Poisson-binomial, by dynamic programming), and the best of
 *   K independent checkpoints has E[max] = Σ_{k=1..n} 1 − F_X(k − 1)^K;
 * - the expected gap is E[union] − E[max] (linearity of expectation).
 * Pure arithmetic on numbers; no random draws.
 */
import { counted } from '../count-text';

/** Expected coverage numbers under the one-policy null model (module docstring). Counts are in val tasks (reals). */
export interface NoiseBaseline {
  /** Episodes per task and checkpoint the figures assume (r). */
  samples: number;
  /** Checkpoints (K). */
  checkpoints: number;
  /** E[tasks solved by the best single checkpoint] under the null. */
  expectedBest: number;
  /** E[tasks solved by at least one checkpoint] under the null. */
  expectedUnion: number;
  /** expectedUnion − expectedBest: the union-over-best gap that noise alone gives. */
  expectedGap: number;
}

/**
 * P(Binomial(n, p) ≥ k) for integers 0 ≤ k, n ≥ 0 and p ∈ [0, 1], summed term by term (exact up to float
 * rounding).
 * @throws RangeError on a non-integer or negative n or k, or p outside [0, 1].
 */
export function binomialTail(n: number, p: number, k: number): number {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`binomialTail: n must be an integer ≥ 0, got ${n}`);
  if (!Number.isInteger(k) || k < 0) throw new RangeError(`binomialTail: k must be an integer ≥ 0, got ${k}`);
  if (!(p >= 0 && p <= 1)) throw new RangeError(`binomialTail: p must be in [0, 1], got ${p}`);
  let tail = 0;
  let choose = 1; // C(n, j), built up from j = 0
  for (let j = 0; j <= n; j++) {
    if (j > 0) choose = (choose * (n - j + 1)) / j;
    if (j >= k) tail += choose * p ** j * (1 - p) ** (n - j);
  }
  return Math.min(1, tail);
}

/**
 * Distribution of a sum of independent Bernoulli(s_i) (Poisson-binomial): element k is P(X = k), length n + 1.
 * @throws RangeError when some s_i is outside [0, 1].
 */
export function poissonBinomial(s: readonly number[]): number[] {
  let dist = [1];
  for (const [i, si] of s.entries()) {
    if (!(si >= 0 && si <= 1)) throw new RangeError(`poissonBinomial: probability ${i} must be in [0, 1], got ${si}`);
    const next = new Array<number>(dist.length + 1).fill(0);
    for (let k = 0; k < dist.length; k++) {
      next[k] += dist[k] * (1 - si);
      next[k + 1] += dist[k] * si;
    }
    dist = next;
  }
  return dist;
}

/**
 * The one-policy null model's expected best, union and gap (module docstring) for pooled per-task pass rates.
 * @param pooled  p_q per val task, each in [0, 1] (the solved matrix's column means).
 * @param samples r, episodes per task and checkpoint (integer ≥ 1); pass a larger r than the record's to see how
 *                much the noise gap would shrink with more validation episodes.
 * @param checkpoints K ≥ 1.
 * @param solvedAt the pass rate at which a task counts as solved (the record's SOLVED_AT, 0.5), in (0, 1].
 * @throws RangeError on r or K not a positive integer, solvedAt outside (0, 1], or a p_q outside [0, 1].
 */
export function noiseBaseline(
  pooled: readonly number[],
  samples: number,
  checkpoints: number,
  solvedAt: number,
): NoiseBaseline {
  if (!(solvedAt > 0 && solvedAt <= 1))
    throw new RangeError(`noiseBaseline: solvedAt must be in (0, 1], got ${solvedAt}`);
  if (!Number.isInteger(samples) || samples < 1)
    throw new RangeError(`noiseBaseline: samples must be an integer ≥ 1, got ${samples}`);
  if (!Number.isInteger(checkpoints) || checkpoints < 1)
    throw new RangeError(`noiseBaseline: checkpoints must be an integer ≥ 1, got ${checkpoints}`);
  // Smallest success count whose pass rate k/r reaches SOLVED_AT (the same float comparison the record uses).
  let kMin = 0;
  while (kMin / samples < solvedAt) kMin++;
  const s = pooled.map((p, q) => {
    if (!(p >= 0 && p <= 1))
      throw new RangeError(`noiseBaseline: pooled pass rate of val task ${q} must be in [0, 1], got ${p}`);
    return binomialTail(samples, p, kMin);
  });
  const expectedUnion = s.reduce((a, sq) => a + 1 - (1 - sq) ** checkpoints, 0);
  const dist = poissonBinomial(s);
  let cdf = 0;
  let expectedBest = 0;
  for (let k = 1; k < dist.length; k++) {
    cdf += dist[k - 1]; // F(k − 1)
    expectedBest += 1 - Math.min(1, cdf) ** checkpoints;
  }
  return { samples, checkpoints, expectedBest, expectedUnion, expectedGap: expectedUnion - expectedBest };
}

/**
 * Column means of a solved matrix: each val task's pass rate pooled over checkpoints (all rows the same length n).
 * @throws RangeError on no rows or rows of different lengths.
 */
export function pooledPassRates(rows: readonly (readonly number[])[]): number[] {
  if (rows.length === 0) throw new RangeError('pooledPassRates: no checkpoint rows');
  const n = rows[0].length;
  rows.forEach((r, i) => {
    if (r.length !== n) throw new RangeError(`pooledPassRates: row ${i} has ${r.length} pass rates, row 0 has ${n}`);
  });
  return Array.from({ length: n }, (_, q) => rows.reduce((a, r) => a + r[q], 0) / rows.length);
}

/**
 * Whether an observed union − best gap (val tasks) is within what validation luck gives: at most 1.5× the one-policy
 * null model's expected gap. The rule the coverage report and the distillation stage's start line both use.
 */
export function gapWithinNoise(observedGap: number, noise: NoiseBaseline): boolean {
  return observedGap <= 1.5 * noise.expectedGap;
}

/**
 * One line for the start of a distillation stage: the union-over-best gap in val tasks and the gap the one-policy
 * null model expects (`noise`, from `coverage().noise.atRecorded`), with a warning when the observed gap is at most
 * 1.5× the noise's — then most of what the teachers "solve beyond the student" is validation luck (module
 * docstring).
 * @param observedGap union − best, in val tasks (integer ≥ 0).
 */
export function gapNoiseNote(observedGap: number, noise: NoiseBaseline): string {
  const base =
    `union − best: ${counted(observedGap, 'val task')}; validation noise ` +
    `alone gives ${noise.expectedGap.toFixed(1)} (one policy, ${counted(noise.samples, 'episode')} per ` +
    `task, ${counted(noise.checkpoints, 'checkpoint')})`;
  return gapWithinNoise(observedGap, noise)
    ? `${base} — most of the gap may be luck, so expect little to distil; validating the source with ` +
        `more episodes per task (train it with --val-samples 16, or npx tsx scripts/revalidate.ts --run DIR ` +
        `--samples 16 --out FILE) tells luck from real differences`
    : base;
}
