/**
 * The searchqa vocabulary corpus: text covering every word, number and punctuation pattern the env can emit
 * (passages as search results, questions, fixed observations, the actions' open forms), for the word-level tokenizer
 * (src/core/tokenizer/tokenizer.ts, which tells `word` from ` word` and `Word` from `word`). Deterministic: built
 * from the corpus, one question per template (a fixed stream each), the lexicon's words (lexicon.ts: every name part,
 * occupation and work kind with its maker, verbs) and fixed texts, in a fixed order.
 *
 * Every word of that text (letters or digits) also appears as `search[w w]`, in its own case and in lower case, so a
 * query or an answer the policy copies from a passage (`search[Azure Guild]`) or from an NQ-style lower-case question
 * (`search[azure guild]`) is covered with and without a leading space. 2 025 pieces (2 069 with the skill grammar's
 * words that `buildTokenizer` adds; test/core/envs/searchqa/vocab.test.ts), under the tokenizer's cap of 4 096.
 */
import { Rng, hash32 } from '../../rng';
import { corpus } from './corpus';
import {
  ANSWER_CORRECT,
  ANSWER_PREFIX,
  ANSWER_WRONG,
  INVALID_ACTION,
  NO_RESULTS,
  SEARCH_PREFIX,
  START_OBSERVATION,
  TOP_K,
  formatPassages,
} from './env';
import * as lexicon from './lexicon';
import { SUBSETS, TEMPLATES, drawQuestion } from './questions';
import { SEARCHQA_SEED_TAG } from './world';

/** One question of every template of every subset (the seen world), each from its own fixed stream. */
export function templateSamples(): string[] {
  const out: string[] = [];
  for (const subset of SUBSETS)
    for (const t of TEMPLATES[subset]) {
      const rng = new Rng(hash32(`searchqa/${SEARCHQA_SEED_TAG}/vocab/${subset}/${t.name}`));
      out.push(drawQuestion(subset, t, rng, false).text);
    }
  return out;
}

/** Build the corpus (a fresh array each call; the same content every time). */
export function searchqaCorpus(): string[] {
  const out = [
    START_OBSERVATION,
    INVALID_ACTION,
    NO_RESULTS,
    ANSWER_CORRECT,
    ANSWER_WRONG,
    SEARCH_PREFIX,
    ANSWER_PREFIX,
  ];
  const ps = corpus();
  for (let i = 0; i < ps.length; i += TOP_K)
    out.push(formatPassages(ps.slice(i, i + TOP_K).map((passage) => ({ passage, score: 1 }))));
  out.push(...templateSamples());
  // What a template fills in besides names and years (`who {made} …`, `the {maker} of …`), and every name part.
  out.push(...lexicon.WORK_KINDS.map((k) => `${k.kind} ${k.maker} ${k.verb} ${k.made}`), lexicon.OCCUPATIONS.join(' '));
  for (const list of Object.values(lexicon)) if (Array.isArray(list)) out.push(list.join(' '));
  const words = new Set<string>();
  for (const line of out) for (const w of line.split(/[^A-Za-z0-9]+/)) if (w !== '') words.add(w);
  for (const w of [...words].sort()) {
    out.push(`search[${w} ${w}]`);
    if (w.toLowerCase() !== w) out.push(`search[${w.toLowerCase()} ${w.toLowerCase()}]`);
  }
  return out;
}
