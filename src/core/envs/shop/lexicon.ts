/**
 * The shop's closed word inventory: category tree, product types, attribute pools, option groups, brands and the
 * phrases descriptions and features are written from (WebShop, Yao et al. 2022, scraped about 1.18 M Amazon products
 * in five top categories; this lexicon mirrors their shape on a few hundred words so a word-level tokenizer covers
 * every text the env emits).
 *
 * Everything here is lower case. Every word a product title can contain that is a noun is listed in `NOUNS`: WebShop
 * tags title words with spaCy's part-of-speech tagger (engine/goal.py `get_type_reward`), which cannot run in
 * JavaScript, so the tagging is written down instead (catalog.ts stores each product's title nouns explicitly).
 */

/** One option group a product type can offer: its name (`color`, `size` …) and the values it draws from. */
export interface OptionPool {
  /** Group name as the item page shows it, e.g. `color`. */
  readonly name: string;
  /** Candidate values, in display order (a product keeps a subsequence). */
  readonly values: readonly string[];
}

/** One leaf of the category tree: a product type and what its products are made of. */
export interface LeafSpec {
  /** Top category, e.g. `beauty` (WebShop's `category`). */
  readonly top: string;
  /** Second level, e.g. `hair care`. */
  readonly mid: string;
  /** Product type phrase, e.g. `shampoo`: the third level, the search query (WebShop's `query`) and the title noun. */
  readonly type: string;
  /** Attribute pool: each product draws 3–5 of these. */
  readonly attrs: readonly string[];
  /** Option groups a product of this type may offer. */
  readonly options: readonly OptionPool[];
  /** Price bounds of a product's (first) price, in dollars. */
  readonly price: readonly [number, number];
  /** True when no split asks for the type's products: they are search distractors only (tasks.ts `pool`). */
  readonly heldOut: boolean;
}

const SIZE_FLOZ: OptionPool = { name: 'size', values: ['2 fl oz', '4 fl oz', '8 fl oz', '12 fl oz', '16 fl oz'] };
const SCENT: OptionPool = {
  name: 'scent',
  values: ['lavender', 'citrus', 'coconut', 'vanilla', 'unscented', 'eucalyptus', 'fresh linen'],
};
const MAKEUP_COLOR: OptionPool = {
  name: 'color',
  values: ['ruby red', 'nude', 'pink', 'coral', 'plum', 'rose gold', 'bronze', 'berry', 'dark brown', 'gold'],
};
const TECH_COLOR: OptionPool = {
  name: 'color',
  values: ['black', 'white', 'silver', 'space grey', 'navy blue', 'sky blue', 'red', 'pink', 'green'],
};
const TECH_STYLE: OptionPool = { name: 'style', values: ['basic', 'pro', 'mini', 'plus', 'max'] };
const CLOTH_COLOR: OptionPool = {
  name: 'color',
  values: [
    'black',
    'white',
    'off white',
    'navy blue',
    'sky blue',
    'light grey',
    'dark grey',
    'wine red',
    'olive green',
    'khaki',
    'beige',
    'purple',
    'yellow',
    'orange',
  ],
};
const CLOTH_SIZE: OptionPool = { name: 'size', values: ['x-small', 'small', 'medium', 'large', 'x-large', 'xx-large'] };
const SHOE_SIZE: OptionPool = {
  name: 'size',
  values: ['6', '6.5', '7', '7.5', '8', '8.5', '9', '9.5', '10', '10.5', '11', '12'],
};
const SNACK_FLAVOR: OptionPool = {
  name: 'flavor',
  values: ['original', 'sea salt', 'barbecue', 'honey', 'chocolate', 'peanut butter', 'cinnamon', 'sour cream'],
};
const DRINK_FLAVOR: OptionPool = { name: 'flavor', values: ['original', 'lemon', 'peach', 'mint', 'berry', 'ginger'] };
const SAUCE_FLAVOR: OptionPool = { name: 'flavor', values: ['marinara', 'tomato basil', 'garlic', 'roasted pepper'] };
const COUNT: OptionPool = { name: 'size', values: ['6 count', '12 count', '18 count', '24 count', '36 count'] };
const OUNCE: OptionPool = { name: 'size', values: ['8 ounce', '12 ounce', '16 ounce', '24 ounce', '32 ounce'] };
const ROAST: OptionPool = { name: 'style', values: ['light roast', 'medium roast', 'dark roast'] };
const WOOD_COLOR: OptionPool = {
  name: 'color',
  values: ['walnut', 'oak', 'white', 'black', 'grey', 'espresso', 'natural'],
};
const HOME_STYLE: OptionPool = { name: 'style', values: ['modern', 'farmhouse', 'classic', 'industrial'] };
const BED_SIZE: OptionPool = { name: 'size', values: ['twin', 'full', 'queen', 'king'] };

