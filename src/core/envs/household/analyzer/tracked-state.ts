/**
 * What a household trajectory shows about the room before each of its steps, read from its own observations and
 * valid actions only (never the environment's hidden state): where the agent stands, what it holds, where it put
 * things, which doors it has seen open or closed, what it has seen inside each receptacle. With these, the heuristic
 * analyzer checks that a step skill names an action the environment admits at that step (`knownAdmissible`,
 * ALFWorld's preconditions as src/core/envs/household/rules.ts states them, Shridhar et al. 2021).
 *
 * Observation forms read (ALFWorld's wording, src/core/envs/household/text.ts): the room line `… you see a R 1, …`,
 * and every receptacle description `On the R, you see …` (no door), `The R is closed.`, `The R is open. In it, you
 * see …` (in arrivals, `open R` replies and `examine R` replies).
 */
import { APPLIANCE, CLOSABLE_KINDS, DESKLAMP } from '../catalog';

/** A receptacle's door as last seen: `open`, `closed`, or `none` (a kind without a door). */
export type Door = 'open' | 'closed' | 'none';

/** Where a trajectory stands before a step, as its own observations and valid actions show. */
export interface TrackedState {
  /** Receptacle the agent stands at, or null (the middle of the room, before the first valid `go to`). */
  at: string | null;
  /** Object in the agent's hand, or null. */
  held: string | null;
  /** Object name → receptacle it was last put in by this trajectory. */
  placed: Map<string, string>;
  /** Receptacle → its door as last seen (absent: never seen; then only its kind tells, see `doorOf`). */
  doors: Map<string, Door>;
  /**
   * Receptacle → the objects seen in it (last listing, updated by the trajectory's own takes and moves); absent:
   * unknown.
   */
  contents: Map<string, string[]>;
  /**
   * Whether the information commands (`examine`, `inventory`, `look`) are offered (a valid one was seen in the group).
   */
  info: boolean;
}

/** `X N` names inside an ALFWorld list (`a x 1, a y 2, and a z 1`, or `nothing`). */
function listNames(list: string): string[] {
  return [...list.matchAll(/(?:^|, )(?:and )?a ([a-z]+ \d+)/g)].map((m) => m[1]);
}

/** Kind of an `X N` name. */
export const kindOf = (name: string): string => name.replace(/\s+\d+$/, '');

/** The information commands (change nothing; offered only in presets with `infoActions`). */
export const isInfoAction = (a: string): boolean => a === 'look' || a === 'inventory' || a.startsWith('examine ');

/** Apply what an observation shows (door states and contents) to `st`, in place. */
function readObservation(st: TrackedState, obs: string): void {
  for (const m of obs.matchAll(/On the ([a-z]+ \d+), you see ([^.]*)\./g)) {
    st.doors.set(m[1], 'none');
    st.contents.set(m[1], listNames(m[2]));
  }
  for (const m of obs.matchAll(/The ([a-z]+ \d+) is closed\./g)) st.doors.set(m[1], 'closed');
  for (const m of obs.matchAll(/The ([a-z]+ \d+) is open\. In it, you see ([^.]*)\./g)) {
    st.doors.set(m[1], 'open');
    st.contents.set(m[1], listNames(m[2]));
  }
}

const copy = (s: TrackedState): TrackedState => ({
  at: s.at,
  held: s.held,
  placed: new Map(s.placed),
  doors: new Map(s.doors),
  info: s.info,
  contents: new Map([...s.contents].map(([k, v]) => [k, [...v]])),
});

/**
 * The state before each step of a trajectory (index i = before step i, after reading observation i; length
 * steps + 1, the last one after the final observation). Only valid actions change it (an inadmissible one changes
 * nothing, ALFWorld rule). `info`: whether the group's trajectories show the information commands are offered.
 */
