/**
 * Which train-split tasks pretraining demonstrates, when the demonstrations are weighted by task type (a QA env's
 * benchmark subsets, ALFWorld's six types): a stage that shifts a base policy towards the types it fails (the
 * multi-hop subsets) and away from those it already solves, without a new environment or split.
 */
import type { EnvSpec, Split } from '../envs/types';
import type { Rng } from '../rng';
import { nearestName } from '../near';

/** Relative weight per task type (need not sum to 1); a type left out weighs 1, a type at 0 is never demonstrated. */
export type TypeWeights = Readonly<Record<string, number>>;

/**
 * Parse `type=weight,…` (e.g. `popqa=0.2,musique=4`) against the env's task types for the preset (`spec.taskTypes`).
 * Weights are numbers ≥ 0; a type given twice is refused.
 * @throws Error naming the bad part, the accepted types (and the one a misspelt type most likely meant) or the fix.
 */
export function parseTypeWeights(s: string, types: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const part of s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean)) {
    const m = /^([^=\s]+)=([0-9]*\.?[0-9]+)$/.exec(part);
    if (!m || !types.includes(m[1])) {
      const type = part.split('=')[0];
      const near = m && !types.includes(type) ? nearestName(type, types) : null;
      throw new Error(
        `type-weights: "${part}" is not type=weight with type one of ${types.join(', ')} and weight ≥ 0 ` +
          `(e.g. ${types[0]}=0.5)${near === null ? '' : `; did you mean ${near}=${m?.[2]}?`}`,
      );
    }
    if (Object.hasOwn(out, m[1])) throw new Error(`type-weights: ${m[1]} is given twice; give it once`);
    out[m[1]] = Number(m[2]);
  }
  if (Object.keys(out).length === 0) throw new Error('type-weights: empty; give type=weight pairs, e.g. a=0.5,b=2');
  return out;
}

/** Weight of `type` under `w` (1 when left out). */
function weightOf(w: TypeWeights, type: string): number {
  return Object.hasOwn(w, type) ? w[type] : 1;
}

/**
 * The indices of `split`'s tasks to demonstrate, in increasing order. Without `weights`: 0..tasks−1 (the default
 * pretraining, unchanged). With them: tasks are read in index order and each is kept with probability
 * weight(type) / max weight (a draw from `rng.fork('types/<index>')`, so the kept set depends on the seed and the
 * weights only), until `tasks` are kept.
 * @returns `tasks` indices; shape [tasks], integers ≥ 0.
 * @throws Error when every weight of the split's types is 0, or when `tasks` cannot be kept from the first
 *   1 000 × tasks indices (a type weighted far below the rest on a split that has few other tasks).
 */
export function pickTasks(
  spec: EnvSpec,
  o: { preset: string; split: Split; tasks: number; weights?: TypeWeights; rng: Rng },
): number[] {
  if (o.weights === undefined) return Array.from({ length: o.tasks }, (_, i) => i);
  const w = o.weights;
  const types = spec.taskTypes(o.preset);
  const max = Math.max(...types.map((t) => weightOf(w, t)));
  if (!(max > 0)) throw new Error('type-weights: every task type weighs 0; give at least one a weight > 0');
  const env = spec.create(o.preset);
  const out: number[] = [];
  const limit = o.tasks * 1000;
  for (let index = 0; out.length < o.tasks; index++) {
    if (index >= limit)
      throw new Error(
        `type-weights: only ${out.length} of ${o.tasks} ${o.split} tasks kept from the first ${limit}; raise the ` +
          'weights of the types this split holds',
      );
    const type = env.reset({ split: o.split, index }).taskType;
    if (o.rng.fork(`types/${index}`).next() < weightOf(w, type) / max) out.push(index);
  }
  return out;
}
