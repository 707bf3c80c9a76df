/**
 * The searchqa analyzer's view of a group: each trajectory read step by step (its actions as written, the passages
 * each valid search showed, what it had seen before each step), the group's plan of hops — the question solved from
 * every passage the group's searches showed (question.ts), each hop's query taken from the search of the group's
 * reference success that found its passage, the answer from that success — and the move from any step towards it.
 * The step limit is the env's (SEARCHQA_MAX_STEPS, Search-R1's max turns): on the last step only an answer can score.
 */
import { SEARCHQA_MAX_STEPS } from '../tasks';
import type { AnalyzerTrajectory } from '../../types';
import { nameKey, readAction, readFacts, readPassages, sameAction, skillArg, type Facts } from './read';
import { readQuestion, solveQuestion, type Hop } from './question';
import { normalizeAnswer } from '../score';

/** One step as the analyzer reads it. */
export interface ReadStep {
  /** The action as written (read.ts `readAction`). */
  action: string;
  verb: 'search' | 'answer' | null;
  arg: string | null;
  /** The env's verdict, as recorded. */
  valid: boolean;
  /** A valid search: the passages its answer showed (facts), in rank order; [] otherwise. */
  shown: Facts[];
}

/** One trajectory as the analyzer reads it. */
export interface ReadTrajectory {
  success: boolean;
  steps: ReadStep[];
  /** seen[i]: `nameKey`s of the titles every valid search before step i showed (steps.length + 1 sets). */
  seen: Set<string>[];
}

/** Read one trajectory (see ReadTrajectory); the answer to step i is step i + 1's observation, or the final one. */
export function readTrajectory(t: AnalyzerTrajectory): ReadTrajectory {
  const steps = t.steps.map((s, i): ReadStep => {
    const a = readAction(s.action);
    const answer = i + 1 < t.steps.length ? t.steps[i + 1].observation : t.finalObservation;
    const shown =
      s.valid && a.verb === 'search' ? readPassages(answer).flatMap((p) => readFacts(p) ?? []) : ([] as Facts[]);
    return { ...a, valid: s.valid, shown };
  });
  const seen = [new Set<string>()];
  for (const s of steps) seen.push(new Set([...seen[seen.length - 1], ...s.shown.map((f) => nameKey(f.title))]));
  return { success: t.success, steps, seen };
}

/** One hop of a plan: what the question needs (question.ts `Hop`) and the query a step skill names for it. */
export interface PlanHop extends Hop {
  /** The search argument (no bracket inside). */
  query: string;
}

/** A plan of hops and the answer. */
export interface QaPlan {
  /** The hops in reading order; null when the task line has no known question shape (hops unknown). */
  hops: PlanHop[] | null;
  /** The answer argument (no bracket inside), or null when unknown. */
  answer: string | null;
  /** Solution.answerKind: what a chain's answer is (`a town` …), for a warning sign. */
  answerKind: string | null;
}

/** The group's reference: the successful trajectory with the fewest steps (the first of those); undefined if none. */
export function reference(reads: readonly ReadTrajectory[]): ReadTrajectory | undefined {
  let best: ReadTrajectory | undefined;
  for (const r of reads) if (r.success && (!best || r.steps.length < best.steps.length)) best = r;
  return best;
}

/** The first valid search of `r` that showed the passage titled `title`, as its step index; -1 when none did. */
export function stepThatShowed(r: ReadTrajectory, title: string): number {
  const key = nameKey(title);
  return r.steps.findIndex((s) => s.shown.some((f) => nameKey(f.title) === key));
}

/** A trajectory's answer argument (its last step when that is a valid answer), bracket-free; null otherwise. */
export function answerOf(r: ReadTrajectory): string | null {
  const last = r.steps[r.steps.length - 1];
  return last?.valid && last.verb === 'answer' && last.arg !== null ? skillArg(last.arg) : null;
}

/** The words of a text after SQuAD's normalisation (score.ts `normalizeAnswer`: no case, punctuation, articles). */
function wordsOf(text: string): string[] {
  return normalizeAnswer(text).split(' ').filter(Boolean);
}

/**
 * Whether search j of `r` could be written from what `r` had read before it: every word of its argument is in the
 * task line or in a passage an earlier search showed (a query that guessed a name before any text gave it is not).
 */
export function grounded(r: ReadTrajectory, j: number, task: string): boolean {
  const have = new Set(wordsOf(task));
  for (const s of r.steps.slice(0, j))
    for (const f of s.shown) for (const w of wordsOf(`${f.title} ${f.text}`)) have.add(w);
  return wordsOf(r.steps[j].arg ?? '').every((w) => have.has(w));
}

/**
 * The query a plan names for hop `h`: the argument of the search of `by` that showed its passage — with `task`, only
 * when that search was `grounded` — else the expert's form: a clue's words, the passage's title when some search of
 * the group showed it, the name as its source writes it.
 */
