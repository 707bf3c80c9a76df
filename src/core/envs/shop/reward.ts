/**
 * The purchase reward, ported line by line from WebShop (Yao et al. 2022) engine/goal.py: `get_type_reward`,
 * `get_attribute_reward`, `get_option_reward` and `get_reward`.
 *
 *   reward = (attribute matches + option matches + 1[price ≤ price_upper]) / (#attributes + #options + 1) × r_type
 *
 * Fuzzy matching is thefuzz's `token_set_ratio` (score 0–100, integer), here from the `fuzzball` package (a port of
 * the same fuzzywuzzy algorithm) with `force_ascii: true`, thefuzz's default. Title nouns: WebShop tags the purchased
 * and the goal product's names with spaCy and keeps NOUN/PROPN tokens; spaCy cannot run in JavaScript, so every product
 * carries its title nouns explicitly (`nouns`, see catalog.ts and lexicon.ts `NOUNS`) and the formula runs on them.
 */
import { token_set_ratio } from 'fuzzball';
import { normalizeColor, normalizeColorPair } from './normalize';

/** What the reward reads of the purchased product (WebShop's product dict keys in brackets). */
export interface RewardProduct {
  /** Search query the product belongs to (`query`). */
  readonly query: string;
  /** Category path `a › b › c` (`product_category`). */
  readonly productCategory: string;
  /** Nouns of the title, lower case, in order, duplicates kept (spaCy's NOUN/PROPN tokens of `name`). */
  readonly nouns: readonly string[];
  /** Attribute phrases (`Attributes`). */
  readonly attributes: readonly string[];
  /** Title (`Title`). */
  readonly title: string;
  /** Feature bullets (`BulletPoints`). */
  readonly features: readonly string[];
  /** Description (`Description`). */
  readonly description: string;
}

/**
 * What the reward reads of the goal. `goalOptions`: a name → value record (WebShop's synthetic goals, a dict) or a
 * list of values (human goals and test_goal.py's option cases, a list) — they are compared differently, see
 * `getReward`.
 */
export interface RewardGoal {
  /** The target product's query (`query`). */
  readonly query: string;
  /** The target product's category path (`product_category`). */
  readonly productCategory: string;
  /** Nouns of the target product's title (`name`, spaCy-tagged in WebShop). */
  readonly nouns: readonly string[];
  /** Attributes the instruction asks for (`attributes`). */
  readonly attributes: readonly string[];
  /** Options the instruction asks for (`goal_options`). */
  readonly goalOptions: Readonly<Record<string, string>> | readonly string[];
  /** Price limit in dollars (`price_upper`); 1 000 000 when the instruction names no price. */
  readonly priceUpper: number;
}

/** The type reward and its parts (WebShop `get_type_reward`'s dict). */
export interface TypeReward {
  /** 1, 0.5, 0.1 or 0. */
  rType: number;
  /** Same query as the goal. */
  queryMatch: boolean;
  /** At least two category levels shared (as sets, ignoring order). */
  categoryMatch: boolean;
  /** |set(purchased nouns) ∩ set(goal nouns)| / len(goal nouns); 0.2 when the goal has no nouns. */
  titleScore: number;
}

/** `token_set_ratio` as thefuzz computes it by default (full processing, non-ASCII stripped); integer 0–100. */
export function tokenSetRatio(a: string, b: string): number {
  return token_set_ratio(a, b, { force_ascii: true, full_process: true });
}

/** Python's `[x.strip() for x in s.split('›')]`. */
function categoryLevels(path: string): string[] {
  return path.split('›').map((x) => x.trim());
}

/**
 * Whether the purchased product is of the goal's type. Source: WebShop engine/goal.py `get_type_reward`, with its
 * order of overrides: r_type = 1; 0.5 unless (query match or ≥ 2 shared category levels or title score > 0.2); 0.1
 * when title score < 0.1; 0 when title score = 0 (so a title score of 0 gives 0 even with a query match).
 */
export function getTypeReward(purchased: RewardProduct, goal: RewardGoal): TypeReward {
  const queryMatch = purchased.query === goal.query;
  const pCat = new Set(categoryLevels(purchased.productCategory));
  const categoryMatch = [...new Set(categoryLevels(goal.productCategory))].filter((x) => pCat.has(x)).length >= 2;
  const pNouns = new Set(purchased.nouns.map((t) => t.toLowerCase()));
  const desired = goal.nouns.map((t) => t.toLowerCase());
  const nIntersect = [...new Set(desired)].filter((t) => pNouns.has(t)).length;
  const titleScore = desired.length === 0 ? 0.2 : nIntersect / desired.length;
  let rType = 1.0;
  if (!(queryMatch || categoryMatch || titleScore > 0.2)) rType = 0.5;
  if (titleScore < 0.1) rType = 0.1;
  if (titleScore === 0.0) rType = 0.0;
  return { rType, queryMatch, categoryMatch, titleScore };
}

