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
import { deleteWeights, getWeights, listWeights, putWeights } from './persist';
import { loadBytes, resolveStart, saveCurrent, type BaseLoader, type WeightsStore } from './weights';
import { fetchBasePolicy } from './base';
import { testConnection } from '../core/analyzer/http';
import type { TrainerApi } from './api';

const session = new TrainingSession(train, () => tf.getBackend());
const store: WeightsStore = { put: putWeights, get: getWeights, list: listWeights, delete: deleteWeights };
const pretrainer = new PretrainSession(store);
/** The shipped base policy from the site root (`public/base/…`; BASE_URL is `/` unless the site is built for a sub-path). */
const loadBase: BaseLoader = (spec, preset, tok, model) =>
  fetchBasePolicy(spec, preset, tok, model, { baseUrl: import.meta.env.BASE_URL, fetch: (url) => fetch(new URL(url, self.location.origin)) });

/** Counts configure calls: only the latest one configures the session (an older one may finish its fetch later). */
let configureSeq = 0;

/** Rejects a training call while a pretraining runs (they would share, and slow, the one backend). */
function notPretraining(): void {
  if (pretrainer.status === 'running') throw new Error('pretraining is running; pause or abort it first');
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
    const start = await resolveStart(asked, store, loadBase, opts?.initWeights);
    if (seq === configureSeq) await session.configure(start.config, start.bytes);
    return { config: asked, init: start.init };
  },
  async start(onEvent) {
    notPretraining();
    return session.start(onEvent);
  },
  async pause() {
    session.pause();
  },
  async stepOnce(onEvent) {
    notPretraining();
    return session.stepOnce(onEvent);
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
  testAnalyzer: (req) => testConnection({ baseUrl: req.baseUrl, model: req.model, apiKey: req.apiKey, timeoutMs: req.timeoutMs }),
};

Comlink.expose(api);
