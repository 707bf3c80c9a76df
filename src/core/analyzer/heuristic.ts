/**
 * The embedded `heuristic` analyzer: deterministic, no network. It contrasts the group's failed
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
 *   mistake; the fix is W's next unfinished action. Episode skill = failure skill(mistake, warning sign, fix).
 *   Step skills at every divergent step (≤ K, first ones first), each naming the fix at that point — made
 *   executable there (`executableFix`): the base policy was taught step skills that name an action it can take now,
 *   so `take X from R` while elsewhere becomes `go to R`, a move while holding another object first puts that one
 *   down, and so on (read from the trajectory's own valid actions: where it stood, what it held, where it left
 *   things).
 * - A failed trajectory without a successful sibling: the task text names the object and target kinds
 *   (`put a X in Y.`); a `take` of another kind, a `move` to another kind, an inadmissible action or a repeat is the
 *   mistake; the fix is read from the observations (`X N` seen at a receptacle; `Y N` in the room description).
 *   No recognisable mistake → the steps-run-out skill.
 */
import type { Analyzer, AnalyzerGroup, AnalyzerOptions, AnalyzerStats, AnalyzerTrajectory, AnalysisResult, TrajectorySkills } from './types';
import { episodeSkill, failureSkill, stepSkill, warningSign, FALLBACK_PHRASES } from '../skills/grammar';

/**
 * Index list of a trajectory's workflow steps (see module doc): valid actions, minus a `go to` directly followed by
 * another `go to`, minus put-back loops (`move X to R` later undone by `take X from R`: both are wasted, and so is
 * the `go to` that only led back), minus exact repeats of a non-`go to` action.
 */
export function workflowSteps(t: AnalyzerTrajectory): number[] {
  const drop = new Set<number>();
  t.steps.forEach((s, i) => {
    const mv = s.action.match(/^move (.+?) to (.+)$/);
    if (!mv || !s.valid) return;
    const j = t.steps.findIndex((q, k) => k > i && q.valid && q.action === `take ${mv[1]} from ${mv[2]}`);
    if (j < 0) return;
    for (let k = i; k <= j; k++) drop.add(k);
  });
  const keep: number[] = [];
  const seen = new Set<string>();
  t.steps.forEach((s, i) => {
    if (!s.valid || drop.has(i)) return;
    const next = t.steps.slice(i + 1).find((_, k) => !drop.has(i + 1 + k));
    if (s.action.startsWith('go to ') && next && next.action.startsWith('go to ')) return;
    if (seen.has(s.action) && !s.action.startsWith('go to ')) return;
    seen.add(s.action);
    keep.push(i);
  });
  return keep;
}

/**
 * Search visits of a trajectory: a valid `go to R` to a receptacle it has not visited before, taken before any
 * observation so far (the step's own included) has shown an object the trajectory later takes. Without the hidden
 * state the agent cannot know where the object is, so such a visit is exploration, not a wasted move: a successful
 * trajectory's skills keep it in the workflow (its plan and step skills) instead of blaming it with hindsight.
 */
export function searchSteps(t: AnalyzerTrajectory): number[] {
  const taken = t.steps.flatMap((s) => (s.valid ? [s.action.match(/^take (.+?) from /)?.[1]] : [])).filter((x): x is string => !!x);
  if (!taken.length) return [];
  const seenRe = new RegExp(`\\b(?:${taken.map((x) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})\\b`);
  const out: number[] = [];
  const visited = new Set<string>();
  for (let i = 0; i < t.steps.length; i++) {
    const s = t.steps[i];
    if (seenRe.test(s.observation)) break;
    const r = s.valid ? s.action.match(/^go to (.+)$/)?.[1] : undefined;
    if (!r) continue;
    if (!visited.has(r)) out.push(i);
    visited.add(r);
  }
  return out;
}

/** Where a trajectory stands before a step, as its own valid actions show: location, held object, objects it moved. */
export interface TrackedState {
  at: string | null;
  held: string | null;
  /** Object name → receptacle it was last put in by this trajectory. */
  placed: Map<string, string>;
}

/** The state before each step of `t` (index i = before step i; length steps + 1), from its valid actions only. */
export function trackStates(t: AnalyzerTrajectory): TrackedState[] {
  const out: TrackedState[] = [];
  let cur: TrackedState = { at: null, held: null, placed: new Map() };
  for (const s of t.steps) {
    out.push(cur);
    if (!s.valid) continue;
    const next: TrackedState = { at: cur.at, held: cur.held, placed: new Map(cur.placed) };
    let m: RegExpMatchArray | null;
    if ((m = s.action.match(/^go to (.+)$/))) next.at = m[1];
    else if ((m = s.action.match(/^take (.+?) from (.+)$/))) { next.held = m[1]; next.placed.delete(m[1]); }
    else if ((m = s.action.match(/^move (.+?) to (.+)$/))) { next.held = null; next.placed.set(m[1], m[2]); }
    cur = next;
  }
  out.push(cur);
  return out;
}

