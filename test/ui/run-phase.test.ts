/**
 * The run's phase machine (src/ui/state/run-phase.ts, its owner run-phase.svelte.ts, driven by run-control.svelte.ts).
 * The transition table is checked cell by cell against the table written out below (every phase × every event: the
 * next phase and the page's effect, or "-" where the event is illegal and ignored). The Svelte owner reaches each
 * phase by a path of events and then takes each event: a legal one moves it to the expected phase, an illegal one
 * returns null and leaves the phase as it was. Over an in-process worker, illegal clicks reach no worker method, and
 * 150 seeded sequences of 12 Start / Pause / Step / Stop / Reset clicks each settle within 2 s of the last click with
 * no error (a Reset while a Start or Step waited to begin once let that call reach the worker in the middle of the
 * Reset's configure: "training: Cannot read properties of null (reading 'next')").
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createServer, type ViteDevServer } from 'vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { fileURLToPath } from 'node:url';
import {
  RUN_PHASES,
  RUN_PHASE_EVENTS,
  accepts,
  isSettled,
  transition,
  type RunPhase,
  type RunPhaseEvent,
} from '../../src/ui/state/run-phase';
import type { RunPhaseState as RunPhaseStateType } from '../../src/ui/state/run-phase.svelte';
import type { RunState as RunStateType, SpawnTrainer } from '../../src/ui/state/run.svelte';
import { Rng } from '../../src/core/rng';
import { fakeLocation, inProcessWorker, loadRunState } from '../helpers/page-worker';

/**
 * The table: one row per phase, one cell per event (in EVENTS' order): the next phase, with `:effect` when the page
 * does something, or "-" = ignored. Abbreviations: st starting, ru running, sp stepping, pg pausing, pd paused, so
 * stopping, rs resetting, bo booting, re ready, dn done, er error.
 */
const EVENTS = [
  'click-start',
  'click-pause',
  'click-step',
  'click-stop',
  'click-reset',
  'boot',
  'reconfigure',
  'worker-ready',
  'worker-started',
  'worker-step',
  'worker-paused',
  'worker-done',
  'worker-error',
] as const;
//             c-start  c-pause  c-step   c-stop  c-reset  boot reconf w-ready w-started w-step w-paused w-done w-error
const TABLE = `
booting        -        -        -        -       -        bo   -      re      -         -      -        -      er
ready          st:start -        sp:step  -       rs:reset bo   rs     -       -         -      -        -      er
starting       -        pg:pause -        -       rs:reset -    -      -       ru        -      -        -      er
running        -        pg:pause -        so:stop rs:reset -    -      -       -         ru     pd       dn     er
stepping       -        pg:pause -        so:stop rs:reset -    -      -       sp        sp     pd       dn     er
pausing        -        -        -        so:stop rs:reset -    -      re      -         pg     pd       dn     er
paused         st:start -        sp:step  so:stop rs:reset bo   rs     -       -         -      -        -      er
stopping       -        -        -        -       rs:reset -    -      -       -         so     -        dn     er
resetting      st:start -        sp:step  -       -        bo   rs     re      -         -      pd       dn     er
done           st:start -        -        -       rs:reset bo   rs     -       -         -      -        -      er
error          st:start -        sp:step  -       rs:reset bo   rs     -       -         -      -        -      er
`;
const SHORT: Record<string, string> = {
  st: 'starting',
  ru: 'running',
  sp: 'stepping',
  pg: 'pausing',
  pd: 'paused',
  so: 'stopping',
  rs: 'resetting',
  bo: 'booting',
  re: 'ready',
  dn: 'done',
  er: 'error',
};
const expected = new Map<string, string>();
for (const line of TABLE.trim().split('\n')) {
  const [phase, ...cells] = line.trim().split(/\s+/);
  cells.forEach((c, i) => {
    const [to, effect] = c.split(':');
    expected.set(`${phase} ${EVENTS[i]}`, c === '-' ? '-' : `${SHORT[to]}${effect ? `:${effect}` : ''}`);
  });
}

