/**
 * The one seeded random generator every random draw in the project goes through (the reproducibility contract,
 * docs/architecture.md).
 *
 * Wraps pure-rand's xoroshiro128+ (a known PRNG, 2^128 period). Never use the global unseeded generator in core code:
 * pass an `Rng` explicitly. `fork(label)` derives an independent, reproducible stream for a named purpose
 * (e.g. `'tasks'`, `'init'`, `'sample'`) so that changing how many draws one purpose makes does not shift
 * another purpose's stream.
 */
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';

type Gen = ReturnType<typeof xoroshiro128plus>;

/** 32-bit FNV-1a hash of a string; used to turn labels into seeds. Returns an unsigned 32-bit integer. */
export function hash32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** murmur3's 32-bit finaliser: a bijective scramble of a 32-bit integer. */
export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h | 0;
}

/** Seeded pseudo-random generator (xoroshiro128+). Source: the reproducibility contract (docs/architecture.md); the
 * generator is Blackman and Vigna 2018. */
export class Rng {
  private gen: Gen;
  /** The integer seed this generator was created from (for display and forking). */
  readonly seed: number;

  /**
   * @param seed any finite number; it is truncated to a 32-bit integer.
   * @throws Error if `seed` is not finite.
   */
  constructor(seed: number) {
    if (!Number.isFinite(seed)) throw new Error(`Rng: seed must be a finite number, got ${seed}`);
    this.seed = seed | 0;
    // xoroshiro128+'s first output is ~seed, so nearby seeds (11 and 12, or hashes of `…/0` and `…/1`) would
    // start almost alike: scramble the seed (murmur3's fmix32) and drop a few outputs to decorrelate streams.
    this.gen = xoroshiro128plus(fmix32(this.seed));
    for (let i = 0; i < 4; i++) this.gen.next();
  }

  /** Uniform float in [0, 1) with 53 bits of randomness (two 32-bit draws). */
  next(): number {
    const hi = this.gen.next() >>> 5; // 27 bits
    const lo = this.gen.next() >>> 6; // 26 bits
    return (hi * 67108864 + lo) / 9007199254740992;
  }

  /** Uniform integer in [0, n). @throws Error if n is not a positive integer. */
  int(n: number): number {
    if (!Number.isInteger(n) || n <= 0) throw new Error(`Rng.int: n must be a positive integer, got ${n}`);
    return Math.floor(this.next() * n);
  }

  /** A uniformly chosen element of a non-empty array. @throws Error on an empty array. */
  pick<T>(xs: readonly T[]): T {
    if (xs.length === 0) throw new Error('Rng.pick: empty array');
    return xs[this.int(xs.length)];
  }

  /** A new array with the elements of `xs` in a uniformly random order (Fisher–Yates). */
  shuffle<T>(xs: readonly T[]): T[] {
    const a = xs.slice();
    for (let i = a.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      const t = a[i];
      a[i] = a[j];
      a[j] = t;
    }
    return a;
  }

  /** Standard normal draw (Box–Muller). */
  normal(): number {
    let u = 0;
    while (u === 0) u = this.next();
    const v = this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /**
   * Index drawn from a categorical distribution given log-probabilities (nats; need not be normalised;
   * `-Infinity` entries are never drawn). @throws Error if no entry is finite or +Infinity: every one is -Infinity
   *   (nothing allowed) or NaN (`noDrawMessage` says which).
   */
  categorical(logits: ArrayLike<number>): number {
    let m = -Infinity;
    for (let i = 0; i < logits.length; i++) if (logits[i] > m) m = logits[i];
    if (m === -Infinity) throw new Error(noDrawMessage(logits));
    let z = 0;
    for (let i = 0; i < logits.length; i++) z += Math.exp(logits[i] - m);
    let u = this.next() * z;
    let last = -1;
    for (let i = 0; i < logits.length; i++) {
      if (logits[i] === -Infinity) continue;
      last = i;
      u -= Math.exp(logits[i] - m);
      if (u < 0) return i;
    }
    return last;
  }

  /** An independent generator for a named purpose, derived from this generator's seed and the label. */
  fork(label: string): Rng {
    return new Rng((hash32(label) ^ Math.imul(this.seed, 0x9e3779b1)) | 0);
  }
}

/**
 * Why a categorical draw over `logits` (nats) has nothing to draw from: NaN entries (the model's logits are not
 * numbers — non-finite weights or activations) or every entry -Infinity (no token allowed).
 */
export function noDrawMessage(logits: ArrayLike<number>): string {
  let nan = 0;
  for (let i = 0; i < logits.length; i++) if (Number.isNaN(logits[i])) nan++;
  return nan
    ? `categorical draw: ${nan} of ${logits.length} logits are NaN and the rest -Infinity (the model's ` +
        `output is not a number: check the weights and activations for NaN/Infinity)`
    : `categorical draw: every one of ${logits.length} logits is -Infinity (no token is allowed at this position)`;
}
