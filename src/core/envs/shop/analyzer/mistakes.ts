/**
 * Mistakes a shop trajectory shows by itself, judged against its instruction (read.ts `readGoal`): an invalid action,
 * a search whose words missed (no result, or no word of the instruction), an option click of another value than the
 * asked one, a purchase without an asked option, of a product that does not offer one, over the price limit, or —
 * when the purchase scored below 1 — of a product whose title lacks words the instruction names; a repeated action on
 * an unchanged page. Each comes with a warning sign (skills/grammar.ts `warningSign`) and a fix the page accepts.
 * Also the warning sign of a mistake found by contrast with a better sibling's plan (`contrastSign`).
 */
import { warningSign } from '../../../skills/grammar';
import { BACK_TO_SEARCH, BUY_NOW, PREV_PAGE } from '../pages';
import { clickValue, goalQuery, searchKeywords, words, type AskedGoal, type SeenPage } from './read';
import type { ShopPlan } from './plan';
import { skillAdmissible, type ShopSeen } from './tracked';

/** A trajectory as the mistake rules read it: actions in canonical form, with validity, and trackSeen's states. */
export interface ReadTrajectory {
  goal: AskedGoal;
  steps: { action: string; valid: boolean }[];
  /** trackSeen's output: steps.length + 1 states. */
  seen: ShopSeen[];
  /** The purchase's reward (the last step's return when it bought), 0 when it bought nothing. */
  reward: number;
}

/** A mistake: the step, what was done, the warning sign and the fix (an action the page accepts, when one is known). */
export interface ShopMistake {
  i: number;
  mistake: string;
  sign: string;
  fix?: string;
}

/**
 * The items of `wanted` (words or phrases) that `have` lacks (a phrase is lacked when any of its words is), without
 * repeats, joined with spaces; null when none is lacked.
 */
export function missingWords(wanted: readonly string[], have: string): string | null {
  const got = new Set(words(have));
  const miss = [...new Set(wanted.filter((w) => words(w).some((x) => !got.has(x))))];
  return miss.length ? miss.join(' ') : null;
}

/** The instruction's words: its key words, then the asked option values (phrases, e.g. `16 fl oz`). */
function goalWords(goal: AskedGoal): string[] {
  return [...goal.keyWords, ...goal.options.map(([, v]) => v)];
}

/** `price lower than X.00 dollars`, the instruction's own words. */
function priceWords(limit: number): string {
  return `price lower than ${limit.toFixed(2)} dollars`;
}

/** The results page whose title shares the most instruction words, priced within the limit when any is. */
function bestProduct(page: SeenPage, goal: AskedGoal): string | undefined {
  const fit = page.products.filter((p) => goal.priceUpper === null || p.price <= goal.priceUpper);
  const pool = fit.length ? fit : page.products;
  const want = new Set(goalWords(goal).flatMap(words));
  const score = (title: string) => words(title).filter((w) => want.has(w)).length;
  let best: string | undefined,
    top = -1;
  for (const p of pool) if (score(p.title) > top) [best, top] = [p.id, score(p.title)];
  return best;
}

/** An asked option the item page lacks (no such group, or not that value), as `name: value`; null when none. */
function lackedOption(page: SeenPage, goal: AskedGoal): string | null {
  const miss = goal.options.find(([n, v]) => !page.groups.some((g) => g.name === n && g.values.includes(v)));
  return miss ? `${miss[0]}: ${miss[1]}` : null;
}

/** The first asked option the item page offers but has not chosen: [name, value], or undefined. */
function unchosenOption(page: SeenPage, goal: AskedGoal): [string, string] | undefined {
  return goal.options.find(
    ([n, v]) => !page.chosen.includes(v) && page.groups.some((g) => g.name === n && g.values.includes(v)),
  );
}

/**
 * A move for state `s` that knows no sibling's plan, read from the instruction and the page: the search page searches
 * the instruction's words (read.ts `goalQuery`); a results page opens the product whose title shares the most of them
 * (priced within the limit when any is), or goes back to search when it lists none; an item page clicks the first
 * asked option not chosen, goes back (`< prev`) when the product lacks an asked option or costs more than the limit,
 * else buys; a sub page goes back. Undefined when the page is unknown or done; always accepted by the page.
 */
export function guessMove(s: ShopSeen, goal: AskedGoal): string | undefined {
  const page = s.page;
  if (!page) return undefined;
  let move: string | undefined;
  if (page.kind === 'search') move = `search[${goalQuery(goal)}]`;
  else if (page.kind === 'results') move = `click[${bestProduct(page, goal) ?? BACK_TO_SEARCH}]`;
  else if (page.kind === 'item') {
    const next = unchosenOption(page, goal);
    const overPrice = goal.priceUpper !== null && page.price !== null && page.price > goal.priceUpper;
    const back = lackedOption(page, goal) !== null || overPrice;
    move = `click[${next ? next[1] : back ? PREV_PAGE : BUY_NOW}]`;
  } else if (page.kind === 'sub') move = `click[${PREV_PAGE}]`;
  return move !== undefined && skillAdmissible(page, move) ? move : undefined;
}

