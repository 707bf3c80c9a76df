/**
 * The household expert: a planner over the hidden state that solves every generated task within `maxSteps`,
 * plus the task's subgoals in words (for hints in pretraining).
 *
 * `expertAction` is a pure function of the current state, so it also recovers after arbitrary (noisy)
 * actions: it puts down a wrong object, fetches the nearest needed object (the current receptacle first, then
 * receptacle order), treats it at the first appliance of the needed kind, and brings it to the first receptacle
 * of the target kind (for pick2: the one already holding one, if any). Typical length: 4 steps on `easy`,
 * 4–12 on `default`.
 */
import type { Expert } from '../types';
import { APPLIANCE, DESKLAMP } from './catalog';
import { applyAction } from './rules';
import { cloneWorld, held, receptacle, type Goal, type Receptacle, type Thing, type World } from './world';

/** `go to R` until there, then `open R` if it is closed, then `action`. */
function reach(w: World, r: Receptacle, action: string): string {
  if (w.at !== r.name) return `go to ${r.name}`;
  if (!r.open) return `open ${r.name}`;
  return action;
}

/** Where the goal object must go: the first receptacle of the target kind (pick2: one already holding one). */
function destination(w: World): Receptacle {
  const g = w.goal;
  const targets = w.receptacles.filter((r) => r.kind === g.target);
  if (g.type === 'pick2') {
    const started = targets.find((r) => w.things.some((t) => t.kind === g.object && t.location === r.name));
    if (started) return started;
  }
  return targets[0];
}

/** Whether an object still needs treatment (clean / heat / cool) for this goal. */
function needsTreatment(g: Goal, t: Thing): boolean {
  return (g.type === 'clean' && !t.clean) || (g.type === 'heat' && !t.hot) || (g.type === 'cool' && !t.cold);
}

/**
 * The expert's next action in this state (admissible whenever the state came from a generated task).
 * Reads the hidden state; never mutates it.
 */
export function expertAction(w: World): string {
  const g = w.goal;
  const h = held(w);
  const order = (name: string | null): number => (name === w.at ? -1 : w.receptacles.findIndex((r) => r.name === name));

  if (h !== null && h.kind !== g.object) {
    // Put down what the task does not need: here if standing at a receptacle, else at the first one without a door.
    const here = w.at === null ? (w.receptacles.find((r) => !r.closable) ?? w.receptacles[0]) : receptacle(w, w.at);
    return reach(w, here, `move ${h.name} to ${here.name}`);
  }
  if (h !== null) {
    if (g.type === 'look') {
      const lamp = w.things.find((t) => t.kind === DESKLAMP) as Thing;
      return reach(w, receptacle(w, lamp.location as string), `use ${lamp.name}`);
    }
    const appliance = APPLIANCE[g.type];
    if (appliance && needsTreatment(g, h)) {
      const a = w.receptacles.find((r) => r.kind === appliance) as Receptacle;
      return w.at === a.name ? `${g.type} ${h.name} with ${a.name}` : `go to ${a.name}`;
    }
    const dest = destination(w);
    return reach(w, dest, `move ${h.name} to ${dest.name}`);
  }
  const skip = g.type === 'pick2' ? destination(w).name : null;
  const wanted = w.things
    .filter((t) => t.kind === g.object && t.location !== null && t.location !== skip)
    .sort((a, b) => order(a.location) - order(b.location));
  const t = wanted[0];
  if (!t) return 'look'; // unreachable for generated tasks: every goal object exists
  const loc = receptacle(w, t.location as string);
  return reach(w, loc, `take ${t.name} from ${loc.name}`);
}

/** An `Expert` reading a live world (the env's hidden state), e.g. `household.expert(env)`. */
export class HouseholdExpert implements Expert {
  /** @param world returns the env's current world (throws before reset). */
  constructor(private readonly world: () => World) {}

  /** The next action for the env's current state. @throws Error if the env has not been reset. */
  act(): string {
    return expertAction(this.world());
  }
}

/**
 * The expert's whole action sequence from a state, simulated on a copy (the state is not changed); stops at
 * success or after `maxSteps` actions.
 */
export function expertPlan(w: World, maxSteps: number): string[] {
  const sim = cloneWorld(w);
  const actions: string[] = [];
  while (actions.length < maxSteps) {
    const a = expertAction(sim);
    actions.push(a);
    if (applyAction(sim, a).success) break;
  }
  return actions;
}

/**
 * The task's subgoals in words, in order, e.g. for `put a clean apple in fridge.`:
 * `["take a apple", "clean it with sinkbasin", "put it in fridge"]`. Depends only on the goal.
 */
export function subgoals(g: Goal): string[] {
  const take = `take a ${g.object}`;
  switch (g.type) {
    case 'pick':
      return [take, `put it in ${g.target}`];
    case 'clean':
    case 'heat':
    case 'cool':
      return [take, `${g.type} it with ${APPLIANCE[g.type]}`, `put it in ${g.target}`];
    case 'pick2':
      return [take, `put it in ${g.target}`, `take another ${g.object}`, `put it in the same ${g.target}`];
    case 'look':
      return [take, `go to the ${DESKLAMP} on the ${g.target}`, `use the ${DESKLAMP}`];
  }
}
