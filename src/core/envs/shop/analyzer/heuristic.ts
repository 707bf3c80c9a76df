/**
 * The shop env's embedded `heuristic` analyzer (EnvSpec.analyzer; `--analyzer heuristic` on a shop run): OPID's
 * hindsight skills (OPID, Yang et al. 2026, §3) for WebShop-like episodes (WebShop, Yao et al. 2022), deterministic,
 * no network. It reads only what the trajectories show — the instruction, the pages, the actions, their validity and
 * returns — never the env's hidden state, its expert or a trajectory's `ref`; skills are phrased with the skill
 * grammar (src/core/skills/grammar.ts) and name actions exactly as the env takes them (`search[…]`, `click[…]`).
 *
 * Rules:
 * - The group's *reference*: among trajectories that bought (last step a valid `click[buy now]`), the one with the
 *   highest reward (its last step's return), then the shortest plan, then the first; none when every purchase scored
 *   0. Its plan (plan.ts `planOf`): the search whose results held the product it bought, `next >` to the page it lay
 *   on, the product, its chosen options, `buy now`; when the reference scored below 1, every asked option its product
 *   offers replaces the chosen value of its group (a repaired plan).
 * - A successful trajectory (reward 1): episode skill = its own plan (`plan: search[…], then click[…], …`). Step
 *   skills (≤ K): first each detour (a step outside the plan) with the plan's move there (`towardPlan`), unless
 *   what was done keeps to the plan (plan.ts `keepsToPlan`); then, with the room left, the plan's own steps, latest
 *   first.
 * - A failed trajectory whose reference scored more than it: walked step by step against the reference's plan; a step
 *   is a mistake when its action is not the plan's move there (`towardPlan`) — a click on another plan option not
 *   chosen yet keeps to the plan too (plan.ts `keepsToPlan`) — unless it is a search or a results-page paging move
 *   whose way (up to the next search page) showed the plan's product: another search that also finds it is no
 *   mistake. Step skills at the mistakes (≤ K, first ones first) name the plan's move; the episode skill is the first
 *   mistake's failure skill (`avoid: … warning sign: … instead: …`, mistakes.ts `contrastSign`).
 * - Any other failed trajectory (no better sibling — the group's best one itself, or a group where no purchase
 *   scored): its own mistakes (mistakes.ts `ownMistakes`): the first names the episode skill, the first K with a fix
 *   get step skills; none → the steps-run-out skill in shop's own words (`SHOP_FALLBACK`: `avoid: search and click
 *   with no buy now. warning sign: steps run out. instead: buy the product in fewer steps.`); a first mistake without
 *   a fix gets that fix too.
 * - Every step skill names an action the env accepts at that step, read from the page the step was taken on
 *   (tracked.ts `skillAdmissible`): a click on a value the page shows, or on the search page a `search[<words>]`
 *   with its closing bracket and no bracket inside.
 */
import type {
  Analyzer,
  AnalyzerGroup,
  AnalyzerOptions,
  AnalyzerStats,
  AnalyzerTrajectory,
  AnalysisResult,
  TrajectorySkills,
} from '../../types';
import { checkMaxStepSkills, emptyStats } from '../../types';
import { episodeSkill, failureSkill, stepSkill, warningSign } from '../../../skills/grammar';
import { now } from '../../../clock';
import { NEXT_PAGE, PREV_PAGE } from '../pages';
import { canonicalAction, readGoal, searchKeywords } from './read';
import { trackSeen, skillAdmissible } from './tracked';
import { keepsToPlan, planOf, towardPlan, type ShopPlan } from './plan';
import { contrastSign, ownMistakes, type ReadTrajectory } from './mistakes';

/**
 * shop's own words for a failure with no mistake to name, and for a mistake with no fix (the skill grammar's
 * fallback, `wandering between places` / `follow the task in fewer steps`, describes no shopping episode). Every word
 * is one of the env's tokens (vocab.ts with the skill grammar's words), so the policy reads them without byte fallback.
 */
export const SHOP_FALLBACK = {
  /** The mistake of an episode whose steps ran out without a purchase (no `click[buy now]`). */
  noPurchase: 'search and click with no buy now',
  /** The fix when no page shows a better move. */
  buySooner: 'buy the product in fewer steps',
} as const;

/** A trajectory read for analysis, with its plan when it bought something. */
interface Read extends ReadTrajectory {
  success: boolean;
  plan: ShopPlan | null;
}

/** Read one trajectory: goal, canonical actions, tracked states, reward and plan (repaired unless a success). */
export function readTrajectory(t: AnalyzerTrajectory): Read {
  const goal = readGoal(t.task);
  const steps = t.steps.map((s) => ({ action: canonicalAction(s.action), valid: s.valid, observation: s.observation }));
  const seen = trackSeen(steps, t.finalObservation);
  const plan = planOf(steps, seen, t.success ? undefined : goal);
  const reward = t.success ? 1 : plan ? Math.max(0, t.steps[t.steps.length - 1].return) : 0;
  return { goal, steps, seen, reward, success: t.success, plan };
}

