/**
 * Household world state (the env's hidden state) and read-only queries over it.
 *
 * State: numbered receptacles (some with a door), numbered objects each in one receptacle or in the agent's
 * hand, the agent's location (a receptacle, or `null` = the middle of the room) and the goal. The agent holds
 * at most one object. Objects carry three flags changed only by `clean`/`heat`/`cool` (ALFWorld rule).
 */
import type { Split } from '../types';
import type { TaskType } from './catalog';

/** One receptacle instance, e.g. `fridge 1`. */
export interface Receptacle {
  /** Display name, `<kind> <num>`. */
  name: string;
  kind: string;
  /** 1..9, per kind. */
  num: number;
  /** Has a door (cabinet, drawer, fridge, microwave, safe). */
  closable: boolean;
  /** Door state; always true for receptacles without a door. */
  open: boolean;
}

/** One object instance, e.g. `apple 2` (or the `desklamp 1`, which cannot be taken). */
export interface Thing {
  /** Display name, `<kind> <num>`. */
  name: string;
  kind: string;
  /** 1..9, per kind. */
  num: number;
  /** Receptacle name it is in/on, or `null` while held. */
  location: string | null;
  /** False only for the desklamp. */
  takeable: boolean;
  clean: boolean;
  hot: boolean;
  cold: boolean;
}

/** What the task asks. For `look`, `target` is the kind of receptacle the desklamp stands on. */
export interface Goal {
  type: TaskType;
  /** Object kind, e.g. `apple`. */
  object: string;
  /** Receptacle kind, e.g. `fridge` (any receptacle of this kind counts). */
  target: string;
}

/** The full hidden state of one episode. Mutated in place by the rules. */
export interface World {
  /** Receptacles sorted by kind, then number (the order every listing uses). */
  receptacles: Receptacle[];
  /** Objects sorted by kind, then number. */
  things: Thing[];
  /** Name of the receptacle the agent stands at, or `null` in the middle of the room. */
  at: string | null;
  /** Name of the held object, or `null`. */
  holding: string | null;
  goal: Goal;
  /** Layout template name the room was built from. */
  layout: string;
  /** Where the task came from. */
  split: Split;
  index: number;
  preset: string;
}

/** A deep copy (for planning on a scratch world). */
export function cloneWorld(w: World): World {
  return {
    ...w,
    receptacles: w.receptacles.map((r) => ({ ...r })),
    things: w.things.map((t) => ({ ...t })),
    goal: { ...w.goal },
  };
}

/** The receptacle with this name. @throws Error if there is none. */
export function receptacle(w: World, name: string): Receptacle {
  const r = w.receptacles.find((x) => x.name === name);
  if (!r) throw new Error(`household: no receptacle "${name}"`);
  return r;
}

/** The object with this name. @throws Error if there is none. */
export function thing(w: World, name: string): Thing {
  const t = w.things.find((x) => x.name === name);
  if (!t) throw new Error(`household: no object "${name}"`);
  return t;
}

/** Objects in/on a receptacle, sorted by kind then number (regardless of whether its door is open). */
export function contentsOf(w: World, recName: string): Thing[] {
  return w.things.filter((t) => t.location === recName);
}

/** The held object, or null. */
export function held(w: World): Thing | null {
  return w.holding === null ? null : thing(w, w.holding);
}

/** Sort key shared by receptacles and objects: kind, then number. */
export function byKindNum(a: { kind: string; num: number }, b: { kind: string; num: number }): number {
  return a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : a.num - b.num;
}

/**
 * Whether the goal holds in this state (look is judged by the rules at the `use desklamp` step instead).
 * pick/clean/heat/cool: some object of the goal kind is in a receptacle of the target kind, with the required
 * flag (clean / hot / cold). pick2: two objects of the goal kind are in the same receptacle of the target kind.
 */
export function placementGoalMet(w: World): boolean {
  const g = w.goal;
  if (g.type === 'look') return false;
  const count = new Map<string, number>();
  for (const t of w.things) {
    if (t.kind !== g.object || t.location === null) continue;
    if (receptacle(w, t.location).kind !== g.target) continue;
    if (g.type === 'clean' && !t.clean) continue;
    if (g.type === 'heat' && !t.hot) continue;
    if (g.type === 'cool' && !t.cold) continue;
    count.set(t.location, (count.get(t.location) ?? 0) + 1);
  }
  const need = g.type === 'pick2' ? 2 : 1;
  for (const n of count.values()) if (n >= need) return true;
  return false;
}