const leaf = (
  top: string,
  mid: string,
  type: string,
  attrs: string[],
  options: OptionPool[],
  price: [number, number],
  heldOut = false,
): LeafSpec => ({ top, mid, type, attrs, options, price, heldOut });

const HAIR = ['sulfate free', 'paraben free', 'natural ingredients', 'dry hair', 'color safe'];
const SKIN = ['fragrance free', 'dry skin', 'sensitive skin', 'cruelty free', 'non greasy'];
const MAKEUP = ['long lasting', 'cruelty free', 'waterproof', 'highly pigmented', 'matte finish', 'easy to apply'];
const AUDIO = ['wireless', 'bluetooth', 'long battery life', 'water resistant', 'high quality', 'built in microphone'];
const INPUT = ['wireless', 'ergonomic', 'rechargeable', 'plug and play', 'usb c'];
const POWER = ['fast charging', 'usb c', 'portable', 'overheat protection', 'lightweight'];
const SHOE = ['non slip', 'lightweight', 'arch support', 'rubber sole'];
const TOP = ['machine wash', 'cotton blend', 'soft fabric'];
const BAG = ['water resistant', 'lightweight', 'large capacity'];
const SNACK = ['gluten free', 'non gmo', 'individually wrapped'];
const DRINK = ['organic', 'non gmo', 'fair trade'];
const PANTRY = ['organic', 'non gmo', 'gluten free', 'low sodium'];
const HOME = ['easy assembly', 'solid wood', 'storage space', 'space saving', 'mid century'];

/**
 * The category tree: 5 top categories × 3 second levels × 2 product types = 30 leaves. One type per top category is
 * held out (`heldOut`): its products are in the catalogue (search finds them) but no split asks for them (in `shop-v1`
 * they formed `test-unseen`, whose words a policy trained on `train` never produced).
 */
