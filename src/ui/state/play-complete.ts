/**
 * Completion of the Play view's action input from the admissible actions (pure functions; the Svelte component
 * src/ui/components/PlayInput.svelte wires them to Tab and the arrow keys). Text is compared as the environment
 * judges actions: leading spaces dropped, runs of whitespace as one space, lower-case. An admissible action that ends
 * in `[` is an open form (core/envs/types.ts `isOpenAction`): the person writes their own words after it, and the
 * closing `]` is added when they leave it out (core/envs/play.ts `closeOpenForm`, shared with `npm run play`), as a
 * policy's sampler closes the same free-text slot.
 */
import { isOpenAction } from '../../core/envs/types';

/**
 * The typed text as compared: leading whitespace dropped, whitespace runs as one space (a trailing one kept),
 * lower-case.
 */
export function typed(text: string): string {
  return text.replace(/^\s+/, '').replace(/\s+/g, ' ').toLowerCase();
}

/**
 * The admissible actions to offer for `text`, in the environment's order: first those that start with it, then
 * those that contain it elsewhere (`laptop` offers `take laptop 1 from desk 1`). Empty text offers them all.
 */
export function suggestions(text: string, admissible: readonly string[]): string[] {
  const t = typed(text);
  if (t === '') return [...admissible];
  const starts = admissible.filter((a) => a.startsWith(t));
  return [...starts, ...admissible.filter((a) => !a.startsWith(t) && a.includes(t.trim()))];
}

/** The longest common prefix of `xs` ('' for none). */
export function commonPrefix(xs: readonly string[]): string {
  if (xs.length === 0) return '';
  let p = xs[0];
  for (const x of xs) while (!x.startsWith(p)) p = p.slice(0, -1);
  return p;
}

/**
 * What Tab does to `text`, as a shell does: the one admissible action it starts, or the longest prefix its
 * admissible continuations share when that is longer than the text; null when Tab cannot extend it (no
 * continuation, or several that part right here: then the caller moves through them instead).
 * e.g. `ta` with `take candle 2 from desk 1`, `take laptop 1 from desk 1` → `take `.
 */
export function tabComplete(text: string, admissible: readonly string[]): string | null {
  const t = typed(text);
  const starts = admissible.filter((a) => a.startsWith(t));
  if (starts.length === 0) return null;
  if (starts.length === 1) return starts[0] === t && text === t ? null : starts[0];
  const p = commonPrefix(starts);
  return p.length > t.length ? p : null;
}

/**
 * The next highlighted suggestion when moving by `delta` (+1 down, −1 up) from `current` (−1: none) among `count`,
 * wrapping around; −1 when there are none.
 */
export function moveHighlight(current: number, delta: 1 | -1, count: number): number {
  if (count <= 0) return -1;
  if (current < 0) return delta > 0 ? 0 : count - 1;
  return (current + delta + count) % count;
}

/** The admissible open forms (actions ending in `[` that take the person's own words), in the environment's order. */
export function openForms(admissible: readonly string[]): string[] {
  return admissible.filter(isOpenAction);
}

/**
 * The open form `text` is, exactly (nothing typed after it), or null: such a text is not played, the person's words
 * are still to come. e.g. `Search[` with `search[` admissible → `search[`.
 */
export function bareOpenForm(text: string, admissible: readonly string[]): string | null {
  const t = typed(text).trim();
  return openForms(admissible).find((a) => a === t) ?? null;
}

/**
 * The line the Play view shows under its input while an open form is admissible, e.g. `search[…] takes your own
 * words: type them after the [ and press Enter (the closing ] is added if you leave it out).`; '' when none is.
 */
export function openFormHelp(admissible: readonly string[]): string {
  const open = openForms(admissible);
  if (open.length === 0) return '';
  const names = open.map((a) => `${a}…]`).join(' and ');
  const verb = open.length === 1 ? 'takes' : 'take';
  const how = 'type them after the [ and press Enter (the closing ] is added if you leave it out)';
  return `${names} ${verb} your own words: ${how}.`;
}