function hopQuery(h: Hop, by: ReadTrajectory | undefined, task?: string): string {
  const i = by && h.title !== null ? stepThatShowed(by, h.title) : -1;
  const own = i >= 0 && (task === undefined || grounded(by!, i, task)) ? skillArg(by!.steps[i].arg ?? '') : null;
  return own ?? skillArg(h.clue ? h.name : (h.title ?? h.name)) ?? h.name;
}

/**
 * The group's plan (see the module doc): the question of `task` solved from every passage the group's searches
 * showed; queries from `by` (the reference success) where a grounded search of it found the hop; the answer of `by`,
 * else the solved one.
 */
export function groupPlan(task: string, reads: readonly ReadTrajectory[], by?: ReadTrajectory): QaPlan {
  const q = readQuestion(task);
  const answer = (by && answerOf(by)) ?? null;
  if (!q) return { hops: null, answer, answerKind: null };
  const pool = new Map<string, Facts>();
  for (const r of reads) for (const s of r.steps) for (const f of s.shown) pool.set(nameKey(f.title), f);
  const sol = solveQuestion(q, pool);
  const hops = sol.hops.map((h) => ({ ...h, query: hopQuery(h, by, task) }));
  return { hops, answer: answer ?? (sol.answer === null ? null : skillArg(sol.answer)), answerKind: sol.answerKind };
}

/** A trajectory's own plan: the group's, with the queries of its own searches that found the hops and its answer. */
export function ownPlan(r: ReadTrajectory, group: QaPlan): QaPlan {
  const hops = group.hops?.map((h) => ({ ...h, query: hopQuery(h, r) })) ?? null;
  return { hops, answer: answerOf(r) ?? group.answer, answerKind: group.answerKind };
}

/** Whether step i of `r` is its episode's last possible one (an answer is the only move that can still score). */
export function lastStep(i: number): boolean {
  return i >= SEARCHQA_MAX_STEPS - 1;
}

/** The first hop of `p` whose passage `r` had not seen before step i (a hop no search found counts); else undefined. */
export function nextHop(p: QaPlan, r: ReadTrajectory, i: number): PlanHop | undefined {
  return p.hops?.find((h) => h.title === null || !r.seen[i].has(nameKey(h.title)));
}

/**
 * The plan's move at step i of `r`: on the last step the answer; else a search for the first hop not seen before
 * step i, or the answer once every hop was seen. Undefined when that answer is unknown, or when the hops are unknown
 * and it is not the last step.
 */
export function planMove(p: QaPlan, r: ReadTrajectory, i: number): string | undefined {
  const hop = lastStep(i) || p.hops === null ? undefined : nextHop(p, r, i);
  if (hop) return `search[${hop.query}]`;
  if (p.hops === null && !lastStep(i)) return undefined;
  return p.answer === null ? undefined : `answer[${p.answer}]`;
}

/** Whether valid step i of `r` showed the passage of a plan hop that `r` had not seen before it. */
export function findsHop(p: QaPlan, r: ReadTrajectory, i: number): boolean {
  const s = r.steps[i];
  return (
    s.valid &&
    s.verb === 'search' &&
    !!p.hops?.some((h) => h.title !== null && !r.seen[i].has(nameKey(h.title)) && r.seen[i + 1].has(nameKey(h.title)))
  );
}

/** Whether step i repeats a valid search that `r` made before (the same query to the env). */
export function repeats(r: ReadTrajectory, i: number): boolean {
  const s = r.steps[i];
  return s.valid && s.verb === 'search' && r.steps.slice(0, i).some((x) => x.valid && sameAction(x.action, s.action));
}

/** The step indices of `r`'s own plan steps: for each hop the search that first showed its passage, and its answer. */
export function planSteps(r: ReadTrajectory, p: QaPlan): number[] {
  const out = new Set<number>();
  if (p.hops)
    for (const h of p.hops) {
      const i = h.title === null ? -1 : stepThatShowed(r, h.title);
      if (i >= 0) out.add(i);
    }
  else r.steps.forEach((s, i) => s.valid && s.verb === 'search' && s.shown.length && !repeats(r, i) && out.add(i));
  const last = r.steps.length - 1;
  if (answerOf(r) !== null) out.add(last);
  return [...out].sort((a, b) => a - b);
}

/**
 * A plan's actions for an episode skill: a search per hop (hops found by one search named once), then the answer.
 * Without known hops (`hops` null): the searches at `steps` of `r`, then the answer. Empty when the answer is unknown.
 */
export function planActions(p: QaPlan, r: ReadTrajectory, steps: readonly number[]): string[] {
  if (p.answer === null) return [];
  const searches = p.hops
    ? p.hops.map((h) => `search[${h.query}]`)
    : steps.flatMap((i) => {
        const q = r.steps[i].verb === 'search' ? skillArg(r.steps[i].arg ?? '') : null;
        return q === null ? [] : [`search[${q}]`];
      });
  const out: string[] = [];
  for (const a of searches) if (!out.some((x) => sameAction(x, a))) out.push(a);
  return [...out, `answer[${p.answer}]`];
}
