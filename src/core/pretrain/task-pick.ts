/**
 * Which train-split tasks pretraining demonstrates, when the demonstrations are weighted by task type (a QA env's
 * benchmark subsets, ALFWorld's six types): a stage that shifts a base policy towards the types it fails (the
 * multi-hop subsets) and away from those it already solves, without a new environment or split.
 */
import { TRAIN_TASK_INDICES, type EnvSpec, type Split } from '../envs/types';
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
    if (m && types.includes(m[1]) && !Number.isFinite(Number(m[2])))
      throw new Error(`type-weights: ${m[1]}'s weight ${m[2].slice(0, 12)}… is too large; give a weight such as 4`);
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
  if (Object.keys(out).length === 0)
    throw new Error(`type-weights: empty; give type=weight pairs, e.g. ${types[0]}=0.5,${types.at(-1)}=2`);
  return out;
}

/** Weight of `type` under `w` (1 when left out). */
function weightOf(w: TypeWeights, type: string): number {
  return Object.hasOwn(w, type) ? w[type] : 1;
}

/** Tasks of a split read to learn which task types it holds (each type of every shipped env is ≥ 10% of a split). */
export const TYPES_SCAN = 1000;

/** The task types among the first TYPES_SCAN tasks of `split`, in the env's order. */
function typesIn(spec: EnvSpec, preset: string, split: Split): string[] {
  const env = spec.create(preset);
  const seen = new Set<string>();
  for (let index = 0; index < TYPES_SCAN; index++) seen.add(env.reset({ split, index }).taskType);
  return spec.taskTypes(preset).filter((t) => seen.has(t));
}

/**
 * Checks `weights` against the task types `split` holds: a type the split does not hold (a test-only type on
 * train) weighted above 0 is refused, and so are weights that leave every type it holds at 0.
 * @returns the split's task types (read from its first TYPES_SCAN tasks), in the env's order.
 * @throws Error naming the types and the fix.
 */
export function checkTypeWeights(spec: EnvSpec, preset: string, split: Split, weights: TypeWeights): string[] {
  const held = typesIn(spec, preset, split);
  const absent = Object.keys(weights).filter((t) => !held.includes(t) && weights[t] > 0);
  if (absent.length > 0)
    throw new Error(
      `type-weights: ${absent.join(', ')} ${absent.length === 1 ? 'is' : 'are'} not among the ${split} split's task ` +
        `types (${held.join(', ')}); leave ${absent.length === 1 ? 'it' : 'them'} out`,
    );
  if (!held.some((t) => weightOf(weights, t) > 0))
    throw new Error(
      `type-weights: every task type the ${split} split holds (${held.join(', ')}) weighs 0 (a type left out ` +
        'weighs 1); give at least one a weight > 0',
    );
  return held;
}

/**
 * The indices of `split`'s tasks to demonstrate, in increasing order. Without `weights`: 0..tasks−1 (the default
 * pretraining, unchanged). With them: tasks are read in index order and each is kept with probability
 * weight(type) / max weight (a draw from `rng.fork('types/<index>')`, so the kept set depends on the seed and the
 * weights only), until `tasks` are kept.
 * @returns `tasks` indices; shape [tasks], integers ≥ 0.
 * @throws Error from `checkTypeWeights`, or when `tasks` cannot be kept from the first min(1 000 × tasks,
 *   TRAIN_TASK_INDICES) indices (a type weighted far below the rest on a split that has few other tasks).
 */
export function pickTasks(
  spec: EnvSpec,
  o: { preset: string; split: Split; tasks: number; weights?: TypeWeights; rng: Rng },
): number[] {
  if (o.weights === undefined) return Array.from({ length: o.tasks }, (_, i) => i);
  const w = o.weights;
  const max = Math.max(...checkTypeWeights(spec, o.preset, o.split, w).map((t) => weightOf(w, t)));
  const env = spec.create(o.preset);
  const out: number[] = [];
  const limit = Math.min(o.tasks * 1000, TRAIN_TASK_INDICES);
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
