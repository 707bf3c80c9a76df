/**
 * The one interface the training worker exposes through Comlink (STYLE.md habit 8: a narrow worker
 * boundary). The page only ever talks to the worker through this type; snapshots cross it, never proxies
 * of reactive state. Shared by src/worker/trainer.worker.ts (implementation) and src/ui (caller).
 */
import type { RunConfig } from '../core/run/config';
import type { TrainEvent } from '../core/train/events';

/** A backend the user may force, or `auto` (webgpu → webgl → wasm → cpu). */
export type BackendPref = 'auto' | 'webgpu' | 'webgl' | 'wasm' | 'cpu';

/** Which tfjs backend the worker runs on and why. */
export interface BackendInfo {
  /** The backend actually in use: webgpu | webgl | wasm | cpu. */
  backend: string;
  /** Adapter / renderer description when known (WebGPU adapter info, WebGL renderer), else ''. */
  adapter: string;
  /** Each backend tried before the one in use and why it was skipped; empty when the first choice worked. */
  fallbacks: { backend: string; reason: string }[];
}

/** Worker-side training state, as a snapshot. */
export type TrainerStatus = 'idle' | 'running' | 'paused' | 'done' | 'error';

/** The Comlink-exposed API. Every method resolves after the worker has acted; errors reject with a message. */
export interface TrainerApi {
  /** Initialise tfjs on the preferred backend (falls back in order); resolves with what was chosen. */
  init(pref: BackendPref): Promise<BackendInfo>;
  /** Validate and load a config; builds env, tokenizer and model. Rejects with a ConfigError message naming fields. */
  configure(config: Partial<RunConfig>): Promise<RunConfig>;
  /** Run until all steps are done or `pause()` is called; each event is passed to `onEvent` (a Comlink proxy). */
  start(onEvent: (e: TrainEvent) => void): Promise<TrainerStatus>;
  /** Ask a running `start` to stop after the current step. */
  pause(): Promise<void>;
  /** Run exactly one more update (and any eval due), passing its events to `onEvent`. */
  stepOnce(onEvent: (e: TrainEvent) => void): Promise<TrainerStatus>;
  /** Current status. */
  status(): Promise<TrainerStatus>;
}
