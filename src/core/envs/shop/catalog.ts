/**
 * The shop's product catalogue: a seeded generator of 3 000 products (100 per leaf of lexicon.ts `LEAVES`) standing in
 * for WebShop's scraped Amazon products (Yao et al. 2022), identical on every machine for one `SHOP_VERSION`, built
 * once per process (`catalog()`, cached).
 *
 * Each product has WebShop's fields (engine/engine.py `load_products`): an ASIN-like id (`b07k42`: `b`, two digits, a
 * letter, two digits — few distinct tokens), category / query / product category (`top › mid › type`), title,
 * description, feature bullets, attributes, option groups (`options`, name → values, lower case), pricing (one price
 * or a range) and the price drawn at load (`generate_product_prices`: a range draws uniform(lo, hi)); plus its title
 * nouns (`nouns`, written down instead of spaCy's POS tags, see lexicon.ts) and the synthetic goal parts WebShop keeps
 * per product (items_ins_v2 `instruction` / `instruction_attributes`; goal.py `get_synthetic_goals` draws the price
 * limit once per product).
 *
 * Draw order: one `Rng` per leaf (`shop/shop-v1/catalog/<leaf index>`) draws, per product: brand, attributes,
 * title, description, features, options, pricing, drawn price, instruction, price limit; ids come from their own
 * stream (`…/ids`) in catalogue order.
 */
import { Rng, hash32 } from '../../rng';
import {
  BRANDS,
  DESCRIPTION_SENTENCES,
  FEATURE_ENDINGS,
  INSTRUCTION_TEMPLATES,
  LEAVES,
  isTitleNoun,
  type LeafSpec,
} from './lexicon';

/** Version of the shop's catalogue, tasks and rules; stored in run configs and manifests. */
export const SHOP_VERSION = 'shop-v2';
/**
 * The tag the catalogue's and the tasks' generators are seeded with: `shop-v1`'s, since `shop-v2` changed only which
 * products `test-unseen` asks for (`isUnseenGoal`), not the catalogue or the draws of the other splits' tasks.
 */
export const SHOP_SEED_TAG = 'shop-v1';
/** One product in UNSEEN_EVERY of an asked-for type is kept for `test-unseen` (`isUnseenGoal`). */
export const UNSEEN_EVERY = 5;
/** Products generated per leaf of the category tree. */
export const PRODUCTS_PER_LEAF = 100;

/** One option group of a product: name and values, in item-page order. */
export interface OptionGroup {
  readonly name: string;
  readonly values: readonly string[];
}

/** One product (WebShop's product dict; field names in brackets). */
export interface Product {
  /** Position in the catalogue: the search engine's document id and tie-break. */
  readonly index: number;
  /** ASIN-like id, lower case (`asin`), e.g. `b07k42`. */
  readonly asin: string;
  /** Index of its leaf in `LEAVES`. */
  readonly leaf: number;
  /** Top category (`category`), e.g. `beauty`. */
  readonly category: string;
  /** The query it belongs to (`query`): its product type, e.g. `shampoo`. */
  readonly query: string;
  /** `top › mid › type` (`product_category`). */
  readonly productCategory: string;
  /** Title (`Title`, also `name`). */
  readonly title: string;
  /** Nouns of the title in order (spaCy's NOUN/PROPN tokens in WebShop). */
  readonly nouns: readonly string[];
  /** Description (`Description`). */
  readonly description: string;
  /** Feature bullets (`BulletPoints`). */
  readonly features: readonly string[];
  /** Attribute phrases (`Attributes`). */
  readonly attributes: readonly string[];
  /** Option groups (`options`), in display order; values unique within the product. */
  readonly options: readonly OptionGroup[];
  /** One price or [low, high] in dollars (`pricing`). */
  readonly pricing: readonly number[];
  /** `$12.99` or `$12.99 to $20.50` (`Price`; always two decimals here, WebShop prints Python floats). */
  readonly priceTag: string;
  /** The price paid, drawn at load (`product_prices[asin]`), dollars. */
  readonly price: number;
  /** Instruction without options and price (`instruction_text`). */
  readonly instruction: string;
  /** Attributes the instruction asks for (`instruction_attributes`), 1–3 of `attributes`. */
  readonly instructionAttributes: readonly string[];
  /** Price limit of this product's goals (`price_upper`); 1 000 000 when there is no price text. */
  readonly priceUpper: number;
  /** `, and price lower than X.00 dollars`, or empty. */
  readonly priceText: string;
}

