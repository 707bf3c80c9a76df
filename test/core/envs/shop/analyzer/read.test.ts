/**
 * What the shop analyzer reads off text (analyzer/read.ts, analyzer/tracked.ts): instructions in each template form,
 * every page kind as the env writes it, the env's validity rule, what a step skill may name, and the browser state
 * tracked through an episode with invalid steps.
 */
import { describe, expect, it } from 'vitest';
import { NOTHING_HAPPENS } from '../../../../../src/core/envs/shop';
import {
  canonicalAction,
  goalQuery,
  readGoal,
  readPage,
  validOn,
} from '../../../../../src/core/envs/shop/analyzer/read';
import { skillAdmissible, trackSeen } from '../../../../../src/core/envs/shop/analyzer/tracked';
import { SEARCH_PAGE_TEXT } from '../../../../../src/core/envs/shop/pages';
import { playActions } from './helpers';

const T7 = { split: 'train', index: 7 } as const;
const Q7 = 'search[short sleeve moisture wicking cotton blend polo shirt olive green xx-large]';

describe('shop analyzer reading', () => {
  it('reads an instruction: key words without template words, options, price limit', () => {
    expect(
      readGoal(
        'i want to buy polo shirt that is short sleeve, moisture wicking and cotton blend with color: olive green, ' +
          'and size: xx-large, and price lower than 70.00 dollars',
      ),
    ).toEqual({
      head: 'i want to buy polo shirt that is short sleeve, moisture wicking and cotton blend',
      keyWords: ['short', 'sleeve', 'moisture', 'wicking', 'cotton', 'blend', 'polo', 'shirt'],
      options: [
        ['color', 'olive green'],
        ['size', 'xx-large'],
      ],
      priceUpper: 70,
    });
    const g = readGoal('find me plug and play, usb c and wireless mouse');
    expect(g).toEqual({
      head: 'find me plug and play, usb c and wireless mouse',
      keyWords: ['plug', 'play', 'usb', 'c', 'wireless', 'mouse'],
      options: [],
      priceUpper: null,
    });
    expect(goalQuery(g)).toBe('plug play usb c wireless mouse');
    expect(readGoal('i am looking for vegan lipstick with color: nude').options).toEqual([['color', 'nude']]);
    expect(readGoal('anything else').keyWords).toEqual(['anything', 'else']);
  });

  it('reads every page kind the env writes, and its clickables', () => {
    const run = playActions(T7, [Q7, 'click[b55q83]', 'click[olive green]', 'click[features]', 'click[< prev]']);
    const [search, results, item, chosen, sub] = run.traj.steps.map((s) => readPage(s.observation));
    expect(search?.kind).toBe('search');
    expect(results?.kind).toBe('results');
    expect(results?.pageNo).toBe(1);
    expect(results?.products[0]).toEqual({
      id: 'b11x28',
      title: 'lotus moisture wicking polo shirt, cotton blend',
      price: 15.38,
    });
    expect(results?.products[1].price).toBe(16.92);
    expect(results?.clickables).toEqual(['back to search', 'next >', ...results!.products.map((p) => p.id)]);
    expect(item).toMatchObject({
      kind: 'item',
      title: 'halcyon slim fit polo shirt',
      price: 44.22,
      chosen: [],
      groups: [
        { name: 'color', values: ['white', 'olive green'] },
        { name: 'size', values: ['x-small', 'small', 'large', 'xx-large'] },
      ],
    });
    expect(item?.clickables).toEqual([
      'back to search',
      '< prev',
      'white',
      'olive green',
      'x-small',
      'small',
      'large',
      'xx-large',
      'description',
      'features',
      'reviews',
      'buy now',
    ]);
    expect(chosen?.chosen).toEqual(['olive green']);
    expect(sub).toMatchObject({ kind: 'sub', clickables: ['back to search', '< prev'] });
    expect(readPage(run.traj.finalObservation)?.kind).toBe('item');
    expect(readPage(NOTHING_HAPPENS)).toBeNull();
    expect(readPage('Thank you for shopping with us!\nYour score (min 0.0, max 1.0): 1.00')?.kind).toBe('done');
  });

  it("judges actions by the env's rule; a step skill's search needs words and its closing bracket", () => {
    const search = readPage(SEARCH_PAGE_TEXT);
    expect(validOn(search, 'Search[ Red  Dress ]')).toBe(true);
    expect(validOn(search, 'search[]')).toBe(false);
    expect(validOn(search, 'click[search]')).toBe(false);
    expect(validOn(null, 'search[x]')).toBe(false);
    expect(skillAdmissible(search, 'search[red dress]')).toBe(true);
    expect(skillAdmissible(search, 'search[red dress] now')).toBe(false);
    expect(skillAdmissible(search, 'search[ ]')).toBe(false);
    expect(skillAdmissible(search, 'search[a]b]')).toBe(false);
    expect(canonicalAction('  CLICK[Buy Now] please ')).toBe('click[buy now]');
    expect(canonicalAction('go  North')).toBe('go north');
  });

  it('tracks keywords, the open product and the last results through invalid steps', () => {
    const run = playActions(T7, ['search[polo shirt]', 'click[b55q83]', 'click[b74q29]', 'click[< prev]', 'go']);
    expect(run.traj.steps.map((s) => s.valid)).toEqual([true, false, true, true, false]);
    const seen = trackSeen(run.traj.steps, run.traj.finalObservation);
    expect(seen).toHaveLength(6);
    expect(seen.map((s) => s.page?.kind)).toEqual(['search', 'results', 'results', 'item', 'results', 'results']);
    expect(seen.map((s) => s.query)).toEqual([null, ...Array(5).fill('polo shirt')]);
    expect(seen.map((s) => s.asin)).toEqual([null, null, null, 'b74q29', 'b74q29', 'b74q29']);
    expect(seen[5].lastResults[0]).toBe('b74q29');
    // Without recorded validity the same states follow from the pages.
    expect(trackSeen(run.traj.steps.map(({ observation, action }) => ({ observation, action })))).toEqual(
      seen.slice(0, 5).concat([{ ...seen[4] }]),
    );
  });
});
