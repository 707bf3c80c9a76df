/**
 * The `searchqa` environment: Search-R1-style question answering with a search engine (Jin et al. 2025; verl-agent's
 * search env; the search family of the OPID paper) over a corpus about fictional entities, so no pretrained
 * knowledge helps and every answer is grounded in the corpus.
 *
 * - Corpus: 2 670 one-sentence passages (`Title` + sentence), one per entity of a seeded fact graph (world.ts,
 *   corpus.ts), built in 0.1–0.2 s on first use and memoised; versioned by SEARCHQA_VERSION.
 * - Actions, Search-R1's tags in the playground's bracket grammar (env.ts): `search[q]` ↔ `<search>q</search>`
 *   returns the top 3 passages by BM25 (../bm25.ts, shared with every env that searches) as
 *   `Doc 1(Title: t) text` lines ↔ `<information>…</information>`; `answer[a]` ↔ `<answer>a</answer>` ends the
 *   episode. Anything else is invalid, answered with Search-R1's invalid-action message, and counts as a step.
 *   maxSteps 4. Both admissible entries are open forms (`search[`, `answer[`): admissible decoding samples a verb,
 *   free text and `]` (test/core/rollout/open-only.test.ts).
 * - Reward (score.ts): 1 when the answer exactly matches a gold alias after SQuAD normalisation, else 0; `success`
 *   iff exact match. Token F1 and substring EM are reported in the last step's `info`.
 * - Task types: seven subsets shaped like Search-R1's benchmarks (questions.ts): `nq`, `triviaqa`, `popqa` (popular
 *   and long-tail entities), `hotpotqa`, `2wiki`, `musique`, `bamboogle` (test splits only). Splits (tasks.ts):
 *   train / val / test-seen over one world of the graph, test-unseen over a disjoint one.
 * - Expert (expert.ts): searches each hop of the question's chain by name, then answers; 100% on every subset.
 * - Prompt lengths: nano's context is 384 tokens and maxActionTokens 16, so a prompt has 368. Measured with this
 *   env's tokenizer on every step of the expert's episodes of tasks 0–499 of every split at the default history
 *   H = 3, untruncated (test/core/envs/searchqa/prompt.test.ts): at most 345 tokens, 95th percentile 303, median
 *   167, mean 146 — every expert prompt fits whole. An episode of invalid actions (the ~50-token invalid-action
 *   message in each past turn) reaches 242.
 * - One preset, `default`. Embedded analyzer: the `heuristic` one of analyzer/heuristic.ts (the question solved from
 *   the passages the group's searches showed; hops, the group's success, each failure's mistakes), and its part of
 *   the `http` analyzer's prompt (analyzer/prompt-examples.ts). Search steps: the steps whose action is a valid
 *   search. `retrieve` serves the corpus to Search-R1's `/retrieve`.
 */
import type { Analyzer, AnalyzerOptions, CommandForm, Env, EnvSpec, Expert, RetrievedPassage } from '../types';
import { SearchQaAnalyzer } from './analyzer/heuristic';
import { SEARCHQA_PROMPT } from './analyzer/prompt-examples';
import { corpus, retrieve } from './corpus';
import { SearchQaEnv, parseAction } from './env';
import { SearchQaExpert } from './expert';
import { SEARCHQA_PRESETS, SEARCHQA_TASK_TYPES, checkPreset } from './tasks';
import { searchqaCorpus } from './vocab';
import { SEARCHQA_VERSION } from './world';
import { searchqaDemoRenamer } from './rename';
import { searchqaPlausibleMistake } from './mistake';

export { SEARCHQA_VERSION, world } from './world';
export { corpus, retrieve, type Passage } from './corpus';
export {
  SearchQaEnv,
  SEARCH_PREFIX,
  ANSWER_PREFIX,
  INVALID_ACTION,
  NO_RESULTS,
  START_OBSERVATION,
  TOP_K,
  parseAction,
} from './env';
export { SearchQaExpert, expertAction, hopQuery } from './expert';
export { SUBSETS, makeQuestion, type Question, type Subset } from './questions';
export { SEARCHQA_PRESETS, SEARCHQA_TASK_TYPES, SEARCHQA_MAX_STEPS, generateTask, type SearchQaTask } from './tasks';
export { normalizeAnswer, scoreAnswer, type AnswerScores } from './score';
export { searchqaCorpus } from './vocab';
export { SearchQaAnalyzer } from './analyzer/heuristic';

/**
 * The top `topk` passages of the searchqa corpus for `query`, best first, as a Search-R1 `/retrieve` server returns
 * them (search_r1/search/retrieval_server.py: `{document: {contents: '"title"\ntext'}, score}` per hit; map `title`
 * and `text` into `contents`): BM25 (Pyserini's k1 0.9, b 0.4; Lucene's stop words; ties by passage index), the same
 * ranking `search[…]` shows. Fewer than `topk` when fewer passages share a term with the query; [] for a query
 * with no indexed term. `score` is the BM25 score (unitless, > 0).
 * @throws Error naming `topk` when it is not an integer ≥ 0.
 */
