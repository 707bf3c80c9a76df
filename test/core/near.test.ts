/** nearestName: the "did you mean …?" rule shared by links and command-line flags. */
import { describe, expect, it } from 'vitest';
import { lookAlikeNote, nearestName } from '../../src/core/near';

describe('nearestName', () => {
  const algos = ['grpo', 'opid', 'skill-grpo', 'agentic-opd'];
  it('matches case and separators, a unique prefix, then a few edits', () => {
    expect(nearestName('OPID', algos)).toBe('opid');
    expect(nearestName('skill_grpo', algos)).toBe('skill-grpo');
    expect(nearestName('op', algos)).toBe('opid'); // prefix of opid only
    expect(nearestName('agentic', algos)).toBe('agentic-opd');
    // one swap counts as one edit (limit ⌊5/3⌋ = 1)
    expect(nearestName('stpes', ['seed', 'steps', 'tasks'])).toBe('steps');
    expect(nearestName('seeed', ['seed', 'steps'])).toBe('seed'); // one deletion
  });
  it('prefers the one name holding the word inside over a name a few edits away', () => {
    expect(nearestName('gpu', ['cpu', 'wasm', 'webgpu'])).toBe('webgpu'); // cpu is one edit away
    expect(nearestName('gpu', ['auto', 'webgpu', 'webgl', 'wasm', 'cpu'])).toBe('webgpu');
    expect(nearestName('opd', algos)).toBe('agentic-opd');
    expect(nearestName('rpo', algos)).toBe('grpo'); // held by grpo and skill-grpo: falls back to edits (grpo is 1 away)
    expect(nearestName('gl', ['cpu', 'webgl'])).toBeNull(); // 2 characters: too short to be read as part of a name
  });
  it('gives nothing for an empty word, a shared prefix or a far word', () => {
    expect(nearestName('', algos)).toBeNull();
    expect(nearestName('g', algos)).toBeNull(); // one letter: no prefix rule, and 'g' is 3+ edits from each
    expect(nearestName('xyz', algos)).toBeNull();
    expect(nearestName('te', ['teacher', 'temperature'])).toBeNull(); // prefix of two
  });
  it('reads look-alikes as the letters they look like: 0, 1, Cyrillic and Greek homoglyphs, full-width forms', () => {
    const envs = ['household', 'shop'];
    expect(nearestName('sh0p', envs)).toBe('shop');
    expect(nearestName('ѕһор', envs)).toBe('shop'); // Cyrillic ѕ һ о р: four characters, none of them Latin
    expect(nearestName('ＳＨＯＰ', envs)).toBe('shop'); // full-width
    expect(nearestName('h0useh0ld', envs)).toBe('household');
    expect(nearestName('0p1d', algos)).toBe('opid'); // 0 → o, 1 → l: one edit from opid, not two
    expect(nearestName('grρο', algos)).toBe('grpo'); // Greek ρ ο
    expect(nearestName('tеst-ѕееn', ['train', 'test-seen', 'test-unseen', 'val'])).toBe('test-seen');
    expect(nearestName('еаѕу', ['default', 'easy'])).toBe('easy');
    expect(nearestName('x0', algos)).toBeNull(); // a look-alike alone makes nothing near
  });
  it('names the look-alike letters of a word, for the did-you-mean note', () => {
    expect(lookAlikeNote('ѕһор')).toBe(
      ' (written with look-alikes of Latin letters: ѕ U+0455, һ U+04BB, о U+043E, р U+0440)',
    );
    expect(lookAlikeNote('shоо')).toBe(' (written with look-alikes of Latin letters: о U+043E)'); // each named once
    expect(lookAlikeNote('ｓhop')).toBe(' (written with look-alikes of Latin letters: ｓ U+FF53)'); // full-width
    expect(lookAlikeNote('sh0p')).toBe(''); // digits are plain to see
    expect(lookAlikeNote('\u202eeasy')).toBe(''); // an invisible control is no letter: the caller shows it escaped
    expect(lookAlikeNote('shop')).toBe('');
  });
});
