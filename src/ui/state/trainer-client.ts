/**
 * Starts the training worker and wraps it with Comlink (the page's only way to train: ui → worker → core,
 * docs/architecture.md).
 */
import * as Comlink from 'comlink';
import type { TrainerApi } from '../../worker/api';

/** A live worker and its typed remote API. */
export interface TrainerHandle {
  /** The worker's `TrainerApi`; every call is async and rejects with the worker's error message. */
  api: Comlink.Remote<TrainerApi>;
  /** Releases the Comlink proxy and terminates the worker (any training in it stops at once). */
  dispose(): void;
}

/**
 * Spawns a fresh training worker.
 * @param onCrash called with a message if the worker fails to load or throws outside a call.
 */
export function spawnTrainer(onCrash: (message: string) => void): TrainerHandle {
  const worker = new Worker(new URL('../../worker/trainer.worker.ts', import.meta.url), {
    type: 'module',
    name: 'opd-trainer',
  });
  worker.addEventListener('error', (e) => onCrash(`training worker failed: ${e.message || 'could not load'}`));
  worker.addEventListener('messageerror', () => onCrash('training worker sent a message that could not be read'));
  const api = Comlink.wrap<TrainerApi>(worker);
  return {
    api,
    dispose() {
      api[Comlink.releaseProxy]();
      worker.terminate();
    },
  };
}
