/**
 * Playing a task as a person (src/core/envs/play.ts, hint.ts, household/commands.ts): the command forms of each
 * household preset are exactly the commands its tasks offer, hints say what is wrong with an action in words, the
 * summary line states steps, success and total reward, and the observations are the environment's own (the policy's
 * text is unchanged).
 */
import { describe, expect, it } from 'vitest';
import { household, householdCommands } from '../../../src/core/envs/household';
import { closestAction, commandHint, editDistance, openFormHint } from '../../../src/core/envs/hint';
import {
  PlayEpisode,
  latestHint,
  randomTaskIndex,
  readTyped,
  summaryText,
  type PlaySummary,
} from '../../../src/core/envs/play';
import { getEnvSpec } from '../../../src/core/envs/registry';
import { Rng } from '../../../src/core/rng';

const EASY_ROOT = ['go to desk 1', 'go to shelf 1', 'go to sidetable 1'];
const easyForms = householdCommands('easy');

describe('household command forms', () => {
  it("lists each preset's commands in the order of the admissible actions", () => {
    const easy = easyForms.map((f) => f.form);
    expect(easy).toEqual(['go to …', 'take … from …', 'move … to …', 'clean … with …']);
    expect(householdCommands('default').map((f) => f.form)).toEqual([
      'go to …',
      'open …',
      'close …',
      'take … from …',
      'move … to …',
      'clean … with …',
      'heat … with …',
      'cool … with …',
      'use …',
      'examine …',
      'inventory',
      'look',
    ]);
    expect(easyForms.map((f) => f.verb)).toEqual(['go to', 'take', 'move', 'clean']);
    expect(household.commands?.('easy').map((f) => f.form)).toEqual(easyForms.map((f) => f.form));
    expect(() => householdCommands('hard')).toThrow(
      'household: unknown preset "hard"; accepted: default, easy, easy-pick2',
    );
  });

  for (const preset of ['easy', 'default']) {
    it(`${preset}: every admissible action of 300 random-walk episodes fits one form, and every form occurs`, () => {
      const forms = householdCommands(preset);
      const seen = new Set<string>();
      const rng = new Rng(11);
      const env = household.create(preset);
      for (let index = 0; index < 300; index++) {
        env.reset({ split: (['train', 'test-seen', 'test-unseen'] as const)[index % 3], index });
        for (let done = false; !done;) {
          const actions = env.admissibleActions();
          for (const a of actions) {
            const fits = forms.filter((f) => f.pattern.test(a));
            expect(fits.length, a).toBeGreaterThan(0);
            fits.forEach((f) => seen.add(f.form));
          }
          done = env.step(rng.pick(actions)).done;
        }
      }
      expect([...seen].sort()).toEqual(forms.map((f) => f.form).sort());
    });
  }
});

