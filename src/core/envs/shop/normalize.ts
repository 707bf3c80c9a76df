/**
 * Colour normalisation of option values, ported from WebShop (Yao et al. 2022) engine/normalize.py: `COLOR_SET` and
 * `normalize_color`, quirks included — the first colour of the list (alphabetical) that is a substring wins, so
 * `navy blue` → `blue`, `dark grey` → `dark`, `light grey` → `grey`, and a value that merely contains a colour's
 * letters is mapped too (`standard` → `tan`, `machine wash` → `ash`).
 */

/** WebShop engine/normalize.py `COLOR_SET`, in its order (the order decides which colour wins). */
// prettier-ignore
export const COLOR_SET: readonly string[] = [
  'alabaster', 'apricot', 'aqua', 'ash', 'asphalt', 'azure',
  'banana', 'beige', 'black', 'blue', 'blush', 'bordeaux', 'bronze',
  'brown', 'burgundy', 'camel', 'camo', 'caramel', 'champagne',
  'charcoal', 'cheetah', 'chestnut', 'chocolate', 'christmas', 'coffee',
  'cognac', 'copper', 'coral', 'cranberry', 'cream', 'crystal', 'dark',
  'denim', 'eggplant', 'elephant', 'espresso', 'fuchsia', 'gold', 'granite',
  'grape', 'graphite', 'grass', 'gray', 'green', 'grey', 'heather', 'indigo',
  'ivory', 'ivy', 'khaki', 'lavender', 'lemon', 'leopard', 'light', 'lilac',
  'lime', 'magenta', 'maroon', 'mauve', 'merlot', 'midnight', 'mint', 'mocha',
  'multicolor', 'mushroom', 'mustard', 'natural', 'navy', 'nude', 'olive',
  'orange', 'peach', 'pewter', 'pink', 'plum', 'purple', 'rainbow', 'red',
  'rose', 'royal', 'rust', 'sand', 'sapphire', 'seashell', 'silver', 'skull',
  'slate', 'steel', 'stone', 'stonewash', 'sunflower', 'tan', 'taupe', 'teal',
  'tiger', 'turquoise', 'violet', 'walnut', 'wheat', 'white', 'wine', 'yellow',
];

/**
 * The first colour of `COLOR_SET` that is a substring of `s`, else `s` unchanged. Source: WebShop engine/normalize.py
 * `normalize_color` (Python `norm_color in color_string` on a string is a substring test).
 */
export function normalizeColor(s: string): string {
  for (const c of COLOR_SET) if (s.includes(c)) return c;
  return s;
}

/**
 * `normalize_color` applied to a goal option given as a `(name, value)` pair, as WebShop's `get_reward` does for
 * synthetic goals (engine/goal.py: `goal['goal_options'].items()` when the goal options are a dict): Python's `in` on a
 * tuple is membership, so the pair becomes a colour only when its name or value *equals* one; otherwise it stays a
 * pair, which thefuzz then compares as `str(pair)`, i.e. `('name', 'value')` (see reward.ts `goalOptionText`).
 * Returns the colour, or null when the pair stays a pair.
 */
export function normalizeColorPair(name: string, value: string): string | null {
  for (const c of COLOR_SET) if (c === name || c === value) return c;
  return null;
}
