/**
 * Numbers in links a person edits by hand: exponent forms are read as numbers, and a value outside what the setting
 * accepts gets one message naming the accepted range (not two, not "received string"); the default is kept.
 */
import { describe, expect, it } from 'vitest';
import { decodeHash } from '../../src/ui/state/link';
import { DEFAULT_CONFIG } from '../../src/core/run/config';

describe('link numbers', () => {
  it('1e400 (Infinity) names the range, once; the default seed is kept', () => {
    const r = decodeHash('#v=2&seed=1e400');
    expect(r.issues).toEqual([{ field: 'seed', message: 'Invalid input: expected number, received Infinity (accepted: an integer in [0, 2147483647])' }]);
    expect(r.config.seed).toBe(DEFAULT_CONFIG.seed);
  });

  it('an integer past 2^53 gets one message, the setting\'s own bound', () => {
    expect(decodeHash('#v=2&seed=99999999999999999999').issues).toEqual([
      { field: 'seed', message: 'Too big: expected number to be <=2147483647 (accepted: an integer in [0, 2147483647])' },
    ]);
  });

  it('exponent notation inside the range is read: learningRate=2e-3 → 0.002', () => {
    const r = decodeHash('#v=2&learningRate=2e-3');
    expect(r.issues).toEqual([]);
    expect(r.config.learningRate).toBe(0.002);
  });
});
