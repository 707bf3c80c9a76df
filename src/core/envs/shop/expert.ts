/**
 * The shop expert: reads the hidden state (the task's target product and options) and acts from any page — search
 * with the instruction's key words, page to the target (`next >` / `< prev`), open it, click each asked option, buy.
 * Used for demonstrations, checks and the privileged `oracle` analyzer (never shown to a policy). Solves every
 * generated task (reward 1) from the search page within 10 steps: search, ≤ 4 × `next >`, open, ≤ 2 options (no
 * type offers more option groups), buy.
 *
 * The query is the first of these whose top 50 (search.ts) holds the target: the instruction's key words (its
 * attributes, product type and option values), the target's title, the target's whole indexed text.
 */
import type { Expert } from '../types';
import type { ShopEnv } from './env';
import { BACK_TO_SEARCH, BUY_NOW, NEXT_PAGE, PREV_PAGE, PRODUCT_WINDOW, type ShopState } from './pages';
import { indexedText, search } from './search';
import type { ShopTask } from './tasks';

/** The instruction's key words: instruction attributes, product type, asked option values. */
export function keyWords(task: ShopTask): string {
  const p = task.product;
  return [...p.instructionAttributes, p.query, ...Object.values(task.goalOptions)].join(' ');
}

const queryCache = new WeakMap<ShopTask, string>();

/** The expert's search keywords for a task (see the module comment); lower case, no `]`. */
export function expertQuery(task: ShopTask): string {
  let q = queryCache.get(task);
  if (q === undefined) {
    const p = task.product;
    const candidates = [keyWords(task), p.title, indexedText(p)].map((c) => c.toLowerCase().replace(/[[\]]/g, ' '));
    q = candidates.find((c) => search(c).includes(p.index)) ?? candidates[candidates.length - 1];
    queryCache.set(task, q);
  }
  return q;
}

/** The expert's action in state `s`. @throws Error on the done page (no action is left). */
export function expertAction(s: ShopState): string {
  const target = s.task.product;
  switch (s.page) {
    case 'search':
      return `search[${expertQuery(s.task)}]`;
    case 'results': {
      const pos = s.results.indexOf(target.index);
      if (pos < 0) return `click[${BACK_TO_SEARCH}]`;
      const page = Math.floor(pos / PRODUCT_WINDOW) + 1;
      if (page > s.pageNo) return `click[${NEXT_PAGE}]`;
      if (page < s.pageNo) return `click[${PREV_PAGE}]`;
      return `click[${target.asin}]`;
    }
    case 'item': {
      if (s.asin !== target.asin) return `click[${PREV_PAGE}]`;
      for (const [name, value] of Object.entries(s.task.goalOptions)) {
        if (s.options.get(name) !== value) return `click[${value}]`;
      }
      return `click[${BUY_NOW}]`;
    }
    case 'sub':
      return `click[${PREV_PAGE}]`;
    case 'done':
      throw new Error('shop expert: the episode is done (nothing left to do)');
  }
}

/** The expert bound to one env (reads its state at each call). */
export class ShopExpert implements Expert {
  constructor(private readonly env: ShopEnv) {}

  /** The next action for the env's current state. @throws Error before reset or after the purchase. */
  act(): string {
    return expertAction(this.env.state);
  }
}
