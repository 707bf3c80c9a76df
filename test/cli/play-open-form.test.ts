/**
 * `npm run play`'s message for an open form sent with nothing inside (`search[`, typed or picked by number) gives the
 * env's own example of that command (`CommandForm.example`): a store's `search[red shoes]`, a QA env's
 * `search[Azure Bank]` and `answer[Silver Vale]`; an env whose command form has no example gets the message without
 * one. Nothing is played: no step is counted. `--json` plays the same line as an invalid step whose hint is that
 * message; words with no closing `]` get the closed form suggested (`search[x]`), never the bare open form.
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
      '> (search[…] is an open form: complete it with your own words and a closing ], e.g. search[Azure Bank])\n' +
        '> (answer[…] is an open form: complete it with your own words and a closing ], e.g. answer[Silver Vale])\n',
    );
    expect(r.out.trimEnd().split('\n').at(-1)).toBe(
      'End of input: no success after 0 of 4 steps, total reward 0 (0 invalid actions).',
    );
  });

  it("each env's forms give their own example; a form without one gives none", () => {
    const open = ['search[', 'answer['];
    expect(bareOpenForm('search[', open, searchqa.commands!('default'))?.message).toBe(
      'search[…] is an open form: complete it with your own words and a closing ], e.g. search[Azure Bank]',
    );
    expect(bareOpenForm('search[', ['search['], shop.commands!('default'))?.message).toBe(
      'search[…] is an open form: complete it with your own words and a closing ], e.g. search[red shoes]',
    );
    const noExample = searchqa.commands!('default').map(({ example: _, ...f }) => f);
    expect(bareOpenForm('answer[', open, noExample)?.message).toBe(
      'answer[…] is an open form: complete it with your own words and a closing ]',
    );
    // Not a bare open form, or not admissible now: played as typed.
    expect(bareOpenForm('answer[x]', open, searchqa.commands!('default'))).toBeNull();
    expect(bareOpenForm('click[', open, searchqa.commands!('default'))).toBeNull();
  });

  it('--json: an open form sent bare is an invalid step, that message its hint; words get ] suggested', async () => {
    /** The step events of `play --json --env <env>` on `actions`. */
    const steps = async (env: string, actions: string[]) =>
      (
        await session(
          ['--env', env, '--json'],
          actions.map((action) => JSON.stringify({ action })),
        )
      ).out
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
        .filter((e) => e.event === 'step');
    const qa = await steps('searchqa', ['search[', 'answer[', 'search[x']);
    expect(qa.map((e) => [e.action, e.valid, e.hint])).toEqual([
      [
        'search[',
        false,
        'search[…] is an open form: complete it with your own words and a closing ], e.g. search[Azure Bank]; ' +
          'admissible now: search[…], answer[…]',
      ],
      [
        'answer[',
        false,
        'answer[…] is an open form: complete it with your own words and a closing ], e.g. answer[Silver Vale]; ' +
          'admissible now: search[…], answer[…]',
      ],
      [
        'search[x',
        false,
        '"search[x" does not fit the command "search[…]"; did you mean "search[x]"?; admissible now: search[…], ' +
          'answer[…]',
      ],
    ]);
    const store = await steps('shop', ['search[', 'search[x']);
    expect(store.map((e) => e.hint)).toEqual([
      'search[…] is an open form: complete it with your own words and a closing ], e.g. search[red shoes]; ' +
        'admissible now: search[…]',
      '"search[x" does not fit the command "search[…]"; did you mean "search[x]"?; admissible now: search[…]',
    ]);
  });

  it('text mode: the same lines give the same message at no step, or are played closed', async () => {
    const r = await session(['--env', 'shop'], ['search[', 'search[x']);
    expect(r.out).toContain(
      '> (search[…] is an open form: complete it with your own words and a closing ], e.g. search[red shoes])\n' +
        '> Action: search[x]\n',
    );
    expect(r.out).toMatch(/End of input: no success after 1 of 15 steps, total reward 0 \(0 invalid actions\)\.\n$/);
  });
});
