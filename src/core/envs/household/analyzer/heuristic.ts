/**
 * The household env's embedded `heuristic` analyzer (EnvSpec.analyzer; `--analyzer heuristic` on a household run):
 * deterministic, no network. It contrasts the group's failed
 * trajectories with its successful ones and writes skills in the grammar the base policy was pretrained to follow
 * (src/core/skills/grammar.ts). It reads only what the trajectories show — task text, observations, actions,
 * validity, returns — never the environment's hidden state or expert.
 *
 * Rules:
 * - The *workflow* of a successful trajectory: its valid actions minus wasted moves (a `go to` directly followed by
 *   another `go to`, put-back loops `move X to R … take X from R`, and exact repeats of an action), plus its search
 *   visits (`searchSteps`: first visits made before the object was seen — exploration, not waste; the agent could
 *   not know where the object was, so hindsight must not blame them). Its episode skill is that workflow; its
 *   step skills (the critical set, ≤ K): first each detour (a step outside the workflow) with the workflow's next
 *   action made executable there, then, with the room left, the workflow's own steps, latest first (the decisive
 *   moves — take, move, treat — come last in an episode).
 * - A failed trajectory, given the group's shortest successful workflow W: walk its steps; the first step whose
 *   action is not the next unfinished action of W (and not a harmless search `go to` that W also visits) is the
 *   mistake; the fix is W's next unfinished action. A step that advances the task by another route than W's (another
 *   object of the task's kind, a search that found one, the task's treatment, the move into the target after it) or
 *   that puts down an object the task does not need is no mistake (progress.ts `stepProgress`); where it stands for
 *   W's next decisive action, the walk goes on after that action. Episode skill = failure skill(mistake, warning sign,
 *   fix). Step skills at every divergent step (≤ K, first ones first), each naming the fix at that point — made
 *   executable there (`executableFix`): the base policy was taught step skills that name an action it can take now,
 *   so `take X from R` while elsewhere becomes `go to R`, a move into a closed receptacle first opens it, a move
 *   while holding another object first puts that one down, a fix already done there (`go to R` at R) gives way to
 *   W's action after it, and so on (read from the trajectory's own observations and valid actions: where it stood,
 *   what it held, where it left things, which doors it saw closed, what it saw inside; tracked-state.ts).
 * - A failed trajectory without a successful sibling: from the first step at which it has an object of the task's
 *   kind in sight, it is walked like the case above against its *hindsight workflow* (hindsight-plan.ts: fetch that
 *   object, treat it at the room's appliance when the task says so, put it in the target — read from the task line,
 *   the room line and its own observations by the household task rules). Before that step (its search), and when no
 *   such workflow can be written: a `take` of another kind than the task's object, a `move` of the task's object to
 *   another kind, an inadmissible action or a repeat is a mistake, the fix read from the observations (`X N` seen at a
 *   receptacle; `Y N` in the room description). The episode skill names the first mistake; none → the
 *   steps-run-out skill.
 * - Every step skill names an action admissible at its step: a candidate the trajectory does not prove admissible
 *   there (`knownAdmissible`: ALFWorld's preconditions checked against what it has shown) is left out, so a step
 *   skill is never a command the environment would answer with `Nothing happens.`. The workflow's own steps need no
 *   check (they were valid). Actions are compared and quoted in the environment's normal form (`normalizeAction`).
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
import { checkMaxStepSkills, emptyStats, normalizeAction } from '../../types';
import { episodeSkill, failureSkill, stepSkill, warningSign, FALLBACK_PHRASES } from '../../../skills/grammar';
import { isInfoAction, kindOf, knownAdmissible, trackStates, type TrackedState } from './tracked-state';
import { executableFix, searchSteps, workflowActions, workflowSteps } from './workflow';
import { lookObject, stepProgress, taskKinds } from './progress';
import { firstSighting, hindsightPlan } from './hindsight-plan';

export { executableFix, searchSteps, workflowSteps } from './workflow';
export { trackStates, knownAdmissible, type TrackedState } from './tracked-state';

/** The embedded analyzer (see the module doc): one group in, skills per trajectory out; never null, never throws. */
export class HeuristicAnalyzer implements Analyzer {
  readonly name = 'heuristic';
  private readonly s: AnalyzerStats = emptyStats();

  /** @param o K (maxStepSkills ≥ 0) and failedOnly. @throws Error if K is negative or not an integer. */
  constructor(private readonly o: AnalyzerOptions) {
    checkMaxStepSkills('heuristic', o.maxStepSkills);
  }

