/**
 * Why an action did nothing, in words, for a person playing an environment (`npm run play`, the page's Play view):
 * instead of a bare `Nothing happens.`, say whether the action is no command of the preset at all, does not fit its
 * command's form, or is a command that is not possible in this state, and list the admissible actions. Only people
 * see these hints: the environment's own observation, which the policy reads, is unchanged.
 */
import { visibleText } from '../visible-text';
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
  /**
   * True when that action ended the episode (its last step): the list is then said as `admissible at that step: …`
   * and the hint ends with `the episode has ended`, as nothing is admissible now.
   */
  ended?: boolean;
}

/**
 * `"text"`, cut to HINT_QUOTE_MAX characters with a trailing `…`, its control characters written out (`\u{1B}`:
 * ../visible-text.ts), so a typed escape sequence is shown, not run by the terminal.
 */
function quote(text: string): string {
  return `"${visibleText(text.length > HINT_QUOTE_MAX ? `${text.slice(0, HINT_QUOTE_MAX - 1)}…` : text)}"`;
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
 * What to do with an open form (an action ending in `[`, types.ts `isOpenAction`, e.g. `search[`) sent with nothing
 * inside: `search[…] is an open form: complete it with your own words and a closing ], e.g. search[red shoes]`, the
 * example being that of the command form whose `CommandForm.example` starts with `open` (a store's `search[red
 * shoes]`, a QA env's `answer[Silver Vale]`); without such an example the text ends after `closing ]`. `open` is
 * judged normalised (`normalizeAction`). Used by `commandHint` and by `npm run play`'s text mode.
 */
export function openFormHint(open: string, forms: readonly CommandForm[] = []): string {
  const a = normalizeAction(open);
  const example = forms.find((f) => f.example !== undefined && normalizeAction(f.example).startsWith(a))?.example;
  const eg = example ? `, e.g. ${example}` : '';
  return `${a}…] is an open form: complete it with your own words and a closing ]${eg}`;
}

/**
 * The suggestion for `action` (normalised) in a hint: the words typed after an admissible open form with no closing
 * `]` are suggested closed (`search[x` → `did you mean "search[x]"?`, or `close it with ]` when that would be over
 * HINT_QUOTE_MAX characters); words after an open form's verb and a space (`search [x]`) are suggested without the
 * space; otherwise the closest admissible action (`closestAction`), an open form shown as `search[…]`; null when none
 * is close.
 */
function suggestion(action: string, admissible: readonly string[]): string | null {
  if (action === '') return null;
  // `search [x]`: a space between the verb and its bracket
  const squeezed = action.replace(/^([a-z]+) \[/, '$1[');
  if (
    squeezed !== action &&
    admissible.some((a) => isOpenAction(a) && squeezed.startsWith(a) && squeezed.length > a.length)
  ) {
    const closed = squeezed.endsWith(']') ? squeezed : `${squeezed}]`;
    return closed.length > HINT_QUOTE_MAX ? 'write it with no space before [' : `did you mean "${closed}"?`;
  }
  const open = admissible.filter(isOpenAction).find((a) => action.startsWith(a) && action.length > a.length);
  if (open !== undefined && !action.includes(']', open.length)) {
    const closed = `${action}]`;
    return closed.length > HINT_QUOTE_MAX ? 'close it with ]' : `did you mean "${closed}"?`;
  }
  const near = closestAction(action, admissible);
  return near === null ? null : `did you mean "${shown(near)}"?`;
}

/**
 * The hint for an action the environment judged not admissible (`StepResult.valid === false`); null for an
 * admissible one that is not an open form. One of, each followed, when one fits, by a suggestion
 * (`suggestion`: `; did you mean "…"?`, an open form's words closed with `]` or an admissible action within a few
 * edits) and then by `; admissible now: a, b, …` (or `; nothing is admissible now`):
 * - an admissible open form sent as it is listed (`search[`): `openFormHint`, with the env's example; sent with
 *   nothing inside (`search[]`): `"search[]" is empty; ` and the same;
 * - `an empty action is not a command`;
 * - `"fly to moon" is not a command of <env>/<preset>; commands here: go to …, take … from …, …`;
 * - `"take apple 1" does not fit the command "take … from …"` (a bracket command too: `"click[]" does not fit the
 *   command "click[…]"`);
 * - `"take apple 1 from desk 1" is a command of <env>/<preset>, but not possible now`;
 * - `"go to desk 1 take apple 1 from desk 1" holds 2 lines: an action is one line, one per step` for an action of
 *   several lines (which the environment reads as one, its line breaks as spaces), suggesting the first line when
 *   it is admissible.
 * Without `commands` the middle cases read `"x" is not admissible now`. Actions are judged normalised (trim,
 * collapse whitespace, lower-case), as the environment judges them.
 */
export function commandHint(x: HintInput): string | null {
  const action = normalizeAction(String(x.action));
  const bareOpen = isOpenAction(action) && x.admissible.includes(action);
  const emptyOpen = action.endsWith('[]') && x.admissible.includes(action.slice(0, -1));
  if (x.admissible.includes(action) && !bareOpen) return null;
  const where = `${x.env}/${x.preset}`;
  const parts: string[] = [];
  const forms = x.commands ?? [];
  // Lines are joined by the environment's whitespace rule, so two actions sent at once read as one long one.
  const lines = String(x.action)
    .split(/\r\n|[\n\r\u2028\u2029]/)
    .map(normalizeAction)
    .filter((l) => l !== '');
  if (lines.length > 1) {
    parts.push(`${quote(action)} holds ${lines.length} lines: an action is one line, one per step`);
    if (x.admissible.includes(lines[0])) parts.push(`did you mean "${shown(lines[0])}"?`);
  } else if (bareOpen) parts.push(openFormHint(action, forms));
  else if (emptyOpen) parts.push(`${quote(action)} is empty; ${openFormHint(action.slice(0, -1), forms)}`);
  else if (action === '') parts.push('an empty action is not a command');
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
  // The suggestion before the list, which can be long (a shop page's clicks): the likely fix is read first.
  const next = bareOpen || emptyOpen || lines.length > 1 ? null : suggestion(action, x.admissible);
  if (next !== null) parts.push(next);
  const when = x.ended ? 'at that step' : 'now';
  parts.push(
    x.admissible.length ? `admissible ${when}: ${x.admissible.map(shown).join(', ')}` : `nothing is admissible ${when}`,
  );
  if (x.ended) parts.push('the episode has ended');
  return parts.join('; ');
}
