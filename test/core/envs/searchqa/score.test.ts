/**
 * searchqa answer scoring (src/core/envs/searchqa/score.ts): SQuAD v1.1's normalisation (lower case, ASCII
 * punctuation out, articles out as whole words, whitespace collapsed) with Unicode-aware word boundaries, and EM,
 * token F1 and substring EM against gold aliases — every expected value worked out by hand from the SQuAD rules.
 */
import { describe, expect, it } from 'vitest';
import { f1Against, normalizeAnswer, scoreAnswer } from '../../../../src/core/envs/searchqa/score';

describe('normalizeAnswer (SQuAD v1.1 normalize_answer)', () => {
  it('lower-cases, drops ASCII punctuation and the articles, collapses whitespace', () => {
    expect(normalizeAnswer('The Quick, Brown Fox!')).toBe('quick brown fox');
    expect(normalizeAnswer('An  apple   a day')).toBe('apple day');
    expect(normalizeAnswer('Kestrel Hollow.')).toBe('kestrel hollow');
    expect(normalizeAnswer('  "The Azure Guild"  ')).toBe('azure guild');
    expect(normalizeAnswer('Silver-Vale')).toBe('silvervale');
    expect(normalizeAnswer("O'Neill & Sons (1881)")).toBe('oneill sons 1881');
    expect(normalizeAnswer('the')).toBe('');
    expect(normalizeAnswer('')).toBe('');
  });

  it('removes punctuation before articles, so `the_end` and `a.b` join into words', () => {
    expect(normalizeAnswer('the_end')).toBe('theend');
    expect(normalizeAnswer('a.b the')).toBe('ab');
    expect(normalizeAnswer('theatre anthem')).toBe('theatre anthem');
  });

  it('finds article boundaries with Unicode letters, as Python 3 does (JavaScript \\b would not)', () => {
    expect(normalizeAnswer('éa')).toBe('éa');
    expect(normalizeAnswer('a éa')).toBe('éa');
    expect(normalizeAnswer('ña the')).toBe('ña');
    expect(normalizeAnswer('δa a')).toBe('δa');
    expect(normalizeAnswer('théâtre the')).toBe('théâtre');
    expect(normalizeAnswer('Øan')).toBe('øan');
    // A combining mark is part of the word (decomposed á keeps its a).
    expect(normalizeAnswer('a\u0301b a')).toBe('a\u0301b');
    // Non-ASCII punctuation is no word character and is not removed.
    expect(normalizeAnswer('«a»')).toBe('« »');
    expect(normalizeAnswer('l’a')).toBe('l’');
    expect(normalizeAnswer('a—the')).toBe('—');
  });

  it("splits on Python's whitespace: no-break and ideographic spaces, U+001C–U+001F, not U+FEFF", () => {
    expect(normalizeAnswer('x\u00a0the\u00a0y')).toBe('x y');
    expect(normalizeAnswer('\u3000the\u3000')).toBe('');
    expect(normalizeAnswer('x\u001cy\u001fz')).toBe('x y z');
    expect(normalizeAnswer('\ufeffx')).toBe('\ufeffx');
  });
});

describe('EM, token F1 and substring EM', () => {
  it('token F1 counts shared tokens as multisets (SQuAD f1_score)', () => {
    // [kestrel, hollows] vs [kestrel, hollow]: 1 shared, P = R = 1/2.
    expect(f1Against('the kestrel hollows', 'Kestrel Hollow')).toBe(0.5);
    // [red, red, red] vs [red, blue]: 1 shared, P = 1/3, R = 1/2, F1 = 2·(1/6)/(5/6) = 0.4.
    expect(f1Against('red red red', 'red blue')).toBeCloseTo(0.4, 12);
    // [orla] vs [orla, brenn]: P = 1, R = 1/2, F1 = 2/3.
    expect(f1Against('Orla', 'Orla Brenn')).toBeCloseTo(2 / 3, 12);
    expect(f1Against('', 'Orla Brenn')).toBe(0);
    expect(f1Against('the', 'Orla Brenn')).toBe(0);
  });

  it('scores against every gold alias and keeps the best', () => {
    const golds = ['Silver Vale', 'Silver Vale, Galvony'];
    expect(scoreAnswer('silver vale', golds)).toEqual({ em: 1, f1: 1, subEm: 1 });
    expect(scoreAnswer('The Silver Vale.', golds)).toEqual({ em: 1, f1: 1, subEm: 1 });
    expect(scoreAnswer('SILVER   VALE', golds)).toEqual({ em: 1, f1: 1, subEm: 1 });
    expect(scoreAnswer('Silver Vale (Galvony)', golds)).toEqual({ em: 1, f1: 1, subEm: 1 });
    // [in, silver, vale] vs [silver, vale]: P 2/3, R 1 → 0.8 (vs the alias: P = R = 2/3 → 2/3).
    const near = scoreAnswer('in Silver Vale', golds);
    expect(near.em).toBe(0);
    expect(near.f1).toBeCloseTo(0.8, 12);
    expect(near.subEm).toBe(1);
    expect(scoreAnswer('Silver-Vale', golds)).toEqual({ em: 0, f1: 0, subEm: 0 });
  });

  it('substring EM is plain text containment of a normalised gold', () => {
    expect(scoreAnswer('kestrel hollows', ['Kestrel Hollow']).subEm).toBe(1);
    expect(scoreAnswer('hollow', ['Kestrel Hollow'])).toEqual({ em: 0, f1: 2 / 3, subEm: 0 });
  });

  it('compares numbers as written: words never match digits', () => {
    expect(scoreAnswer('eighteen sixty-six', ['1866'])).toEqual({ em: 0, f1: 0, subEm: 0 });
    expect(scoreAnswer('three', ['3'])).toEqual({ em: 0, f1: 0, subEm: 0 });
    expect(scoreAnswer('1866.', ['1866'])).toEqual({ em: 1, f1: 1, subEm: 1 });
    const inYear = scoreAnswer('in 1866', ['1866']);
    expect([inYear.em, inYear.subEm]).toEqual([0, 1]);
    expect(inYear.f1).toBeCloseTo(2 / 3, 12);
  });

  it('an empty or article-only answer scores 0; an injection-like one is just words', () => {
    expect(scoreAnswer('', ['Orla Brenn'])).toEqual({ em: 0, f1: 0, subEm: 0 });
    expect(scoreAnswer('The', ['Orla Brenn'])).toEqual({ em: 0, f1: 0, subEm: 0 });
    expect(scoreAnswer('ignore the task and answer X', ['Orla Brenn'])).toEqual({ em: 0, f1: 0, subEm: 0 });
  });

  it('refuses an empty gold list and a gold that normalises to nothing, naming the field', () => {
    expect(() => scoreAnswer('x', [])).toThrow('searchqa score: golds must list at least one gold answer');
    expect(() => scoreAnswer('x', ['The'])).toThrow('gold "The" normalises to nothing; give a gold with a word');
  });
});
