/**
 * The words the page uses for where a new run's weights come from (InitSource `label`, worker/api.ts): one place
 * for the worker, which resolves a run's start (weights.ts resolveStart), and the page, which says what the next run
 * will start from (ui/state/next-init.ts).
 */

/** Label of fresh seeded weights, e.g. `fresh weights from seed 7`. */
export function scratchLabel(seed: number): string {
  return `fresh weights from seed ${seed}`;
}

/**
 * Label of the shipped base policy of an environment/preset and model size, e.g. `the base policy (pretrained;
 * <env>/<preset>, nano)`.
 */
export function baseLabel(env: string, preset: string, model: string): string {
  return `the base policy (pretrained; ${env}/${preset}, ${model})`;
}