/**
 * The action that starts `fix` from state `st` (the environment's preconditions, ALFWorld's rules: be at the
 * receptacle, hold the object, one object at a time): `go to R` when `fix` needs R and the agent is elsewhere; `move
 * <held> to <here>` when it must free its hands first; `take X from <where X is>` before moving or treating an X it
 * does not hold (where X is: where this trajectory left it, else the `take X from R` in `workflow`), also before a
 * `go to R` that in `workflow` leads to moving or treating X; `move <held> to <here>` before a `go to R` that leads to a
 * `take`. Undefined when no executable first action can be read off (e.g. the agent already holds X for a `take X`).
 */
export function executableFix(fix: string, st: TrackedState, workflow: readonly string[]): string | undefined {
  const putDown = st.held && st.at ? `move ${st.held} to ${st.at}` : undefined;
  const reach = (r: string, then: string) => (st.at !== r ? `go to ${r}` : then);
  let m: RegExpMatchArray | null;
  if ((m = fix.match(/^take (.+?) from (.+)$/))) {
    if (st.held === m[1]) return undefined;
    if (st.held) return putDown;
    const where = st.placed.get(m[1]) ?? m[2];
    return reach(where, `take ${m[1]} from ${where}`);
  }
  const needsHeld = fix.match(/^move (.+?) to (.+)$/) ?? fix.match(/^(?:clean|heat|cool) (.+?) with (.+)$/);
  if (needsHeld) {
    const [, obj, r] = needsHeld;
    if (st.held && st.held !== obj) return putDown;
    if (!st.held) {
      const take = workflow.find((a) => a.startsWith(`take ${obj} from `));
      const from = st.placed.get(obj) ?? take?.slice(`take ${obj} from `.length);
      return from ? reach(from, `take ${obj} from ${from}`) : undefined;
    }
    return reach(r, fix);
  }
  if ((m = fix.match(/^(?:open|close) (.+)$/))) return reach(m[1], fix);
  if (fix.startsWith('go to ')) {
    // Going on is only right with the object the workflow carries there: fetch it first.
    const after = workflow[workflow.indexOf(fix) + 1];
    const carried = after?.match(/^move (.+?) to /) ?? after?.match(/^(?:clean|heat|cool) (.+?) with /);
    if (carried && st.held !== carried[1]) return executableFix(after, st, workflow);
    if (after?.startsWith('take ') && st.held) return putDown; // hands must be free to take there
  }
  return fix;
}

/** Object and target kinds named by a household task line `put a X in Y.` (null if the task has another shape). */
function taskKinds(task: string): { object: string; target: string } | null {
  const m = task.match(/\b(?:a|an|some|two)\s+(?:clean |hot |cool )?([a-z]+)s?\s+(?:in|on)\s+(?:the\s+)?([a-z]+)/);
  return m ? { object: m[1], target: m[2] } : null;
}

/** Kind of an `X N` name. */
const kindOf = (name: string) => name.replace(/\s+\d+$/, '');

export class HeuristicAnalyzer implements Analyzer {
  readonly name = 'heuristic';
  private readonly s: AnalyzerStats = { calls: 0, failures: 0, latencyMs: 0, failureReasons: {} };

  /** @param o K (maxStepSkills ≥ 0) and failedOnly. @throws Error if K is negative or not an integer. */
  constructor(private readonly o: AnalyzerOptions) {
    if (!Number.isInteger(o.maxStepSkills) || o.maxStepSkills < 0) throw new Error(`heuristic analyzer: maxStepSkills must be an integer ≥ 0, got ${o.maxStepSkills}`);
  }

  /** Skills per trajectory of the group (never null: the heuristic always writes something). */
  async analyze(group: AnalyzerGroup): Promise<AnalysisResult> {
    const t0 = performance.now();
    const wins = group.trajectories.filter((t) => t.success).map(workflowActions).sort((a, b) => a.length - b.length);
    const best = wins[0];
    const out = group.trajectories.map((t) => {
      if (t.success && this.o.failedOnly) return null;
      this.s.calls++;
      return t.success ? this.success(t) : best ? this.contrast(t, best) : this.alone(t);
    });
    this.s.latencyMs += performance.now() - t0;
    return out;
  }

  stats(): AnalyzerStats {
    return { ...this.s, failureReasons: { ...this.s.failureReasons } };
  }

