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
import type { TrainerApi } from './api';

const session = new TrainingSession(train, () => tf.getBackend());

/** The exposed API; each method's contract is documented on `TrainerApi`. */
const api: TrainerApi = {
  async init(pref) {
    await session.discard();
    return selectBackend(pref);
  },
  configure: (config) => session.configure(config),
  start: (onEvent) => session.start(onEvent),
  async pause() {
    session.pause();
  },
  stepOnce: (onEvent) => session.stepOnce(onEvent),
  async status() {
    return session.status;
  },
};

Comlink.expose(api);
