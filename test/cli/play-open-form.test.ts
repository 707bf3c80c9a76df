/**
 * `npm run play`'s message for an open form sent with nothing inside (`search[`, typed or picked by number) gives the
 * env's own example of that command (`CommandForm.example`): a store's `search[red shoes]`, a QA env's
 * `search[Azure Bank]` and `answer[Silver Vale]`; an env whose command form has no example gets the message without
 * one. Nothing is played: no step is counted.
 */
import { describe, expect, it } from 'vitest';
import { bareOpenForm } from '../../cli/play';
import { playSession } from '../helpers/play-session';
import { searchqa } from '../../src/core/envs/searchqa';
import { shop } from '../../src/core/envs/shop';

/** Run `play` in-process on fixed input lines; returns exit code and stdout. */
const session = playSession;

describe("play: a bare open form's message takes its example from the env", () => {
  it('searchqa: search[ and answer[, picked or typed, name the corpus words; no step is taken', async () => {
    const r = await session(['--env', 'searchqa', '--split', 'test-seen', '--task', '3'], ['1', ' Answer[ ']);
    expect(r.code).toBe(0);
    expect(r.out).toContain(
      '> (search[…] takes your own words: type them inside the brackets, e.g. search[Azure Bank])\n' +
        '> (answer[…] takes your own words: type them inside the brackets, e.g. answer[Silver Vale])\n',
    );
    expect(r.out.trimEnd().split('\n').at(-1)).toBe(
      'End of input: no success after 0 of 4 steps, total reward 0 (0 invalid actions).',
    );
  });

  it("each env's forms give their own example; a form without one gives none", () => {
    const open = ['search[', 'answer['];
    expect(bareOpenForm('search[', open, searchqa.commands!('default'))?.message).toBe(
      'search[…] takes your own words: type them inside the brackets, e.g. search[Azure Bank]',
    );
    expect(bareOpenForm('search[', ['search['], shop.commands!('default'))?.message).toBe(
      'search[…] takes your own words: type them inside the brackets, e.g. search[red shoes]',
    );
    const noExample = searchqa.commands!('default').map(({ example: _, ...f }) => f);
    expect(bareOpenForm('answer[', open, noExample)?.message).toBe(
      'answer[…] takes your own words: type them inside the brackets',
    );
    // Not a bare open form, or not admissible now: played as typed.
    expect(bareOpenForm('answer[x]', open, searchqa.commands!('default'))).toBeNull();
    expect(bareOpenForm('click[', open, searchqa.commands!('default'))).toBeNull();
  });
});