export const LEAVES: readonly LeafSpec[] = [
  leaf(
    'beauty',
    'hair care',
    'shampoo',
    [...HAIR, 'tea tree', 'argan oil', 'hair growth'],
    [SIZE_FLOZ, SCENT],
    [6, 30],
  ),
  leaf(
    'beauty',
    'hair care',
    'conditioner',
    [...HAIR, 'argan oil', 'coconut oil', 'damaged hair'],
    [SIZE_FLOZ, SCENT],
    [6, 30],
  ),
  leaf(
    'beauty',
    'skin care',
    'face cream',
    [...SKIN, 'hyaluronic acid', 'vitamin c', 'anti aging'],
    [SIZE_FLOZ],
    [9, 45],
  ),
  leaf(
    'beauty',
    'skin care',
    'body lotion',
    [...SKIN, 'shea butter', 'coconut oil', 'natural ingredients'],
    [SIZE_FLOZ, SCENT],
    [5, 25],
  ),
  leaf('beauty', 'makeup', 'lipstick', [...MAKEUP, 'vegan'], [MAKEUP_COLOR], [5, 28]),
  leaf('beauty', 'makeup', 'eye shadow', [...MAKEUP, 'travel size'], [MAKEUP_COLOR], [6, 32], true),
  leaf(
    'electronics',
    'audio',
    'headphones',
    [...AUDIO, 'noise cancelling', 'foldable design'],
    [TECH_COLOR, TECH_STYLE],
    [19, 95],
  ),
  leaf('electronics', 'audio', 'speaker', [...AUDIO, 'easy to carry', 'deep bass'], [TECH_COLOR, TECH_STYLE], [15, 90]),
  leaf(
    'electronics',
    'computer accessories',
    'keyboard',
    [...INPUT, 'backlit', 'quiet keys'],
    [TECH_COLOR, TECH_STYLE],
    [14, 80],
  ),
  leaf(
    'electronics',
    'computer accessories',
    'mouse',
    [...INPUT, 'quiet click', 'adjustable dpi'],
    [TECH_COLOR],
    [8, 45],
  ),
  leaf(
    'electronics',
    'power',
    'charger',
    [...POWER, 'compact design', 'high quality'],
    [TECH_COLOR, TECH_STYLE],
    [7, 40],
  ),
  leaf(
    'electronics',
    'power',
    'power bank',
    [...POWER, 'high capacity', 'led display'],
    [TECH_COLOR, TECH_STYLE],
    [12, 60],
    true,
  ),
  leaf(
    'fashion',
    'shoes',
    'running shoes',
    [...SHOE, 'breathable', 'memory foam', 'machine washable'],
    [CLOTH_COLOR, SHOE_SIZE],
    [25, 95],
  ),
  leaf(
    'fashion',
    'shoes',
    'sandals',
    [...SHOE, 'open toe', 'adjustable strap', 'quick drying'],
    [CLOTH_COLOR, SHOE_SIZE],
    [12, 60],
  ),
  leaf(
    'fashion',
    'tops',
    'hoodie',
    [...TOP, 'relaxed fit', 'long sleeve', 'fleece lined', 'drawstring closure'],
    [CLOTH_COLOR, CLOTH_SIZE],
    [18, 60],
  ),
  leaf(
    'fashion',
    'tops',
    'polo shirt',
    [...TOP, 'slim fit', 'short sleeve', 'moisture wicking', 'button closure'],
    [CLOTH_COLOR, CLOTH_SIZE],
    [12, 45],
  ),
  leaf(
    'fashion',
    'bags',
    'backpack',
    [...BAG, 'laptop compartment', 'padded straps', 'anti theft'],
    [CLOTH_COLOR],
    [20, 85],
  ),
  leaf(
    'fashion',
    'bags',
    'wallet',
    [...BAG, 'faux leather', 'rfid blocking', 'card slots'],
    [CLOTH_COLOR],
    [9, 40],
    true,
  ),
  leaf(
    'grocery',
    'snacks',
    'potato chips',
    [...SNACK, 'kettle cooked', 'low sodium', 'vegan'],
    [SNACK_FLAVOR, COUNT],
    [4, 25],
  ),
  leaf(
    'grocery',
    'snacks',
    'granola bars',
    [...SNACK, 'low sugar', 'high protein', 'whole grain'],
    [SNACK_FLAVOR, COUNT],
    [5, 28],
  ),
  leaf(
    'grocery',
    'beverages',
    'coffee beans',
    [...DRINK, 'whole bean', 'low acid', 'single origin'],
    [ROAST, OUNCE],
    [8, 40],
  ),
  leaf(
    'grocery',
    'beverages',
    'herbal tea',
    [...DRINK, 'caffeine free', 'sugar free', 'natural flavor'],
    [DRINK_FLAVOR, COUNT],
    [4, 20],
  ),
  leaf('grocery', 'pantry', 'pasta sauce', [...PANTRY, 'no sugar added', 'vegan'], [SAUCE_FLAVOR, OUNCE], [3, 18]),
  leaf('grocery', 'pantry', 'olive oil', [...PANTRY, 'extra virgin', 'cold pressed'], [OUNCE], [7, 35], true),
  leaf(
    'furniture',
    'living room',
    'sofa',
    [...HOME, 'metal frame', 'removable cover'],
    [WOOD_COLOR, HOME_STYLE],
    [60, 99],
  ),
  leaf(
    'furniture',
    'living room',
    'coffee table',
    [...HOME, 'metal frame', 'tempered glass'],
    [WOOD_COLOR, HOME_STYLE],
    [35, 99],
  ),
  leaf(
    'furniture',
    'bedroom',
    'bed frame',
    [...HOME, 'metal frame', 'heavy duty', 'no box spring needed'],
    [WOOD_COLOR, BED_SIZE],
    [50, 99],
  ),
  leaf('furniture', 'bedroom', 'nightstand', [...HOME, 'usb charging', 'soft close drawer'], [WOOD_COLOR], [25, 90]),
  leaf(
    'furniture',
    'office',
    'office chair',
    ['easy assembly', 'lumbar support', 'adjustable height', 'heavy duty', 'ergonomic', 'breathable mesh'],
    [WOOD_COLOR, HOME_STYLE],
    [40, 99],
  ),
  leaf(
    'furniture',
    'office',
    'desk lamp',
    ['easy assembly', 'adjustable height', 'energy efficient', 'usb charging', 'dimmable light', 'eye caring'],
    [TECH_COLOR, HOME_STYLE],
    [12, 55],
    true,
  ),
];