/**
 * How many goal attributes the purchased product has: a goal attribute counts when some product attribute has
 * `token_set_ratio > 85` with it, or else when it is a substring of the lower-cased title, of the features joined by
 * spaces, or of the description. Returns [fraction of goal attributes matched, count]. Source: WebShop
 * engine/goal.py `get_attribute_reward`. @throws Error when the goal has no attributes (Python divides by zero).
 */
export function getAttributeReward(purchased: RewardProduct, goalAttrs: readonly string[]): [number, number] {
  if (goalAttrs.length === 0) throw new Error('shop reward: the goal has no attributes (division by zero)');
  let n = 0;
  for (const g of goalAttrs) {
    let matched = purchased.attributes.some((p) => tokenSetRatio(p, g) > 85);
    if (
      !matched &&
      (purchased.title.toLowerCase().includes(g) ||
        purchased.features.join(' ').toLowerCase().includes(g) ||
        purchased.description.toLowerCase().includes(g))
    )
      matched = true;
    if (matched) n++;
  }
  return [n / goalAttrs.length, n];
}

/**
 * A goal option as thefuzz sees it after `normalize_color`: a string is colour-normalised (substring rule); a
 * `[name, value]` pair becomes a colour when its name or value equals one, else Python's `str((name, value))`,
 * `('name', 'value')` (full processing then turns it into the words `name value`).
 */
export function goalOptionText(o: string | readonly [string, string]): string {
  if (typeof o === 'string') return normalizeColor(o);
  return normalizeColorPair(o[0], o[1]) ?? `('${o[0]}', '${o[1]}')`;
}

/**
 * How many goal options the purchased options hit: both sides colour-normalised, a goal option counts once when some
 * purchased option has `token_set_ratio > 85` with it. Returns [fraction hit or null when the goal has no options,
 * count]. Source: WebShop engine/goal.py `get_option_reward`.
 */
export function getOptionReward(
  purchasedOptions: readonly string[],
  goalOptions: readonly (string | readonly [string, string])[],
): [number | null, number] {
  const purchased = purchasedOptions.map(normalizeColor);
  const goal = goalOptions.map(goalOptionText);
  let n = 0;
  for (const g of goal) {
    for (const p of purchased) {
      if (tokenSetRatio(p, g) > 85) {
        n++;
        break;
      }
    }
  }
  return [goal.length > 0 ? n / goal.length : null, n];
}

/** The reward and its parts (WebShop `get_reward(..., verbose=True)`'s info, plus the counts). */
export interface RewardInfo {
  /** Total reward in [0, 1]. */
  reward: number;
  /** The type reward's parts. */
  type: TypeReward;
  /** Goal attributes matched (count). */
  attrMatches: number;
  /** Goal options matched (count). */
  optionMatches: number;
  /** Price within the limit. */
  priceOk: boolean;
}

/**
 * The reward of buying `purchased` at `price` dollars with `options` (the chosen values, in the order their groups were
 * first clicked, as Python's `options.values()`). Source: WebShop engine/goal.py `get_reward`. Goal options given as a
 * record are compared as `(name, value)` pairs (WebShop passes `goal_options.items()` for a dict: see
 * `goalOptionText`), given as a list as values. @throws Error when `goal.priceUpper` ≤ 0 (WebShop adds None and
 * fails) or the goal has no attributes.
 */
export function getReward(
  purchased: RewardProduct,
  goal: RewardGoal,
  price: number,
  options: readonly string[],
): RewardInfo {
  const type = getTypeReward(purchased, goal);
  if (!(goal.priceUpper > 0)) throw new Error(`shop reward: price_upper must be > 0, got ${goal.priceUpper}`);
  const priceOk = price <= goal.priceUpper;
  const [, attrMatches] = getAttributeReward(purchased, goal.attributes);
  const goalOptions = Array.isArray(goal.goalOptions)
    ? (goal.goalOptions as readonly string[])
    : Object.entries(goal.goalOptions as Record<string, string>);
  const [, optionMatches] = getOptionReward(options, goalOptions);
  const total = (attrMatches + optionMatches + (priceOk ? 1 : 0)) / (goal.attributes.length + goalOptions.length + 1);
  return { reward: total * type.rType, type, attrMatches, optionMatches, priceOk };
}