export function searchqaRetrieve(query: string, topk: number): { title: string; text: string; score: number }[] {
  if (!Number.isInteger(topk) || topk < 0)
    throw new Error(`searchqaRetrieve: topk must be an integer ≥ 0 (e.g. 3), got ${topk}`);
  return retrieve(String(query), topk).map((r) => ({ title: r.passage.title, text: r.passage.text, score: r.score }));
}

/**
 * The two command forms (for people's hints), each with an example in the corpus' words (test-seen task 3's); a
 * pattern takes what env.ts `parseAction` takes: text that is not blank and holds no `]` between the brackets.
 */
const COMMANDS: readonly CommandForm[] = [
  { verb: 'search', form: 'search[…]', example: 'search[Azure Bank]', pattern: /^search\[[^\]]*[^\]\s][^\]]*\]$/ },
  { verb: 'answer', form: 'answer[…]', example: 'answer[Silver Vale]', pattern: /^answer\[[^\]]*[^\]\s][^\]]*\]$/ },
];

/**
 * The searchqa env family, registered as `searchqa`. Preset: `default`. Embedded analyzer: the `heuristic` one of
 * analyzer/heuristic.ts.
 */
export const searchqa: EnvSpec = {
  name: 'searchqa',
  version: SEARCHQA_VERSION,
  summary:
    'Search-R1-style QA over fictional passages: search[query] for the top 3 by BM25, answer[text] scored by exact ' +
    'match; 7 subsets from single-hop to 3-hop',
  presets: SEARCHQA_PRESETS,
  defaultPreset: 'default',
  /**
   * 16 tokens: the expert's actions are at most 8 tokens with <eos> (a TriviaQA clue such as `search[sculptor Pine
   * Harbour 1862]`; tasks 0–699 of every split, test/core/envs/searchqa/expert.test.ts), so a policy's own queries
   * and answers get twice that, and the prompt keeps 368 of nano's 384 tokens.
   */
  maxActionTokens: 16,
  /** The OPID paper's K for search-QA (2; at most 4 steps here, so a step skill marks the one or two that mattered). */
  opidMaxStepSkills: 2,
  presetSummaries: { default: '7 subsets, 4 steps' },
  /** The seven subsets. @throws Error naming the accepted presets on an unknown one. */
  taskTypes(preset: string): readonly string[] {
    checkPreset(preset);
    return SEARCHQA_TASK_TYPES;
  },
  /** A fresh env for a preset. @throws Error naming the accepted presets on an unknown one. */
  create(preset: string): Env {
    return new SearchQaEnv(preset);
  },
  /** The expert bound to an env made by `create`. @throws Error for any other env. */
  expert(env: Env): Expert {
    if (!(env instanceof SearchQaEnv)) throw new Error('searchqa.expert: env must come from searchqa.create()');
    return new SearchQaExpert(env);
  },
  /** Every word the env can emit (see `vocab.ts`). */
  vocabularyCorpus(): string[] {
    return searchqaCorpus();
  },
  /** `search[…]` and `answer[…]`. @throws Error on an unknown preset. */
  commands(preset: string): readonly CommandForm[] {
    checkPreset(preset);
    return COMMANDS;
  },
  /**
   * Search steps: every step whose action is a valid `search[…]` (each chose where to look before the answer could
   * be known; OPID routes no episode skill there unless told to).
   */
  searchSteps(_task, steps) {
    return steps.flatMap((s, i) => (parseAction(s.action)?.verb === 'search' ? [i] : []));
  },
  /** The embedded `heuristic` analyzer (analyzer/heuristic.ts). @throws Error on a bad K. */
  analyzer(opts: AnalyzerOptions): Analyzer {
    return new SearchQaAnalyzer(opts);
  },
  /**
   * Two worked examples for the `http` analyzer's prompt and its passages quoted as `(i) text`
   * (analyzer/prompt-examples.ts). @throws Error on an unknown preset.
   */
  analyzerPrompt(preset: string) {
    checkPreset(preset);
    return SEARCHQA_PROMPT;
  },
  /**
   * The corpus' retrieval for the server's Search-R1 `POST /retrieve` (`searchqaRetrieve`: BM25, best first).
   * @throws Error naming `topk` when it is not an integer ≥ 0.
   */
  retrieve(query: string, topk: number): readonly RetrievedPassage[] {
    return searchqaRetrieve(query, topk);
  },
  /** Seen names renamed for a pretraining demonstration: to other seen names, or to fresh ones (rename.ts). */
  demoRenamer(rng, names) {
    return searchqaDemoRenamer(rng, names);
  },
  /** A search for, or an answer of, an entity or year on screen, for the noisy demonstrator (mistake.ts). */
  plausibleMistake(task, observation, rng) {
    return searchqaPlausibleMistake(task, observation, rng);
  },
};

/** The corpus as `{title, text}` records, for servers and tools that index it themselves. */
export function searchqaPassages(): { title: string; text: string }[] {
  return corpus().map((p) => ({ title: p.title, text: p.text }));
}