/** Brand names (proper nouns in titles). */
export const BRANDS: readonly string[] = [
  'acme',
  'lumina',
  'brisa',
  'nordik',
  'zenith',
  'velora',
  'kairo',
  'trove',
  'maven',
  'orbit',
  'pinecrest',
  'ember',
  'halcyon',
  'tundra',
  'quill',
  'apex',
  'verde',
  'lotus',
  'summit',
  'haven',
];

/**
 * Nouns a title can contain (brands are added by `isTitleNoun`): the written-down stand-in for spaCy's NOUN/PROPN
 * tags (WebShop engine/goal.py `get_type_reward` keeps tokens tagged `PNOUN`, `NOUN` or `PROPN`).
 */
export const NOUNS: ReadonlySet<string> = new Set(
  (
    'shampoo conditioner face cream body lotion lipstick eye shadow headphones speaker keyboard mouse ' +
    'charger power bank shoes sandals hoodie polo shirt backpack wallet potato chips granola bars coffee ' +
    'beans tea pasta sauce olive oil sofa table bed frame nightstand office chair desk lamp tree argan ' +
    'ingredients hair growth coconut skin acid vitamin butter shea finish battery life quality microphone ' +
    'design bass keys click dpi usb protection capacity display sole support foam toe strap fabric blend ' +
    'cotton sleeve closure compartment straps theft leather slots card sodium sugar protein grain bean ' +
    'origin trade flavor assembly wood space century cover glass box spring drawer mesh height light'
  ).split(' '),
);

/** Whether a title word is a noun (NOUNS or a brand). */
export function isTitleNoun(word: string): boolean {
  return NOUNS.has(word) || BRANDS.includes(word);
}

/** Closing sentences of descriptions (two per product). */
export const DESCRIPTION_SENTENCES: readonly string[] = [
  'great gift for family and friends.',
  'perfect for daily use at home or on the go.',
  'satisfaction guaranteed or your money back.',
  'simple to use and easy to clean.',
  'made to last for years.',
  'a customer favorite since day one.',
  'ships in a simple and safe package.',
  'compare with similar items and save.',
];

/** Endings of feature bullets: a bullet is `<attribute> - <ending>`. */
export const FEATURE_ENDINGS: readonly string[] = [
  'designed for everyday use',
  'tested for quality',
  'loved by customers',
  'built to last',
  'easy to use',
  'a smart choice',
];

/** Instruction templates (`{attrs}` = the instruction attributes joined, `{type}` = the product type). */
export const INSTRUCTION_TEMPLATES: readonly string[] = [
  'i am looking for {attrs} {type}',
  'i need {type} that is {attrs}',
  'find me {attrs} {type}',
  'i want to buy {type} that is {attrs}',
];
