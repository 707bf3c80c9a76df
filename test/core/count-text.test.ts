/** counted: a count and its noun in agreement, for every line that prints one. */
import { describe, expect, it } from 'vitest';
import { counted } from '../../src/core/count-text';

describe('counted', () => {
  it('is singular for one and plural for any other count', () => {
    expect(counted(1, 'step')).toBe('1 step');
    expect(counted(2, 'step')).toBe('2 steps');
    expect(counted(0, 'episode')).toBe('0 episodes');
    expect(counted(1, 'val task')).toBe('1 val task');
    expect(counted(3, 'entry', 'entries')).toBe('3 entries');
    expect(counted(1, 'entry', 'entries')).toBe('1 entry');
  });
});