  /** Skills per trajectory of the group (never null: the heuristic always writes something). */
  async analyze(group: AnalyzerGroup): Promise<AnalysisResult> {
    const t0 = performance.now();
    // Actions as the environment writes them (free decoding may differ in case or spacing), so skills quote them
    // exactly.
    const trajs = group.trajectories.map((t) => ({
      ...t,
      steps: t.steps.map((s) => ({ ...s, action: normalizeAction(s.action) })),
    }));
    // A success with no valid step has no workflow (the household env cannot make one): it teaches its siblings
    // nothing.
    const wins = trajs
      .filter((t) => t.success)
      .map(workflowActions)
      .filter((w) => w.length > 0)
      .sort((a, b) => a.length - b.length);
    const best = wins[0];
    // The information commands are offered in this room when any trajectory of the group gave one validly.
    const info = trajs.some((t) => t.steps.some((s) => s.valid && isInfoAction(s.action)));
    const out = trajs.map((t) => {
      if (t.success && this.o.failedOnly) return null;
      this.s.calls++;
      const states = trackStates(t, info);
      return t.success ? this.success(t, states) : best ? this.contrast(t, best, states) : this.alone(t, states);
    });
    this.s.latencyMs += performance.now() - t0;
    return out;
  }

  stats(): AnalyzerStats {
    return { ...this.s, failureReasons: { ...this.s.failureReasons } };
  }

  private success(t: AnalyzerTrajectory, states: TrackedState[]): TrajectorySkills {
    const core = workflowSteps(t);
    const coreActions = new Set(core.map((i) => t.steps[i].action));
    // Search visits join the workflow unless the workflow goes there again anyway (no `go to R` twice in a plan).
    const idx = [...core, ...searchSteps(t).filter((i) => !coreActions.has(t.steps[i].action))].sort((a, b) => a - b);
    const w = idx.map((i) => t.steps[i].action);
    const stepSkills: Record<number, string> = {};
    // No valid step, so no workflow to write: an empty episode skill (routed as none, math/skill.ts) and no step
    // skills.
    if (!w.length) return { episodeSkill: '', stepSkills };
    const K = this.o.maxStepSkills;
    // Detours first: a step outside the workflow gets the workflow's next action, made executable there.
    for (let i = 0; i < t.steps.length && Object.keys(stepSkills).length < K; i++) {
      if (idx.includes(i)) continue;
      const k = idx.findIndex((j) => j > i);
      const now = k < 0 ? undefined : executableFix(w[k], states[i], w, k);
      if (now && now !== t.steps[i].action && knownAdmissible(now, states[i])) stepSkills[i] = stepSkill(now);
    }
    // Then the decisive moves, latest first: the workflow's own steps (valid there, so admissible).
    const room = K - Object.keys(stepSkills).length;
    if (room > 0) for (const i of idx.slice(-room)) stepSkills[i] = stepSkill(t.steps[i].action);
    return { episodeSkill: episodeSkill(w), stepSkills };
  }

  private contrast(t: AnalyzerTrajectory, w: string[], states: TrackedState[]): TrajectorySkills {
    // Its search moves (before it had the task's object in sight, a go to / open whose fix is only another place) are
    // not judged: hindsight must not blame it for not knowing where the object was (as for a successful trajectory's
    // search visits).
    const r = this.walk(t, w, states, 0, 0, Math.max(0, firstSighting(t, states)));
    if (!r.first) return this.alone(t, states);
    return { episodeSkill: this.mistakeSkill(t, r.first), stepSkills: r.stepSkills };
  }

