/**
 * `--help` text with its wrapped lines joined back (cli/args.ts `wrapHanging` breaks a flag's entry at spaces under
 * a hanging indent): a line that starts with 5 or more spaces continues the line above it, unless it starts a
 * train setting's facts line (`accepted: …`), which stays its own line. Tests match phrases, not line breaks.
 */
export function unwrapHelp(text: string): string {
  return text.replace(/\n {5,}(?! )(?!accepted: )/g, ' ');
}