describe('commandHint', () => {
  const hint = (action: string, admissible = EASY_ROOT) =>
    commandHint({ env: 'household', preset: 'easy', commands: easyForms, action, admissible });
  const now = 'admissible now: go to desk 1, go to shelf 1, go to sidetable 1';

  it('names a command the preset does not have, its commands and the admissible actions', () => {
    expect(hint('fly to moon')).toBe(
      `"fly to moon" is not a command of household/easy; commands here: go to …, take … from …, ` +
        `move … to …, clean … with …; ${now}`,
    );
    expect(hint('  EXAMINE desk 1 ')).toBe(
      `"examine desk 1" is not a command of household/easy; commands here: go to …, take … from …, ` +
        `move … to …, clean … with …; ${now}`,
    );
  });

  it('an action of several lines (read by the env as one): says so, suggests the first line when admissible', () => {
    expect(hint('go to desk 1\ntake laptop 1 from desk 1')).toBe(
      `"go to desk 1 take laptop 1 from desk 1" holds 2 lines: an action is one line, one per step; did you mean ` +
        `"go to desk 1"?; ${now}`,
    );
    expect(hint('go to desk 9\r\n\r\ngo to desk 1\u2028x')).toBe(
      `"go to desk 9 go to desk 1 x" holds 3 lines: an action is one line, one per step; ${now}`,
    );
    // blank lines around one action are no second line: it is judged as that action
    expect(hint('\n go to desk 1 \n\n')).toBeNull();
  });

  it('suggests the admissible action a typo is close to', () => {
    expect(hint('got to desk 1')).toBe(
      `"got to desk 1" is not a command of household/easy; commands here: go to …, take … from …, ` +
        `move … to …, clean … with …; did you mean "go to desk 1"?; ${now}`,
    );
    expect(hint('go to shelf', EASY_ROOT)).toBe(
      `"go to shelf" is a command of household/easy, but not possible now; did you mean "go to shelf 1"?; ${now}`,
    );
  });

  it('says when a command does not fit its form, or is not possible now', () => {
    expect(hint('take apple 1')).toBe(`"take apple 1" does not fit the command "take … from …"; ${now}`);
    expect(hint('take apple 1 from desk 1')).toBe(
      `"take apple 1 from desk 1" is a command of household/easy, but not possible now; ${now}`,
    );
    expect(hint('move')).toBe(`"move" does not fit the command "move … to …"; ${now}`);
  });

  it('an empty action, a long one, nothing admissible, an environment without forms, an admissible action', () => {
    expect(hint('   ')).toBe(`an empty action is not a command; ${now}`);
    const long = hint('x'.repeat(10_000)) as string;
    expect(long.startsWith(`"${'x'.repeat(59)}…" is not a command of household/easy;`)).toBe(true);
    expect(long.length).toBeLessThan(250);
    expect(hint('look', [])).toBe(
      '"look" is not a command of household/easy; commands here: go to …, take … from …, move … ' +
        'to …, clean … with …; nothing is admissible now',
    );
    expect(commandHint({ env: 'toy', preset: 'p', action: 'jump', admissible: ['walk'] })).toBe(
      '"jump" is not admissible now; admissible now: walk',
    );
    expect(hint('Go To Desk 1')).toBeNull();
  });

  it('reads a bracket command (shop: click[…], search[…]) as its command: not possible now, or not fitting', () => {
    const spec = getEnvSpec('shop');
    const forms = spec.commands?.('default') ?? [];
    const shopHint = (action: string, admissible: string[]) =>
      commandHint({ env: 'shop', preset: 'default', commands: forms, action, admissible });
    const page = ['click[back to search]', 'click[b91i55]'];
    const now = 'admissible now: click[back to search], click[b91i55]';
    expect(shopHint('click[zzz]', page)).toBe(
      `"click[zzz]" is a command of shop/default, but not possible now; ${now}`,
    );
    expect(shopHint('click[]', page)).toBe(`"click[]" does not fit the command "click[…]"; ${now}`);
    expect(shopHint('search[bed frame', ['search['])).toBe(
      '"search[bed frame" does not fit the command "search[…]"; did you mean "search[bed frame]"?; admissible ' +
        'now: search[…]',
    );
    expect(shopHint('fly away', page)).toBe(
      `"fly away" is not a command of shop/default; commands here: search[…], click[…]; ${now}`,
    );
  });

  it('lists an open form (an admissible action ending in [, e.g. a free-text search) as form[…]', () => {
    expect(commandHint({ env: 'toy', preset: 'p', action: 'jump', admissible: ['search[', 'click[a]'] })).toBe(
      '"jump" is not admissible now; admissible now: search[…], click[a]',
    );
  });

  it('an open form sent as listed says to complete it; words without ] get the closed form suggested', () => {
    const forms = getEnvSpec('shop').commands?.('default') ?? [];
    const shopHint = (action: string, admissible = ['search[']) =>
      commandHint({ env: 'shop', preset: 'default', commands: forms, action, admissible });
    expect(shopHint(' Search[ ')).toBe(
      'search[…] is an open form: complete it with your own words and a closing ], e.g. search[red shoes]; ' +
        'admissible now: search[…]',
    );
    expect(commandHint({ env: 'toy', preset: 'p', action: 'search[', admissible: ['search['] })).toBe(
      'search[…] is an open form: complete it with your own words and a closing ]; admissible now: search[…]',
    );
    expect(shopHint('search[x')).toBe(
      '"search[x" does not fit the command "search[…]"; did you mean "search[x]"?; admissible now: search[…]',
    );
    const long = `search[${'w '.repeat(30)}x`;
    expect(shopHint(long)).toBe(
      `"${long.slice(0, 59)}…" does not fit the command "search[…]"; close it with ]; admissible now: search[…]`,
    );
    // Empty brackets: what an open form wants, no suggestion of the form itself; a space before the bracket: closed up.
    expect(shopHint('search[]')).toBe(
      '"search[]" is empty; search[…] is an open form: complete it with your own words and a closing ], e.g. ' +
        'search[red shoes]; admissible now: search[…]',
    );
    expect(shopHint('search [red shoes]')).toBe(
      '"search [red shoes]" does not fit the command "search[…]"; did you mean "search[red shoes]"?; ' +
        'admissible now: search[…]',
    );
    expect(shopHint('search [red')).toMatch(/; did you mean "search\[red\]"\?; admissible now: search\[…\]$/);
    // control characters typed are written out, not sent to the terminal
    expect(shopHint('\u001b]0;pwned\u0007go')).toMatch(/^"\\u\{1B\}\]0;pwned\\u\{7\}go" is not a command of shop/);
    // A typo of an open form: the form suggested as listed, never the bare open form.
    expect(shopHint('serch[')).toBe(
      '"serch[" is not a command of shop/default; commands here: search[…], click[…]; did you mean ' +
        '"search[…]"?; admissible now: search[…]',
    );
    expect(openFormHint('answer[', getEnvSpec('searchqa').commands?.('default'))).toBe(
      'answer[…] is an open form: complete it with your own words and a closing ], e.g. answer[Silver Vale]',
    );
  });

  it('edit distance and the closest action', () => {
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('go to desk 1', 'go to desk 1')).toBe(0);
    expect(editDistance('abcdef', 'uvwxyz', 2)).toBe(3); // stopped early: more than the limit
    expect(closestAction('take lapto 1 from desk 1', ['go to shelf 1', 'take laptop 1 from desk 1'])).toBe(
      'take laptop 1 from desk 1',
    );
    expect(closestAction('go to desk 2', ['go to desk 1', 'go to desk 3'])).toBe('go to desk 1'); // a tie: the first
    expect(closestAction('fly to moon', EASY_ROOT)).toBeNull();
  });
});

