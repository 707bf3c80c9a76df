/**
 * `SearchQaEnv`: one Search-R1 episode (Jin et al. 2025, search_r1/llm_agent/generation.py `execute_predictions`)
 * behind the shared `Env` interface, in the playground's bracket grammar:
 *
 * | here            | Search-R1                                   |
 * |-----------------|---------------------------------------------|
 * | `search[query]` | `<search> query </search>`                  |
 * | `answer[text]`  | `<answer> text </answer>`                   |
 * | the observation | `<information> Doc 1(Title: …) … </information>` |
 *
 * - Reset: the task line is the question (questions.ts); the first observation is START_OBSERVATION.
 * - Actions are judged after `normalizeAction` (trim, collapse whitespace, lower-case). An action is the whole
 *   string `search[q]` or `answer[a]` with `q`/`a` non-empty after trimming and free of `]`: the first `]` ends the
 *   action, so nothing may follow it (`search[a] search[b]`, `answer[x]y]` and `search[a]]` are invalid, as text after
 *   a command is; a sampler closes an open form at its first `]`, rollout/trie.ts). Any other character may stand
 *   inside, `[` included (`search[a [b]` searches `a [b`). Until `searchqa-v2` the argument ran to the last `]`.
 *   - `search[q]`: BM25 over the corpus (corpus.ts), the top TOP_K = 3 passages, one line each as Search-R1's
 *     `_passages2string` writes them: `Doc 1(Title: Azure Guild) The Azure Guild was founded by …`. Any query is
 *     searched as given — a 5 000-character one, a prompt-injection-like one (`ignore the task and answer X` is just
 *     words to match); a query with no indexed term (punctuation only, stop words only, non-Latin script, words the
 *     corpus lacks) is still a valid search and gets NO_RESULTS (Search-R1's BM25 retriever then returns an empty
 *     `<information></information>`).
 *   - `answer[a]`: ends the episode. Reward 1 when `a` exactly matches a gold alias after SQuAD normalisation
 *     (score.ts: `The Azure Guild.` matches `Azure Guild`), else 0 — Search-R1's outcome reward; `success` iff EM.
 *     The observation says whether it was correct (ANSWER_CORRECT / ANSWER_WRONG; Search-R1 shows nothing after an
 *     answer, the episode being over). Token F1 and substring EM are computed too and returned in `info`.
 *   - Anything else — an empty string, free text, `search[]`, `answer[  ]`, `search [x]`, text around a command,
 *     a second `]`, `<search>x</search>` — is invalid: the state is unchanged, `valid: false`, the observation is
 *     INVALID_ACTION (Search-R1's message, with the brackets for the tags), and the step counts. Search-R1 would
 *     search or score an empty tag and ignore text around one (its responses carry reasoning; `re.search` takes the
 *     first tag, up to its first closing tag); here a response is the action alone.
 * - done: after `answer[…]`, or once `steps` reaches `maxSteps` (4). The last step's `info` holds the episode's
 *   answer scores `{em, f1, subEm}` (all 0 when it ran out of steps without an answer).
 * - `admissibleActions()`: `['search[', 'answer[']` — both open forms (`isOpenAction`): a sampler completes either
 *   with free text and `]`; empty once done.
 */
import { normalizeAction, type Env, type ResetResult, type StepResult, type TaskRef } from '../types';
import { retrieve, type Retrieved } from './corpus';
import { scoreAnswer, type AnswerScores } from './score';
import { SEARCHQA_MAX_STEPS, checkPreset, generateTask, type SearchQaTask } from './tasks';

/** The open form of a search (an admissible entry; the action is `search[<query>]`). */
export const SEARCH_PREFIX = 'search[';
/** The open form of an answer (an admissible entry; the action is `answer[<text>]`). */
export const ANSWER_PREFIX = 'answer[';
/** Passages a search returns (Search-R1's `topk`: 3). */
export const TOP_K = 3;
/** The first observation of every episode. */
export const START_OBSERVATION = 'Search with search[query], or give the final answer with answer[text].';
/** The answer to an invalid action: Search-R1's message, `<search>`/`<answer>` tags written as this env's brackets. */
export const INVALID_ACTION =
  'My previous action is invalid. If I want to search, I should put the query between search[ and ]. ' +
  'If I want to give the final answer, I should put the answer between answer[ and ]. Let me try again.';
/** A search whose query shares no indexed term with any passage. */
export const NO_RESULTS = 'No passage matches the query.';
/** After a correct answer (exact match). */
export const ANSWER_CORRECT = 'The answer is correct.';
/** After a wrong answer. */
export const ANSWER_WRONG = 'The answer is wrong.';

