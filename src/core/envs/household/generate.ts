/**
 * Task generation: (preset, split, index) → the initial World, identical on every machine (reproducibility contract,
 * docs/architecture.md).
 *
 * Draw order, all from one `Rng` seeded with `taskSeed` (a hash of `household/<version>/<preset>/<split>/<index>`):
 * task type → (layout template, combination) → receptacle counts → lamp (look) → task objects → lamp (other
 * tasks, by chance) → distractor objects. `test-unseen` draws only held-out templates and held-out
 * combinations; `train` and `test-seen` only the others. `val` task i is train task TRAIN_TASK_INDICES + i (the train
 * distribution at addresses training never draws), labelled split `val`, index i. The initial state never satisfies the
 * goal: task objects never start in a receptacle of the target kind, and distractors are never of the task's object
 * kind.
 */
import { Rng, hash32 } from '../../rng';
import { SPLITS, TRAIN_TASK_INDICES, type TaskRef } from '../types';
import {
  APPLIANCE,
  CLOSABLE_KINDS,
  DESKLAMP,
  LAMP_HOLDERS,
  OBJECT_KINDS,
  combosFor,
  spawnKinds,
  type Combo,
  type TaskType,
} from './catalog';
import { HOUSEHOLD_VERSION, isHeldOutCombo, presetConfig, type LayoutTemplate, type PresetConfig } from './presets';
import { byKindNum, type Receptacle, type Thing, type World } from './world';

/** A layout template together with the combinations a task of one type can use in it. */
export interface Option {
  layout: LayoutTemplate;
  combos: Combo[];
}

/** Whether `combo` can be posed in a room with these receptacle kinds. */
export function comboFits(combo: Combo, kinds: ReadonlySet<string>): boolean {
  if (!kinds.has(combo.target)) return false;
  const appliance = APPLIANCE[combo.type];
  if (appliance && !kinds.has(appliance)) return false;
  return spawnKinds(combo.object).some((k) => kinds.has(k) && k !== combo.target);
}

const optionCache = new Map<string, Option[]>();

/**
 * The (layout, combinations) choices for a task type in a preset and split family (held out or not), in a
 * fixed order; only layouts with at least one fitting combination. Memoised.
 */
export function optionsFor(cfg: PresetConfig, type: TaskType, heldOut: boolean): Option[] {
  const key = `${cfg.name}/${type}/${heldOut}`;
  let opts = optionCache.get(key);
  if (!opts) {
    const combos = combosFor(type).filter((c) => isHeldOutCombo(c) === heldOut);
    opts = [];
    for (const layout of cfg.layouts) {
      if (layout.unseen !== heldOut) continue;
      const kinds = new Set(Object.keys(layout.receptacles));
      const fit = combos.filter((c) => comboFits(c, kinds));
      if (fit.length > 0) opts.push({ layout, combos: fit });
    }
    optionCache.set(key, opts);
  }
  return opts;
}

/**
 * Seed of a task: FNV-1a of `household/<version>/<preset>/<split>/<index>` (`Rng` scrambles its seed with
 * murmur3's fmix32, so nearby strings give unrelated streams).
 */
export function taskSeed(preset: string, ref: TaskRef): number {
  return hash32(`household/${HOUSEHOLD_VERSION}/${preset}/${ref.split}/${ref.index}`);
}

/** @throws Error when the split is unknown or the index is not a non-negative safe integer. */
export function checkTaskRef(ref: TaskRef): void {
  if (!ref || !SPLITS.includes(ref.split)) {
    throw new Error(`household: unknown split "${ref?.split}"; accepted: ${SPLITS.join(', ')}`);
  }
  if (!Number.isSafeInteger(ref.index) || ref.index < 0) {
    throw new Error(`household: task index must be a non-negative integer, got ${ref.index}`);
  }
}

/**
 * Build the initial world of task (split, index) in a preset.
 * @throws Error on an unknown preset or split, or a negative / non-integer index.
 */
export function generateWorld(preset: string, ref: TaskRef): World {
  checkTaskRef(ref);
  if (ref.split === 'val') {
    if (!Number.isSafeInteger(TRAIN_TASK_INDICES + ref.index))
      throw new Error(`household: val task index ${ref.index} is too large`);
    // The train distribution at indices training never draws (taskRng.int(TRAIN_TASK_INDICES) in the trainer).
    return {
      ...generateWorld(preset, { split: 'train', index: TRAIN_TASK_INDICES + ref.index }),
      split: 'val',
      index: ref.index,
    };
  }
  const cfg = presetConfig(preset);
  const rng = new Rng(taskSeed(preset, ref));
  const heldOut = ref.split === 'test-unseen';
  const type = rng.pick(cfg.taskTypes);
  const options = optionsFor(cfg, type, heldOut);
  if (options.length === 0) throw new Error(`household: no layout fits task type ${type} (preset ${preset})`);
  const { layout, combos } = rng.pick(options);
  const combo = rng.pick(combos);

  const receptacles: Receptacle[] = [];
  for (const kind of Object.keys(layout.receptacles).sort()) {
    const [lo, hi] = layout.receptacles[kind];
    const n = lo + rng.int(hi - lo + 1);
    const closable = cfg.closedReceptacles && CLOSABLE_KINDS.includes(kind);
    for (let num = 1; num <= n; num++)
      receptacles.push({ name: `${kind} ${num}`, kind, num, closable, open: !closable });
  }
  const kinds = new Set(receptacles.map((r) => r.kind));

  const things: Thing[] = [];
  const perKind = new Map<string, number>();
  const add = (kind: string, rec: Receptacle): void => {
    const num = (perKind.get(kind) ?? 0) + 1;
    perKind.set(kind, num);
    const takeable = kind !== DESKLAMP;
    things.push({
      name: `${kind} ${num}`,
      kind,
      num,
      location: rec.name,
      takeable,
      clean: false,
      hot: false,
      cold: false,
    });
  };
  const recsOf = (pred: (k: string) => boolean): Receptacle[] => receptacles.filter((r) => pred(r.kind));

  if (type === 'look') add(DESKLAMP, rng.pick(recsOf((k) => k === combo.target)));
  const spawn = spawnKinds(combo.object);
  const starts = recsOf((k) => spawn.includes(k) && k !== combo.target);
  for (let i = 0; i < (type === 'pick2' ? 2 : 1); i++) add(combo.object, rng.pick(starts));
  if (type !== 'look' && cfg.lampChance > 0 && rng.next() < cfg.lampChance) {
    const holders = recsOf((k) => LAMP_HOLDERS.includes(k));
    if (holders.length > 0) add(DESKLAMP, rng.pick(holders));
  }
  const [dLo, dHi] = cfg.distractors;
  const nDistractors = dLo + rng.int(dHi - dLo + 1);
  const others = OBJECT_KINDS.filter((k) => k !== combo.object && spawnKinds(k).some((s) => kinds.has(s)));
  for (let i = 0; i < nDistractors; i++) {
    const kind = rng.pick(others);
    const rec = rng.pick(recsOf((k) => spawnKinds(kind).includes(k)));
    if ((perKind.get(kind) ?? 0) < 9) add(kind, rec);
  }
  things.sort(byKindNum);

  return {
    receptacles,
    things,
    at: null,
    holding: null,
    goal: { type, object: combo.object, target: combo.target },
    layout: layout.name,
    split: ref.split,
    index: ref.index,
    preset: cfg.name,
  };
}
