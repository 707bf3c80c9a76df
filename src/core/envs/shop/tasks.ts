/**
 * Shop tasks: (preset, split, index) → a goal, identical on every machine (reproducibility contract,
 * docs/architecture.md), in the form of WebShop's synthetic goals (Yao et al. 2022, engine/goal.py
 * `get_synthetic_goals`): one goal per product and combination of its option values, with the instruction
 * `<product instruction> with <name>: <value>, and <name>: <value><price text>` (option names sorted).
 *
 * Splits: `test-unseen` asks only for the goals of catalog.ts `isUnseenGoal` products (one in five of every asked-for
 * product type), `train`, `test-seen` and `val` for the goals of the other products of the asked-for types, so a policy
 * trained on `train` never bought a `test-unseen` product (the types of lexicon.ts `LEAVES[].heldOut` are asked for by
 * no split). A task is one uniform draw over the split's goals (every (product, combination) pair equally likely, as
 * WebShop addresses goals by index; WebShop's attribute-frequency weights only apply to its random, unaddressed
 * sessions) from an `Rng` seeded with `shop/shop-v1/<preset>/<split>/<index>` (`SHOP_SEED_TAG`): a draw of an
 * unseen goal by a train-side split is drawn again from the same stream (rejection keeps the draw uniform, and every
 * task whose first draw was kept is the same as in `shop-v1`). `val` task i is `train` task TRAIN_TASK_INDICES + i,
 * labelled `val`.
 */
import { Rng, hash32 } from '../../rng';
import { SPLITS, TRAIN_TASK_INDICES, type Split, type TaskRef } from '../types';
import { SHOP_SEED_TAG, catalog, isUnseenGoal, type Product } from './catalog';
import { LEAVES } from './lexicon';
import type { RewardGoal } from './reward';

/** Presets (the first is the default). */
export const SHOP_PRESETS: readonly string[] = ['default'];
/** Max actions per episode. */
export const SHOP_MAX_STEPS = 15;
/** Task types: the target product's top category. */
export const SHOP_TASK_TYPES: readonly string[] = [...new Set(LEAVES.map((l) => l.top))];

/** One task: the target product, the options asked for and the instruction. */
export interface ShopTask {
  /** The split and index the task was addressed by. */
  readonly split: Split;
  readonly index: number;
  /** The product the goal was made from (WebShop's goal `asin`). */
  readonly product: Product;
  /** Option name → value asked for, names sorted (WebShop's `goal_options`); empty when the product has none. */
  readonly goalOptions: Readonly<Record<string, string>>;
  /** The full instruction (WebShop's goal `instruction_text`). */
  readonly instruction: string;
}

/** @throws Error naming the accepted presets on an unknown one. */
export function checkPreset(preset: string): void {
  if (!SHOP_PRESETS.includes(preset)) {
    throw new Error(`shop: unknown preset "${preset}"; accepted: ${SHOP_PRESETS.join(', ')}`);
  }
}

/** Number of option combinations of a product (1 without options). */
export function combinations(p: Product): number {
  return p.options.reduce((n, g) => n * g.values.length, 1);
}

/**
 * The `k`-th combination of a product's options in `itertools.product` order over the sorted option names (the last
 * name varies fastest), as a name → value record with sorted keys.
 */
export function combination(p: Product, k: number): Record<string, string> {
  const groups = [...p.options].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const picked: string[] = new Array(groups.length);
  for (let i = groups.length - 1; i >= 0; i--) {
    picked[i] = groups[i].values[k % groups[i].values.length];
    k = Math.floor(k / groups[i].values.length);
  }
  return Object.fromEntries(groups.map((g, i) => [g.name, picked[i]]));
}

/** WebShop's option text: ` with a: x, and b: y`, or empty. */
export function optionText(goalOptions: Readonly<Record<string, string>>): string {
  const parts = Object.entries(goalOptions).map(([k, v]) => `${k}: ${v}`);
  return parts.length ? ` with ${parts.join(', and ')}` : '';
}

interface Pool {
  products: Product[];
  /** cum[i] = combinations of products[0..i). */
  cum: number[];
}

const pools = new Map<boolean, Pool>();

function pool(heldOut: boolean): Pool {
  let p = pools.get(heldOut);
  if (!p) {
    const products = catalog().filter((x) => (heldOut ? isUnseenGoal(x) : !LEAVES[x.leaf].heldOut));
    const cum = [0];
    for (const x of products) cum.push(cum[cum.length - 1] + combinations(x));
    p = { products, cum };
    pools.set(heldOut, p);
  }
  return p;
}

/** The index of the product whose goals hold goal number g (cum[i] ≤ g < cum[i + 1]), by bisection. */
function goalProduct(cum: readonly number[], g: number): number {
  let lo = 0;
  let hi = cum.length - 2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (cum[mid] <= g) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** @throws Error when the split is unknown or the index is not a non-negative safe integer. */
export function checkTaskRef(ref: TaskRef): void {
  if (!ref || !SPLITS.includes(ref.split)) {
    throw new Error(`shop: unknown split "${ref?.split}"; accepted: ${SPLITS.join(', ')}`);
  }
  if (!Number.isSafeInteger(ref.index) || ref.index < 0) {
    throw new Error(`shop: task index must be a non-negative integer, got ${ref.index}`);
  }
}

/** The task at (preset, split, index). @throws Error on an unknown preset or split, or a bad index. */
export function generateTask(preset: string, ref: TaskRef): ShopTask {
  checkPreset(preset);
  checkTaskRef(ref);
  const addr = ref.split === 'val' ? { split: 'train', index: TRAIN_TASK_INDICES + ref.index } : ref;
  const rng = new Rng(hash32(`shop/${SHOP_SEED_TAG}/${preset}/${addr.split}/${addr.index}`));
  const unseen = ref.split === 'test-unseen';
  const { products, cum } = pool(unseen);
  let g: number;
  let lo: number;
  do {
    g = rng.int(cum[cum.length - 1]);
    lo = goalProduct(cum, g);
  } while (!unseen && isUnseenGoal(products[lo]));
  const product = products[lo];
  const goalOptions = combination(product, g - cum[lo]);
  const instruction = `${product.instruction}${optionText(goalOptions)}${product.priceText}`;
  return { split: ref.split, index: ref.index, product, goalOptions, instruction };
}

/** The reward's view of a task's goal (engine/goal.py's goal dict; `attributes` = the instruction attributes). */
export function rewardGoal(task: ShopTask): RewardGoal {
  const p = task.product;
  return {
    query: p.query,
    productCategory: p.productCategory,
    nouns: p.nouns,
    attributes: p.instructionAttributes,
    goalOptions: task.goalOptions,
    priceUpper: p.priceUpper,
  };
}
