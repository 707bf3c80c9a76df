/**
 * Completion of the Play view's action input from the admissible actions (pure functions; the Svelte component
 * src/ui/components/PlayInput.svelte wires them to Tab and the arrow keys). Text is compared as the environment
 * judges actions: leading spaces dropped, runs of whitespace as one space, lower-case.
 */

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