describe('summaryText', () => {
  const s = (o: Partial<PlaySummary>): PlaySummary => ({
    steps: 4,
    maxSteps: 10,
    success: false,
    reward: 0,
    invalid: 0,
    done: false,
    truncated: false,
    ...o,
  });
  it('states steps, success, total reward and invalid actions', () => {
    expect(summaryText(s({ success: true, reward: 1, done: true }))).toBe(
      'Task complete: success in 4 of 10 steps, total reward 1 (0 invalid actions).',
    );
    expect(summaryText(s({ steps: 10, invalid: 3, done: true, truncated: true }), 'input')).toBe(
      'Out of steps: no success in 10 of 10 steps, total reward 0 (3 invalid actions).',
    );
    expect(summaryText(s({ steps: 3, maxSteps: 15, reward: 0.2, done: true }), 'input')).toBe(
      'Episode over: no success in 3 of 15 steps, total reward 0.2 (0 invalid actions).',
    );
    // an action that ends the task on the last step (searchqa's wrong answer) is not the step limit
    expect(summaryText(s({ steps: 4, maxSteps: 4, done: true }))).toBe(
      'Episode over: no success in 4 of 4 steps, total reward 0 (0 invalid actions).',
    );
    expect(summaryText(s({ steps: 1, invalid: 1 }), 'input')).toBe(
      'End of input: no success after 1 of 10 steps, total reward 0 (1 invalid action).',
    );
    expect(summaryText(s({ steps: 2 }), 'stopped')).toBe(
      'Stopped: no success after 2 of 10 steps, total reward 0 (0 invalid actions).',
    );
  });
});

