import { describe, expect, it } from 'vitest';
import {
  episodeSkill,
  failureSkill,
  skillCorpus,
  stepSkill,
  warningSign,
  STEP_TEMPLATES,
} from '../../../src/core/skills/grammar';
import { getEnvSpec } from '../../../src/core/envs/registry';
import { buildTokenizer } from '../../../src/core/model/policy';

describe('skill grammar', () => {
  it('phrases step, episode and failure skills exactly', () => {
    expect(stepSkill('take apple 1 from countertop 2')).toBe('next, take apple 1 from countertop 2.');
    expect(stepSkill('go to fridge 1', 2)).toBe('you should go to fridge 1 here.');
    expect(stepSkill('go to fridge 1', STEP_TEMPLATES.length)).toBe('next, go to fridge 1.');
    expect(episodeSkill(['go to countertop 2', 'take apple 1 from countertop 2'])).toBe(
      'plan: go to countertop 2, then take apple 1 from countertop 2.',
    );
    expect(episodeSkill(['a', 'b'], 2)).toBe('follow this order: a; b.');
    expect(
      failureSkill(
        'take mug 2 from countertop 1',
        warningSign('wrongObject', 'apple'),
        'take apple 1 from countertop 1',
      ),
    ).toBe(
      'avoid: take mug 2 from countertop 1. warning sign: the task names apple. instead: take apple 1 ' +
        'from countertop 1.',
    );
    expect(() => episodeSkill([])).toThrow(/actions must not be empty/);
  });

  it('every skill word is a word token of the household tokenizer (no byte fallback)', () => {
    const tok = buildTokenizer(getEnvSpec('household'));
    const text = ' ' + skillCorpus().join(' ');
    const ids = tok.encode(text);
    const bytes = ids.filter(
      (i) => i >= tok.byteOffset && i < tok.byteOffset + 256 && !/^[ .,:;]$/.test(tok.decode([i])),
    );
    expect(bytes).toEqual([]);
    expect(tok.decode(ids)).toBe(text);
  });
});
