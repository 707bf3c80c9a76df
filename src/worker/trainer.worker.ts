/**
 * The training worker: exposes `TrainerApi` (src/worker/api.ts) through Comlink. All tfjs work of the page
 * happens here, never on the main thread. One worker = one tfjs backend; the page makes a new worker to
 * switch backends. Training and pretraining share the backend, so at most one of them runs at a time.
 */
import * as Comlink from 'comlink';
import * as tf from '@tensorflow/tfjs-core';
import { selectBackend } from './backend';
import { TrainingSession } from './session';
import { PretrainSession } from './pretrain';
import { train } from '../core/train/trainer';
import { parseRunConfig } from '../core/run/config';
import {
  deleteRun,
  deleteWeights,
  getRunFile,
  getRunMeta,
  getWeights,
  listRunMeta,
  listWeights,
  putWeights,
  writeRun,
} from './persist';
import { PageRuns, loadStoredTrajectories } from './runs-library';
import type { RunStore } from './runs';
import { runsApi } from './runs-api';
import { sha256Hex } from '../core/sha256';
import { loadBytes, resolveStart, saveCurrent, type BaseLoader, type WeightsStore } from './weights';
import { fetchBasePolicy } from './base';
import { testConnection } from '../core/analyzer/http';
import type { StoredExplorerRun, TrainerApi } from './api';
import { benchRunning, runPageBench } from './bench';
import { DEFAULT_STORE_BYTES, SAMPLE_EVERY, TrajectoryStore } from './trajectory-store';
import { explorerGroup } from './explorer-view';
import { actApi } from './act';
import { buildTokenizer } from '../core/model/policy';
import { getEnvSpec } from '../core/envs/registry';
import type { Tokenizer } from '../core/tokenizer/tokenizer';

/** The explorer decodes prompts with the run's environment's tokenizer (built once per environment). */
const tokenizers = new Map<string, Tokenizer>();
function explorerTokenizer(env: string): Tokenizer {
  let t = tokenizers.get(env);
  if (!t) tokenizers.set(env, (t = buildTokenizer(getEnvSpec(env))));
  return t;
}
import type { ConfigureResult } from './api';
import type { RunConfig } from '../core/run/config';
import type { TrainEvent } from '../core/train/events';
import type { CheckpointTeacherPool } from '../core/algorithms/teacher-pool';
import { CheckpointStore } from './checkpoints';
import { distillationInit, pageFromRun, planPageDistillation } from './distill';
import { PlayTable } from './play';
import { algorithmTraits, distillationAlgorithm } from '../core/algorithm-catalog';

/**
 * A stored run the explorer shows instead of the current run's trajectories (explorerOpenRun), in a store of its own
 * whose bound is what the current run's store left of DEFAULT_STORE_BYTES when it was opened; dropped before the
 * current run keeps its next step, so the two together never pass the bound.
 */
let viewed: { run: StoredExplorerRun; store: TrajectoryStore } | null = null;
const session = new TrainingSession(train, () => tf.getBackend(), {
  checkpoints: true,
  onStepDetail: () => (viewed = null),
});
const store: WeightsStore = { put: putWeights, get: getWeights, list: listWeights, delete: deleteWeights };
/** Run records in IndexedDB (persist.ts); every run the page trains is recorded (runs.ts). */
const runStore: RunStore = {
  write: writeRun,
  getMeta: getRunMeta,
  listMeta: listRunMeta,
  getFile: getRunFile,
  delete: deleteRun,
};
/** Each run's trajectories.jsonl line keeps the numbers of the group the explorer holds for that step (group 0). */
const pageRuns = new PageRuns(runStore, Date.now, (step) => session.trajectories.group(step, 0));
const pretrainer = new PretrainSession(store);
/** The Play view's task (./play.ts): a person's episode, stepped here, never on the page's main thread. */
const playTable = new PlayTable();
/**
 * The shipped base policy from the site root (`public/base/…`; BASE_URL is `/` unless the site is built for a
 * sub-path).
 */
const loadBase: BaseLoader = (spec, preset, tok, model) =>
  fetchBasePolicy(spec, preset, tok, model, {
    baseUrl: import.meta.env.BASE_URL,
    fetch: (url) => fetch(new URL(url, self.location.origin)),
  });

/** Counts configure calls: only the latest one configures the session (an older one may finish its fetch later). */
let configureSeq = 0;

/**
 * The current run's checkpoints and solved matrix for the Checkpoints view (worker memory, bounded; ./checkpoints.ts).
 */
const checkpoints = new CheckpointStore();
/** The distillation stage's teacher pool (its resident teacher is disposed when the stage's run is replaced). */
let teacherPool: CheckpointTeacherPool | null = null;
/** The run being pulled: whether it is a distillation stage, its config and its last step (for teacher rounds). */
const current = { distilling: false, config: null as RunConfig | null, step: 0 };

