/**
 * How a number is written where a person types one: in a link (src/ui/state/link.ts) and after a command-line flag
 * (cli/args.ts). One rule for both, so a value a link accepts is one the CLI accepts:
 * - a number is decimal digits with an optional sign, decimal point and exponent: `120`, `-3`, `0.5`, `.5`, `1e-3`,
 *   `2E+4`; no spaces, no `0x`/`0b` forms, no `Infinity`, no empty text;
 * - an integer is such a number whose value is whole: `120`, `1e3` (1000) and `5.0` are integers, `1.5` is not.
 * Ranges are checked by the caller (the run-config schema, or the flag's bounds).
 */

/** The text of a number: sign, digits with an optional point, optional exponent. */
const NUMBER_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/**
 * The rule in words, for messages after "written in": "decimal digits (a point and an exponent such as 2e3 are
 * allowed)".
 */
export const NUMBER_TEXT_RULE = 'decimal digits (a point and an exponent such as 2e3 are allowed)';

/**
 * The value of `text` when it is written as a number (see the module comment), else null. `1e400` gives Infinity
 * (written as a number, too large for any range): callers refuse it by range, not as "not a number".
 * @param text the text as typed, not trimmed.
 */
export function readNumberText(text: string): number | null {
  return NUMBER_TEXT.test(text) ? Number(text) : null;
}
