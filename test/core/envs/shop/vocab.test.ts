/**
 * The shop vocabulary corpus covers what the env emits: every multi-byte piece (tokenizer.ts `pieces`) of the task
 * lines, observations and actions of expert episodes and of random walks over the admissible actions is a vocabulary
 * piece of a tokenizer built from `shop.vocabularyCorpus()` (single-byte pieces are byte tokens in any vocabulary).
 */
import { describe, expect, it } from 'vitest';
import { shop, type ShopEnv } from '../../../../src/core/envs/shop';
import { Rng } from '../../../../src/core/rng';
import { Tokenizer, pieces } from '../../../../src/core/tokenizer/tokenizer';
import { SPLITS } from '../../../../src/core/envs/types';

const corpus = shop.vocabularyCorpus();
const vocab = new Set(Tokenizer.fromCorpus(corpus).vocabPieces());
const enc = new TextEncoder();

/** Multi-byte pieces of `text` missing from the vocabulary. */
function missing(text: string): string[] {
  return pieces(text).filter((p) => enc.encode(p).length > 1 && !vocab.has(p));
}

describe('shop vocabulary', () => {
  it('is deterministic and small', () => {
    expect(shop.vocabularyCorpus()).toEqual(corpus);
    expect(vocab.size).toBeLessThan(1500);
  });

  it('covers 50 expert episodes and 50 random walks per split', () => {
    const env = shop.create('default') as ShopEnv;
    const expert = shop.expert(env);
    const rng = new Rng(11);
    const gaps = new Set<string>();
    const seen = (t: string) => missing(t).forEach((p) => gaps.add(p));
    for (const split of SPLITS) {
      for (let i = 0; i < 100; i++) {
        const r0 = env.reset({ split, index: i });
        seen(r0.task);
        seen(r0.observation);
        let r;
        do {
          const adm = env.admissibleActions();
          let a = i < 50 ? expert.act() : rng.pick(adm);
          if (a === 'search[') a = `search[${r0.task.split(' ').slice(3, 7).join(' ')}]`;
          seen(a);
          r = env.step(a);
          seen(r.observation);
        } while (!r.done);
      }
    }
    expect([...gaps]).toEqual([]);
  });
});
