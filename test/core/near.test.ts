/** nearestName: the "did you mean …?" rule shared by links and command-line flags. */
import { describe, expect, it } from 'vitest';
import { nearestName } from '../../src/core/near';

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
});
