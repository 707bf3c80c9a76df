/**
 * The searchqa expert: plans the hops from the question's structure (questions.ts `hops`: the passages the answer
 * needs, in reading order) and searches each in turn, then answers with the canonical gold. From any state it
 * searches the first hop whose passage no search of the episode has returned yet; once every hop's passage has been
 * returned, or on the episode's last step (whatever it has found: an answer scores, a search cannot), it answers.
 * Reads the hidden state (the question's hops and golds), so it is for demonstrations, checks, hinted evaluation and
 * the privileged `oracle` analyzer, never shown to a policy. Solves every task from the start: at most one search per
 * hop (1–3; fewer when one search returns two hops' passages) and the answer, within maxSteps (4).
 *
 * A hop's query is the first of these whose top 3 (corpus.ts `retrieve`) holds the hop's passage: for the first hop
 * of a `triviaqa` clue, the clue's facts (`Orla Brenn novel 1881`); the hop's entity name as its passage's title
 * writes it (`Azure Guild`, `The Silent Harbour`: a name query ranks its own passage first for every passage of the
 * corpus, test/core/envs/searchqa/corpus.test.ts); the title and the passage's sentence. Names keep their case, so a
 * policy copies them token for token from the passage or the question.
 */
import type { Expert } from '../types';
import { corpus, retrieve } from './corpus';
import { TOP_K, type SearchQaEnv, type SearchQaState } from './env';
import type { Question } from './questions';

const queryMemo = new Map<string, string>();

/** The expert's query for passage `hop` of question `q` (see the module comment); no `[` or `]`. */
export function hopQuery(q: Question, hop: number): string {
  const clue = hop === q.hops[0] ? q.clue : undefined;
  const key = `${hop}/${clue ?? ''}`;
  let out = queryMemo.get(key);
  if (out === undefined) {
    const p = corpus()[hop];
    const candidates = [...(clue ? [clue] : []), p.title, `${p.title} ${p.text}`].map((c) => c.replace(/[[\]]/g, ' '));
    const hit = (c: string) => retrieve(c, TOP_K).some((r) => r.passage.index === hop);
    out = candidates.find(hit) ?? candidates[candidates.length - 1];
    queryMemo.set(key, out);
  }
  return out;
}

/** The expert's action in state `s` after `steps` of `maxSteps` actions (see the module comment). */
export function expertAction(s: SearchQaState, steps: number, maxSteps: number): string {
  const q = s.task.question;
  const next = q.hops.find((h) => !s.retrieved.has(h));
  if (next === undefined || steps >= maxSteps - 1) return `answer[${q.golds[0]}]`;
  return `search[${hopQuery(q, next)}]`;
}

/** The expert bound to one env (reads its state at each call). */
export class SearchQaExpert implements Expert {
  constructor(private readonly env: SearchQaEnv) {}

  /** The next action for the env's current state. @throws Error before reset or once the episode is done. */
  act(): string {
    if (this.env.done) throw new Error('searchqa expert: the episode is done (nothing left to do)');
    return expertAction(this.env.state, this.env.steps, this.env.maxSteps);
  }
}
