/**
 * A hindsight workflow for a failed trajectory that has no successful sibling in its group: what it should have done
 * once it had seen the task's object, written from the task line, the room line and the trajectory's own
 * observations, by the household task rules (ALFWorld, Shridhar et al. 2021; src/core/envs/household/rules.ts):
 * - `put a X in Y.`: go to where an X was seen (open it if it has a door), take the X, go to a Y, move it there;
 * - `put a clean|hot|cool X in Y.`: the same with the treatment at the room's sinkbasin / microwave / fridge between
 *   (no walk there when the X lay at it);
 * - `put two X in Y.`: the same for two different X seen, the target's door opened once (only the first when the
 *   trajectory saw one);
 * - `look at X under the desklamp.`: take the X, go to where the trajectory saw a desklamp (unless the X lay there),
 *   use it (ends at the take when it saw none).
 * The analyzer of OPID (Yang et al. 2026, §3; docs/references.md#opid) is a language model that reads a failed
 * trajectory with knowledge of the environment; this is that reading for the household rules. It never uses the hidden
 * state or the expert: where an object was is what the trajectory saw, and the steps before the first sighting (search)
 * are not judged.
 */
import { APPLIANCE, CLOSABLE_KINDS, DESKLAMP } from '../catalog';
import { kindOf, type TrackedState } from './tracked-state';
import { lookObject, taskKinds } from './progress';

/** A hindsight workflow and where a walk over the trajectory starts. */
export interface HindsightPlan {
  /** The workflow, actions in the environment's normal form (e.g. `take apple 1 from countertop 2`). */
  workflow: string[];
  /**
   * First step judged against it: the first step whose state shows an object of the task's kind at a receptacle not of
   * the target kind (0-based).
   */
  from: number;
  /** The workflow's first action not yet done at `from` (the walk's start position). */
  next: number;
}

/** The `R N` receptacles the room line (the first observation) names, in its order. */
function roomReceptacles(t: { steps: readonly { observation: string }[] }): string[] {
  const line = t.steps[0]?.observation.match(/you see (.*)\.$/m)?.[1] ?? '';
  return [...line.matchAll(/\ba ([a-z]+ \d+)/g)].map((m) => m[1]);
}

/** Every (object, receptacle) an object of `kind` was seen at in `st`, receptacles of `exclude` kind left out. */
function sightings(st: TrackedState, kind: string, exclude: string): { object: string; at: string }[] {
  const out: { object: string; at: string }[] = [];
  for (const [r, items] of st.contents) {
    if (kindOf(r) === exclude) continue;
    for (const o of items) if (kindOf(o) === kind) out.push({ object: o, at: r });
  }
  return out;
}

/**
 * The first step (0-based) before which the trajectory has an object of the task's kind in sight (seen at a
 * receptacle not of the target kind) — the end of its search; `steps.length` when it never saw one; -1 when the task
 * line has none of the household shapes. Steps before it are search: the agent could not know where the object was.
 * @param states the trajectory's tracked states (`trackStates`).
 */
export function firstSighting(t: { task: string; steps: readonly unknown[] }, states: readonly TrackedState[]): number {
  const look = lookObject(t.task);
  const k = look ? null : taskKinds(t.task);
  const kind = look ?? k?.object;
  if (!kind) return -1;
  const i = states.findIndex((st, j) => j < t.steps.length && sightings(st, kind, k?.target ?? '').length > 0);
  return i < 0 ? t.steps.length : i;
}

/** `go to R` (then `open R` when R's kind has a door) and `take O from R`. */
const fetchActions = (o: string, r: string): string[] => [
  `go to ${r}`,
  ...(CLOSABLE_KINDS.includes(kindOf(r)) ? [`open ${r}`] : []),
  `take ${o} from ${r}`,
];

/**
 * The hindsight workflow of a failed household trajectory (module doc), or null when the task line has another shape,
 * the trajectory never saw an object of the task's kind, or the room line lacks the target or appliance the workflow
 * needs (a look task whose lamp was never seen gets a workflow that ends at the take).
 * @param t the trajectory (task line; steps with observations; the first observation is the room line).
 * @param states its tracked states (`trackStates`, one per step plus the final one).
 */
export function hindsightPlan(
  t: { task: string; steps: readonly { observation: string }[] },
  states: readonly TrackedState[],
): HindsightPlan | null {
  const look = lookObject(t.task);
  const k = look ? null : taskKinds(t.task);
  const kind = look ?? k?.object;
  if (!kind) return null;
  const from = firstSighting(t, states);
  if (from < 0 || from >= t.steps.length) return null;
  const first = sightings(states[from], kind, k?.target ?? '')[0];
  const room = roomReceptacles(t);
  const ofKind = (x: string) => room.find((r) => kindOf(r) === x);
  const w = fetchActions(first.object, first.at);
  // No `go to R` where the agent already stands (the object lay at the appliance or by the lamp).
  const goTo = (from: string, r: string) => (from === r ? [] : [`go to ${r}`]);
  if (look) {
    const lampAt = [...states[states.length - 1].contents].find(([, v]) => v.some((o) => kindOf(o) === DESKLAMP));
    if (lampAt) w.push(...goTo(first.at, lampAt[0]), `use ${lampAt[1].find((o) => kindOf(o) === DESKLAMP)}`);
  } else {
    const target = ofKind(k!.target);
    if (!target) return null;
    // The target's door is opened once: the second move of a pick-two task finds it open.
    const place = (o: string, open: boolean) => [
      `go to ${target}`,
      ...(open && CLOSABLE_KINDS.includes(k!.target) ? [`open ${target}`] : []),
      `move ${o} to ${target}`,
    ];
    if (k!.treat) {
      const appliance = ofKind(APPLIANCE[k!.treat]!);
      if (!appliance) return null;
      w.push(...goTo(first.at, appliance), `${k!.treat} ${first.object} with ${appliance}`);
    }
    w.push(...place(first.object, true));
    if (/^put two /.test(t.task)) {
      const second = states.flatMap((st) => sightings(st, kind, k!.target)).find((s) => s.object !== first.object);
      if (second) w.push(...fetchActions(second.object, second.at), ...place(second.object, false));
    }
  }
  const st = states[from];
  let next = 0;
  if (st.at === first.at)
    next =
      st.doors.get(first.at) === 'open' || !CLOSABLE_KINDS.includes(kindOf(first.at))
        ? w.indexOf(`take ${first.object} from ${first.at}`)
        : 1;
  return { workflow: w, from, next };
}