/** The mistake of a valid purchase at step i (see the module doc), or null when the purchase shows none. */
function purchaseMistake(t: ReadTrajectory, i: number, page: SeenPage): Omit<ShopMistake, 'i' | 'mistake'> | null {
  const g = t.goal;
  const unchosen = unchosenOption(page, g);
  if (unchosen)
    return { sign: warningSign('wrongObject', `${unchosen[0]}: ${unchosen[1]}`), fix: `click[${unchosen[1]}]` };
  const back = `click[${PREV_PAGE}]`;
  const lacked = lackedOption(page, g);
  if (lacked) return { sign: warningSign('wrongObject', lacked), fix: back };
  if (g.priceUpper !== null && page.price !== null && page.price > g.priceUpper)
    return { sign: warningSign('wrongObject', priceWords(g.priceUpper)), fix: back };
  const miss = i === t.steps.length - 1 && t.reward < 1 ? missingWords(g.keyWords, page.title) : null;
  return miss ? { sign: warningSign('wrongObject', miss), fix: back } : null;
}

/** The mistake of a valid step i by itself (see the module doc), or null. */
function validMistake(t: ReadTrajectory, i: number): Omit<ShopMistake, 'i' | 'mistake'> | null {
  const { action } = t.steps[i];
  const page = t.seen[i].page as SeenPage;
  const g = t.goal;
  const keywords = searchKeywords(action);
  if (keywords !== null) {
    const none = t.seen[i + 1].page?.kind === 'results' && t.seen[i + 1].page?.products.length === 0;
    const miss = missingWords(goalWords(g), keywords);
    const askedWords = new Set(goalWords(g).flatMap(words));
    if (none || !words(keywords).some((w) => askedWords.has(w)))
      return { sign: warningSign('wrongObject', miss ?? goalQuery(g)), fix: `search[${goalQuery(g)}]` };
    return null;
  }
  const v = clickValue(action);
  if (v === BUY_NOW && page.kind === 'item') return purchaseMistake(t, i, page);
  const group = page.kind === 'item' ? page.groups.find((x) => x.values.includes(v ?? '')) : undefined;
  const asked = group && g.options.find(([n]) => n === group.name);
  if (asked && asked[1] !== v && group.values.includes(asked[1]))
    return { sign: warningSign('wrongObject', `${asked[0]}: ${asked[1]}`), fix: `click[${asked[1]}]` };
  const repeat = t.steps
    .slice(0, i)
    .some((s, j) => s.valid && s.action === action && t.seen[j].page?.text === page.text);
  return repeat ? { sign: warningSign('repeat'), fix: guessMove(t.seen[i], g) } : null;
}

/**
 * The trajectory's own mistakes (see the module doc), in step order; a fix that equals the mistake or that the page
 * would not accept is dropped (the mistake stays, without fix).
 */
export function ownMistakes(t: ReadTrajectory): ShopMistake[] {
  const out: ShopMistake[] = [];
  t.steps.forEach((s, i) => {
    const page = t.seen[i].page;
    const m = !s.valid
      ? { sign: warningSign('invalid'), fix: guessMove(t.seen[i], t.goal) }
      : page
        ? validMistake(t, i)
        : null;
    if (!m) return;
    const fix = m.fix !== undefined && m.fix !== s.action && skillAdmissible(page, m.fix) ? m.fix : undefined;
    out.push({ i, mistake: s.action, sign: m.sign, fix });
  });
  return out;
}

/**
 * The warning sign of a mistake at step i found by contrast with plan `p` (fix = the plan's move there): `nothing
 * happens` for an invalid action; `you already did that` for a repeat on an unchanged page; the asked option when the
 * fix clicks one; the price limit or a lacked option for a purchase; the instruction's words a search missed; else the
 * plan's product (`the task target is <its title>`).
 */
export function contrastSign(t: ReadTrajectory, i: number, fix: string, p: ShopPlan): string {
  const { action, valid } = t.steps[i];
  const page = t.seen[i].page;
  if (!valid) return warningSign('invalid');
  if (t.steps.slice(0, i).some((s, j) => s.valid && s.action === action && t.seen[j].page?.text === page?.text))
    return warningSign('repeat');
  const v = clickValue(fix);
  const asked = t.goal.options.find(([, w]) => w === v);
  if (asked) return warningSign('wrongObject', `${asked[0]}: ${asked[1]}`);
  if (action === `click[${BUY_NOW}]` && page?.kind === 'item') {
    const own = purchaseMistake(t, i, page);
    if (own) return own.sign;
  }
  const mine = searchKeywords(action);
  if (mine !== null) {
    const miss = missingWords(goalWords(t.goal), mine) ?? missingWords(words(p.query), mine) ?? p.query;
    return warningSign('wrongObject', miss);
  }
  return warningSign('wrongPlace', p.title);
}