export function trackStates(
  t: { steps: readonly { observation: string; action: string; valid: boolean }[]; finalObservation?: string },
  info = false,
): TrackedState[] {
  const out: TrackedState[] = [];
  let cur: TrackedState = { at: null, held: null, placed: new Map(), doors: new Map(), contents: new Map(), info };
  const step = (s: { action: string; valid: boolean }): TrackedState => {
    const next = copy(cur);
    if (!s.valid) return next;
    let m: RegExpMatchArray | null;
    if ((m = s.action.match(/^go to (.+)$/))) next.at = m[1];
    else if ((m = s.action.match(/^take (.+?) from (.+)$/))) {
      next.held = m[1];
      next.placed.delete(m[1]);
      const c = next.contents.get(m[2]);
      if (c)
        next.contents.set(
          m[2],
          c.filter((x) => x !== m![1]),
        );
    } else if ((m = s.action.match(/^move (.+?) to (.+)$/))) {
      next.held = null;
      next.placed.set(m[1], m[2]);
      next.contents.set(m[2], [...(next.contents.get(m[2]) ?? []).filter((x) => x !== m![1]), m[1]]);
    } else if ((m = s.action.match(/^open (.+)$/))) next.doors.set(m[1], 'open');
    else if ((m = s.action.match(/^close (.+)$/))) next.doors.set(m[1], 'closed');
    return next;
  };
  for (const s of t.steps) {
    readObservation(cur, s.observation);
    out.push(cur);
    cur = step(s);
  }
  if (t.finalObservation !== undefined) readObservation(cur, t.finalObservation);
  out.push(cur);
  return out;
}

/**
 * The door of receptacle `r` as far as the trajectory knows: as last seen, else `none` for a kind that never has a
 * door (ALFWorld: only cabinets, drawers, fridges, microwaves and safes do), else undefined (unknown).
 */
export function doorOf(st: TrackedState, r: string): Door | undefined {
  return st.doors.get(r) ?? (CLOSABLE_KINDS.includes(kindOf(r)) ? undefined : 'none');
}

/** Whether the inside of receptacle `r` is reachable (door open, or no door) as far as the trajectory knows. */
const reachable = (st: TrackedState, r: string): boolean => {
  const d = doorOf(st, r);
  return d === 'open' || d === 'none';
};

/**
 * Whether `action` is certainly admissible in state `st`: true only when what the trajectory has shown proves every
 * precondition (src/core/envs/household/rules.ts): `go to R` away from R; `open`/`close R` at R with its door seen
 * closed/open; `take O from R` at R, hands empty, R reachable, O seen in R and not the desklamp; `move O to R` at R
 * holding O, R reachable; `clean|heat|cool O with A` at A (a sinkbasin / microwave / fridge) holding O; `use L` at the
 * receptacle L was seen on, reachable; `examine R` at R, `examine O` holding O, `inventory`, `look` where the
 * information commands are offered. Anything else: false.
 */
export function knownAdmissible(action: string, st: TrackedState): boolean {
  let m: RegExpMatchArray | null;
  if ((m = action.match(/^go to (.+)$/))) return st.at !== m[1];
  if ((m = action.match(/^(open|close) (.+)$/)))
    return st.at === m[2] && st.doors.get(m[2]) === (m[1] === 'open' ? 'closed' : 'open');
  if ((m = action.match(/^take (.+?) from (.+)$/)))
    return (
      st.at === m[2] &&
      st.held === null &&
      reachable(st, m[2]) &&
      kindOf(m[1]) !== DESKLAMP &&
      !!st.contents.get(m[2])?.includes(m[1])
    );
  if ((m = action.match(/^move (.+?) to (.+)$/))) return st.at === m[2] && st.held === m[1] && reachable(st, m[2]);
  if ((m = action.match(/^(clean|heat|cool) (.+?) with (.+)$/)))
    return st.at === m[3] && st.held === m[2] && APPLIANCE[m[1] as 'clean' | 'heat' | 'cool'] === kindOf(m[3]);
  if ((m = action.match(/^use (.+)$/)))
    return !!st.at && kindOf(m[1]) === DESKLAMP && reachable(st, st.at) && !!st.contents.get(st.at)?.includes(m[1]);
  if (!st.info) return false;
  if ((m = action.match(/^examine (.+)$/))) return st.at === m[1] || st.held === m[1];
  return action === 'inventory' || action === 'look';
}