/** The group's reference (see the module doc), or undefined. */
function reference(reads: readonly Read[]): Read | undefined {
  let best: Read | undefined;
  for (const r of reads) {
    if (!r.plan || r.reward <= 0) continue;
    if (!best?.plan || r.reward > best.reward) best = r;
    else if (r.reward === best.reward && r.plan.actions.length < best.plan.actions.length) best = r;
  }
  return best;
}

/** The shop's embedded analyzer (see the module doc): one group in, skills per trajectory out; never throws. */
export class ShopAnalyzer implements Analyzer {
  readonly name = 'heuristic';
  private readonly s: AnalyzerStats = emptyStats();

  /** @param o K (maxStepSkills ≥ 0) and failedOnly. @throws Error if K is negative or not an integer. */
  constructor(private readonly o: AnalyzerOptions) {
    checkMaxStepSkills('heuristic', o.maxStepSkills);
  }

  /** Skills per trajectory of the group, in its order; null only for successes under `failedOnly` (not counted). */
  async analyze(group: AnalyzerGroup): Promise<AnalysisResult> {
    const t0 = now();
    const reads = group.trajectories.map(readTrajectory);
    const ref = reference(reads);
    const out = reads.map((r) => {
      if (r.success && this.o.failedOnly) return null;
      this.s.calls++;
      if (r.success && r.plan) return this.success(r, r.plan);
      if (r.success) return { episodeSkill: '', stepSkills: {} };
      return (ref?.plan && ref.reward > r.reward && this.contrast(r, ref.plan)) || this.alone(r);
    });
    this.s.latencyMs += now() - t0;
    return out;
  }

  /** Cumulative counters (a copy): calls = trajectories analysed, latencyMs = time spent; it never fails. */
  stats(): AnalyzerStats {
    return { ...this.s, failureReasons: { ...this.s.failureReasons } };
  }

  private success(r: Read, p: ShopPlan): TrajectorySkills {
    const K = this.o.maxStepSkills;
    const stepSkills: Record<number, string> = {};
    for (let i = 0; i < r.steps.length && Object.keys(stepSkills).length < K; i++) {
      if (p.steps.includes(i)) continue;
      const move = towardPlan(r.seen[i], p);
      if (move && !(r.steps[i].valid && keepsToPlan(r.seen[i], r.steps[i].action, p))) stepSkills[i] = stepSkill(move);
    }
    const room = K - Object.keys(stepSkills).length;
    if (room > 0)
      for (const i of p.steps.slice(-room)) {
        const own = r.steps[i].action;
        if (skillAdmissible(r.seen[i].page, own)) stepSkills[i] = stepSkill(own);
      }
    return { episodeSkill: episodeSkill(p.actions), stepSkills };
  }

  /** Whether step i is a search or a paging move whose way, up to the next search page, showed `asin` listed. */
  private routeShows(r: Read, i: number, asin: string): boolean {
    const a = r.steps[i].action;
    const paging = r.seen[i].page?.kind === 'results' && (a === `click[${NEXT_PAGE}]` || a === `click[${PREV_PAGE}]`);
    if (searchKeywords(a) === null && !paging) return false;
    for (let j = i + 1; j < r.seen.length && r.seen[j].page?.kind !== 'search'; j++)
      if (r.seen[j].page?.products.some((x) => x.id === asin)) return true;
    return false;
  }

  private contrast(r: Read, p: ShopPlan): TrajectorySkills | null {
    let first: { i: number; fix: string } | null = null;
    const stepSkills: Record<number, string> = {};
    r.steps.forEach((s, i) => {
      const fix = towardPlan(r.seen[i], p);
      if (!fix || (s.valid && (keepsToPlan(r.seen[i], s.action, p) || this.routeShows(r, i, p.asin)))) return;
      first ??= { i, fix };
      if (Object.keys(stepSkills).length < this.o.maxStepSkills) stepSkills[i] = stepSkill(fix);
    });
    if (!first) return null;
    const { i, fix } = first;
    return { episodeSkill: failureSkill(r.steps[i].action, contrastSign(r, i, fix, p), fix), stepSkills };
  }

  private alone(r: Read): TrajectorySkills {
    const mistakes = ownMistakes(r);
    const stepSkills: Record<number, string> = {};
    for (const m of mistakes)
      if (m.fix !== undefined && Object.keys(stepSkills).length < this.o.maxStepSkills)
        stepSkills[m.i] = stepSkill(m.fix);
    const m = mistakes[0];
    const episode = m
      ? failureSkill(m.mistake, m.sign, m.fix ?? SHOP_FALLBACK.buySooner)
      : failureSkill(SHOP_FALLBACK.noPurchase, warningSign('timeout'), SHOP_FALLBACK.buySooner);
    return { episodeSkill: episode, stepSkills };
  }
}
