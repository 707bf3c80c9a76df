/**
 * The Play view's completion (src/ui/state/play-complete.ts) on the admissible actions of household/easy train 357,
 * and its open forms on shop's search and results pages.
 */
import { describe, expect, it } from 'vitest';
import {
  bareOpenForm,
  commonPrefix,
  moveHighlight,
  openFormHelp,
  openForms,
  suggestions,
  tabComplete,
  typed,
} from '../../src/ui/state/play-complete';
import { closeOpenForm } from '../../src/core/envs/play'; // the page's and the CLI's closing of an open form

const AT_DESK = ['go to shelf 1', 'go to sidetable 1', 'take candle 2 from desk 1', 'take laptop 1 from desk 1'];

describe('play completion', () => {
  it('compares text as the environment judges actions', () => {
    expect(typed('  Take   Laptop ')).toBe('take laptop ');
  });

  it('suggests the actions starting with the text, then those containing it', () => {
    expect(suggestions('', AT_DESK)).toEqual(AT_DESK);
    expect(suggestions('go to s', AT_DESK)).toEqual(['go to shelf 1', 'go to sidetable 1']);
    expect(suggestions('laptop', AT_DESK)).toEqual(['take laptop 1 from desk 1']);
    expect(suggestions('desk 1', AT_DESK)).toEqual(['take candle 2 from desk 1', 'take laptop 1 from desk 1']);
    expect(suggestions('fly', AT_DESK)).toEqual([]);
  });

  it('Tab completes to the one action, or to the prefix the continuations share', () => {
    expect(tabComplete('t', AT_DESK)).toBe('take ');
    expect(tabComplete('take l', AT_DESK)).toBe('take laptop 1 from desk 1');
    expect(tabComplete('go to s', AT_DESK)).toBeNull(); // shelf / sidetable part right here
    expect(tabComplete('g', AT_DESK)).toBe('go to s');
    expect(tabComplete('GO TO SH', AT_DESK)).toBe('go to shelf 1');
    expect(tabComplete('go to shelf 1', AT_DESK)).toBeNull(); // already complete
    expect(tabComplete('fly', AT_DESK)).toBeNull();
    expect(commonPrefix(['take candle 2', 'take laptop 1'])).toBe('take ');
    expect(commonPrefix([])).toBe('');
  });

  it('arrow keys move the highlight, wrapping around', () => {
    expect(moveHighlight(-1, 1, 4)).toBe(0);
    expect(moveHighlight(-1, -1, 4)).toBe(3);
    expect(moveHighlight(3, 1, 4)).toBe(0);
    expect(moveHighlight(0, -1, 4)).toBe(3);
    expect(moveHighlight(2, 1, 0)).toBe(-1);
  });
});

/** The shop env's search page: one open form (`search[`), which takes the person's own words. */
const SEARCH_PAGE = ['search['];
const RESULTS = ['click[back to search]', 'click[next >]', 'click[b07x28]'];

describe('open forms (free-text actions such as search[…])', () => {
  it('finds the admissible open forms and a text that is one of them with nothing after it', () => {
    expect(openForms(SEARCH_PAGE)).toEqual(['search[']);
    expect(openForms(RESULTS)).toEqual([]);
    expect(bareOpenForm('Search[', SEARCH_PAGE)).toBe('search[');
    expect(bareOpenForm(' search[ ', SEARCH_PAGE)).toBe('search[');
    expect(bareOpenForm('search[red', SEARCH_PAGE)).toBeNull();
    expect(bareOpenForm('search[', RESULTS)).toBeNull();
  });

  it('closes the words typed after an open form with ] and leaves any other text as typed', () => {
    expect(closeOpenForm('search[red shoes', SEARCH_PAGE)).toBe('search[red shoes]');
    expect(closeOpenForm('  search[red shoes  ', SEARCH_PAGE)).toBe('search[red shoes]');
    expect(closeOpenForm('search[red shoes]', SEARCH_PAGE)).toBe('search[red shoes]');
    expect(closeOpenForm('search[', SEARCH_PAGE)).toBe('search[');
    expect(closeOpenForm('search[red', RESULTS)).toBe('search[red'); // not admissible here: the env judges it
    expect(closeOpenForm('fly away', SEARCH_PAGE)).toBe('fly away');
    expect(closeOpenForm('go to s', AT_DESK)).toBe('go to s');
  });

  it('says how to write in an open form while one is admissible', () => {
    expect(openFormHelp(SEARCH_PAGE)).toBe(
      'search[…] takes your own words: type them after the [ and press Enter (the closing ] is added if you leave ' +
        'it out).',
    );
    expect(openFormHelp(RESULTS)).toBe('');
    expect(openFormHelp(AT_DESK)).toBe('');
  });
});
