/**
 * The shop's search steps (analyzer/search-steps.ts, EnvSpec.searchSteps): steps on the search page or a results page
 * before the first step whose page lists the product the trajectory buys; all of them when it buys nothing; never
 * steps on item or sub pages. Episodes of shop/default train tasks 3 and 7 (see heuristic.test.ts), played through
 * the real env.
 */
import { describe, expect, it } from 'vitest';
import { shop } from '../../../../../src/core/envs/shop';
import { shopSearchSteps } from '../../../../../src/core/envs/shop/analyzer/search-steps';
import { playActions, type Played } from './helpers';

const T7 = { split: 'train', index: 7 } as const;
const T3 = { split: 'train', index: 3 } as const;
const Q7 = 'search[short sleeve moisture wicking cotton blend polo shirt olive green xx-large]';

/** The search steps of a played episode, through the registered spec (and the same through the function). */
function searchSteps(run: Played): number[] {
  const viaSpec = shop.searchSteps!(run.traj.task, run.traj.steps);
  expect(shopSearchSteps(run.traj.steps)).toEqual(viaSpec);
  return viaSpec;
}

describe('shop search steps', () => {
  it('the expert on task 3: the search and the paging until page 4 lists the product it buys', () => {
    const run = playActions(T3, Array(10).fill(null));
    expect(run.actions.slice(0, 5)).toEqual([
      'search[ergonomic office chair espresso]',
      'click[next >]',
      'click[next >]',
      'click[next >]',
      'click[b14j23]',
    ]);
    expect(run.traj.steps[4].observation).toContain('Page 4 (Total results: 50)');
    expect(searchSteps(run)).toEqual([0, 1, 2, 3]);
  });

  it('the product on results page 1: only the search', () => {
    expect(searchSteps(playActions(T7, Array(10).fill(null)))).toEqual([0]);
  });

  it('an invalid action on the search page, a search that missed and a wrong product before it count', () => {
    const run = playActions(T7, [
      'click[buy now]',
      'search[red dress]',
      'click[next >]',
      'click[back to search]',
      'search[polo shirt]',
      'click[b32g10]',
      'click[< prev]',
      'click[next >]',
      'click[next >]',
      'click[b55q83]',
      'click[olive green]',
      'click[xx-large]',
      'click[buy now]',
    ]);
    expect(run.traj.steps.map((s) => s.valid)).toEqual(Array(13).fill(true).fill(false, 0, 1));
    // Steps 0-4: search page and results pages; step 5 opens b32g10 from page 1 of `polo shirt` (a results-page step
    // too); step 6 is on its item page (not a search step); steps 7-8 page on; step 9's page 3 lists b55q83.
    expect(run.traj.steps[5].observation).toContain('[b32g10]');
    expect(run.traj.steps[9].observation).toContain('[b55q83]');
    expect(searchSteps(run)).toEqual([0, 1, 2, 3, 4, 5, 7, 8]);
  });

  it('after the product it buys was listed, going back to search is no search step', () => {
    const run = playActions(T7, [Q7, 'click[back to search]', Q7, 'click[b55q83]', 'click[buy now]']);
    expect(run.traj.steps[1].observation).toContain('[b55q83]');
    expect(searchSteps(run)).toEqual([0]);
  });

  it('nothing bought: every search-page and results-page step', () => {
    const run = playActions(T7, [
      Q7,
      'click[b55q83]',
      'click[description]',
      'click[< prev]',
      'click[< prev]',
      'click[next >]',
      'go north',
      'click[back to search]',
    ]);
    // Step 2 is on the item page, step 3 on its description, step 4 on the item page again (`< prev` from a sub page);
    // steps 5-7 are on results pages (the invalid `go north` too).
    expect(searchSteps(run)).toEqual([0, 1, 5, 6, 7]);
    expect(shopSearchSteps([])).toEqual([]);
  });
});