/** The stored run whose checkpoints the store holds (a distillation stage names it as its source), or null. */
let checkpointsRun: string | null = null;

/**
 * Replaces the distillation stage's teacher pool, disposing the old one's tensors (call after its run was discarded).
 */
function replacePool(next: CheckpointTeacherPool | null): void {
  if (teacherPool !== next) teacherPool?.dispose();
  teacherPool = next;
}

/**
 * Passes each event on after keeping what the Checkpoints view needs: a new run (not a distillation stage, not a
 * resumed run) clears the store; validations add rows of the solved matrix (or, in a distillation stage, the
 * student's validations); checkpoints add their weights.
 */
function keeping(onEvent: (e: TrainEvent) => void): (e: TrainEvent) => void {
  return (e) => {
    if (e.event === 'start') {
      current.distilling = algorithmTraits(e.config.algo).teacherPool;
      current.config = e.config;
      current.step = e.resumedFrom ?? 0;
      if (!current.distilling && e.resumedFrom === undefined) checkpoints.clear();
      if (!current.distilling) checkpointsRun = pageRuns.activeId;
    } else if (e.event === 'step') current.step = e.step;
    else if (e.event === 'validation') {
      if (current.distilling) checkpoints.addDistillValidation(e);
      else if (current.config) checkpoints.addValidation(e, current.config);
    } else if (e.event === 'checkpoint' && !current.distilling) checkpoints.addCheckpoint(e.step, e.weights);
    onEvent(e);
  };
}

/**
 * Configures a distillation stage (algo agentic-opd) from the kept checkpoints: the best-validation one is the
 * student, the others its teachers (./distill.ts). @throws Error saying what is needed (nothing is changed then).
 */
async function configureDistillation(asked: RunConfig): Promise<ConfigureResult> {
  const d = planPageDistillation(checkpoints, asked, (r) => checkpoints.addRound({ ...r, afterStep: current.step }));
  // The stored run whose checkpoints these are, named in the stage's record for Resume.
  const source = checkpointsRun,
    val = checkpoints.valRecord();
  const fromRun = source && val ? await pageFromRun(source, val, d) : undefined;
  await session.configure(d.config, d.initWeights);
  session.setAlgorithmInit(d.algorithmInit);
  // The stage is a run of its own in the stored runs, starting from the student's weights.
  pageRuns.begin(
    {
      kind: 'checkpoint',
      name: `distillation student (step ${d.studentStep})`,
      sha256: await sha256Hex(d.initWeights),
    },
    fromRun,
  );
  replacePool(d.pool);
  checkpoints.startDistill(d.studentStep, d.pool.ids);
  current.step = 0;
  return { config: asked, init: distillationInit(d) };
}

/** Rejects a training call while a pretraining runs (they would share, and slow, the one backend). */
function notPretraining(): void {
  if (pretrainer.status === 'running') throw new Error('pretraining is running; pause or abort it first');
  if (benchRunning()) throw new Error('the benchmark (Bench view) is running; wait for it to finish');
}

