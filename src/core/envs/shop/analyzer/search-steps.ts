/**
 * Search steps of a shop trajectory (EnvSpec.searchSteps): the steps where the agent chose where to look before it
 * could know where the product it wants lies.
 *
 * Rule: every step taken on the search page (choosing the keywords) or on a results page (paging, going back to
 * search, opening a product), up to — not including — the first step whose page lists the product the trajectory
 * finally buys; all of them when it buys nothing. The product it buys is the one open when its last action is
 * `click[buy now]` on an item page. Which words find a product, and on which results page it lies, is hindsight: only
 * an analyzer that saw the search that found it knows them (a hindsight episode skill names them), so OPID routes no
 * episode skill there (RunConfig.episodeSkillOnSearch). Once the product is listed on the page in front of the agent,
 * its title and price are in sight (as an object in sight ends the search of an ALFWorld-like room), and the steps
 * after that are judged like any other. Steps on item and sub pages are never search steps.
 *
 * Read from the observations and actions only (validity judged from the page, tracked.ts); the task line is not
 * needed.
 */
import { BUY_NOW } from '../pages';
import { canonicalAction } from './read';
import { trackSeen } from './tracked';

/**
 * Indices of the search steps (see the module doc), increasing. `steps[i].observation` is the observation action i
 * was chosen on (the search page at step 0).
 */
export function shopSearchSteps(steps: readonly { action: string; observation: string }[]): number[] {
  const seen = trackSeen(steps);
  const last = steps.length - 1;
  const bought =
    last >= 0 && seen[last].page?.kind === 'item' && canonicalAction(steps[last].action) === `click[${BUY_NOW}]`
      ? seen[last].asin
      : null;
  const out: number[] = [];
  for (let i = 0; i < steps.length; i++) {
    const page = seen[i].page;
    if (bought !== null && page?.kind === 'results' && page.products.some((p) => p.id === bought)) break;
    if (page?.kind === 'search' || page?.kind === 'results') out.push(i);
  }
  return out;
}
