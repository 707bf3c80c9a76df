import { describe, expect, it } from 'vitest';
import { Rng, hash32 } from '../../src/core/rng';

describe('Rng', () => {
  it('is reproducible and seeds differ', () => {
    const a = new Rng(42),
      b = new Rng(42),
      c = new Rng(43);
    const xs = Array.from({ length: 5 }, () => a.next());
    expect(Array.from({ length: 5 }, () => b.next())).toEqual(xs);
    expect(Array.from({ length: 5 }, () => c.next())).not.toEqual(xs);
  });
  it('nearby seeds give unrelated first draws', () => {
    const first = Array.from({ length: 200 }, (_, s) => new Rng(s).next());
    const mean = first.reduce((p, x) => p + x, 0) / first.length;
    expect(mean).toBeGreaterThan(0.4);
    expect(mean).toBeLessThan(0.6);
    // adjacent seeds are not close to each other
    const closePairs = first.slice(1).filter((x, i) => Math.abs(x - first[i]) < 0.01).length;
    expect(closePairs).toBeLessThan(10);
  });
  it('int draws are uniform enough (chi-square over 10 bins)', () => {
    const r = new Rng(7),
      bins = new Array(10).fill(0);
    for (let i = 0; i < 10000; i++) bins[r.int(10)]++;
    const chi = bins.reduce((s, o) => s + (o - 1000) ** 2 / 1000, 0);
    expect(chi).toBeLessThan(27.9); // p = 0.001 for 9 degrees of freedom
  });
  it('categorical never draws -Infinity entries and follows the weights', () => {
    const r = new Rng(3),
      counts = [0, 0, 0];
    for (let i = 0; i < 3000; i++) counts[r.categorical([Math.log(1), -Infinity, Math.log(3)])]++;
    expect(counts[1]).toBe(0);
    expect(counts[2] / counts[0]).toBeGreaterThan(2.5);
    expect(counts[2] / counts[0]).toBeLessThan(3.5);
    expect(() => r.categorical([-Infinity, -Infinity])).toThrow(
      'categorical draw: every one of 2 logits is -Infinity (no token is allowed at this position)',
    );
    expect(() => r.categorical([NaN, -Infinity, NaN])).toThrow(
      /^categorical draw: 2 of 3 logits are NaN and the rest -Infinity \(the model's output is not a number/,
    );
  });
  it('fork gives independent named streams', () => {
    const r = new Rng(1);
    expect(r.fork('a').next()).not.toBe(r.fork('b').next());
    expect(r.fork('a').next()).toBe(new Rng(1).fork('a').next());
    expect(hash32('abc')).toBe(0x1a47e90b);
  });
  it('rejects a non-finite seed', () => {
    expect(() => new Rng(NaN)).toThrow(/finite/);
  });
});
