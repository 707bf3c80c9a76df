/**
 * Observation and task text templates, in ALFWorld's wording (ALFWorld's TextWorld templates; Shridhar et al. 2021,
 * Côté et al. 2018).
 *
 * ALFWorld writes `a` before every name (`a apple 1`), lists with `, ` and `, and ` before the last item
 * (also for two items), and ends every sentence with `.`. Every template is a function here so the
 * vocabulary corpus can enumerate them.
 */
import type { Goal, Receptacle, Thing } from './world';

/** The answer to any inadmissible action. Source: ALFWorld. */
export const NOTHING_HAPPENS = 'Nothing happens.';

/** `a x 1, a y 2, and a z 1` (ALFWorld list style); `nothing` when empty. */
export function listItems(names: readonly string[]): string {
  if (names.length === 0) return 'nothing';
  const items = names.map((n) => `a ${n}`);
  if (items.length === 1) return items[0];
  return `${items.slice(0, -1).join(', ')}, and ${items[items.length - 1]}`;
}

/** The room overview shown at reset and by `look` in the middle of the room. */
export function roomText(receptacles: readonly Receptacle[]): string {
  const items = listItems(receptacles.map((r) => r.name));
  return `You are in the middle of a room. Looking quickly around you, you see ${items}.`;
}

/**
 * What is seen of a receptacle: `On the R, you see …` (no door), `The R is closed.`, or
 * `The R is open. In it, you see …`.
 */
export function receptacleText(r: Receptacle, contents: readonly Thing[]): string {
  const items = listItems(contents.map((t) => t.name));
  if (!r.closable) return `On the ${r.name}, you see ${items}.`;
  if (!r.open) return `The ${r.name} is closed.`;
  return `The ${r.name} is open. In it, you see ${items}.`;
}

/** `go to R`. */
export const arriveText = (r: Receptacle, contents: readonly Thing[]): string =>
  `You arrive at ${r.name}. ${receptacleText(r, contents)}`;
/** `open R`. */
export const openText = (r: Receptacle, contents: readonly Thing[]): string =>
  `You open the ${r.name}. ${receptacleText(r, contents)}`;
/** `close R`. */
export const closeText = (r: string): string => `You close the ${r}.`;
/** `take O from R`. */
export const takeText = (o: string, r: string): string => `You pick up the ${o} from the ${r}.`;
/** `move O to R`. */
export const moveText = (o: string, r: string): string => `You move the ${o} to the ${r}.`;
/** `clean|heat|cool O with A`. */
export const treatText = (verb: 'clean' | 'heat' | 'cool', o: string, appliance: string): string =>
  `You ${verb} the ${o} using the ${appliance}.`;
/** `use desklamp N`. */
export const useLampText = (lamp: string): string => `You turn on the ${lamp}.`;
/** `look` while at a receptacle. */
export const facingText = (r: string): string => `You are facing the ${r}.`;

/** `inventory`. */
export function inventoryText(holding: string | null): string {
  return holding === null ? 'You are not carrying anything.' : `You are carrying: a ${holding}.`;
}

/** `examine O` (held object): its clean/hot/cold state, or ALFWorld's "nothing special". */
export function examineThingText(t: Thing): string {
  const states = [t.clean ? 'clean' : '', t.hot ? 'hot' : '', t.cold ? 'cold' : ''].filter((s) => s !== '');
  if (states.length === 0) return `There's nothing special about ${t.name}.`;
  return `The ${t.name} is ${states.join(' and ')}.`;
}

/**
 * The task line (ALFWorld phrasing, one scheme): `put a apple in fridge.`, `put a clean|hot|cool apple in
 * fridge.`, `put two apple in fridge.`, `look at book under the desklamp.` The target kind is not numbered:
 * any receptacle of that kind counts.
 */
export function taskText(g: Goal): string {
  switch (g.type) {
    case 'pick':
      return `put a ${g.object} in ${g.target}.`;
    case 'clean':
      return `put a clean ${g.object} in ${g.target}.`;
    case 'heat':
      return `put a hot ${g.object} in ${g.target}.`;
    case 'cool':
      return `put a cool ${g.object} in ${g.target}.`;
    case 'pick2':
      return `put two ${g.object} in ${g.target}.`;
    case 'look':
      return `look at ${g.object} under the desklamp.`;
  }
}
