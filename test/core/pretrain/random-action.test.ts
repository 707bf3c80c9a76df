/**
 * Noisy demonstrations take uniformly random admissible actions; an open one (shop's `search[`) is completed with
 * 1–4 words of the task line and `]`, so every demonstrated action is one the admissible sampler can finish. Closed
 * actions draw exactly as `Rng.pick` does (household demonstrations are unchanged).
 */
import { describe, expect, it } from 'vitest';
import { randomAction } from '../../../src/core/pretrain/demos';
import { Rng } from '../../../src/core/rng';

describe('randomAction', () => {
  it('draws a closed action as Rng.pick does', () => {
    const adm = ['go to desk 1', 'look', 'inventory'];
    for (let seed = 1; seed <= 20; seed++)
      expect(randomAction(adm, 'task', new Rng(seed))).toBe(new Rng(seed).pick(adm));
  });

  it('completes search[ with 1–4 task words and a closing bracket', () => {
    const task = 'i need a red cotton shirt, and price lower than 40.00 dollars';
    const words = new Set(['i', 'need', 'a', 'red', 'cotton', 'and', 'price', 'lower', 'than', 'dollars']);
    const seen = new Set<number>();
    for (let seed = 1; seed <= 200; seed++) {
      const a = randomAction(['search['], task, new Rng(seed));
      const m = /^search\[(.*)\]$/.exec(a);
      expect(m, a).not.toBeNull();
      const got = (m as RegExpExecArray)[1].split(' ');
      seen.add(got.length);
      for (const w of got) expect(words.has(w), `${w} in ${a}`).toBe(true);
    }
    expect([...seen].sort()).toEqual([1, 2, 3, 4]);
  });
});