  /**
   * Walk a failed trajectory's steps from `from` against workflow `w` (from position `next`): the first divergent
   * step is the mistake — except, before `judgeFrom`, a `go to`/`open` whose fix is another `go to`/`open` or cannot
   * be read off (a search move hindsight would only redirect) —; every such step (≤ K) gets a step skill naming the
   * fix made executable there.
   */
  private walk(
    t: AnalyzerTrajectory,
    workflow: readonly string[],
    states: TrackedState[],
    from: number,
    next: number,
    judgeFrom = from,
  ): { first: { i: number; mistake: string; fix: string } | null; stepSkills: Record<number, string> } {
    let w = workflow;
    const visits = new Set(w.filter((a) => a.startsWith('go to ')));
    let first: { i: number; mistake: string; fix: string } | null = null;
    const stepSkills: Record<number, string> = {};
    const kind = taskKinds(t.task)?.object;
    t.steps.forEach((s, i) => {
      if (i < from || next >= w.length) return;
      // Holding another object of the task's kind than the one the workflow carries next (apple 3 for apple 1, or back
      // to apple 1): the rest of the workflow is about the object in hand (`exchangeObjects`).
      const held = states[i]?.held,
        carried = carriedNext(w, next);
      if (held && carried && held !== carried && kind && kindOf(held) === kind && kindOf(carried) === kind)
        w = exchangeObjects(w, next, held, carried);
      if (s.valid && s.action === w[next]) {
        next++;
        return;
      }
      if (
        s.valid &&
        s.action.startsWith('go to ') &&
        visits.has(s.action) &&
        !w.slice(next).every((a) => a.startsWith('go to '))
      )
        return;
      // Progress by another route than W's (progress.ts), or putting down an object taken by mistake: not a mistake.
      const p = stepProgress(t, i, w, next);
      if (p.kind === 'progress' && p.advance !== undefined) next = p.advance + 1;
      if (p.kind !== 'none') return;
      const fix = w[next];
      const now = executableFix(fix, states[i], w, next);
      // A step on the way to the fix is not a mistake, nor is a search move before judgeFrom whose fix would only say
      // where to go (hindsight of where the object was).
      const searchMove = /^(go to|open) /;
      if (now === s.action || (i < judgeFrom && searchMove.test(s.action) && (!now || searchMove.test(now)))) return;
      if (!first) first = { i, mistake: s.action, fix };
      if (now && knownAdmissible(now, states[i]) && Object.keys(stepSkills).length < this.o.maxStepSkills)
        stepSkills[i] = stepSkill(now);
    });
    return { first, stepSkills };
  }

  /** The failure episode skill of a walk's first mistake: what was done, its warning sign, the fix. */
  private mistakeSkill(t: AnalyzerTrajectory, f: { i: number; mistake: string; fix: string }): string {
    return failureSkill(f.mistake, this.sign(t, f.i, f.mistake, f.fix), f.fix);
  }

  private sign(t: AnalyzerTrajectory, i: number, mistake: string, fix: string): string {
    if (!t.steps[i].valid) return warningSign('invalid');
    if (t.steps.slice(0, i).some((s) => s.action === mistake)) return warningSign('repeat');
    const k = taskKinds(t.task);
    if (mistake.startsWith('take ') && k) return warningSign('wrongObject', k.object);
    if (k && (mistake.startsWith('move ') || fix.includes(k.target))) return warningSign('wrongPlace', k.target);
    // Elsewhere (a search that went the wrong way): the sign names what the task asks for, never the fix's place as
    // if it were the target.
    const object = k?.object ?? lookObject(t.task);
    if (object) return warningSign('wrongObject', object);
    return warningSign('wrongPlace', fix.replace(/^(go to|take|move|open) /, '').split(' ')[0]);
  }

  /**
   * A failed trajectory with no successful sibling. Once it has seen an object of the task's kind, it is judged like
   * a contrast against its hindsight workflow (hindsight-plan.ts); before that (its search), and when there is no
   * such workflow, by the task text alone (`mistakesAlone`). The episode skill names the first mistake found.
   */
  private alone(t: AnalyzerTrajectory, states: TrackedState[]): TrajectorySkills {
    const h = hindsightPlan(t, states);
    const before = this.mistakesAlone(t, states, h ? h.from : t.steps.length);
    const r = h ? this.walk(t, h.workflow, states, h.from, h.next) : { first: null, stepSkills: {} };
    const stepSkills: Record<number, string> = {};
    for (const [i, sk] of [...Object.entries(before.stepSkills), ...Object.entries(r.stepSkills)])
      if (Object.keys(stepSkills).length < this.o.maxStepSkills) stepSkills[Number(i)] = sk;
    const f = r.first as { i: number; mistake: string; fix: string } | null;
    const episode = before.episode ?? (f ? this.mistakeSkill(t, f) : null);
    if (episode) return { episodeSkill: episode, stepSkills };
    const k = taskKinds(t.task);
    const targetName = roomTarget(t, k);
    const fix =
      targetName && k
        ? FALLBACK_PHRASES.bringTo.replace('{t}', targetName).replace('{o}', k.object)
        : FALLBACK_PHRASES.sooner;
    return { episodeSkill: failureSkill(FALLBACK_PHRASES.wandering, warningSign('timeout'), fix), stepSkills };
  }

