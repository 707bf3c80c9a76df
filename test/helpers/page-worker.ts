/**
 * The page's run state over an in-process worker, for unit tests of src/ui/state/run.svelte.ts: the real
 * TrainingSession and PageRuns (src/worker/session.ts, runs-library.ts) over an in-memory run store and a stand-in
 * trainer with safe points (3 turns per step, each a poll of the cancel signal). `loadRunState` compiles the runes
 * module with the Vite Svelte plugin for Node and fakes `location` / `history` (replaceState) at `hash`.
 */
import { createServer, type ViteDevServer } from 'vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { fileURLToPath } from 'node:url';
import type { RunConfig } from '../../src/core/run/config';
import type { StepEvent, TrainEvent } from '../../src/core/train/events';
import type { TrainerApi } from '../../src/worker/api';
import { TrainingSession, type TrainFn } from '../../src/worker/session';
import { PageRuns, listRuns } from '../../src/worker/runs-library';
import type { RunStore } from '../../src/worker/runs';
import type { RunState as RunStateType, SpawnTrainer } from '../../src/ui/state/run.svelte';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A fake `location` (hash, href) and `history.replaceState` at `hash`; returns the location object. */
export function fakeLocation(hash: string): { hash: string; href: string } {
  const loc = { hash, href: `http://localhost/${hash}` };
  Object.assign(globalThis, {
    location: loc,
    history: {
      replaceState: (_s: unknown, _t: string, url: string) =>
        Object.assign(loc, { hash: url, href: `http://localhost/${url}` }),
    },
  });
  return loc;
}

/** Compiles run.svelte.ts for Node; returns its RunState class and the server to close after the tests. */
export async function loadRunState(): Promise<{
  RunState: new (spawn?: SpawnTrainer) => RunStateType;
  vite: ViteDevServer;
}> {
  const vite = await createServer({
    root: ROOT,
    configFile: false,
    logLevel: 'silent',
    appType: 'custom',
    plugins: [svelte({ compilerOptions: { runes: true } })],
    server: { middlewareMode: true, hmr: false, ws: false, watch: null },
  });
  return { RunState: (await vite.ssrLoadModule('/src/ui/state/run.svelte.ts')).RunState, vite };
}

/** An in-memory RunStore (what IndexedDB holds in the worker). */
export function memStore() {
  const metas = new Map<string, unknown>(),
    files = new Map<string, Uint8Array>();
  const store: RunStore = {
    async write(meta, fs) {
      metas.set(meta.id, structuredClone(meta));
      for (const f of fs) files.set(`${meta.id}/${f.name}`, f.data.slice());
    },
    getMeta: async (id) => metas.get(id),
    listMeta: async () => [...metas.values()],
    getFile: async (id, name) => files.get(`${id}/${name}`),
    async delete(id) {
      metas.delete(id);
    },
  };
  const text = (id: string, name: string) => new TextDecoder().decode(files.get(`${id}/${name}`));
  return { store, text };
}

/** A step event with the fields the page and the run record read. */
export function stepEvent(step: number): StepEvent {
  return {
    event: 'step',
    step,
    successRate: step / 10,
    rewardMean: 0,
    scoreMean: 0,
    policyLoss: 0,
    stepMs: 5,
    elapsedMs: 5 * step,
  } as StepEvent;
}

/**
 * A stand-in trainer with the real one's safe points: each step has 3 turns, each a poll of the cancel signal; a cut
 * step yields `interrupted` and is redone on the next pull. `onTurn(step, turn)` runs before each poll.
 */
export function fakeTrainer(onTurn: (step: number, turn: number) => void) {
  const trainFn: TrainFn = async function* (config: RunConfig, opts) {
    yield {
      event: 'start',
      config,
      backend: opts.backend,
      params: 1,
      vocabSize: 1,
      envVersions: { household: 'test' },
    } as TrainEvent;
    for (let step = 1; step <= config.steps; step++) {
      for (;;) {
        let cut = false;
        for (let turn = 1; turn <= 3 && !cut; turn++) {
          onTurn(step, turn);
          await opts.cancel?.poll?.();
          cut = opts.cancel?.aborted === true;
        }
        if (!cut) break;
        yield { event: 'interrupted', step, phase: 'step' };
      }
      yield stepEvent(step);
      yield { event: 'trajectories', step, group: [] };
    }
    yield {
      event: 'done',
      steps: config.steps,
      elapsedMs: 0,
      undoneSteps: 0,
      shrunkSteps: 0,
      envVersions: {},
    } as TrainEvent;
  };
  return trainFn;
}

/**
 * An in-process worker: the methods of trainer.worker.ts that training uses, over the real session and run records.
 * `calls` counts each method's calls.
 */
export function inProcessWorker(onTurn: (step: number, turn: number) => void = () => undefined) {
  const session = new TrainingSession(fakeTrainer(onTurn), () => 'cpu');
  const mem = memStore();
  const runs = new PageRuns(mem.store);
  const calls: Record<string, number> = {};
  const count = (m: string) => (calls[m] = (calls[m] ?? 0) + 1);
  const api: Partial<TrainerApi> = {
    async init() {
      count('init');
      return { backend: 'cpu', adapter: 'test', how: 'asked', skipped: {} } as never;
    },
    async setAnalyzerExtras() {},
    async configure(config) {
      count('configure');
      const c = await session.configure(config);
      runs.begin({ kind: 'scratch' });
      return { config: c, init: { kind: 'scratch', label: `fresh weights from seed ${c.seed}` } };
    },
    async start(onEvent, onProgress) {
      try {
        return await session.start(runs.tap(onEvent), onProgress);
      } finally {
        await runs.flush();
      }
    },
    async stepOnce(onEvent, onProgress) {
      try {
        return await session.stepOnce(runs.tap(onEvent), onProgress);
      } finally {
        await runs.flush();
      }
    },
    async pause() {
      session.pause();
    },
    async stop() {
      count('stop');
      if (await session.stop()) await runs.stop();
    },
  };
  const spawn: SpawnTrainer = () => ({ api: api as never, dispose: () => undefined });
  return { spawn, api, calls, session, mem, list: () => listRuns(mem.store) };
}
