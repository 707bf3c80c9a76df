/**
 * The searchqa env's embedded `heuristic` analyzer (EnvSpec.analyzer; `--analyzer heuristic` on a searchqa run):
 * OPID's hindsight skills (OPID, Yang et al. 2026, §3) for Search-R1-style episodes (Jin et al. 2025), deterministic,
 * no network. It reads only what the trajectories show — the question, the passages each search showed, the actions,
 * their validity and the outcome — never the env's hidden state, its expert or a trajectory's `ref`; skills are
 * phrased with the skill grammar (src/core/skills/grammar.ts) and name actions as the env takes them (`search[…]`,
 * `answer[…]`, names in the case the passages write them).
 *
 * Rules:
 * - The group's plan (plan.ts `groupPlan`): the question (question.ts, the env's own templates) solved from every
 *   passage any search of the group showed — the hops, in reading order (the passage a chain's subject names, then
 *   each passage the previous one names; a comparison's two; a clue's one), and the answer once every hop's passage
 *   was seen. The group's reference is its success with the fewest steps: each hop's query is the reference's own
 *   search that showed that hop's passage, the answer is the reference's. Without a reference, a hop's query is the
 *   expert's form (the passage's title, a clue's words; the name as the question writes it while no search showed
 *   the passage).
 * - A success: episode skill = its own plan (`plan: search[…], then search[…], then answer[…].`: for each hop the
 *   search of its own that showed the hop's passage — the group's query for a hop it never searched — then its
 *   answer). Step skills (≤ K): first each detour (a step outside its plan: an invalid action, a search that showed
 *   no new hop) with the plan's move there, then, with the room left, its plan's own steps, latest first.
 * - A failure: walked against the group's plan (mistakes.ts): a search for the wrong entity, an answer before the
 *   hop that holds it was searched, a wrong name copied from a passage, an invalid or repeated action, a search on
 *   the last step. Step skills at the mistakes (≤ K, first ones first) name the plan's move there; the episode skill
 *   is the first mistake's failure skill (`avoid: … warning sign: … instead: …`). With no mistake the plan can
 *   name (an answer the plan agrees with, in an episode judged failed; a trajectory cut short), searchqa's own fallback
 *   (`fallbackSkill`): an episode that ended with an answer avoids that answer (`warning sign: the answer is
 *   wrong`), one that ended without an answer avoids searching with no final answer (`steps run out`).
 * - Every step skill names `search[<text>]` or `answer[<text>]` with non-empty text and no bracket inside: an action
 *   the env accepts at any step before the episode ends (both open forms are always admissible).
 */
import type {
  Analyzer,
  AnalyzerGroup,
  AnalyzerOptions,
  AnalyzerStats,
  AnalysisResult,
  TrajectorySkills,
} from '../../types';
import { checkMaxStepSkills, emptyStats } from '../../types';
import { episodeSkill, failureSkill, stepSkill, warningSign, FALLBACK_PHRASES } from '../../../skills/grammar';
import { now } from '../../../clock';
import {
  groupPlan,
  ownPlan,
  planActions,
  planMove,
  planSteps,
  readTrajectory,
  reference,
  type QaPlan,
  type ReadTrajectory,
} from './plan';
import { planMistakes } from './mistakes';
import { sameAction, skillArg } from './read';

/** The searchqa env's embedded analyzer (see the module doc): one group in, skills per trajectory out; never throws. */
export class SearchQaAnalyzer implements Analyzer {
  readonly name = 'heuristic';
  private readonly s: AnalyzerStats = emptyStats();

  /** @param o K (maxStepSkills ≥ 0) and failedOnly. @throws Error if K is negative or not an integer. */
  constructor(private readonly o: AnalyzerOptions) {
    checkMaxStepSkills('heuristic', o.maxStepSkills);
  }