/** The exposed API; each method's contract is documented on `TrainerApi`. */
const api: TrainerApi = {
  async init(pref) {
    await session.discard();
    await pretrainer.abort();
    return selectBackend(pref);
  },
  async configure(config, opts) {
    // Validate first, so a bad field is reported before a missing checkpoint or base policy.
    const asked = parseRunConfig(config);
    const seq = ++configureSeq;
    if (algorithmTraits(asked.algo).teacherPool) return configureDistillation(asked);
    const start = await resolveStart(asked, store, loadBase, opts?.initWeights);
    const init = start.bytes ? { ...start.init, sha256: await sha256Hex(start.bytes) } : start.init;
    if (seq === configureSeq) {
      await session.configure(start.config, start.bytes);
      replacePool(null);
      pageRuns.begin({
        kind: init.kind,
        ...(opts?.initWeights ? { name: opts.initWeights } : {}),
        ...(init.sha256 ? { sha256: init.sha256 } : {}),
      });
    }
    return { config: asked, init };
  },
  async start(onEvent, onProgress) {
    notPretraining();
    // The stored run's lock, held while it trains (run-locks.ts); a call already training holds it.
    if (session.status !== 'running') await pageRuns.claim();
    try {
      return await session.start(pageRuns.tap(keeping(onEvent)), onProgress);
    } finally {
      await pageRuns.flush(); // after a pause too, so a reload keeps every step so far
      if (session.status !== 'running') pageRuns.idle(); // paused or ended: another tab may resume it
    }
  },
  async pause() {
    session.pause();
  },
  async stop() {
    const paused = session.status !== 'running';
    if (paused) await pageRuns.claim('stop'); // a paused run: not another tab's since
    if (await session.stop()) await pageRuns.stop();
    else if (paused) pageRuns.idle(); // nothing was ended: the lock claimed goes again
  },
  async stepOnce(onEvent, onProgress) {
    notPretraining();
    if (session.status !== 'running') await pageRuns.claim();
    try {
      return await session.stepOnce(pageRuns.tap(keeping(onEvent)), onProgress);
    } finally {
      await pageRuns.flush();
      if (session.status !== 'running') pageRuns.idle();
    }
  },
  async status() {
    return session.status;
  },
  saveWeights: (name) => saveCurrent(session, store, name),
  listWeights: () => store.list(),
  deleteWeights: (name) => store.delete(name),
  async exportWeights(name) {
    const { bytes } = await loadBytes(store, name);
    return Comlink.transfer(bytes, [bytes.buffer]);
  },
  async pretrain(req, onProgress) {
    if (session.status === 'running') throw new Error('training is running; pause it (or let it finish) first');
    if (benchRunning()) throw new Error('the benchmark (Bench view) is running; wait for it to finish');
    return pretrainer.start(req, onProgress);
  },
  async resumePretrain(onProgress) {
    if (session.status === 'running') throw new Error('training is running; pause it (or let it finish) first');
    return pretrainer.resume(onProgress);
  },
  async pausePretrain() {
    pretrainer.pause();
  },
  abortPretrain: () => pretrainer.abort(),
  async setAnalyzerExtras(extras) {
    session.setAnalyzerExtras(extras);
  },
  ...runsApi({
    session,
    runs: pageRuns,
    runStore,
    weights: store,
    loadBase,
    onReconfigure: () => {
      ++configureSeq;
      viewed = null;
    },
    notPretraining,
    onDeleted: (id) => {
      if (viewed?.run.id === id) viewed = null;
    },
    onDistill: (d) => {
      replacePool(d.pool);
      checkpoints.startDistill(d.studentStep, d.pool.ids);
    },
    distillRound: (r) => checkpoints.addRound({ ...r, afterStep: current.step }),
  }),
  checkpoints: async () => checkpoints.snapshot(),
  async checkDistillation(config) {
    const d = planPageDistillation(
      checkpoints,
      parseRunConfig({ ...config, algo: distillationAlgorithm() }),
      () => undefined,
    );
    d.pool.dispose();
    return { studentStep: d.studentStep, teachers: [...d.pool.ids] };
  },
  testAnalyzer: (req) =>
    testConnection({ baseUrl: req.baseUrl, model: req.model, apiKey: req.apiKey, timeoutMs: req.timeoutMs }),
  bench: (request, onProgress) =>
    runPageBench(
      request,
      session.status === 'running'
        ? 'training is running; pause it (or let it finish) first'
        : pretrainer.status === 'running'
          ? 'pretraining is running; pause or abort it first'
          : null,
      onProgress,
    ),
  async explorerIndex() {
    return { ...(viewed?.store ?? session.trajectories).index(), run: viewed?.run ?? null };
  },
  async explorerGroup(step, group) {
    const src = viewed?.store ?? session.trajectories;
    const g = src.group(step, group);
    const env = viewed?.run.env ?? session.currentConfig?.env;
    if (!g || !env)
      throw new Error(
        `the explorer holds no group ${group} of step ${step} ` +
          `(not stored, or evicted: it keeps the last ${src.bounds.recentSteps} ` +
          `steps and group 0 of every ${SAMPLE_EVERY}th older step)`,
      );
    return explorerGroup(g, explorerTokenizer(env));
  },
  async explorerOpenRun(id) {
    viewed = null;
    if (id !== null) {
      const left = DEFAULT_STORE_BYTES - session.trajectories.bytes;
      if (left <= 0)
        throw new Error(
          `the explorer's ${DEFAULT_STORE_BYTES / 1048576} MiB hold the current run's trajectories; press ` +
            `Reset, then open the stored run`,
        );
      const store = new TrajectoryStore({ maxBytes: left });
      viewed = { run: await loadStoredTrajectories(runStore, id, store), store };
    }
    return api.explorerIndex();
  },
  ...actApi({
    withPolicy: (read) => session.withPolicy(read),
    group: (step, group) => {
      if (viewed)
        throw new Error(
          "Act plays the current run's tasks with its weights; " +
            `the explorer shows the stored run "${viewed.run.name}": ` +
            `press "Show the current run" first`,
        );
      return session.trajectories.group(step, group);
    },
  }),
  playStart: async (request) => playTable.start(request),
  playStep: async (action) => playTable.step(action),
};

Comlink.expose(api);
