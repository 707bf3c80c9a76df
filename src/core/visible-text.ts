/**
 * Text quoted back in a message, made visible: control and format characters written out, so that a value cannot
 * reorder the message (bidi overrides), hide in it (zero-width spaces) or drive the terminal (escape sequences).
 */

/** Control characters and bidi controls (they can make displayed text lie about its order), not plain spaces. */
const INVISIBLE = /[\p{Cc}\p{Cf}]/gu;

/**
 * `s` with each control or format character (U+202E right-to-left override, U+200B zero-width space, a tab, ESC …)
 * written as `\u{202E}`, so a value quoted back in a message shows what it holds and cannot reorder the message.
 */
export function visibleText(s: string): string {
  return s.replace(INVISIBLE, (ch) => `\\u{${ch.codePointAt(0)!.toString(16).toUpperCase()}}`);
}
