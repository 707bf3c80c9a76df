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

/** A stored checkpoint as listed (no bytes). */
export interface WeightsInfo {
  /** Unique name (saving under an existing name replaces it). */
  name: string;
  /** Model size it was saved from, e.g. `nano`; a run must use the same size to start from it. */
  modelSize: string;
  /** When it was saved (ms since the epoch). */
  savedAt: number;
}

/** Options of `TrainerApi.configure`. */
export interface ConfigureOptions {
  /** Name of a stored checkpoint to start the run from instead of a fresh init; omitted = fresh init. */
  initWeights?: string;
}

/** The Comlink-exposed API. Every method resolves after the worker has acted; errors reject with a message. */
export interface TrainerApi {
  /** Initialise tfjs on the preferred backend (falls back in order); resolves with what was chosen. */
  init(pref: BackendPref): Promise<BackendInfo>;
  /**
   * Validate and load a config, discarding any run (and its policy); the next start/step begins a new run,
   * from the stored checkpoint `opts.initWeights` when given. Rejects with a ConfigError message naming fields,
   * or when that checkpoint does not exist or has another model size than `config.model`. A checkpoint of
   * another vocabulary or corrupt bytes are reported by the first start/step.
   */
  configure(config: Partial<RunConfig>, opts?: ConfigureOptions): Promise<RunConfig>;
  /** Run until all steps are done or `pause()` is called; each event is passed to `onEvent` (a Comlink proxy). */
  start(onEvent: (e: TrainEvent) => void): Promise<TrainerStatus>;
  /** Ask a running `start` to stop after the current step. */
  pause(): Promise<void>;
  /** Run exactly one more update (and any eval due), passing its events to `onEvent`. */
  stepOnce(onEvent: (e: TrainEvent) => void): Promise<TrainerStatus>;
  /** Current status. */
  status(): Promise<TrainerStatus>;
  /**
   * Store the current run's policy (after its latest whole update; a finished run's too) in IndexedDB under
   * `name` (trimmed), replacing a checkpoint of that name. Rejects, saying why, when no run is configured, none
   * has started, training is running (pause first), the run failed, the name is empty, or storage fails.
   */
  saveWeights(name: string): Promise<WeightsInfo>;
  /** Stored checkpoints, newest first. */
  listWeights(): Promise<WeightsInfo[]>;
  /** Delete a stored checkpoint (no error if it is absent). */
  deleteWeights(name: string): Promise<void>;
  /**
   * A stored checkpoint's safetensors bytes (transferred, not copied), to download as a `.safetensors` file that
   * `npm run eval -- --policy FILE` and `npm run train -- --init FILE` read. Rejects naming it if absent.
   */
  exportWeights(name: string): Promise<Uint8Array>;
}
