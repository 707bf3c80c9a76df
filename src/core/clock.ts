/**
 * The core's one wall clock, for the timings it reports (step, phase, rollout, evaluation and analyzer milliseconds).
 * A leaf module: it imports nothing. Timings never feed a number of the run, only the fields named `…Ms`.
 */

/**
 * Wall-clock time in milliseconds (fractional): `performance.now()` where the runtime has `performance` (browsers,
 * workers, Node), else `Date.now()`. Only differences of two readings mean anything.
 */
export function now(): number {
  return typeof performance !== 'undefined' ? performance.now() : Date.now();
}
