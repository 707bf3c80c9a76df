/**
 * Household presets and room layout templates, and the test-unseen hold-out (cf. ALFWorld's seen/unseen splits,
 * Shridhar et al. 2021).
 *
 * A layout template names the receptacle kinds of a room and how many of each (a count range). Held-out
 * templates (`unseen: true`) and held-out task combinations (`isHeldOutCombo`) appear only in `test-unseen`;
 * `train` and `test-seen` never generate them. Every template has a different set of receptacle kinds, so an
 * unseen room is recognisable from its receptacles alone.
 */
import { hash32 } from '../../rng';
import type { Combo, TaskType } from './catalog';

/** Version of household task generation and rules; bump on any change to either. */
export const HOUSEHOLD_VERSION = 'household-v2';

/** A room template: receptacle kind → [min, max] count (inclusive, max ≤ 9). */
export interface LayoutTemplate {
  name: string;
  receptacles: Readonly<Record<string, readonly [number, number]>>;
  /** True for templates held out for `test-unseen`. */
  unseen: boolean;
}

/** A preset: which task types, rooms and sizes. */
export interface PresetConfig {
  name: string;
  taskTypes: readonly TaskType[];
  layouts: readonly LayoutTemplate[];
  /** Max actions per episode. */
  maxSteps: number;
  /** Whether closable kinds (cabinet, fridge, ...) start closed. The easy preset's rooms have none. */
  closedReceptacles: boolean;
  /** Inclusive range of extra (distractor) objects besides the task's own. */
  distractors: readonly [number, number];
  /** Probability that a room with a lamp holder gets a desklamp when the task does not need one. */
  lampChance: number;
  /**
   * Whether the information-only commands (`examine`, `inventory`, `look`) are offered. `easy` leaves them out:
   * they never change the state, and with 3–4 receptacles they would make up most of a random policy's choices,
   * so learning from scratch would spend most rollouts on them. In `easy` they answer `Nothing happens.`.
   */
  infoActions: boolean;
}

const ONE = [1, 1] as const;

/** Realistic rooms of 8–14 receptacles, some with doors. */
const DEFAULT_LAYOUTS: readonly LayoutTemplate[] = [
  {
    name: 'kitchen-a',
    unseen: false,
    receptacles: {
      cabinet: [2, 4],
      countertop: [1, 2],
      drawer: [1, 2],
      fridge: ONE,
      garbagecan: ONE,
      microwave: ONE,
      sinkbasin: ONE,
      stoveburner: [1, 2],
    },
  },
  {
    name: 'kitchen-b',
    unseen: false,
    receptacles: {
      cabinet: [2, 3],
      countertop: ONE,
      diningtable: ONE,
      drawer: [1, 3],
      fridge: ONE,
      garbagecan: ONE,
      microwave: ONE,
      sinkbasin: ONE,
    },
  },
  {
    name: 'bedroom-a',
    unseen: false,
    receptacles: {
      bed: ONE,
      desk: ONE,
      drawer: [2, 4],
      dresser: ONE,
      garbagecan: ONE,
      shelf: [1, 3],
      sidetable: [1, 2],
    },
  },
  {
    name: 'livingroom-a',
    unseen: false,
    receptacles: {
      cabinet: [1, 2],
      coffeetable: ONE,
      drawer: [1, 2],
      garbagecan: ONE,
      shelf: [2, 4],
      sidetable: [1, 2],
      sofa: ONE,
    },
  },
  {
    name: 'office-a',
    unseen: false,
    receptacles: { desk: [1, 2], drawer: [2, 4], garbagecan: ONE, safe: ONE, shelf: [2, 3], sidetable: ONE },
  },
  {
    name: 'kitchen-c',
    unseen: true,
    receptacles: {
      cabinet: [2, 4],
      countertop: [1, 2],
      diningtable: ONE,
      fridge: ONE,
      microwave: ONE,
      shelf: ONE,
      sinkbasin: ONE,
      stoveburner: [1, 2],
    },
  },
  {
    name: 'bedroom-b',
    unseen: true,
    receptacles: {
      bed: ONE,
      drawer: [2, 3],
      dresser: ONE,
      garbagecan: ONE,
      safe: ONE,
      shelf: [1, 2],
      sidetable: [1, 2],
    },
  },
];

