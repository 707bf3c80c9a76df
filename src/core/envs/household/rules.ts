/**
 * Household rules: which commands are admissible in a state and what each does (ALFWorld rules, Shridhar et al. 2021).
 *
 * One table, `transitions(world)`, lists every admissible action with its effect, so "admissible" and
 * "does something other than Nothing happens." can never disagree. Preconditions (ALFWorld rules):
 * - `go to R`: any receptacle other than the current one.
 * - `open R` / `close R`: at R, R has a door, and it is closed / open.
 * - `take O from R`: at R, R is open (or has no door), O is in R, O is takeable, the hand is empty (one object max).
 * - `move O to R`: at R, R is open (or has no door), O is held.
 * - `clean O with sinkbasin N` / `heat O with microwave N` / `cool O with fridge N`: at that appliance, O held.
 *   The door need not be open (ALFWorld allows heating/cooling with the door closed). Heating sets hot and
 *   clears cold; cooling sets cold and clears hot; cleaning sets clean.
 * - `use desklamp N`: at the receptacle the lamp stands on.
 * - `examine R` (the current receptacle), `examine O` (the held object), `inventory`, `look`: change nothing;
 *   offered only in presets with `infoActions` (not in `easy`, where they answer `Nothing happens.`).
 */
import { presetConfig } from './presets';
import {
  NOTHING_HAPPENS,
  arriveText,
  closeText,
  examineThingText,
  facingText,
  inventoryText,
  moveText,
  openText,
  receptacleText,
  roomText,
  takeText,
  treatText,
  useLampText,
} from './text';
import {
  contentsOf,
  held,
  placementGoalMet,
  receptacle,
  thing,
  type Receptacle,
  type Thing,
  type World,
} from './world';

/** One admissible action and its effect (mutates the world, returns the observation). */
export interface Transition {
  /** Normalised action text. */
  action: string;
  apply: () => string;
}

const TREATMENTS = [
  { verb: 'clean', appliance: 'sinkbasin' },
  { verb: 'heat', appliance: 'microwave' },
  { verb: 'cool', appliance: 'fridge' },
] as const;

/**
 * Every admissible action in this state, in a stable order: `go to` (receptacle order), then actions at the
 * current receptacle (open/close, take, move, clean/heat/cool, use, examine it), `examine` the held object,
 * `inventory`, `look`.
 */
export function transitions(w: World): Transition[] {
  const out: Transition[] = [];
  const info = presetConfig(w.preset).infoActions; // `examine`/`inventory`/`look` offered (not in `easy`)
  for (const r of w.receptacles) {
    if (r.name === w.at) continue;
    out.push({
      action: `go to ${r.name}`,
      apply: () => {
        w.at = r.name;
        return arriveText(r, contentsOf(w, r.name));
      },
    });
  }
  const h = held(w);
  if (w.at !== null) out.push(...receptacleActions(w, receptacle(w, w.at), h, info));
  if (!info) return out;
  if (h !== null) out.push({ action: `examine ${h.name}`, apply: () => examineThingText(h) });
  out.push({ action: 'inventory', apply: () => inventoryText(w.holding) });
  out.push({
    action: 'look',
    apply: () => (w.at === null ? roomText(w.receptacles) : facingText(w.at)),
  });
  return out;
}

/**
 * The actions at receptacle `r` (the current one), in order: open/close, take (empty hand) or move and
 * clean/heat/cool (holding `h`), use a lamp, and `examine r` when `info`.
 */
function receptacleActions(w: World, r: Receptacle, h: Thing | null, info: boolean): Transition[] {
  const out: Transition[] = [];
  if (r.closable && !r.open) {
    out.push({
      action: `open ${r.name}`,
      apply: () => {
        r.open = true;
        return openText(r, contentsOf(w, r.name));
      },
    });
  }
  if (r.closable && r.open) {
    out.push({
      action: `close ${r.name}`,
      apply: () => {
        r.open = false;
        return closeText(r.name);
      },
    });
  }
  const inside = r.open ? contentsOf(w, r.name) : [];
  if (h === null) {
    for (const t of inside) {
      if (!t.takeable) continue;
      out.push({
        action: `take ${t.name} from ${r.name}`,
        apply: () => {
          t.location = null;
          w.holding = t.name;
          return takeText(t.name, r.name);
        },
      });
    }
  } else out.push(...heldActions(w, r, h));
  for (const t of inside) {
    if (t.takeable) continue; // the desklamp
    out.push({ action: `use ${t.name}`, apply: () => useLampText(t.name) });
  }
  if (info) out.push({ action: `examine ${r.name}`, apply: () => receptacleText(r, contentsOf(w, r.name)) });
  return out;
}

/** The actions with held object `h` at receptacle `r`: move it there (when open), then treat it with an appliance. */
function heldActions(w: World, r: Receptacle, h: Thing): Transition[] {
  const out: Transition[] = [];
  if (r.open) {
    out.push({
      action: `move ${h.name} to ${r.name}`,
      apply: () => {
        h.location = r.name;
        w.holding = null;
        return moveText(h.name, r.name);
      },
    });
  }
  for (const { verb, appliance } of TREATMENTS) {
    if (r.kind !== appliance) continue;
    out.push({
      action: `${verb} ${h.name} with ${r.name}`,
      apply: () => {
        if (verb === 'clean') h.clean = true;
        if (verb === 'heat') {
          h.hot = true;
          h.cold = false;
        }
        if (verb === 'cool') {
          h.cold = true;
          h.hot = false;
        }
        return treatText(verb, h.name, r.name);
      },
    });
  }
  return out;
}

/** Admissible actions (normalised, stable order). */
export function admissible(w: World): string[] {
  return transitions(w).map((t) => t.action);
}

/** Result of applying one already-normalised action. */
export interface Applied {
  valid: boolean;
  /** Observation text; `Nothing happens.` when not valid. */
  observation: string;
  /** True when the goal holds after this action. */
  success: boolean;
}

/**
 * Apply a normalised action to the world (mutating it). An action that is not admissible changes nothing.
 * Success: `look` tasks succeed on `use desklamp N` while holding an object of the goal kind (ALFWorld's
 * look_at_obj_in_light); the others when `placementGoalMet` holds after the action.
 */
export function applyAction(w: World, action: string): Applied {
  const tr = transitions(w).find((t) => t.action === action);
  if (!tr) return { valid: false, observation: NOTHING_HAPPENS, success: false };
  const observation = tr.apply();
  let success: boolean;
  if (w.goal.type === 'look') {
    const h = w.holding === null ? null : thing(w, w.holding);
    success = action.startsWith('use desklamp ') && h !== null && h.kind === w.goal.object;
  } else {
    success = placementGoalMet(w);
  }
  return { valid: true, observation, success };
}
