/**
 * Answer scoring, as Search-R1 (Jin et al. 2025, verl/utils/reward_score/qa_em.py) and the SQuAD v1.1 evaluation
 * script (Rajpurkar et al. 2016, evaluate-v1.1.py) score an answer against a list of gold aliases:
 *
 * - `normalizeAnswer` — SQuAD's `normalize_answer`: lower-case; remove ASCII punctuation (Python's
 *   `string.punctuation`, `!"#$%&'()*+,-./:;<=>?@[\]^_\`{|}~`; other punctuation such as `«` or `—` stays); replace
 *   the articles `a`, `an`, `the` standing as whole words by a space; split on whitespace and join with one space.
 *   Word boundaries are Unicode-aware, as Python 3's `\b` is on text: an article is whole only when no letter,
 *   combining mark, digit or `_` touches it (`\p{L}\p{M}\p{N}_` lookarounds with the `u` flag; JavaScript's own `\b`
 *   is ASCII-only and would strip the `a` of `éa`). Marks count as word characters here (CPython's `\w` leaves them
 *   out, so there a decomposed `a\u0301` would lose its `a`). Whitespace is Python's `str.split()` set.
 * - exact match (EM): the normalised answer equals some normalised gold (`em_check`). The env's reward and success.
 * - token F1: SQuAD's `f1_score` — the multiset overlap of normalised tokens, F1 = 2PR / (P + R), 0 when nothing is
 *   shared (an empty normalised answer scores 0, as in v1.1) — maximised over the golds.
 * - substring EM: some normalised gold is a substring of the normalised answer (`subem_check`; plain characters, so
 *   `kestrel hollow` is in `kestrel hollows`).
 *
 * Numbers are compared as text: `three` does not match `3`, nor `eighteen forty` `1840` (SQuAD's normalisation keeps
 * words and digits as written).
 */

/** Python's `string.punctuation` (the 32 ASCII punctuation characters), all occurrences. */
const PUNCTUATION = /[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]/g;
/** `a`, `an`, `the` as whole words: no letter, mark, digit or `_` on either side (Unicode-aware). */
const ARTICLES = /(?<![\p{L}\p{M}\p{N}_])(?:a|an|the)(?![\p{L}\p{M}\p{N}_])/gu;
/**
 * Python's `str.split()` whitespace: JavaScript's `\s` without U+FEFF, with U+001C–U+001F (the information
 * separators) and U+0085, built from code points (a regex literal may not hold control characters).
 */
const PYTHON_ONLY_SPACES = String.fromCharCode(0x1c, 0x1d, 0x1e, 0x1f, 0x85);
const WHITESPACE = new RegExp(
  `[\\t\\n\\v\\f\\r \\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000${PYTHON_ONLY_SPACES}]+`,
);

/** SQuAD v1.1's `normalize_answer` (see the module comment), e.g. `The  Azure Guild!` → `azure guild`. */
export function normalizeAnswer(s: string): string {
  const text = String(s).toLowerCase().replace(PUNCTUATION, '').replace(ARTICLES, ' ');
  return text
    .split(WHITESPACE)
    .filter((t) => t !== '')
    .join(' ');
}

/** @throws Error naming the field when the gold list is empty or a gold normalises to nothing. */
function checkGolds(golds: readonly string[]): string[] {
  if (!Array.isArray(golds) || golds.length === 0)
    throw new Error('searchqa score: golds must list at least one gold answer');
  const out = golds.map(normalizeAnswer);
  const empty = golds.find((_, i) => out[i] === '');
  if (empty !== undefined)
    throw new Error(`searchqa score: gold ${JSON.stringify(empty)} normalises to nothing; give a gold with a word`);
  return out;
}

/** SQuAD's `f1_score` of one prediction against one gold (token multisets after normalisation), in [0, 1]. */
export function f1Against(prediction: string, gold: string): number {
  const p = normalizeAnswer(prediction).split(' ').filter(Boolean);
  const g = normalizeAnswer(gold).split(' ').filter(Boolean);
  const counts = new Map<string, number>();
  for (const t of g) counts.set(t, (counts.get(t) ?? 0) + 1);
  let same = 0;
  for (const t of p) {
    const c = counts.get(t) ?? 0;
    if (c > 0) {
      same++;
      counts.set(t, c - 1);
    }
  }
  if (same === 0) return 0;
  const precision = same / p.length;
  const recall = same / g.length;
  return (2 * precision * recall) / (precision + recall);
}

/** An answer's three scores (each maximised over the golds). */
export interface AnswerScores {
  /** Exact match after normalisation: 1 or 0 (Search-R1's reward). */
  em: number;
  /** Token F1 in [0, 1]. */
  f1: number;
  /** Substring exact match: 1 when a normalised gold is inside the normalised answer, else 0. */
  subEm: number;
}

/**
 * EM, F1 and substring EM of `prediction` against the gold aliases.
 * @throws Error when `golds` is empty or a gold normalises to nothing (e.g. `the`).
 */
export function scoreAnswer(prediction: string, golds: readonly string[]): AnswerScores {
  const gs = checkGolds(golds);
  const p = normalizeAnswer(prediction);
  return {
    em: gs.some((g) => g === p) ? 1 : 0,
    f1: Math.max(...golds.map((g) => f1Against(prediction, g))),
    subEm: gs.some((g) => p.includes(g)) ? 1 : 0,
  };
}
