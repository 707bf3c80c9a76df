/**
 * Keyboard shortcuts of the page (pure; no DOM needed): which key presses a view's own shortcut may take, and which
 * belong to the form control or editable text that has focus.
 */

/**
 * Whether `el`, the target of a key press, uses the arrow keys itself: a form control (`<select>`: ← / → change
 * its value; `<input>`, `<textarea>`: they move the caret or the slider) or editable text (contenteditable, also
 * inherited by the elements inside it). A page shortcut on those keys must then not fire. False for null and for any
 * other element (a button, a token, the turn panel itself). Reads only `tagName` and `isContentEditable`.
 */
export function isTypingTarget(el: EventTarget | null): boolean {
  const t = el as { tagName?: unknown; isContentEditable?: unknown } | null;
  if (t === null || typeof t !== 'object') return false;
  if (t.isContentEditable === true) return true;
  return typeof t.tagName === 'string' && ['INPUT', 'SELECT', 'TEXTAREA'].includes(t.tagName.toUpperCase());
}

/**
 * The explorer's turn stepping for one key press: +1 for → (next turn), −1 for ← (previous), 0 for any other key
 * and for an arrow pressed in a form control or editable text (isTypingTarget), which keeps the key for itself.
 */
export function turnStepOf(e: { key: string; target: EventTarget | null }): -1 | 0 | 1 {
  if (isTypingTarget(e.target)) return 0;
  return e.key === 'ArrowRight' ? 1 : e.key === 'ArrowLeft' ? -1 : 0;
}