  /**
   * Skills per trajectory of the group, in its order; null only for successes under `failedOnly` (not counted).
   * Trajectories of different task lines (a group is one task) are planned per task line.
   */
  async analyze(group: AnalyzerGroup): Promise<AnalysisResult> {
    const t0 = now();
    const reads = group.trajectories.map(readTrajectory);
    const plans = new Map<string, QaPlan>();
    const planFor = (task: string) => {
      let p = plans.get(task);
      if (!p) {
        const same = reads.filter((_, k) => group.trajectories[k].task === task);
        p = groupPlan(task, same, reference(same));
        plans.set(task, p);
      }
      return p;
    };
    const out = reads.map((r, k) => {
      if (r.success && this.o.failedOnly) return null;
      this.s.calls++;
      const p = planFor(group.trajectories[k].task);
      return r.success ? this.success(r, p) : this.failure(r, p);
    });
    this.s.latencyMs += now() - t0;
    return out;
  }

  /** Cumulative counters (a copy): calls = trajectories analysed, latencyMs = time spent; it never fails. */
  stats(): AnalyzerStats {
    return { ...this.s, failureReasons: { ...this.s.failureReasons } };
  }

  private success(r: ReadTrajectory, group: QaPlan): TrajectorySkills {
    const p = ownPlan(r, group);
    const steps = planSteps(r, p);
    const actions = planActions(p, r, steps);
    if (!actions.length) return { episodeSkill: '', stepSkills: {} };
    const K = this.o.maxStepSkills;
    const stepSkills: Record<number, string> = {};
    for (let i = 0; i < r.steps.length && Object.keys(stepSkills).length < K; i++) {
      const move = steps.includes(i) ? undefined : planMove(p, r, i);
      if (move && !sameAction(move, r.steps[i].action)) stepSkills[i] = stepSkill(move);
    }
    const room = K - Object.keys(stepSkills).length;
    if (room > 0)
      for (const i of steps.slice(-room)) {
        const s = r.steps[i];
        const arg = skillArg(s.arg ?? '');
        if (s.verb && arg !== null) stepSkills[i] = stepSkill(`${s.verb}[${arg}]`);
      }
    return { episodeSkill: episodeSkill(actions), stepSkills };
  }

  private failure(r: ReadTrajectory, p: QaPlan): TrajectorySkills {
    const mistakes = planMistakes(r, p);
    const stepSkills: Record<number, string> = {};
    for (const m of mistakes)
      if (m.fix !== undefined && Object.keys(stepSkills).length < this.o.maxStepSkills)
        stepSkills[m.i] = stepSkill(m.fix);
    const m = mistakes[0];
    const episode = m ? failureSkill(m.mistake, m.sign, m.fix ?? FALLBACK_PHRASES.sooner) : fallbackSkill(r, p);
    return { episodeSkill: episode, stepSkills };
  }
}

/**
 * searchqa's own words for a failure in which no step is a mistake the plan can name (the skill grammar's fallback,
 * `wandering between places`, describes no search episode). Every word is one of the env's tokens (vocab.ts with the
 * skill grammar's words), so the policy reads them without byte fallback.
 */
export const SEARCHQA_FALLBACK = {
  /** The mistake of an episode that ended without an answer. */
  noAnswer: 'search with no final answer',
  /** The warning sign of an episode that ended with an answer and failed: the env's verdict on it. */
  wrongAnswer: 'the answer is wrong',
  /** The fix for such an answer. */
  findAnswer: 'search the passage that names the answer',
  /** The fix for an episode without an answer when the plan's answer is unknown. */
  answerSooner: 'give the final answer in fewer steps',
} as const;

/**
 * The episode skill of a failure with no mistake (see the module doc): ended with a valid answer, `avoid: <that
 * answer>. warning sign: the answer is wrong. instead: search the passage that names the answer.`; else (an episode
 * ends without an answer only when its steps run out) `avoid: search with no final answer. warning sign: steps run
 * out. instead: <the plan's answer, or 'give the final answer in fewer steps'>.`
 */
export function fallbackSkill(r: ReadTrajectory, p: QaPlan): string {
  const last = r.steps[r.steps.length - 1];
  if (last?.valid && last.verb === 'answer')
    return failureSkill(last.action, SEARCHQA_FALLBACK.wrongAnswer, SEARCHQA_FALLBACK.findAnswer);
  const fix = p.answer === null ? SEARCHQA_FALLBACK.answerSooner : `answer[${p.answer}]`;
  return failureSkill(SEARCHQA_FALLBACK.noAnswer, warningSign('timeout'), fix);
}
