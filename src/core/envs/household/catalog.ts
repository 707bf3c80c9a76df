/**
 * The household vocabulary: receptacle kinds, object kinds, where objects appear, where tasks may ask for them,
 * and which object kinds each task type accepts (ALFWorld, Shridhar et al. 2021).
 *
 * Names are single lowercase words in ALFWorld's style (`sinkbasin`, `countertop`, `garbagecan`, `desklamp`);
 * instances are numbered per kind, 1..9 (`cabinet 3`, `apple 2`). The vocabulary is kept small on purpose:
 * the word-level tokenizer is built from it.
 */

/** The six household task types, in ALFWorld's order. Source: ALFWorld task families (Shridhar et al. 2021). */
export const TASK_TYPES = ['pick', 'look', 'clean', 'heat', 'cool', 'pick2'] as const;
/** One household task type. */
export type TaskType = (typeof TASK_TYPES)[number];

/** Receptacle kinds with a door: their contents are hidden until opened. Source: ALFWorld rule. */
export const CLOSABLE_KINDS: readonly string[] = ['cabinet', 'drawer', 'fridge', 'microwave', 'safe'];

/** Every receptacle kind, sorted. */
export const RECEPTACLE_KINDS: readonly string[] = [
  'bed',
  'cabinet',
  'coffeetable',
  'countertop',
  'desk',
  'diningtable',
  'drawer',
  'dresser',
  'fridge',
  'garbagecan',
  'microwave',
  'safe',
  'shelf',
  'sidetable',
  'sinkbasin',
  'sofa',
  'stoveburner',
];

/** Receptacle kinds a `desklamp` can stand on (the `look` task's lamp holders). Source: ALFWorld. */
export const LAMP_HOLDERS: readonly string[] = ['desk', 'dresser', 'sidetable'];

/**
 * The appliance each treatment task needs (clean → sinkbasin, heat → microwave, cool → fridge). Source: ALFWorld
 * rule.
 */
export const APPLIANCE: Readonly<Partial<Record<TaskType, string>>> = {
  clean: 'sinkbasin',
  heat: 'microwave',
  cool: 'fridge',
};

/** A family of object kinds sharing where they appear (`spawn`) and where tasks may ask to put them (`targets`). */
interface Category {
  objects: readonly string[];
  /** Receptacle kinds an object of this family can start in. */
  spawn: readonly string[];
  /** Receptacle kinds a pick/clean/heat/cool/pick2 task may name as the destination. */
  targets: readonly string[];
}

const CATEGORIES: readonly Category[] = [
  {
    objects: ['apple', 'bread', 'egg', 'lettuce', 'potato', 'tomato'],
    spawn: ['countertop', 'diningtable', 'fridge', 'garbagecan', 'microwave', 'sinkbasin'],
    targets: ['countertop', 'diningtable', 'fridge', 'garbagecan', 'microwave'],
  },
  {
    objects: ['bowl', 'cup', 'mug', 'plate'],
    spawn: ['cabinet', 'coffeetable', 'countertop', 'diningtable', 'fridge', 'microwave', 'shelf', 'sinkbasin'],
    targets: ['cabinet', 'coffeetable', 'countertop', 'diningtable', 'fridge', 'microwave', 'shelf'],
  },
  {
    objects: ['kettle', 'pan', 'pot'],
    spawn: ['cabinet', 'countertop', 'diningtable', 'sinkbasin', 'stoveburner'],
    targets: ['cabinet', 'countertop', 'diningtable', 'stoveburner'],
  },
  {
    objects: ['fork', 'knife', 'ladle', 'spatula', 'spoon'],
    spawn: ['countertop', 'diningtable', 'drawer', 'sinkbasin'],
    targets: ['countertop', 'diningtable', 'drawer'],
  },
  {
    objects: ['peppershaker', 'saltshaker', 'soapbottle', 'winebottle'],
    spawn: ['cabinet', 'countertop', 'diningtable', 'shelf'],
    targets: ['cabinet', 'countertop', 'diningtable', 'garbagecan', 'shelf'],
  },
  {
    objects: ['cloth', 'dishsponge', 'towel'],
    spawn: ['cabinet', 'countertop', 'drawer', 'sinkbasin'],
    targets: ['cabinet', 'countertop', 'drawer', 'garbagecan'],
  },
  {
    objects: ['book', 'cd', 'cellphone', 'creditcard', 'keychain', 'pen', 'pencil', 'watch'],
    spawn: ['bed', 'coffeetable', 'desk', 'drawer', 'dresser', 'safe', 'shelf', 'sidetable', 'sofa'],
    targets: ['desk', 'drawer', 'dresser', 'safe', 'shelf', 'sidetable'],
  },
  {
    objects: [
      'alarmclock',
      'box',
      'candle',
      'laptop',
      'newspaper',
      'pillow',
      'remotecontrol',
      'statue',
      'tissuebox',
      'vase',
    ],
    spawn: ['bed', 'coffeetable', 'desk', 'diningtable', 'dresser', 'shelf', 'sidetable', 'sofa'],
    targets: ['bed', 'coffeetable', 'desk', 'dresser', 'garbagecan', 'shelf', 'sidetable', 'sofa'],
  },
];

