/**
 * The heuristic analyzer's reading of a trajectory's actions: its workflow (the valid actions that did the work),
 * its search visits (exploration before the object was seen), and the first action that starts a fix from a given
 * state (`executableFix`). See src/core/envs/household/analyzer/heuristic.ts for how the analyzer uses them.
 */
import type { AnalyzerTrajectory } from '../../types';
import { isInfoAction, kindOf, knownAdmissible, type TrackedState } from './tracked-state';
import { lookObject, taskKinds } from './progress';

/**
 * Index list of a trajectory's workflow steps (see module doc): valid actions, minus a `go to` directly followed by
 * another `go to`, minus put-back loops (`move X to R` later undone by `take X from R`: both are wasted, and so is
 * the `go to` that only led back), minus pick-up detours (`take X` whose next use of X is a `move X`, where X is not
 * of the task's kind or the receptacle not of its target kind — for a look task, any move —: X was put down unused,
 * so both are wasted), minus exact repeats of a non-`go to` action. A detour left in would make a failed trajectory's
 * right `take` stand for the sibling's wrong one and its fix the sibling's put-down.
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
  const look = lookObject(t.task),
    kinds = taskKinds(t.task);
  const object = look ?? kinds?.object,
    target = look ? null : kinds?.target;
  if (object !== undefined && target !== undefined)
    t.steps.forEach((s, i) => {
      const tk = s.valid && !drop.has(i) ? s.action.match(/^take (.+?) from /) : null;
      if (!tk) return;
      const uses = (a: string) =>
        a.startsWith(`move ${tk[1]} to `) || /^(clean|heat|cool) (.+?) with /.exec(a)?.[2] === tk[1];
      const j = t.steps.findIndex((q, k) => k > i && q.valid && !drop.has(k) && uses(q.action));
      const to = j < 0 ? undefined : t.steps[j].action.match(/^move .+? to (.+)$/)?.[1];
      if (to !== undefined && (kindOf(tk[1]) !== object || target === null || kindOf(to) !== target))
        drop.add(i).add(j);
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

/** The workflow actions of a trajectory (see `workflowSteps`). */
export function workflowActions(t: AnalyzerTrajectory): string[] {
  return workflowSteps(t).map((i) => t.steps[i].action);
}

/**
 * Search visits of a trajectory: a valid `go to R` to a receptacle it has not visited before, taken before any
 * observation so far (the step's own included) has shown an object the trajectory later takes. Without the hidden
 * state the agent cannot know where the object is, so such a visit is exploration, not a wasted move: a successful
 * trajectory's skills keep it in the workflow (its plan and step skills) instead of blaming it with hindsight.
 */
export function searchSteps(t: AnalyzerTrajectory): number[] {
  const taken = t.steps
    .flatMap((s) => (s.valid ? [s.action.match(/^take (.+?) from /)?.[1]] : []))
    .filter((x): x is string => !!x);
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

/**
 * The action that starts `fix` (the workflow's action at index `k`; default: its first occurrence) from state `st`,
 * by the environment's preconditions (ALFWorld's rules: be at the receptacle, its door open, hold the object, one
 * object at a time):
 * - `go to R` when `fix` needs R and the agent is elsewhere; `open R` when it stands at R and has seen its door
 *   closed (to take from it, put into it, or use the lamp on it; treatments work with the door closed);
 * - `move <held> to <here>` (or `open <here>` first) when it must free its hands;
 * - `take X from <where X is>` before moving or treating an X it does not hold (where X is: where this trajectory
 *   left it, else the `take X from R` in `workflow`), also before a `go to R` that in `workflow` leads to moving or
 *   treating X; `move <held> to <here>` before a `go to R` that leads to a `take`;
 * - `use L` away from the lamp: first fetch the object the workflow took before it, then go to where L stands (where
 *   the trajectory saw it, else the workflow's last `go to` before it);
 * - a fix already done here (`go to R` at R, `open R` with R seen open, `close R` with R seen closed) or an
 *   information command the agent cannot give here: the workflow's next action, made executable the same way.
 * Undefined when no executable first action can be read off (e.g. the agent already holds X for a `take X`). The
 * result is not checked: callers keep it only when `knownAdmissible` holds.
 */
export function executableFix(
  fix: string,
  st: TrackedState,
  workflow: readonly string[],
  k = workflow.indexOf(fix),
): string | undefined {
  const closed = (r: string) => st.doors.get(r) === 'closed';
  const putDown = () =>
    !st.held || !st.at ? undefined : closed(st.at) ? `open ${st.at}` : `move ${st.held} to ${st.at}`;
  const reach = (r: string, then: string) => (st.at !== r ? `go to ${r}` : closed(r) ? `open ${r}` : then);
  const onward = () =>
    k >= 0 && k + 1 < workflow.length ? executableFix(workflow[k + 1], st, workflow, k + 1) : undefined;
  const fetch = (obj: string) => {
    const take = workflow.find((a) => a.startsWith(`take ${obj} from `));
    const from = st.placed.get(obj) ?? take?.slice(`take ${obj} from `.length);
    return from ? reach(from, `take ${obj} from ${from}`) : undefined;
  };
  let m: RegExpMatchArray | null;
  if ((m = fix.match(/^take (.+?) from (.+)$/))) {
    if (st.held === m[1]) return undefined;
    if (st.held) return putDown();
    const where = st.placed.get(m[1]) ?? m[2];
    return reach(where, `take ${m[1]} from ${where}`);
  }
  const needsHeld = fix.match(/^move (.+?) to (.+)$/) ?? fix.match(/^(?:clean|heat|cool) (.+?) with (.+)$/);
  if (needsHeld) {
    const [, obj, r] = needsHeld;
    if (st.held && st.held !== obj) return putDown();
    if (!st.held) return fetch(obj);
    return fix.startsWith('move ') ? reach(r, fix) : st.at !== r ? `go to ${r}` : fix;
  }
  if ((m = fix.match(/^use (.+)$/))) {
    if (knownAdmissible(fix, st)) return fix;
    const before = k >= 0 ? workflow.slice(0, k) : [...workflow];
    const obj = before
      .map((a) => a.match(/^take (.+?) from /)?.[1])
      .filter((x): x is string => !!x)
      .pop();
    if (obj && st.held !== obj) return st.held ? putDown() : fetch(obj);
    const place =
      [...st.contents].find(([, v]) => v.includes(m![1]))?.[0] ??
      before
        .filter((a) => a.startsWith('go to '))
        .pop()
        ?.slice('go to '.length);
    return place ? reach(place, fix) : undefined;
  }
  if ((m = fix.match(/^(open|close) (.+)$/))) {
    if (st.at !== m[2]) return `go to ${m[2]}`;
    return st.doors.get(m[2]) === (m[1] === 'open' ? 'open' : 'closed') ? onward() : fix;
  }
  if (isInfoAction(fix)) return knownAdmissible(fix, st) ? fix : onward();
  if ((m = fix.match(/^go to (.+)$/))) {
    // Going on is only right with the object the workflow carries there: fetch it first.
    // The action after this `go to` in the workflow: at position k (a pick-two workflow goes to its target twice).
    const after = workflow[(workflow[k] === fix ? k : workflow.indexOf(fix)) + 1];
    const carried = after?.match(/^move (.+?) to /) ?? after?.match(/^(?:clean|heat|cool) (.+?) with /);
    if (carried && st.held !== carried[1]) return executableFix(after, st, workflow);
    if (after?.startsWith('take ') && st.held) return putDown(); // hands must be free to take there
    if (st.at === m[1]) return onward();
  }
  return fix;
}
