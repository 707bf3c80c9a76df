/** `npm run play`: text and JSON sessions in-process, and the real process (streaming, exit codes). */
import { spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { playSession } from '../helpers/play-session';

/** Run `play` in-process on fixed input lines; returns exit code, stdout and stderr. */
const session = playSession;

const TSX = ['node_modules/.bin/tsx', 'cli/play.ts'];
/** A `--json` input line playing `action`. */
const j = (action: string) => JSON.stringify({ action });

describe('play CLI', () => {
  it('JSON mode: a reset line, then one step line per input line, ending at done', async () => {
    const r = await session(
      ['--env', 'household', '--split', 'train', '--task', '357', '--preset', 'easy', '--json'],
      ['go to desk 1', '  TAKE laptop 1 from desk 1', 'go to sidetable 1', 'move laptop 1 to sidetable 1', 'look'].map(
        j,
      ),
    );
    expect(r.code).toBe(0);
    const events = r.out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(events[0]).toEqual({
      event: 'reset',
      task: 'put a laptop in sidetable.',
      taskType: 'pick',
      split: 'train',
      index: 357,
      observation:
        'You are in the middle of a room. Looking quickly around you, you see a desk 1, a shelf 1, and a sidetable 1.',
      admissibleActions: ['go to desk 1', 'go to shelf 1', 'go to sidetable 1'],
    });
    expect(events.slice(1, -1).map((e) => [e.event, e.action, e.reward, e.done, e.valid])).toEqual([
      ['step', 'go to desk 1', 0, false, true],
      ['step', '  TAKE laptop 1 from desk 1', 0, false, true],
      ['step', 'go to sidetable 1', 0, false, true],
      ['step', 'move laptop 1 to sidetable 1', 1, true, true],
    ]); // stops at done: the trailing "look" is not read
    expect(events[4]).toMatchObject({
      observation: 'You move the laptop 1 to the sidetable 1.',
      admissibleActions: [],
    });
    expect(events[5]).toEqual({
      event: 'summary',
      steps: 4,
      maxSteps: 10,
      success: true,
      reward: 1,
      invalid: 0,
      done: true,
      truncated: false,
      text: 'Task complete: success in 4 of 10 steps, total reward 1 (0 invalid actions).',
    });
  });

  it('text mode: how to type first, numbered actions, a number picks one, ends with the outcome', async () => {
    const r = await session(['--task', '357', '--preset', 'easy'], ['1', '', 'take laptop 1 from desk 1', 'bogus']);
    expect(r.code).toBe(0);
    expect(r.out.startsWith('Type an action, or the number of a listed one; Ctrl-D ends.\n\nTask: put a laptop')).toBe(
      true,
    );
    expect(r.out).toContain('Task: put a laptop in sidetable.');
    expect(r.out).toContain('   1. go to desk 1');
    expect(r.out).toContain(
      'Action: go to desk 1\nYou arrive at desk 1. On the desk 1, you see a candle 2, and a laptop 1.',
    );
    expect(r.out).toContain('You pick up the laptop 1 from the desk 1.');
    expect(r.out).toContain('Nothing happens.');
    expect(r.out).toContain('(step 3/');
  });

  it('bad flags: exit 2 with a message naming the flag and its accepted values', async () => {
    const cases: Array<[string[], string]> = [
      [['--env', 'foo'], '--env must be one of: household'],
      [['--split', 'dev'], '--split must be one of: train, test-seen, test-unseen'],
      [['--task', '-1'], '--task must be an integer ≥ 0'],
      [['--task', 'seven'], '--task must be an integer ≥ 0'],
      [
        ['--task', '99999999999999999999'],
        '--task must be an integer ≥ 0, got "99999999999999999999", beyond the largest integer it takes ' +
          '(9007199254740991)',
      ],
      // the env named, as train names it
      [['--preset', 'hard'], 'play: --preset: household has no preset "hard"; one of default, easy, easy-pick2\n'],
      [
        ['--preset', 'esy'],
        'play: --preset: household has no preset "esy"; one of default, easy, easy-pick2; did you mean easy?\n',
      ],
      [['--env', 'searchqa', '--preset', 'easy'], 'play: --preset: searchqa has no preset "easy"; one of default\n'],
      [
        ['--split', 'tset-seen'],
        '--split must be one of: train, test-seen, test-unseen, val (got "tset-seen"); did you mean test-seen?\n',
      ],
      [
        ['--task', '1000003'],
        "play: --task 1000003 is past split train's tasks (0 to 999999; the indices from 1000000 on are split " +
          "val's): give a smaller --task, or --split val --task 3 for that val task\n",
      ],
    ];
    for (const [argv, msg] of cases) {
      const r = await session(argv, []);
      expect(r.code).toBe(2);
      expect(r.err).toContain(msg);
      expect(r.out).toBe('');
    }
  });

  it('as a process: answers each line as it arrives (before EOF) and exits 0 at EOF', async () => {
    const child = spawn(TSX[0], [TSX[1], '--task', '3', '--json'], { stdio: ['pipe', 'pipe', 'pipe'] });
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    const reset = JSON.parse((await lines.next()).value);
    expect(reset.event).toBe('reset');
    child.stdin.write(`${j(reset.admissibleActions[0])}\n`);
    const step = JSON.parse((await lines.next()).value); // stdin still open: the answer came per line
    expect(step).toMatchObject({ event: 'step', action: reset.admissibleActions[0], valid: true });
    child.stdin.end();
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
  }, 30_000);

  it('as a process: bad input exits 2 with the message on stderr', () => {
    const r = spawnSync(TSX[0], [TSX[1], '--env', 'foo'], { encoding: 'utf8', input: '' });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('play: --env must be one of: household, shop, searchqa (got "foo")');
  }, 30_000);

  it('a command the preset does not have says so, naming its commands and the admissible actions', async () => {
    const r = await session(
      ['--task', '357', '--preset', 'easy', '--json'],
      ['fly to moon', 'go to desk 1', 'take apple 1'].map(j),
    );
    const events = r.out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(events[1]).toMatchObject({
      action: 'fly to moon',
      observation: 'Nothing happens.',
      valid: false,
      hint:
        '"fly to moon" is not a command of household/easy; commands here: go to …, take … from ' +
        '…, move … to …, clean … with …; admissible now: go to desk 1, go to shelf 1, go to ' +
        'sidetable 1',
    });
    expect(events[2].hint).toBeUndefined();
    expect(events[3].hint).toBe(
      '"take apple 1" does not fit the command "take … from …"; admissible now: go to shelf 1, go to ' +
        'sidetable 1, take candle 2 from desk 1, take laptop 1 from desk 1',
    );
    expect(events[4]).toEqual({
      event: 'summary',
      steps: 3,
      maxSteps: 10,
      success: false,
      reward: 0,
      invalid: 2,
      done: false,
      truncated: false,
      text: 'End of input: no success after 3 of 10 steps, total reward 0 (2 invalid actions).',
    });
  });

  it(
    'text mode: the hint in parentheses after "Nothing happens.", and the summary at the end of the ' + 'input',
    async () => {
      const t = await session(['--task', '357', '--preset', 'easy'], ['inventory', 'got to desk 1']);
      expect(t.code).toBe(0);
      expect(t.out).toContain(
        'Nothing happens.\n("inventory" is not a command of household/easy; commands here: go to …, take ' +
          '… from …, move … to …, clean … with …; admissible now: go to desk 1, go to shelf 1, go ' +
          'to sidetable 1)\n',
      );
      expect(t.out).toContain('; did you mean "go to desk 1"?; admissible now: go to desk 1, go to shelf 1, go to ');
      expect(t.out).toMatch(
        /\n> \nEnd of input: no success after 2 of 10 steps, total reward 0 \(2 invalid actions\)\.\n$/,
      );
    },
  );

  it('text mode on shop: search[ is listed as search[…]; picked or typed bare it costs no step', async () => {
    const t = await session(['--env', 'shop'], ['1', ' search[ ', 'search[bed frame]', 'click[zzz]']);
    expect(t.code).toBe(0);
    expect(t.out).toContain('Admissible actions:\n   1. search[…]\n> ');
    const msg =
      '(search[…] is an open form: complete it with your own words and a closing ], e.g. search[red shoes])\n> ';
    expect(t.out.split(msg).length).toBe(3);
    expect(t.out).toContain('Page 1 (Total results: 50)');
    expect(t.out).toContain('("click[zzz]" is a command of shop/default, but not possible now; admissible now: ');
    expect(t.out).toMatch(/End of input: no success after 2 of 15 steps, total reward 0 \(1 invalid action\)\.\n$/);
  });

  it("text mode: the end of the episode prints the summary (the expert's actions, by number and by text)", async () => {
    const t = await session(
      ['--task', '357', '--preset', 'easy'],
      ['1', '4', 'go to sidetable 1', 'move laptop 1 to sidetable 1', 'look'],
    );
    expect(t.out).toContain('You move the laptop 1 to the sidetable 1.\n');
    expect(t.out).toMatch(/\n\nTask complete: success in 4 of 10 steps, total reward 1 \(0 invalid actions\)\.\n$/);
  });

  it('--seed plays the task the seed draws (the same one every time) and says which, in both modes', async () => {
    const a = await session(['--seed', '5', '--preset', 'default'], []);
    expect(a.out).toContain('(task 220338 of train, drawn from seed 5)');
    const json = await session(['--seed', '5', '--preset', 'default', '--split', 'test-unseen', '--json'], []);
    expect(JSON.parse(json.out.split('\n')[0])).toMatchObject({ event: 'reset', split: 'test-unseen', index: 220338 });
    const b = await session(['--task', '220338', '--preset', 'default', '--json'], []);
    expect(a.out).toContain(`Task: ${JSON.parse(b.out.split('\n')[0]).task} (task 220338`);
    const bad = await session(['--seed', 'x'], []);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--seed must be an integer');
  });

  it('JSON mode: a byte order mark before the first line is ignored (RFC 8259 §8.1)', async () => {
    const r = await session(['--preset', 'easy', '--task', '357', '--json'], [`\uFEFF${j('go to desk 1')}`]);
    const events = r.out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { event: string; valid?: boolean });
    expect(events.map((e) => [e.event, e.valid])).toEqual([
      ['reset', undefined],
      ['step', true],
      ['summary', undefined],
    ]);
  });

  it('--task with --seed exits 2: both choose the task', async () => {
    const r = await session(['--task', '3', '--seed', '5'], []);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err.split('\n')[0]).toBe(
      'play: --task 3 and --seed 5 both choose the task (--seed draws one at random); give only one of them',
    );
    const help = await session(['--help'], []);
    expect(help.out).toContain('--task');
    expect(help.out).toContain('not with --task');
  });

  it('text mode: a number outside 1..N names the range and costs no step', async () => {
    const t = await session(['--task', '357', '--preset', 'easy'], ['7', '0', '2']);
    expect(t.code).toBe(0);
    // Three admissible actions at the start: 7 and 0 are refused, 2 plays "go to shelf 1" as step 1.
    expect(t.out).toContain(
      '> (there is no action 7: type a number from 1 to 3, or an action)\n> (there is no action 0: type a ' +
        'number from 1 to 3, or an action)\n> Action: go to shelf 1\n',
    );
    expect(t.out).toContain('(step 1/10)');
    expect(t.out).toMatch(/End of input: no success after 1 of 10 steps, total reward 0 \(0 invalid actions\)\.\n$/);
  });

  it('a line over 2000 characters is refused with a message and costs no step, in both modes', async () => {
    const long = `search[${'x'.repeat(1_200_000)}]`;
    const t = await session(['--env', 'shop', '--task', '0'], [long, '']);
    expect(t.code).toBe(0);
    expect(t.out).toContain('> (the line is 1200008 characters, over 2000; type a shorter action)\n> ');
    expect(t.out).toMatch(/End of input: no success after 0 of \d+ steps/);
    const r = await session(['--env', 'shop', '--task', '0', '--json'], [j(long)]);
    const events = r.out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(events.map((e) => e.event)).toEqual(['reset', 'error', 'summary']);
    expect(events[1]).toEqual({
      event: 'error',
      line: 1,
      message: 'the line is 1200021 characters, over 2000; type a shorter action',
    });
    expect(events[2]).toMatchObject({ steps: 0, invalid: 0 });
  });

  it(
    'JSON mode: input is one {"action"} object per line; a bad line gets an error event and costs no ' + 'step',
    async () => {
      const r = await session(
        ['--task', '357', '--preset', 'easy', '--json'],
        ['go to desk 1', '', '{"act":"go to desk 1"}', '"go to desk 1"', j('1'), j('go to desk 1')],
      );
      expect(r.code).toBe(0);
      const events = r.out
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(events.map((e) => e.event)).toEqual(['reset', 'error', 'error', 'error', 'step', 'step', 'summary']);
      expect(events[1]).toEqual({
        event: 'error',
        line: 1,
        message: 'not JSON; send one object per line, e.g. {"action":"go to desk 1"}',
      });
      expect(events[2]).toEqual({
        event: 'error',
        line: 3,
        message: 'expected an object with only a text "action", e.g. {"action":"go to desk 1"}',
      });
      expect(events[3].line).toBe(4);
      // Numbers are not resolved in JSON mode: "1" is an action text, not admissible.
      expect(events[4]).toMatchObject({ action: '1', valid: false, observation: 'Nothing happens.' });
      expect(events[5]).toMatchObject({ action: 'go to desk 1', valid: true });
      expect(events[6]).toMatchObject({ steps: 2, invalid: 1, done: false });
    },
  );

  it('an empty action: skipped without a step in text mode, an invalid step in JSON mode', async () => {
    const t = await session(['--task', '357', '--preset', 'easy'], ['', '   ']);
    expect(t.out).toMatch(/End of input: no success after 0 of 10 steps, total reward 0 \(0 invalid actions\)\.\n$/);
    const r = await session(['--task', '357', '--preset', 'easy', '--json'], [j('')]);
    const events = r.out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(events[1]).toMatchObject({
      event: 'step',
      action: '',
      valid: false,
      hint: 'an empty action is not a command; admissible now: go to desk 1, go to shelf 1, go to sidetable 1',
    });
    expect(events[2]).toMatchObject({ steps: 1, invalid: 1 });
  });
});