/** A path of events from `booting` to each phase. */
const PATH: Record<RunPhase, RunPhaseEvent[]> = {
  booting: [],
  ready: ['worker-ready'],
  starting: ['worker-ready', 'click-start'],
  running: ['worker-ready', 'click-start', 'worker-started'],
  stepping: ['worker-ready', 'click-step'],
  pausing: ['worker-ready', 'click-start', 'worker-started', 'click-pause'],
  paused: ['worker-ready', 'click-start', 'worker-started', 'click-pause', 'worker-paused'],
  stopping: ['worker-ready', 'click-start', 'worker-started', 'click-stop'],
  resetting: ['worker-ready', 'click-reset'],
  done: ['worker-ready', 'click-start', 'worker-started', 'worker-done'],
  error: ['worker-error'],
};

describe('the transition table', () => {
  it('has every phase and every event', () => {
    expect([...RUN_PHASES].sort()).toEqual(Object.keys(PATH).sort());
    expect([...RUN_PHASE_EVENTS].sort()).toEqual([...EVENTS].sort());
    expect(expected.size).toBe(RUN_PHASES.length * EVENTS.length);
  });

  for (const phase of RUN_PHASES)
    it(`${phase}: each of the ${EVENTS.length} events gives the written next phase and effect, or is ignored`, () => {
      for (const event of EVENTS) {
        const t = transition(phase, event);
        const cell = t ? `${t.to}${t.effect ? `:${t.effect}` : ''}` : '-';
        expect(`${phase} ${event} → ${cell}`).toBe(`${phase} ${event} → ${expected.get(`${phase} ${event}`)}`);
        expect(accepts(phase, event)).toBe(cell !== '-');
        if (t) expect(t.from).toBe(phase);
      }
    });

  it('no settled phase waits for a click, and every waiting phase has a worker answer that settles it', () => {
    for (const phase of RUN_PHASES.filter((p) => !isSettled(p))) {
      const answers = (['worker-ready', 'worker-paused', 'worker-done', 'worker-error'] as const).map(
        (e) => transition(phase, e)?.to,
      );
      expect(
        answers.some((p) => p !== undefined && isSettled(p)),
        phase,
      ).toBe(true);
    }
  });
});

let vite: ViteDevServer;
let RunPhaseState: new () => RunPhaseStateType;
let RunState: new (spawn?: SpawnTrainer) => RunStateType;
const HASH = '#backend=cpu&init=scratch&steps=100000&evalEvery=0&checkpointEvery=0';

beforeAll(async () => {
  fakeLocation(HASH);
  ({ RunState, vite } = await loadRunState());
  const phases = createServer({
    root: fileURLToPath(new URL('../..', import.meta.url)),
    configFile: false,
    logLevel: 'silent',
    appType: 'custom',
    plugins: [svelte({ compilerOptions: { runes: true } })],
    server: { middlewareMode: true, hmr: false, ws: false, watch: null },
  });
  const server = await phases;
  RunPhaseState = (await server.ssrLoadModule('/src/ui/state/run-phase.svelte.ts')).RunPhaseState;
  await server.close();
}, 60_000);
afterAll(async () => {
  await vite?.close();
});
beforeEach(() => history.replaceState(null, '', HASH));

describe('RunPhaseState, the one owner of the phase', () => {
  it('reaches every phase by its path; a legal event moves it, an illegal one returns null and changes nothing', () => {
    for (const phase of RUN_PHASES)
      for (const event of EVENTS) {
        const m = new RunPhaseState();
        for (const e of PATH[phase]) expect(m.dispatch(e), `${phase}: ${e}`).not.toBeNull();
        expect(m.phase).toBe(phase);
        const cell = expected.get(`${phase} ${event}`)!;
        const t = m.dispatch(event);
        if (cell === '-') {
          expect(t, `${phase} ${event}`).toBeNull();
          expect(m.phase).toBe(phase);
        } else {
          expect(t).toEqual({ from: phase, to: cell.split(':')[0], effect: cell.split(':')[1] ?? null });
          expect(m.phase).toBe(cell.split(':')[0]);
        }
      }
  });
});