/** The lamp: an object that stands on a lamp holder, cannot be taken, and is used with `use desklamp N`. */
export const DESKLAMP = 'desklamp';

/** Every takeable object kind, sorted. */
export const OBJECT_KINDS: readonly string[] = CATEGORIES.flatMap((c) => c.objects).sort();

const categoryOf = new Map<string, Category>(CATEGORIES.flatMap((c) => c.objects.map((o) => [o, c] as const)));

function category(obj: string): Category {
  const c = categoryOf.get(obj);
  if (!c) throw new Error(`household: unknown object kind "${obj}"`);
  return c;
}

/** Receptacle kinds an object kind can start in. @throws Error on an unknown object kind. */
export function spawnKinds(obj: string): readonly string[] {
  return category(obj).spawn;
}

/** Object kinds each task type may name. `pick`/`pick2`: all. Source: ALFWorld's per-task object lists, trimmed. */
const ELIGIBLE: Readonly<Record<TaskType, readonly string[]>> = {
  pick: OBJECT_KINDS,
  pick2: OBJECT_KINDS,
  clean: [
    'apple',
    'bowl',
    'cloth',
    'cup',
    'dishsponge',
    'egg',
    'fork',
    'kettle',
    'knife',
    'ladle',
    'lettuce',
    'mug',
    'pan',
    'plate',
    'pot',
    'potato',
    'spatula',
    'spoon',
    'tomato',
  ],
  heat: ['apple', 'bread', 'cup', 'egg', 'mug', 'plate', 'potato', 'tomato'],
  cool: [
    'apple',
    'bowl',
    'bread',
    'cup',
    'egg',
    'lettuce',
    'mug',
    'pan',
    'plate',
    'pot',
    'potato',
    'tomato',
    'winebottle',
  ],
  look: [
    'alarmclock',
    'book',
    'bowl',
    'box',
    'candle',
    'cd',
    'cellphone',
    'creditcard',
    'keychain',
    'laptop',
    'mug',
    'newspaper',
    'pen',
    'pencil',
    'remotecontrol',
    'statue',
    'vase',
    'watch',
  ],
};

/**
 * One task "combination": the task type, the object kind it names, and its target receptacle kind (for `look`,
 * the kind of receptacle the desklamp stands on). The unit of the test-unseen hold-out.
 */
export interface Combo {
  type: TaskType;
  object: string;
  target: string;
}

/**
 * Every combination a task type can produce, in a fixed order. Destinations never equal the task's own
 * appliance (no "put a clean apple in sinkbasin"), and heat never targets the fridge nor cool the microwave.
 */
export function combosFor(type: TaskType): Combo[] {
  const out: Combo[] = [];
  for (const object of ELIGIBLE[type]) {
    const targets = type === 'look' ? LAMP_HOLDERS : category(object).targets;
    for (const target of targets) {
      if (target === APPLIANCE[type]) continue;
      if (type === 'heat' && target === 'fridge') continue;
      if (type === 'cool' && target === 'microwave') continue;
      out.push({ type, object, target });
    }
  }
  return out;
}