/** WebShop engine/goal.py `PRICE_RANGE`: 10, 20, …, 990 dollars. */
export const PRICE_RANGE: readonly number[] = Array.from({ length: 99 }, (_, i) => 10 * (i + 1));

/**
 * The goal's price limit for a product drawn at `price` dollars: the first 4 values of `PRICE_RANGE` above the price;
 * with at least 2 of them, two distinct ones are sampled and the larger kept, with the text `, and price lower than
 * X.00 dollars`; otherwise 1 000 000 and no text. Source: WebShop engine/goal.py `get_synthetic_goals`
 * (`random.sample(price_range, 2)`, sorted).
 */
export function priceLimit(price: number, rng: Rng): { priceUpper: number; priceText: string } {
  const range = PRICE_RANGE.filter((p) => p > price).slice(0, 4);
  if (range.length < 2) return { priceUpper: 1000000, priceText: '' };
  const i = rng.int(range.length);
  let j = rng.int(range.length - 1);
  if (j >= i) j++;
  const upper = Math.max(range[i], range[j]);
  return { priceUpper: upper, priceText: `, and price lower than ${upper.toFixed(2)} dollars` };
}

/** `a`, `a and b`, `a, b and c`. */
export function joinAttrs(attrs: readonly string[]): string {
  if (attrs.length <= 1) return attrs.join('');
  return `${attrs.slice(0, -1).join(', ')} and ${attrs[attrs.length - 1]}`;
}

/** `$12.99`. */
export function dollars(x: number): string {
  return `$${x.toFixed(2)}`;
}

/** k distinct elements of xs in a random order. */
function sample<T>(rng: Rng, xs: readonly T[], k: number): T[] {
  return rng.shuffle(xs).slice(0, k);
}

/** Title words that are nouns, in order (duplicates kept). */
export function titleNouns(title: string): string[] {
  return title
    .split(/[\s,]+/)
    .filter((w) => w !== '')
    .filter(isTitleNoun);
}

function drawOptions(rng: Rng, spec: LeafSpec): OptionGroup[] {
  const groups: OptionGroup[] = [];
  for (const pool of spec.options) {
    if (rng.next() >= 0.8) continue;
    const k = 2 + rng.int(Math.min(5, pool.values.length) - 1);
    const keep = new Set(sample(rng, pool.values, k));
    groups.push({ name: pool.name, values: pool.values.filter((v) => keep.has(v)) });
  }
  return groups;
}

function drawPricing(rng: Rng, spec: LeafSpec): number[] {
  const [lo, hi] = spec.price;
  const first = Math.min(99.99, lo + rng.int(hi - lo + 1) + rng.int(100) / 100);
  if (rng.next() >= 0.25) return [first];
  const second = Math.round((first + 2 + rng.int(20) + rng.int(100) / 100) * 100) / 100;
  return second > 99.99 ? [first] : [first, second];
}

interface Draft {
  brand: string;
  attributes: string[];
  title: string;
}

function drawTitle(rng: Rng, spec: LeafSpec, used: Set<string>): Draft {
  let d: Draft = { brand: '', attributes: [], title: '' };
  for (let tries = 0; tries < 20; tries++) {
    const brand = rng.pick(BRANDS);
    const attributes = sample(rng, spec.attrs, 3 + rng.int(3));
    const extra = rng.next() < 0.5 ? `, ${attributes[1]}` : '';
    d = { brand, attributes, title: `${brand} ${attributes[0]} ${spec.type}${extra}` };
    if (!used.has(d.title)) break;
  }
  used.add(d.title);
  return d;
}

