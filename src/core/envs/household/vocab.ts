/**
 * The household vocabulary corpus: text covering every word, number and punctuation pattern the env can emit
 * (observations, actions, task lines, subgoals), for the word-level tokenizer (`src/core/tokenizer/tokenizer.ts`).
 *
 * Deterministic: built from sorted name lists and fixed templates only. Every name also appears at the start
 * of a line, because the tokenizer treats `apple` and ` apple` as different pieces.
 */
import { CLOSABLE_KINDS, DESKLAMP, OBJECT_KINDS, RECEPTACLE_KINDS, TASK_TYPES, combosFor } from './catalog';
import { subgoals } from './expert';
import {
  NOTHING_HAPPENS,
  arriveText,
  closeText,
  examineThingText,
  facingText,
  inventoryText,
  listItems,
  moveText,
  openText,
  receptacleText,
  roomText,
  takeText,
  taskText,
  treatText,
  useLampText,
} from './text';
import type { Receptacle, Thing } from './world';

const NUMS = [1, 2, 3, 4, 5, 6, 7, 8, 9];

function rec(kind: string, num = 1, open = true): Receptacle {
  const closable = CLOSABLE_KINDS.includes(kind);
  return { name: `${kind} ${num}`, kind, num, closable, open: open || !closable };
}

function obj(kind: string, num = 1, flags: Partial<Pick<Thing, 'clean' | 'hot' | 'cold'>> = {}): Thing {
  return {
    name: `${kind} ${num}`,
    kind,
    num,
    location: null,
    takeable: kind !== DESKLAMP,
    clean: false,
    hot: false,
    cold: false,
    ...flags,
  };
}

/** Build the corpus (a fresh array each call; same content every time). */
export function householdCorpus(): string[] {
  const out: string[] = [];
  const objects = [...OBJECT_KINDS, DESKLAMP];
  out.push(...RECEPTACLE_KINDS, ...objects, ...NUMS.map(String), NOTHING_HAPPENS, 'inventory', 'look');
  out.push(inventoryText(null));
  // Rooms and receptacle views: every receptacle kind with every number; every object listed.
  for (const kind of RECEPTACLE_KINDS) {
    const all = NUMS.map((n) => rec(kind, n));
    out.push(roomText(all), roomText([all[0]]));
    const shut = rec(kind, 1, false);
    out.push(arriveText(shut, []), receptacleText(shut, []), facingText(shut.name));
    out.push(`go to ${shut.name}`, `examine ${shut.name}`);
    if (shut.closable)
      out.push(`open ${shut.name}`, `close ${shut.name}`, openText(rec(kind), []), closeText(shut.name));
  }
  const things = objects.map((k) => obj(k));
  for (const kind of RECEPTACLE_KINDS)
    out.push(arriveText(rec(kind), things), `On the ${kind} 1, you see ${listItems(['apple 1'])}.`);
  // Every action and its observation, for every object kind.
  for (const o of OBJECT_KINDS) {
    const t = `${o} 1`;
    out.push(
      `take ${t} from countertop 1`,
      takeText(t, 'countertop 1'),
      `move ${t} to fridge 1`,
      moveText(t, 'fridge 1'),
    );
    out.push(`clean ${t} with sinkbasin 1`, `heat ${t} with microwave 1`, `cool ${t} with fridge 1`);
    out.push(
      treatText('clean', t, 'sinkbasin 1'),
      treatText('heat', t, 'microwave 1'),
      treatText('cool', t, 'fridge 1'),
    );
    out.push(`examine ${t}`, inventoryText(t), examineThingText(obj(o)));
  }
  for (const flags of [
    { clean: true },
    { hot: true },
    { cold: true },
    { clean: true, hot: true },
    { clean: true, cold: true },
  ]) {
    out.push(examineThingText(obj('apple', 1, flags)));
  }
  out.push(`use ${DESKLAMP} 1`, useLampText(`${DESKLAMP} 1`));
  // Task lines and subgoals of every combination.
  for (const type of TASK_TYPES) {
    for (const c of combosFor(type)) {
      const g = { type, object: c.object, target: c.target };
      out.push(taskText(g), ...subgoals(g));
    }
  }
  return out;
}
