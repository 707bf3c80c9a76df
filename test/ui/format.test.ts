/**
 * The page's number formatting (src/ui/state/format.ts): round-off shown as zero, rate axis ticks in percent, and
 * the time left of a finished run; action tokens as shown.
 */
import { describe, expect, it } from 'vitest';
import { ROUND_OFF, eta, num, pct, pctTick, shownToken } from '../../src/ui/state/format';

describe('page number formatting', () => {
  it('shows round-off under 1e-12 as zero, as the CLI does, and keeps small measured values in exponent form', () => {
    // k3 of float32 log-probs one bit apart: d = 2^-24 ≈ 6e-8, e^d − d − 1 ≈ d²/2 ≈ 1.8e-15 nats/token.
    const d = 2 ** -24;
    const k3 = Math.exp(d) - d - 1;
    expect(Math.abs(k3)).toBeLessThan(ROUND_OFF);
    expect(num(k3, 4)).toBe('0.0000');
    expect(num(1e-15, 4)).toBe('0.0000');
    expect(num(-1e-15, 4)).toBe('0.0000');
    expect(num(0, 4)).toBe('0.0000');
    expect(num(2.5e-4, 4)).toBe('2.50e-4');
    expect(num(1e-11, 4)).toBe('1.00e-11');
    expect(num(0.01234, 4)).toBe('0.0123');
  });
  it('labels rate axis ticks in percent (0–100), matching the values shown as percentages', () => {
    expect(pctTick(0)).toBe('0 %');
    expect(pctTick(0.6)).toBe('60 %');
    expect(pctTick(0.7000000000000001)).toBe('70 %');
    expect(pctTick(0.125)).toBe('12.5 %');
    expect(pctTick(1)).toBe('100 %');
    expect(pct(0.6)).toBe('60.0 %');
  });
  it('says "done" for a finished run instead of "ETA 0 ms"', () => {
    expect(eta(0, true)).toBe('done');
    expect(eta(null, true)).toBe('done');
    expect(eta(12_300, false)).toBe('ETA 12.3 s');
    expect(eta(null, false)).toBe('ETA —');
  });
});

describe('shownToken', () => {
  it('shows the end token as ⏎ and a printable byte token as its character', () => {
    expect(shownToken('<eos>')).toBe('⏎');
    expect(shownToken('<0x5B>')).toBe('[');
    expect(shownToken('<0x5D>')).toBe(']');
    expect(shownToken('<0x20>')).toBe(' ');
    expect(shownToken('<0x7E>')).toBe('~');
  });
  it('keeps other tokens, control and non-ASCII bytes as they are', () => {
    expect(shownToken('click')).toBe('click');
    expect(shownToken('<0x0A>')).toBe('<0x0A>');
    expect(shownToken('<0x7F>')).toBe('<0x7F>');
    expect(shownToken('<0xC3>')).toBe('<0xC3>');
    expect(shownToken('<0x5b>')).toBe('<0x5b>');
    expect(shownToken('<pad>')).toBe('<pad>');
  });
});
