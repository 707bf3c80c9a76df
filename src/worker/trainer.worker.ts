/**
 * The training worker: exposes `TrainerApi` (src/worker/api.ts) through Comlink. All tfjs work of the page
 * happens here, never on the main thread. One worker = one tfjs backend; the page makes a new worker to
 * switch backends.
 */
import * as Comlink from 'comlink';
import * as tf from '@tensorflow/tfjs-core';
import { selectBackend } from './backend';
import { TrainingSession } from './session';
import { train } from '../core/train/trainer';
import { parseRunConfig } from '../core/run/config';
import { deleteWeights, getWeights, listWeights, putWeights } from './persist';
import { initWeightsFor, loadBytes, saveCurrent, type WeightsStore } from './weights';
import type { TrainerApi } from './api';

const session = new TrainingSession(train, () => tf.getBackend());
const store: WeightsStore = { put: putWeights, get: getWeights, list: listWeights, delete: deleteWeights };

/** The exposed API; each method's contract is documented on `TrainerApi`. */
const api: TrainerApi = {
  async init(pref) {
    await session.discard();
    return selectBackend(pref);
  },
  async configure(config, opts) {
    // Validate first, so a bad field is reported before a missing checkpoint.
    const init = opts?.initWeights ? await initWeightsFor(store, opts.initWeights, parseRunConfig(config)) : undefined;
    return session.configure(config, init);
  },
  start: (onEvent) => session.start(onEvent),
  async pause() {
    session.pause();
  },
  stepOnce: (onEvent) => session.stepOnce(onEvent),
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
};

Comlink.expose(api);
