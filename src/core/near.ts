/**
 * The name a mistyped word most likely meant, for "did you mean …?" notes on links (src/ui/state/link.ts) and
 * command-line flags (cli/args.ts): one rule for both, so the page and the CLI suggest the same thing.
 */
import { editDistance } from './envs/hint';

/**
 * The entry of `names` that `word` most likely meant, or null: the one equal to it ignoring case, `-`, `_` and
 * spaces; else the only one it is a prefix of (`op` → opid; at least 2 characters, and not when several start with
 * it, e.g. `a` or `grp` with grpo and grpo-x); else the only one holding it inside (`gpu` → webgpu rather than cpu,
 * one edit away; at least 3 characters, and not when several hold it); else the nearest by Levenshtein distance
 * (editDistance, envs/hint.ts) within max(1, ⌊length/3⌋) edits of the folded word, two neighbouring letters swapped
 * counting as one edit (`stpes` → steps, `seeed` → seed). Ties go to the earlier entry of `names`. An empty word
 * has no match.
 */
export function nearestName(word: string, names: readonly string[]): string | null {
  const fold = (s: string) => s.toLowerCase().replace(/[-_\s]/g, '');
  const w = fold(word);
  if (w === '') return null;
  const folded = names.map(fold);
  const same = folded.indexOf(w);
  if (same >= 0) return names[same];
  if (w.length >= 2) {
    const starts = names.filter((_, i) => folded[i].startsWith(w));
    if (starts.length === 1) return starts[0];
  }
  if (w.length >= 3) {
    const holds = names.filter((_, i) => folded[i].includes(w));
    if (holds.length === 1) return holds[0];
  }
  const limit = Math.max(1, Math.floor(w.length / 3));
  let best: string | null = null;
  let bestD = limit + 1;
  for (let i = 0; i < names.length; i++) {
    const d = oneSwap(w, folded[i]) ? 1 : editDistance(w, folded[i], bestD - 1);
    if (d < bestD) [best, bestD] = [names[i], d];
  }
  return best;
}

/** Whether `a` is `b` with two neighbouring characters swapped (`stpes`, `steps`). */
function oneSwap(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return i + 1 < a.length && a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2);
}