  private success(t: AnalyzerTrajectory): TrajectorySkills {
    const core = workflowSteps(t);
    const coreActions = new Set(core.map((i) => t.steps[i].action));
    // Search visits join the workflow unless the workflow goes there again anyway (no `go to R` twice in a plan).
    const idx = [...core, ...searchSteps(t).filter((i) => !coreActions.has(t.steps[i].action))].sort((a, b) => a - b);
    const w = idx.map((i) => t.steps[i].action);
    const states = trackStates(t);
    const stepSkills: Record<number, string> = {};
    const K = this.o.maxStepSkills;
    // Detours first: a step outside the workflow gets the workflow's next action, made executable there.
    for (let i = 0; i < t.steps.length && Object.keys(stepSkills).length < K; i++) {
      if (idx.includes(i)) continue;
      const k = idx.findIndex((j) => j > i);
      const now = k < 0 ? undefined : executableFix(w[k], states[i], w);
      if (now && now !== t.steps[i].action) stepSkills[i] = stepSkill(now);
    }
    // Then the decisive moves, latest first: the workflow's own steps.
    const room = K - Object.keys(stepSkills).length;
    if (room > 0) for (const i of idx.slice(-room)) stepSkills[i] = stepSkill(t.steps[i].action);
    return { episodeSkill: episodeSkill(w), stepSkills };
  }

  private contrast(t: AnalyzerTrajectory, w: string[]): TrajectorySkills {
    const visits = new Set(w.filter((a) => a.startsWith('go to ')));
    const states = trackStates(t);
    let next = 0;
    let first: { i: number; mistake: string; fix: string } | null = null;
    const stepSkills: Record<number, string> = {};
    t.steps.forEach((s, i) => {
      if (next >= w.length) return;
      if (s.valid && s.action === w[next]) {
        next++;
        return;
      }
      if (s.valid && s.action.startsWith('go to ') && visits.has(s.action) && !w.slice(next).every((a) => a.startsWith('go to '))) return;
      const fix = w[next];
      const now = executableFix(fix, states[i], w);
      if (now === s.action) return; // a step on the way to the fix, not a mistake
      if (!first) first = { i, mistake: s.action, fix };
      if (now && Object.keys(stepSkills).length < this.o.maxStepSkills) stepSkills[i] = stepSkill(now);
    });
    if (!first) return this.alone(t);
    const f = first as { i: number; mistake: string; fix: string };
    return { episodeSkill: failureSkill(f.mistake, this.sign(t, f.i, f.mistake, f.fix), f.fix), stepSkills };
  }

  private sign(t: AnalyzerTrajectory, i: number, mistake: string, fix: string): string {
    if (!t.steps[i].valid) return warningSign('invalid');
    if (t.steps.slice(0, i).some((s) => s.action === mistake)) return warningSign('repeat');
    const k = taskKinds(t.task);
    if (mistake.startsWith('take ') && k) return warningSign('wrongObject', k.object);
    if (k && (mistake.startsWith('move ') || fix.includes(k.target))) return warningSign('wrongPlace', k.target);
    return warningSign('wrongPlace', fix.replace(/^(go to|take|move|open) /, '').split(' ')[0]);
  }

  /** A failed trajectory with no successful sibling: judge it against the task text alone. */
  private alone(t: AnalyzerTrajectory): TrajectorySkills {
    const k = taskKinds(t.task);
    const stepSkills: Record<number, string> = {};
    let episode: string | null = null;
    const roomLine = t.steps[0]?.observation ?? '';
    const targetName = k ? roomLine.match(new RegExp(`\\b(${k.target} \\d+)`))?.[1] : undefined;
    t.steps.forEach((s, i) => {
      let fix: string | undefined, sign: string | undefined;
      const take = s.action.match(/^take (.+?) from (.+)$/);
      const move = s.action.match(/^move (.+?) to (.+)$/);
      if (!s.valid) sign = warningSign('invalid');
      else if (take && k && kindOf(take[1]) !== k.object) {
        const right = s.observation.match(new RegExp(`\\b(${k.object} \\d+)`))?.[1];
        fix = right ? `take ${right} from ${take[2]}` : undefined;
        sign = warningSign('wrongObject', k.object);
      } else if (move && k && kindOf(move[2]) !== k.target) {
        fix = targetName ? `go to ${targetName}` : undefined;
        sign = warningSign('wrongPlace', k.target);
      } else if (i > 0 && t.steps.slice(0, i).some((p) => p.action === s.action) && !s.action.startsWith('go to ')) sign = warningSign('repeat');
      if (!sign) return;
      if (fix && Object.keys(stepSkills).length < this.o.maxStepSkills) stepSkills[i] = stepSkill(fix);
      episode ??= failureSkill(s.action, sign, fix ?? FALLBACK_PHRASES.sooner, 0);
    });
    const fix = targetName && k ? FALLBACK_PHRASES.bringTo.replace('{t}', targetName).replace('{o}', k.object) : FALLBACK_PHRASES.sooner;
    return { episodeSkill: episode ?? failureSkill(FALLBACK_PHRASES.wandering, warningSign('timeout'), fix), stepSkills };
  }
}

/** The workflow actions of a trajectory (see `workflowSteps`). */
function workflowActions(t: AnalyzerTrajectory): string[] {
  return workflowSteps(t).map((i) => t.steps[i].action);
}

/** Options accepted by the heuristic analyzer (re-exported for callers building one). */
export type HeuristicOptions = AnalyzerOptions;
