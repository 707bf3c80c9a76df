/**
 * Plausible mistakes for searchqa's noisy demonstrator (`EnvSpec.plausibleMistake`, `npm run pretrain --
 * --noise-actions plausible`, src/core/pretrain/demos.ts): instead of an open form completed with random words of
 * the question (`search[the the]`), a wrong move a reader of the page could make — a search for, or an answer of, an
 * entity named in the question or in the passages on screen, or an answer of a year those passages hold. A weak
 * search agent picks the wrong hop or answers too early; it does not search stop words.
 *
 * Names are matched in any case and kept as written (`verdant press` in an NQ-style question), as whole names (no
 * letter or digit on either side), longest first, among every entity of the world (both worlds: the text decides
 * which names are there); years are four-digit numbers.
 */
import type { Rng } from '../../rng';
import { wholeNames } from './rename';
import { world } from './world';

let pattern: RegExp | null = null;

/** Every entity name of the world as one pattern (rename.ts `wholeNames`; built once). */
function namePattern(): RegExp {
  pattern ??= wholeNames(world().entities.map((e) => e.name));
  return pattern;
}

/**
 * A plausible mistake for one noisy step: `search[name]` or `answer[name]` for an entity named in `task` or
 * `observation`, or `answer[year]` for a year the observation holds, drawn uniformly from those moves (each distinct
 * move once). Undefined when the texts name no entity and hold no year (the caller draws a random action instead).
 * @param task the task line (the question); @param observation the observation shown at this step;
 * @param rng the demonstrator's generator (one or two draws).
 */
export function searchqaPlausibleMistake(task: string, observation: string, rng: Rng): string | undefined {
  const names = [...new Set([...`${task}\n${observation}`.matchAll(namePattern())].map((m) => m[0]))];
  const years = [...new Set(observation.match(/(?<![\p{L}\p{N}])\d{4}(?![\p{L}\p{N}])/gu) ?? [])];
  const moves = [...names.map((n) => `search[${n}]`), ...names.map((n) => `answer[${n}]`)];
  moves.push(...years.map((y) => `answer[${y}]`));
  return moves.length ? rng.pick(moves) : undefined;
}
