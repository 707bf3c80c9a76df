/**
 * The searchqa vocabulary corpus covers what the env emits: every multi-byte piece (tokenizer.ts `pieces`) of the
 * questions, observations and actions of expert episodes, of random episodes (queries and answers of words from the
 * question and from the last observation, lower-cased or not) and of a question per template is a vocabulary piece of
 * the tokenizer built from `searchqa.vocabularyCorpus()`. It stays under the tokenizer's 4 096-piece cap, so no piece
 * of it is dropped.
 */
import { describe, expect, it } from 'vitest';
import { searchqa, type SearchQaEnv } from '../../../../src/core/envs/searchqa';
import { templateSamples } from '../../../../src/core/envs/searchqa/vocab';
import { buildTokenizer } from '../../../../src/core/model/policy';
import { Rng } from '../../../../src/core/rng';
import { Tokenizer, pieces } from '../../../../src/core/tokenizer/tokenizer';
import { SPLITS } from '../../../../src/core/envs/types';

const corpus = searchqa.vocabularyCorpus();
const vocab = new Set(Tokenizer.fromCorpus([...corpus, ...corpus.map((l) => ' ' + l)]).vocabPieces());
const enc = new TextEncoder();

/** Multi-byte pieces of `text` missing from the vocabulary. */
function missing(text: string): string[] {
  return pieces(text).filter((p) => enc.encode(p).length > 1 && !vocab.has(p));
}

/** A random action from words of `text` (1–3 of them, lower-cased half of the time). */
function randomAction(rng: Rng, text: string): string {
  const words = text.split(/[^A-Za-z0-9]+/).filter(Boolean);
  const picked = Array.from({ length: 1 + rng.int(3) }, () => rng.pick(words));
  const arg = rng.next() < 0.5 ? picked.join(' ') : picked.join(' ').toLowerCase();
  return `${rng.next() < 0.7 ? 'search' : 'answer'}[${arg}]`;
}

describe('searchqa vocabulary', () => {
  it('is deterministic, about 2 000 pieces, under the cap of 4 096', () => {
    expect(searchqa.vocabularyCorpus()).toEqual(corpus);
    expect(vocab.size).toBeGreaterThan(1500);
    expect(vocab.size).toBeLessThan(2500);
    // buildTokenizer adds the skill grammar's words: still under the cap, so nothing is cut.
    expect(buildTokenizer(searchqa).vocabPieces().length).toBeLessThan(4096);
  });

  it('covers a question of every template, 50 expert episodes and 50 random ones per split', () => {
    const env = searchqa.create('default') as SearchQaEnv;
    const expert = searchqa.expert(env);
    const rng = new Rng(11);
    const gaps = new Set<string>();
    const seen = (t: string) => missing(t).forEach((p) => gaps.add(p));
    templateSamples().forEach(seen);
    for (const split of SPLITS)
      for (let i = 0; i < 100; i++) {
        const r0 = env.reset({ split, index: i });
        seen(r0.task);
        seen(r0.observation);
        let obs = r0.observation;
        let r;
        do {
          const a = i < 50 ? expert.act() : randomAction(rng, `${r0.task} ${obs}`);
          seen(a);
          r = env.step(a);
          seen(r.observation);
          obs = r.observation;
        } while (!r.done);
      }
    expect([...gaps]).toEqual([]);
  });
});
