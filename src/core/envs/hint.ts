/**
 * Why an action did nothing, in words, for a person playing an environment (`npm run play`, the page's Play view):
 * instead of a bare `Nothing happens.`, say whether the action is no command of the preset at all, does not fit its
 * command's form, or is a command that is not possible in this state, and list the admissible actions. Only people
 * see these hints: the environment's own observation, which the policy reads, is unchanged.
 */
import { isOpenAction, normalizeAction, type CommandForm } from './types';

/** Longest action text quoted in a hint (characters); a longer one is cut and ends with `…`. */
export const HINT_QUOTE_MAX = 60;

/** What `commandHint` needs to know. */
export interface HintInput {
  /** Environment and preset, for the text (`<env>/<preset>`). */
  env: string;
  preset: string;
  /** The preset's command forms (`EnvSpec.commands`); absent when the environment lists none. */
  commands?: readonly CommandForm[];
  /** The action as the person typed it (any string). */
  action: string;
  /** The admissible actions of the state the action was tried in (normalised, in the environment's order). */
  admissible: readonly string[];
}

/** `"text"`, cut to HINT_QUOTE_MAX characters with a trailing `…`. */
function quote(text: string): string {
  return `"${text.length > HINT_QUOTE_MAX ? `${text.slice(0, HINT_QUOTE_MAX - 1)}…` : text}"`;
}

/**
 * An admissible action as a hint lists it: an open form (an action ending in `[` that takes the person's own words,
 * types.ts `isOpenAction`) as `search[…]`, any other as it is.
 */
function shown(action: string): string {
  return isOpenAction(action) ? `${action}…]` : action;
}

/**
 * Levenshtein distance (insertions, deletions, substitutions of UTF-16 code units) between `a` and `b`, stopping
 * early once every path exceeds `limit` (then returns `limit + 1`). O(|a|·|b|) time, O(|b|) memory.
 */
export function editDistance(a: string, b: string, limit = Infinity): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const v = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      row.push(v);
      if (v < best) best = v;
    }
    if (best > limit) return limit + 1;
    prev = row;
  }
  return prev[b.length];
}

/**
 * The admissible action closest to `action` by edit distance, when it is within max(2, ⌊|action|/4⌋) edits (a typo,
 * or another object of the same command); the first in admissible order on a tie; null when none is that close.
 */
export function closestAction(action: string, admissible: readonly string[]): string | null {
  const limit = Math.max(2, Math.floor(action.length / 4));
  let best: string | null = null;
  let bestD = limit + 1;
  for (const a of admissible) {
    const d = editDistance(action, a, bestD - 1);
    if (d < bestD) {
      best = a;
      bestD = d;
    }
  }
  return best;
}

/**
 * The hint for an action the environment judged not admissible (`StepResult.valid === false`); null for an
 * admissible one. One of, each followed by `; admissible now: a, b, …` (or `; nothing is admissible now`) and, when
 * an admissible action is within a few edits, `; did you mean "…"?`:
 * - `an empty action is not a command`;
 * - `"fly to moon" is not a command of <env>/<preset>; commands here: go to …, take … from …, …`;
 * - `"take apple 1" does not fit the command "take … from …"` (a bracket command too: `"click[]" does not fit the
 *   command "click[…]"`);
 * - `"take apple 1 from desk 1" is a command of <env>/<preset>, but not possible now`.
 * Without `commands` the middle cases read `"x" is not admissible now`. Actions are judged normalised (trim,
 * collapse whitespace, lower-case), as the environment judges them.
 */
export function commandHint(x: HintInput): string | null {
  const action = normalizeAction(String(x.action));
  if (x.admissible.includes(action)) return null;
  const where = `${x.env}/${x.preset}`;
  const parts: string[] = [];
  const forms = x.commands ?? [];
  if (action === '') parts.push('an empty action is not a command');
  else if (forms.length === 0) parts.push(`${quote(action)} is not admissible now`);
  else {
    // A verb is followed by a space (`take … from …`) or a bracket (`click[…]`).
    const own = forms.filter(
      (f) => action === f.verb || action.startsWith(`${f.verb} `) || action.startsWith(`${f.verb}[`),
    );
    if (own.length === 0) {
      parts.push(
        `${quote(action)} is not a command of ${where}; commands here: ${forms.map((f) => f.form).join(', ')}`,
      );
    } else if (!own.some((f) => f.pattern.test(action))) {
      parts.push(`${quote(action)} does not fit the command ${own.map((f) => `"${f.form}"`).join(' or ')}`);
    } else {
      parts.push(`${quote(action)} is a command of ${where}, but not possible now`);
    }
  }
  parts.push(
    x.admissible.length ? `admissible now: ${x.admissible.map(shown).join(', ')}` : 'nothing is admissible now',
  );
  const near = action === '' ? null : closestAction(action, x.admissible);
  if (near !== null) parts.push(`did you mean "${near}"?`);
  return parts.join('; ');
}