  /**
   * Mistakes read from the task text alone, in steps before `until`: a `take` of another kind than the task's object,
   * a `move` of the task's object to another kind than its target, an inadmissible action, a repeat; the fix read
   * from the observations (`X N` seen at a receptacle; `Y N` in the room description).
   */
  private mistakesAlone(
    t: AnalyzerTrajectory,
    states: TrackedState[],
    until: number,
  ): { episode: string | null; stepSkills: Record<number, string> } {
    const k = taskKinds(t.task);
    const stepSkills: Record<number, string> = {};
    let episode: string | null = null;
    const targetName = roomTarget(t, k);
    t.steps.forEach((s, i) => {
      if (i >= until) return;
      let fix: string | undefined, sign: string | undefined;
      const take = s.action.match(/^take (.+?) from (.+)$/);
      const move = s.action.match(/^move (.+?) to (.+)$/);
      if (!s.valid) sign = warningSign('invalid');
      else if (take && k && kindOf(take[1]) !== k.object) {
        const right = s.observation.match(new RegExp(`\\b(${k.object} \\d+)`))?.[1];
        fix = right ? `take ${right} from ${take[2]}` : undefined;
        sign = warningSign('wrongObject', k.object);
      } else if (move && k && kindOf(move[1]) === k.object && kindOf(move[2]) !== k.target) {
        fix = targetName ? `go to ${targetName}` : undefined;
        sign = warningSign('wrongPlace', k.target);
      } else if (i > 0 && t.steps.slice(0, i).some((p) => p.action === s.action) && !s.action.startsWith('go to '))
        sign = warningSign('repeat');
      if (!sign) return;
      if (fix && knownAdmissible(fix, states[i]) && Object.keys(stepSkills).length < this.o.maxStepSkills)
        stepSkills[i] = stepSkill(fix);
      episode ??= failureSkill(s.action, sign, fix ?? FALLBACK_PHRASES.sooner, 0);
    });
    return { episode, stepSkills };
  }
}

/** The object an action takes, treats or moves (`take apple 3 from …` → `apple 3`); undefined for other actions. */
function objectOf(action: string): string | undefined {
  return (
    action.match(/^(?:take|move) (.+?) (?:from|to) /)?.[1] ?? action.match(/^(?:clean|heat|cool) (.+?) with /)?.[1]
  );
}

/** The object of the first take, move or treatment in `w` from position `next`, when it is a move or treatment (one
 * that needs the object in hand); undefined when a take comes first or there is none. */
function carriedNext(w: readonly string[], next: number): string | undefined {
  for (let k = next; k < w.length; k++) {
    if (w[k].startsWith('take ')) return undefined;
    const o = objectOf(w[k]);
    if (o) return o;
  }
  return undefined;
}

/**
 * Workflow `w` from position `from` on made about `mine`, an object the trajectory holds, instead of `theirs`, the
 * object of the same kind `w` carries next: the rest of `w` with the two names exchanged; where the rest then fetches
 * `theirs` (pick two: the leg that took `mine`), that leg becomes `w`'s own earlier way to `theirs` — its `go
 * to`/`open` lead-in and `take` — since `theirs` lies where `w` took it, not where `mine` lay.
 */
function exchangeObjects(w: readonly string[], from: number, mine: string, theirs: string): string[] {
  const rest = swapNames(w.slice(from), mine, theirs);
  const takeOf = (x: string) => `take ${x} from `;
  const j = rest.findIndex((a) => a.startsWith(takeOf(theirs)));
  const t0 = w.findIndex((a, x) => x < from && a.startsWith(takeOf(theirs)));
  if (j >= 0 && t0 >= 0) {
    const leadIn = (xs: readonly string[], end: number, r: string) => {
      let k = end;
      while (k > 0 && (xs[k - 1] === `go to ${r}` || xs[k - 1] === `open ${r}`)) k--;
      return k;
    };
    const k = leadIn(rest, j, rest[j].slice(takeOf(theirs).length));
    rest.splice(k, j + 1 - k, ...w.slice(leadIn(w, t0, w[t0].slice(takeOf(theirs).length)), t0 + 1));
  }
  return [...w.slice(0, from), ...rest];
}

/** `actions` with the object names `a` and `b` exchanged (whole names: `apple 1` is not `apple 10`). */
function swapNames(actions: readonly string[], a: string, b: string): string[] {
  const esc = (x: string) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const re = new RegExp(`\\b(${esc(a)}|${esc(b)})\\b`, 'g');
  return actions.map((x) => x.replace(re, (m) => (m === a ? b : a)));
}

/**
 * The first receptacle of the task's target kind named in the room description (step 0's observation), e.g. `fridge 1`.
 */
function roomTarget(t: AnalyzerTrajectory, k: ReturnType<typeof taskKinds>): string | undefined {
  return k ? (t.steps[0]?.observation ?? '').match(new RegExp(`\\b(${k.target} \\d+)`))?.[1] : undefined;
}

/** Options accepted by the heuristic analyzer (re-exported for callers building one). */
export type HeuristicOptions = AnalyzerOptions;