describe('PlayEpisode', () => {
  it("plays household/easy train 357 to success, with hints beside the env's own observations", () => {
    const ep = new PlayEpisode({ env: 'household', preset: 'easy', split: 'train', index: 357 });
    const start = ep.view();
    expect(start).toMatchObject({
      task: 'put a laptop in sidetable.',
      taskType: 'pick',
      admissible: EASY_ROOT,
      turns: [],
      observation:
        'You are in the middle of a room. Looking quickly around you, you see a desk 1, a shelf 1, and a sidetable 1.',
      commands: ['go to …', 'take … from …', 'move … to …', 'clean … with …'],
      summary: { steps: 0, maxSteps: 10, success: false, reward: 0, invalid: 0, done: false, truncated: false },
    });
    const actions = [
      'fly to moon',
      'go to desk 1',
      'take laptop 1 from desk 1',
      'go to sidetable 1',
      'move laptop 1 to sidetable 1',
    ];
    const turns = actions.map((a) => ep.step(a));
    expect(turns[0]).toEqual({
      action: 'fly to moon',
      observation: 'Nothing happens.',
      reward: 0,
      done: false,
      valid: false,
      hint: expect.stringContaining('"fly to moon" is not a command of household/easy'),
    });
    expect(turns.slice(1).map((t) => [t.valid, t.reward, t.done, t.hint])).toEqual([
      [true, 0, false, undefined],
      [true, 0, false, undefined],
      [true, 0, false, undefined],
      [true, 1, true, undefined],
    ]);
    expect(ep.summary()).toEqual({
      ...{ steps: 5, maxSteps: 10, success: true, reward: 1, invalid: 1, done: true, truncated: false },
    });
    expect(summaryText(ep.summary())).toBe(
      'Task complete: success in 5 of 10 steps, total reward 1 (1 invalid action).',
    );
    expect(ep.view()).toMatchObject({ admissible: [], observation: 'You move the laptop 1 to the sidetable 1.' });
    expect(() => ep.step('look')).toThrow('the episode has ended; start a new task');

    // The same actions on a bare env give the same observations: the hints are beside them, not in them.
    const env = household.create('easy');
    env.reset({ split: 'train', index: 357 });
    expect(actions.map((a) => env.step(a).observation)).toEqual(turns.map((t) => t.observation));
  });

  it('searchqa: a wrong answer on the last step is "Episode over", four searches "Out of steps"', () => {
    const t = { env: 'searchqa', preset: 'default', split: 'test-seen', index: 0 } as const;
    const answered = new PlayEpisode(t);
    for (const a of ['search[a]', 'search[b]', 'search[c]', 'answer[no such answer]']) answered.step(a);
    expect(answered.summary()).toMatchObject({ steps: 4, maxSteps: 4, done: true, success: false, truncated: false });
    expect(summaryText(answered.summary())).toBe(
      'Episode over: no success in 4 of 4 steps, total reward 0 (0 invalid actions).',
    );
    // an action that does nothing on the last step: its hint says the list was that step's, and that it has ended
    const spent = new PlayEpisode(t);
    for (const a of ['search[a]', 'search[b]', 'search[c]']) spent.step(a);
    expect(spent.step('search[').hint).toBe(
      'search[…] is an open form: complete it with your own words and a closing ], e.g. search[Azure Bank]; ' +
        'admissible at that step: search[…], answer[…]; the episode has ended',
    );
    const searched = new PlayEpisode(t);
    for (const a of ['search[a]', 'search[b]', 'search[c]', 'search[d]']) searched.step(a);
    expect(searched.summary()).toMatchObject({ steps: 4, done: true, success: false, truncated: true });
    expect(summaryText(searched.summary())).toBe(
      'Out of steps: no success in 4 of 4 steps, total reward 0 (0 invalid actions).',
    );
  });

  it("the expert's actions solve a default task; the view is plain data", () => {
    const ep = new PlayEpisode({ env: 'household', preset: 'default', split: 'test-unseen', index: 3 });
    const expert = household.expert(ep.environment);
    while (!ep.done) ep.step(expert.act());
    const v = ep.view();
    expect(v.summary.success).toBe(true);
    expect(v.summary.invalid).toBe(0);
    expect(structuredClone(v)).toEqual(v);
  });

  it('refuses a bad env, preset, split or index, naming the field', () => {
    const t = { env: 'household', preset: 'easy', split: 'train' as const, index: 0 };
    expect(() => new PlayEpisode({ ...t, env: 'nope' })).toThrow(
      'unknown env "nope"; accepted: household, shop, searchqa',
    );
    expect(() => new PlayEpisode({ ...t, preset: 'hard' })).toThrow(
      'preset must be one of: default, easy, easy-pick2 (got "hard")',
    );
    expect(() => new PlayEpisode({ ...t, split: 'dev' as never })).toThrow(
      'split must be one of: train, test-seen, test-unseen, val (got "dev")',
    );
    expect(() => new PlayEpisode({ ...t, index: -1 })).toThrow('task index must be an integer ≥ 0 (got -1)');
    expect(() => new PlayEpisode({ ...t, index: 1.5 })).toThrow('task index must be an integer ≥ 0 (got 1.5)');
    expect(() => new PlayEpisode({ ...t, split: 'train', index: 1_000_007 })).toThrow(
      "task index 1000007 is past split train's tasks (0 to 999999; the indices from 1000000 on are split val's): " +
        "play a smaller index, or split val's task 7",
    );
  });

  it('randomTaskIndex: the same seed names the same task, in [0, 1e6)', () => {
    const a = [1, 2, 3].map(randomTaskIndex);
    expect([1, 2, 3].map(randomTaskIndex)).toEqual(a);
    expect(new Set(a).size).toBe(3);
    for (const i of a) expect(i >= 0 && i < 1_000_000 && Number.isInteger(i)).toBe(true);
    expect(randomTaskIndex(5)).toBe(220338);
    expect(() => randomTaskIndex(0.5)).toThrow('seed must be an integer, got 0.5');
  });
});

