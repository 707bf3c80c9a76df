/**
 * Numbers in links a person edits by hand: exponent forms are read as numbers, and a value outside what the setting
 * accepts gets one message naming the accepted range (not two, not "received string"); the default is kept.
 */
import { describe, expect, it } from 'vitest';
import { decodeHash } from '../../src/ui/state/link';
import { DEFAULT_CONFIG } from '../../src/core/run/config';
import { readNumberText } from '../../src/core/number-text';
import { linkIssueText } from '../../src/ui/state/messages';
import { parseArgs } from '../../cli/args';

describe('link numbers', () => {
  it('1e400 (Infinity) names the range, once; the default seed is kept', () => {
    const r = decodeHash('#v=2&seed=1e400');
    expect(r.issues).toEqual([
      {
        field: 'seed',
        message: 'Invalid input: expected number, received Infinity (accepted: an integer in [0, 2147483647])',
      },
    ]);
    expect(r.config.seed).toBe(DEFAULT_CONFIG.seed);
  });

  it("an integer past 2^53 gets one message, the setting's own bound", () => {
    expect(decodeHash('#v=2&seed=99999999999999999999').issues).toEqual([
      {
        field: 'seed',
        message: 'Too big: expected number to be <=2147483647 (accepted: an integer in [0, 2147483647])',
      },
    ]);
  });

  it('exponent notation inside the range is read: learningRate=2e-3 → 0.002', () => {
    const r = decodeHash('#v=2&learningRate=2e-3');
    expect(r.issues).toEqual([]);
    expect(r.config.learningRate).toBe(0.002);
  });

  it(
    'a value not written as a number names the setting and what to write, not zod\'s "expected number, ' +
      'received string"',
    () => {
      const r = decodeHash('#v=2&steps=0x10&seed=4');
      expect(r.config).toEqual({ ...DEFAULT_CONFIG, seed: 4 });
      expect(r.issues).toEqual([
        {
          field: 'steps',
          message:
            '"0x10" is not a number; write an integer from 1 to 100000 in decimal digits (a point and an ' +
            'exponent such as 2e3 are allowed), e.g. steps=120; ignored',
        },
      ]);
      expect(linkIssueText(r.issues[0])).toBe(r.issues[0].message);
      expect(decodeHash('#learningRate=').issues).toEqual([
        {
          field: 'learningRate',
          message:
            'empty; write a number from 1e-7 to 1 in decimal digits (a point and an exponent such as 2e3 ' +
            'are allowed), e.g. learningRate=0.0001; ignored',
        },
      ]);
    },
  );

  it(
    'links and CLI flags read numbers by one rule: exponent and point forms of a whole value are ' +
      'integers; 1.5, 0x10 and spaces are not',
    () => {
      const flags = { seed: { type: 'int', help: 'seed' }, lr: { type: 'float', help: 'lr' } } as const;
      for (const [text, value] of [
        ['1e1', 10],
        ['5.0', 5],
        ['1e0', 1],
        ['+7', 7],
      ] as const) {
        expect(decodeHash(`#seed=${encodeURIComponent(text)}`).config.seed).toBe(value);
        expect(parseArgs(['--seed', text], flags).seed).toBe(value);
      }
      for (const text of ['1.5', '0x10', ' 5', '']) {
        expect(decodeHash(`#seed=${encodeURIComponent(text)}`).issues.map((i) => i.field)).toEqual(['seed']);
        expect(() => parseArgs(['--seed', text], flags)).toThrow(`--seed must be an integer, got "${text}"`);
      }
      expect(readNumberText('0x1')).toBeNull();
      expect(() => parseArgs(['--lr', '0x1'], flags)).toThrow('--lr must be a number, got "0x1"');
      expect(parseArgs(['--lr', '2e-3'], flags).lr).toBe(0.002);
    },
  );
});