function makeProduct(rng: Rng, leafIndex: number, index: number, asin: string, used: Set<string>): Product {
  const spec = LEAVES[leafIndex];
  const { attributes, title } = drawTitle(rng, spec, used);
  const [a, b] = sample(rng, attributes, 2);
  const [s1, s2] = sample(rng, DESCRIPTION_SENTENCES, 2);
  const these = spec.type.endsWith('s') ? 'these' : 'this';
  const description = `${these} ${spec.type} ${these === 'this' ? 'is' : 'are'} ${a} and ${b}. ${s1} ${s2}`;
  const features = rng.shuffle(attributes).map((x) => `${x} - ${rng.pick(FEATURE_ENDINGS)}`);
  const options = drawOptions(rng, spec);
  const pricing = drawPricing(rng, spec);
  const price = pricing.length === 1 ? pricing[0] : pricing[0] + rng.next() * (pricing[1] - pricing[0]);
  const instructionAttributes = sample(rng, attributes, 1 + rng.int(3));
  const instruction = rng
    .pick(INSTRUCTION_TEMPLATES)
    .replace('{attrs}', joinAttrs(instructionAttributes))
    .replace('{type}', spec.type);
  return {
    index,
    asin,
    leaf: leafIndex,
    category: spec.top,
    query: spec.type,
    productCategory: `${spec.top} › ${spec.mid} › ${spec.type}`,
    title,
    nouns: titleNouns(title),
    description,
    features,
    attributes,
    options,
    pricing,
    priceTag: pricing.map(dollars).join(' to '),
    price,
    instruction,
    instructionAttributes,
    ...priceLimit(price, rng),
  };
}

/** `count` distinct ASIN-like ids (`b` + 2 digits + letter + 2 digits), drawn from `rng`. */
function drawIds(rng: Rng, count: number): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  const two = () => String(rng.int(100)).padStart(2, '0');
  while (out.length < count) {
    const id = `b${two()}${String.fromCharCode(97 + rng.int(26))}${two()}`;
    if (seen.has(id)) continue;
    seen.add(id);
    out.push(id);
  }
  return out;
}

/** Generate the catalogue (a fresh array; `catalog()` caches one). */
export function generateCatalog(): Product[] {
  const total = LEAVES.length * PRODUCTS_PER_LEAF;
  const ids = drawIds(new Rng(hash32(`shop/${SHOP_SEED_TAG}/ids`)), total);
  const out: Product[] = [];
  const used = new Set<string>();
  for (let l = 0; l < LEAVES.length; l++) {
    const rng = new Rng(hash32(`shop/${SHOP_SEED_TAG}/catalog/${l}`));
    for (let k = 0; k < PRODUCTS_PER_LEAF; k++) {
      const index = out.length;
      out.push(makeProduct(rng, l, index, ids[index], used));
    }
  }
  return out;
}

let cached: readonly Product[] | null = null;
let byAsin: ReadonlyMap<string, Product> | null = null;

/** The catalogue, generated on first use and cached for the process. */
export function catalog(): readonly Product[] {
  if (!cached) cached = generateCatalog();
  return cached;
}

/** The product with this (lower-case) id, or undefined. */
export function productByAsin(asin: string): Product | undefined {
  if (!byAsin) byAsin = new Map(catalog().map((p) => [p.asin, p]));
  return byAsin.get(asin);
}

/**
 * Whether only `test-unseen` asks for product `p`: every UNSEEN_EVERY-th product of the catalogue (catalogue index
 * ≡ UNSEEN_EVERY − 1, i.e. 20 of each leaf's 100) whose type is asked for (`LEAVES[leaf].heldOut` false). Its
 * goals — its title, attribute set and option combinations — are never asked for by `train`, `test-seen` or `val`,
 * though it shows up in their search results: WebShop-style unseen tasks, new attribute combinations in product types
 * the policy has bought before.
 */
export function isUnseenGoal(p: Product): boolean {
  return !LEAVES[p.leaf].heldOut && p.index % UNSEEN_EVERY === UNSEEN_EVERY - 1;
}