describe('readTyped: a typed number picks an admissible action', () => {
  it('1..N pick the action; a number outside names the range; other text is the action itself', () => {
    expect(readTyped('2', EASY_ROOT)).toEqual({ action: 'go to shelf 1' });
    expect(readTyped(' 3 ', EASY_ROOT)).toEqual({ action: 'go to sidetable 1' });
    expect(readTyped('4', EASY_ROOT)).toEqual({
      message: 'there is no action 4: type a number from 1 to 3, or an action',
    });
    expect(readTyped('0', EASY_ROOT)).toEqual({
      message: 'there is no action 0: type a number from 1 to 3, or an action',
    });
    expect(readTyped('99999999999999999999', EASY_ROOT)).toEqual({
      message: 'there is no action 99999999999…: type a number from 1 to 3, or an action',
    });
    expect(readTyped('1', [])).toEqual({ message: 'there is no action 1: nothing is admissible now' });
    expect(readTyped('go to desk 1', EASY_ROOT)).toEqual({ action: 'go to desk 1' });
    // number-like text is a number too: a sign, the list's trailing dot, full-width digits, a fraction
    expect(readTyped('2.', EASY_ROOT)).toEqual({ action: 'go to shelf 1' });
    expect(readTyped('＋３', EASY_ROOT)).toEqual({ action: 'go to sidetable 1' });
    for (const [typed, shown] of [
      ['-1', '-1'],
      ['1.5', '1.5'],
      ['.5', '.5'],
    ])
      expect(readTyped(typed, EASY_ROOT)).toEqual({
        message: `there is no action ${shown}: type a number from 1 to 3, or an action`,
      });
    expect(readTyped('1 2', EASY_ROOT)).toEqual({ action: '1 2' });
  });

  it('an open form as the list shows it (search[…]) is the open form, not a search for "…"', () => {
    const open = ['search[', 'answer['];
    for (const typed of ['search[…]', ' Search[...] ', 'search[ … ]'])
      expect(readTyped(typed, open)).toEqual({ action: 'search[' });
    expect(readTyped('answer[…]', open)).toEqual({ action: 'answer[' });
    expect(readTyped('search[…]', ['click[back]'])).toEqual({ action: 'search[…]' }); // not admissible: as typed
    expect(readTyped('search[… more]', open)).toEqual({ action: 'search[… more]' });
  });
});

describe('latestHint: what the page shows under the observation', () => {
  it('the hint of the latest action when it did nothing; null before the first action and after a valid one', () => {
    const ep = new PlayEpisode({ env: 'household', preset: 'easy', split: 'train', index: 357 });
    expect(latestHint(ep.view())).toBeNull();
    ep.step('fly to moon');
    expect(ep.view().observation).toBe('Nothing happens.');
    expect(latestHint(ep.view())).toBe(
      '"fly to moon" is not a command of household/easy; commands here: go to …, take … from …, ' +
        'move … to …, clean … with …; admissible now: go to desk 1, go to shelf 1, go to sidetable ' +
        '1',
    );
    ep.step('go to desk 1');
    expect(latestHint(ep.view())).toBeNull();
  });
});
