import { describe, expect, it } from 'vitest';
import { ActionTrie, freeTextSlot } from '../../../src/core/rollout/trie';
import { isOpenAction } from '../../../src/core/envs/types';
import { actionTokens } from '../../../src/core/rollout/prompt';
import { Tokenizer } from '../../../src/core/tokenizer/tokenizer';

/** Vocabulary: ` search`, ` click`, ` red`, ` shoes`, ` back`, ` ]`, `next` (one-character pieces are byte tokens). */
const tok = Tokenizer.fromVocab([' search', ' click', ' red', ' shoes', ' back', ' ]', 'next']);
const id = (piece: string) => tok.tokens.indexOf(piece);
const byte = (c: string) => tok.byteOffset + c.charCodeAt(0);
const eos = tok.special('<eos>');

describe('admissible decoding with a free-text slot (search[…])', () => {
  const adm = ['search[', 'click[back]'];
  const slot = freeTextSlot(tok);
  const trie = new ActionTrie(
    adm.map((a) => actionTokens(tok, a)),
    eos,
    adm.map(isOpenAction),
    slot,
  );
  const search = actionTokens(tok, 'search[');

  it('names open actions: a trailing unclosed [', () => {
    expect(adm.map(isOpenAction)).toEqual([true, false]);
    expect(search).toEqual([id(' search'), byte('[')]);
  });

  it('the slot holds vocabulary pieces and printable bytes, never a bracket or a special token', () => {
    const free = [...slot.free];
    expect(free).toContain(id(' red'));
    expect(free).toContain(byte('a'));
    expect(free).not.toContain(byte('['));
    expect(free).not.toContain(byte(']'));
    expect(free).not.toContain(id(' ]'));
    expect(free.some((t) => tok.isSpecial(t))).toBe(false);
    expect([...slot.close].sort((a, b) => a - b)).toEqual([byte(']'), id(' ]')].sort((a, b) => a - b));
    expect(slot.inside.length).toBe(slot.free.length + 2);
    expect([...slot.blank]).toEqual([byte(' ')]);
  });

  it('at the open prefix: free text, then ] too; after ]: only <eos>; after <eos> or past ]: nothing', () => {
    expect(trie.allowed([id(' search')])).toEqual(Int32Array.of(byte('[')));
    // no `]` before some text that is not blank: greedy decoding cannot send search[] or search[ ]
    const inside = trie.allowed(search);
    expect(inside).toBe(slot.free);
    expect(trie.allowed([...search, byte(' ')])).toBe(slot.free);
    expect(trie.allowed([...search, byte(' '), byte(' ')])).toBe(slot.free);
    expect(trie.allowed([...search, byte(' '), byte('a')])).toBe(slot.inside);
    expect(trie.allowed([...search, id(' red')])).toBe(slot.inside);
    expect(trie.allowed([...search, id(' red'), id(' shoes')])).toBe(slot.inside);
    expect(trie.allowed([...search, id(' red'), byte(']')])).toEqual(Int32Array.of(eos));
    expect(trie.allowed([...search, id(' red'), id(' ]')])).toEqual(Int32Array.of(eos));
    expect(trie.allowed([...search, id(' red'), byte(']'), eos])).toEqual(new Int32Array(0));
    // `search[` alone is not a whole action: neither <eos> nor `]` is allowed right after the bracket
    expect([...inside]).not.toContain(eos);
    expect([...inside]).not.toContain(byte(']'));
    expect([...inside]).not.toContain(id(' ]'));
  });

  it('an ordinary action keeps the plain trie rule, and without a slot `search[` is a whole action', () => {
    const click = actionTokens(tok, 'click[back]');
    expect(trie.allowed(click)).toEqual(Int32Array.of(eos));
    const plain = new ActionTrie([search], eos);
    expect(plain.allowed(search)).toEqual(Int32Array.of(eos));
  });
});