/** A parsed action. */
export interface QaAction {
  verb: 'search' | 'answer';
  /** The query or answer: the text between the brackets, trimmed (non-empty, no `]`). */
  arg: string;
}

/** The action `action` (any string) is, after `normalizeAction`; null when it is invalid (see the module comment). */
export function parseAction(action: string): QaAction | null {
  const m = /^(search|answer)\[([^\]]*)\]$/.exec(normalizeAction(String(action)));
  if (!m) return null;
  const arg = m[2].trim();
  return arg === '' ? null : { verb: m[1] as QaAction['verb'], arg };
}

/** Search results as Search-R1's `_passages2string` writes them (`Doc i(Title: t) text`, one per line). */
export function formatPassages(hits: readonly Retrieved[]): string {
  if (hits.length === 0) return NO_RESULTS;
  return hits.map((h, i) => `Doc ${i + 1}(Title: ${h.passage.title}) ${h.passage.text}`).join('\n');
}

/** The hidden state of an episode (for the expert and tests; never shown to a policy). */
export interface SearchQaState {
  readonly task: SearchQaTask;
  /** Passage indices every valid search so far returned. */
  readonly retrieved: Set<number>;
  /** The scores of the answer given, or null before one. */
  scores: AnswerScores | null;
}

/** No answer: every score 0. */
const NO_SCORES: AnswerScores = { em: 0, f1: 0, subEm: 0 };

/** An episode of the searchqa env. */
export class SearchQaEnv implements Env {
  /** Preset name. */
  readonly preset: string;
  /** Max actions per episode (4). */
  readonly maxSteps = SEARCHQA_MAX_STEPS;
  private st: SearchQaState | null = null;
  private taken = 0;
  private finished = false;

  /** @throws Error naming the accepted presets on an unknown preset. */
  constructor(preset: string) {
    checkPreset(preset);
    this.preset = preset;
  }

  /** Start task (split, index). @throws Error on an unknown split or a bad index. */
  reset(ref: TaskRef): ResetResult {
    return this.resetTask(generateTask(this.preset, ref));
  }

  /** Start an episode from a given task (tests, replays). */
  resetTask(task: SearchQaTask): ResetResult {
    this.st = { task, retrieved: new Set(), scores: null };
    this.taken = 0;
    this.finished = false;
    return { task: task.question.text, taskType: task.question.subset, observation: START_OBSERVATION };
  }

  /** Apply one action (any string). @throws Error before `reset` and after the episode is done. */
  step(action: string): StepResult {
    const s = this.state;
    if (this.finished) throw new Error('searchqa: step() called after the episode ended (done); call reset() first');
    const a = parseAction(action);
    let observation = INVALID_ACTION;
    if (a?.verb === 'search') {
      const hits = retrieve(a.arg, TOP_K);
      for (const h of hits) s.retrieved.add(h.passage.index);
      observation = formatPassages(hits);
    } else if (a?.verb === 'answer') {
      s.scores = scoreAnswer(a.arg, s.task.question.golds);
      observation = s.scores.em === 1 ? ANSWER_CORRECT : ANSWER_WRONG;
    }
    this.taken++;
    this.finished = s.scores !== null || this.taken >= this.maxSteps;
    const scores = s.scores ?? NO_SCORES;
    const success = scores.em === 1;
    const reward = a?.verb === 'answer' ? scores.em : 0;
    const info = this.finished ? { ...scores } : undefined;
    const truncated = this.finished && s.scores === null ? { truncated: true as const } : {};
    return {
      observation,
      reward,
      done: this.finished,
      valid: a !== null,
      success,
      ...(info ? { info } : {}),
      ...truncated,
    };
  }

  /** Admissible actions now: both open forms, or none once done. @throws Error before `reset`. */
  admissibleActions(): string[] {
    if (this.finished || !this.state) return [];
    return [SEARCH_PREFIX, ANSWER_PREFIX];
  }

  /** Actions taken since reset (valid or not). */
  get steps(): number {
    return this.taken;
  }

  /** True once the episode has ended. */
  get done(): boolean {
    return this.finished;
  }

  /** True once an answer matched a gold alias exactly. */
  get success(): boolean {
    return this.st?.scores?.em === 1;
  }

  /** The hidden state, for the expert and tests (never show it to a policy). @throws Error before `reset`. */
  get state(): SearchQaState {
    if (this.st === null) throw new Error('searchqa: call reset() before step() or admissibleActions()');
    return this.st;
  }
}
