/** The experiment runner's total ETA (cli/experiment.ts progress lines). */

/**
 * Minutes until every unfinished run is done: the steps they still have over the pace of the steps trained in this call
 * (all parallel runs together, so parallelism is in the pace); NaN before the first step.
 * @param left steps still to train, summed over the unfinished runs; `trained` steps trained in this call in `ms`.
 */
export function totalEtaMinutes(left: number, trained: number, ms: number): number {
  return trained > 0 ? (left * ms) / trained / 60000 : NaN;
}
