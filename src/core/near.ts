/**
 * The name a mistyped word most likely meant, for "did you mean …?" notes on links (src/ui/state/link.ts) and
 * command-line flags (cli/args.ts): one rule for both, so the page and the CLI suggest the same thing. Look-alike
 * characters (0 for o, 1 for l, Cyrillic and Greek letters drawn like Latin ones) count as the letters they look like,
 * and `lookAlikeNote` names those that cannot be told apart on screen.
 */
import { editDistance } from './envs/hint';

/**
 * The entry of `names` that `word` most likely meant, or null: the one equal to it ignoring case, `-`, `_` and
 * spaces; else the one equal to it once look-alikes are read as the letters they look like (`lookAlikeFold`:
 * `sh0p`, Cyrillic `ѕһор` or full-width `ｓｈｏｐ` → shop; every later rule compares words so read: `0p1d` is
 * one edit from opid); else the only one it is a prefix of (`op` → opid; at least 2 characters, and not when
 * several start with it, e.g. `a` or `grp` with grpo and grpo-x); else the only one holding it inside (`gpu` →
 * webgpu rather than cpu, one edit away; at least 3 characters, and not when several hold it); else the nearest by
 * Levenshtein distance (editDistance, envs/hint.ts) within max(1, ⌊length/3⌋) edits of the folded word, two
 * neighbouring letters swapped counting as one edit (`stpes` → steps, `seeed` → seed). Ties go to the earlier entry
 * of `names`. An empty word has no match.
 */
export function nearestName(word: string, names: readonly string[]): string | null {
  const plain = (s: string) => s.toLowerCase().replace(/[-_\s]/g, '');
  if (plain(word) === '') return null;
  const same = names.map(plain).indexOf(plain(word));
  if (same >= 0) return names[same];
  const fold = (s: string) => plain(lookAlikeFold(s));
  const w = fold(word);
  if (w === '') return null;
  const folded = names.map(fold);
  const alike = folded.indexOf(w);
  if (alike >= 0) return names[alike];
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

/**
 * Characters that look like a Latin letter, as that letter: the digits 0 (o) and 1 (l), and the Cyrillic and Greek
 * letters drawn like Latin ones in common fonts (both cases). Full-width and other compatibility forms are left to
 * NFKC (`ｓ` → s).
 */
const LOOK_ALIKES: Readonly<Record<string, string>> = {
  '0': 'o',
  '1': 'l',
  ...pairs('аaвbеeкkмmнhоoрpсcтtуyхxѕsіiјjһhԁdԛqԝwүyӏl'),
  ...pairs('АaВbЕeЅsІiЈjКkМmНhОoРpСcТtХxҮyҺhԀdԚqԜwӀl'),
  ...pairs('αaβbεeιiκkνvοoρpτtυuχxωw'),
  ...pairs('ΑaΒbΕeΖzΗhΙiΚkΜmΝnΟoΡpΤtΥyΧx'),
};

/** `'аaвb'` → `{а: 'a', в: 'b'}`: each character followed by the Latin letter it looks like. */
function pairs(s: string): Record<string, string> {
  const chars = [...s];
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < chars.length; i += 2) out[chars[i]] = chars[i + 1];
  return out;
}

/**
 * `word` with its look-alikes read as the letters they look like: compatibility forms normalised (NFKC: full-width
 * `ｓｈｏｐ` → shop), invisible format characters (zero-width spaces, joiners) dropped, then each character of
 * LOOK_ALIKES (0 → o, 1 → l, Cyrillic `ѕһор` → shop, Greek `ρο` → po) replaced. Case is kept.
 */
export function lookAlikeFold(word: string): string {
  return [...word.normalize('NFKC').replace(/\p{Cf}/gu, '')].map((c) => LOOK_ALIKES[c] ?? c).join('');
}

/**
 * The note for a did-you-mean on `word` when it holds characters drawn like Latin letters but that are not (a Cyrillic
 * or Greek look-alike, a full-width letter), each named once with its code point, so that a refusal of a word that
 * looks right on screen is explained: ` (written with look-alikes of Latin letters: ѕ U+0455, һ U+04BB, о U+043E,
 * р U+0440)` for Cyrillic `ѕһор`; '' when it holds none (the digits 0 and 1 are plain to see; invisible characters
 * are for the caller to show escaped).
 */
export function lookAlikeNote(word: string): string {
  const odd = [...new Set([...word])].filter((c) => /[^\x20-\x7e]/.test(c) && /^[A-Za-z]+$/.test(lookAlikeFold(c)));
  if (odd.length === 0) return '';
  const named = odd.map((c) => `${c} U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`);
  return ` (written with look-alikes of Latin letters: ${named.join(', ')})`;
}
