import { describe, expect, it } from 'vitest';
import { Tokenizer, pieces, SPECIAL_TOKENS } from '../../../src/core/tokenizer/tokenizer';
import { Rng } from '../../../src/core/rng';
import { buildTokenizer } from '../../../src/core/model/policy';
import { getEnvSpec } from '../../../src/core/envs/registry';

const tok = Tokenizer.fromCorpus(['You arrive at fridge 1.', 'go to fridge 1', 'take apple 1 from countertop 2']);

describe('tokenizer', () => {
  it('splits into pieces that rejoin exactly', () => {
    expect(pieces('go to  fridge 1.\n')).toEqual(['go', ' to', ' ', ' fridge', ' 1', '.', '\n']);
  });
  it('in-vocabulary words are single tokens', () => {
    const ids = tok.encode('go to fridge 1');
    expect(ids.length).toBe(4);
    expect(ids.map((i) => tok.tokenText(i))).toEqual(['go', ' to', ' fridge', ' 1']);
  });
  it('round-trips arbitrary text exactly (byte fallback)', () => {
    const rng = new Rng(5);
    const alphabet = [
      'a',
      'Z',
      ' ',
      '  ',
      '\n',
      '\t',
      '1',
      '99',
      '.',
      ',',
      '<eos>',
      'é',
      '漢字',
      '🙂',
      '\u0000',
      'fridge',
      ' apple',
    ];
    for (let n = 0; n < 200; n++) {
      let s = '';
      const len = rng.int(30);
      for (let i = 0; i < len; i++) {
        const cp = 32 + rng.int(0x2ffff - 32);
        // any code point except the surrogate range (a lone surrogate is not valid UTF-16 text)
        s += rng.next() < 0.2 && (cp < 0xd800 || cp > 0xdfff) ? String.fromCodePoint(cp) : rng.pick(alphabet);
      }
      expect(tok.decode(tok.encode(s))).toBe(s);
    }
    expect(tok.decode(tok.encode(''))).toBe('');
  });
  it('never produces special tokens from text', () => {
    const ids = tok.encode('<eos><pad><bos>');
    expect(ids.every((i) => !tok.isSpecial(i))).toBe(true);
    expect(tok.decode(ids)).toBe('<eos><pad><bos>');
  });
  it('special ids are fixed and decode by name', () => {
    expect(tok.special('<pad>')).toBe(0);
    expect(tok.special('<eos>')).toBe(SPECIAL_TOKENS.indexOf('<eos>'));
    expect(tok.decode([tok.special('<eos>')])).toBe('<eos>');
    expect(tok.decode([tok.special('<eos>')], { skipSpecial: true })).toBe('');
  });
  it('rejects out-of-range ids', () => {
    expect(() => tok.decode([tok.size])).toThrow(/out of range/);
  });
  it('the household vocabulary is deterministic and covers env text without byte fallback', () => {
    const spec = getEnvSpec('household');
    const a = buildTokenizer(spec),
      b = buildTokenizer(spec);
    expect(a.tokens).toEqual(b.tokens);
    for (const line of spec.vocabularyCorpus().slice(0, 500)) {
      // one token per piece: words are vocabulary tokens, single ASCII characters their byte token
      expect(a.encode(' ' + line).length).toBe(pieces(' ' + line).length);
    }
  });
});
