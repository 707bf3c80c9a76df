/** `npm run play`: text and JSON sessions in-process, and the real process (streaming, exit codes). */
import { spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { play } from '../../cli/play';

/** Run `play` in-process on fixed input lines; returns exit code, stdout and stderr. */
async function session(argv: string[], lines: string[]) {
  let out = '';
  let err = '';
  const code = await play(argv, {
    lines: (async function* () {
      yield* lines;
    })(),
    write: (s) => (out += s),
    error: (s) => (err += s),
  });
  return { code, out, err };
}

const TSX = ['node_modules/.bin/tsx', 'cli/play.ts'];

describe('play CLI', () => {
  it('JSON mode: a reset line, then one step line per input line, ending at done', async () => {
    const r = await session(
      ['--env', 'household', '--split', 'train', '--task', '357', '--preset', 'easy', '--json'],
      ['go to desk 1', '  TAKE laptop 1 from desk 1', 'go to sidetable 1', 'move laptop 1 to sidetable 1', 'look'],
    );
    expect(r.code).toBe(0);
    const events = r.out.trim().split('\n').map((l) => JSON.parse(l));
    expect(events[0]).toEqual({
      event: 'reset',
      task: 'put a laptop in sidetable.',
      taskType: 'pick',
      observation: 'You are in the middle of a room. Looking quickly around you, you see a desk 1, a shelf 1, and a sidetable 1.',
      admissibleActions: ['go to desk 1', 'go to shelf 1', 'go to sidetable 1'],
    });
    expect(events.slice(1, -1).map((e) => [e.event, e.action, e.reward, e.done, e.valid])).toEqual([
      ['step', 'go to desk 1', 0, false, true],
      ['step', '  TAKE laptop 1 from desk 1', 0, false, true],
      ['step', 'go to sidetable 1', 0, false, true],
      ['step', 'move laptop 1 to sidetable 1', 1, true, true],
    ]); // stops at done: the trailing "look" is not read
    expect(events[4]).toMatchObject({ observation: 'You move the laptop 1 to the sidetable 1.', admissibleActions: [] });
    expect(events[5]).toEqual({ event: 'summary', steps: 4, maxSteps: 10, success: true, reward: 1, done: true });
  });

  it('text mode: numbered actions, a number picks one, ends with the outcome', async () => {
    const r = await session(['--task', '357', '--preset', 'easy'], ['1', '', 'take laptop 1 from desk 1', 'bogus']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('Task: put a laptop in sidetable.');
    expect(r.out).toContain('   1. go to desk 1');
    expect(r.out).toContain('Action: go to desk 1\nYou arrive at desk 1. On the desk 1, you see a candle 2, and a laptop 1.');
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
      [['--preset', 'hard'], '--preset must be one of: default, easy'],
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
    child.stdin.write(`${reset.admissibleActions[0]}\n`);
    const step = JSON.parse((await lines.next()).value); // stdin still open: the answer came per line
    expect(step).toMatchObject({ event: 'step', action: reset.admissibleActions[0], valid: true });
    child.stdin.end();
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
  }, 30_000);

  it('as a process: bad input exits 2 with the message on stderr', () => {
    const r = spawnSync(TSX[0], [TSX[1], '--env', 'foo'], { encoding: 'utf8', input: '' });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('play: --env must be one of: household (got "foo")');
  }, 30_000);

  it('a command the preset does not have says so; the end of the input prints a summary', async () => {
    const r = await session(['--task', '357', '--preset', 'easy', '--json'], ['examine desk 1', 'go to desk 1']);
    const events = r.out.trim().split('\n').map((l) => JSON.parse(l));
    expect(events[1]).toMatchObject({ valid: false, hint: 'there is no "examine" command here; the commands now are: go to' });
    expect(events[2].hint).toBeUndefined();
    expect(events[3]).toEqual({ event: 'summary', steps: 2, maxSteps: 10, success: false, reward: 0, done: false });
    const t = await session(['--task', '357', '--preset', 'easy'], ['inventory']);
    expect(t.out).toContain('(there is no "inventory" command here; the commands now are: go to)');
    expect(t.out).toMatch(/End of input after 1\/10 steps: task not completed, reward 0\.\n$/);
  });
});
