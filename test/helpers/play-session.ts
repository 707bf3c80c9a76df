/**
 * Running `npm run play` in-process on fixed input lines (cli/play.ts `play` with its line source and writers
 * replaced), for the CLI tests of play.
 */
import { play } from '../../cli/play';

/**
 * Run `play` with `argv` on the input `lines`; resolves with its exit code and everything it wrote to stdout (`out`)
 * and to stderr (`err`).
 */
export async function playSession(
  argv: string[],
  lines: string[],
): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await play(argv, {
    lines: (async function* () {
      yield* lines;
    })(),
    write: (s) => (out += s),
    error: (s) => (err += s),
  });
  return { code, out, err };
}