const until = async (ok: () => boolean, ms: number) => {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 1));
  }
  return true;
};

/** An in-process worker whose training methods count their calls. */
function countingWorker() {
  const w = inProcessWorker();
  const counts: Record<string, number> = {};
  for (const name of ['start', 'stepOnce', 'pause', 'stop', 'configure'] as const) {
    const f = w.api[name] as (...a: unknown[]) => Promise<unknown>;
    (w.api as Record<string, unknown>)[name] = (...a: unknown[]) => {
      counts[name] = (counts[name] ?? 0) + 1;
      return f(...a);
    };
  }
  return { ...w, counts };
}

describe('the page over an in-process worker', () => {
  it('illegal clicks reach no worker method', async () => {
    const w = countingWorker();
    const run = new RunState(w.spawn);
    const booting = run.boot();
    expect(run.phase).toBe('booting');
    await Promise.all([run.start(), run.step(), run.pause(), run.stop(), run.reset()]);
    await booting;
    expect(run.phase).toBe('ready');
    expect(w.counts).toEqual({ configure: 1 });
    await Promise.all([run.pause(), run.stop()]); // nothing trains
    expect(w.counts).toEqual({ configure: 1 });

    const training = run.start();
    expect(run.phase).toBe('starting');
    await until(() => run.phase === 'running' && run.stepsDone > 0, 2000);
    await Promise.all([run.start(), run.step()]); // a call is in flight: a second one is never sent
    expect(w.counts).toEqual({ configure: 1, start: 1 });
    await run.pause();
    await run.pause();
    await training;
    expect(run.phase).toBe('paused');
    expect(w.counts).toEqual({ configure: 1, start: 1, pause: 1 });
    await run.stop();
    expect(run.phase).toBe('done');
    await Promise.all([run.step(), run.pause(), run.stop()]);
    expect(w.counts).toEqual({ configure: 1, start: 1, pause: 1, stop: 1 });
    expect(run.error).toBeNull();
  });

  it('a Pause while a Start waits for a Reset settles at ready without training', async () => {
    const w = countingWorker();
    const run = new RunState(w.spawn);
    await run.boot();
    await run.step();
    const reset = run.reset();
    expect(run.phase).toBe('resetting');
    const start = run.start();
    expect(run.phase).toBe('starting');
    await run.pause();
    expect(run.phase).toBe('pausing');
    await Promise.all([reset, start]);
    expect(run.phase).toBe('ready');
    expect(w.counts).toEqual({ configure: 2, stepOnce: 1 });
  });

  it('150 seeded sequences of clicks each settle within 2 s of the last click, with no error', async () => {
    const clicks = ['start', 'pause', 'step', 'stop', 'reset'] as const;
    const rng = new Rng(1);
    for (let n = 0; n < 150; n++) {
      const run = new RunState(inProcessWorker().spawn);
      await run.boot();
      const seq: string[] = [];
      for (let k = 0; k < 12; k++) {
        const c = clicks[rng.int(clicks.length)];
        seq.push(c);
        void run[c]();
        // Clicks in one task, a macrotask apart, or 0–29 ms apart (a Reset's configure may still be in flight).
        const wait = rng.int(4);
        if (wait > 0) await new Promise((r) => setTimeout(r, wait === 1 ? 0 : rng.int(30)));
      }
      const settled = await until(() => isSettled(run.phase) || run.phase === 'running', 2000);
      expect({ seq: seq.join(' '), phase: run.phase, settled, error: run.error }).toMatchObject({
        settled: true,
        error: null,
      });
      expect(run.pausing || run.stopping).toBe(false);
      await run.pause();
      await until(() => isSettled(run.phase), 2000);
    }
  }, 120_000);
});