/** Small rooms of 3–4 receptacles without doors. */
const EASY_LAYOUTS: readonly LayoutTemplate[] = [
  { name: 'nook-a', unseen: false, receptacles: { countertop: ONE, diningtable: ONE, garbagecan: ONE } },
  { name: 'nook-b', unseen: false, receptacles: { countertop: ONE, shelf: ONE, sinkbasin: ONE, stoveburner: ONE } },
  { name: 'nook-c', unseen: false, receptacles: { desk: ONE, shelf: ONE, sidetable: ONE } },
  { name: 'nook-d', unseen: false, receptacles: { bed: ONE, dresser: ONE, garbagecan: ONE, sidetable: ONE } },
  { name: 'nook-e', unseen: false, receptacles: { coffeetable: ONE, shelf: ONE, sofa: ONE } },
  { name: 'nook-f', unseen: false, receptacles: { countertop: ONE, diningtable: ONE, shelf: ONE, sidetable: ONE } },
  { name: 'nook-g', unseen: true, receptacles: { countertop: ONE, diningtable: ONE, shelf: ONE, stoveburner: ONE } },
  { name: 'nook-h', unseen: true, receptacles: { bed: ONE, desk: ONE, dresser: ONE, garbagecan: ONE } },
];

/** Presets by name, in display order (`default` holds all six task types; the runs' default is `RUN_PRESET`). */
export const PRESETS: Readonly<Record<string, PresetConfig>> = {
  default: {
    name: 'default',
    taskTypes: ['pick', 'look', 'clean', 'heat', 'cool', 'pick2'],
    layouts: DEFAULT_LAYOUTS,
    maxSteps: 30,
    closedReceptacles: true,
    distractors: [3, 8],
    lampChance: 0.5,
    infoActions: true,
  },
  easy: {
    name: 'easy',
    taskTypes: ['pick'],
    layouts: EASY_LAYOUTS,
    maxSteps: 10,
    closedReceptacles: false,
    distractors: [0, 2],
    lampChance: 0,
    infoActions: false,
  },
  'easy-pick2': {
    name: 'easy-pick2',
    taskTypes: ['pick2'],
    layouts: EASY_LAYOUTS,
    maxSteps: 15,
    closedReceptacles: false,
    distractors: [0, 2],
    lampChance: 0,
    infoActions: false,
  },
};

/** Preset names, in display order. */
export const PRESET_NAMES: readonly string[] = Object.keys(PRESETS);

/**
 * The preset a run, an evaluation, Play or a pretraining uses when none is named (EnvSpec.defaultPreset): `easy`,
 * which a policy learns from scratch in minutes and whose base policy is shipped (public/base/household-easy.*).
 */
export const RUN_PRESET = 'easy';

/** Per preset, a short phrase for help texts (EnvSpec.presetSummaries). */
export const PRESET_SUMMARIES: Readonly<Record<string, string>> = {
  default: 'all six ALFWorld task types, rooms of 8–14 receptacles, some with doors',
  easy: 'one task type, few receptacles, quick to learn from scratch',
  'easy-pick2': "easy's rooms with ALFWorld's pick-two task (two objects to one place), the type of all-fail groups",
};

/** The preset's config. @throws Error naming the accepted presets on an unknown name. */
export function presetConfig(name: string): PresetConfig {
  const p = Object.prototype.hasOwnProperty.call(PRESETS, name) ? PRESETS[name] : undefined;
  if (!p) throw new Error(`household: unknown preset "${name}"; accepted: ${PRESET_NAMES.join(', ')}`);
  return p;
}

/**
 * True when a (task type, object kind, target kind) combination is held out for `test-unseen`: a fixed ~1/5
 * of all combinations, chosen by hashing the combination's name (so the choice is the same on every machine
 * and does not depend on list order).
 */
export function isHeldOutCombo(c: Combo): boolean {
  return hash32(`${HOUSEHOLD_VERSION}/holdout/${c.type}/${c.object}/${c.target}`) % 5 === 0;
}

/** Sorted receptacle kinds of a template, joined by `+`: the layout signature used to tell rooms apart. */
export function layoutSignature(kinds: Iterable<string>): string {
  return [...new Set(kinds)].sort().join('+');
}
