/**
 * Saving, listing and loading checkpoints in the worker.
 * The store is passed in (IndexedDB in the worker, a Map in tests), so this runs in Node too. The bytes are the
 * safetensors file the CLI writes, with the same metadata, so an exported checkpoint works with
 * `npm run eval -- --policy file.safetensors` and `npm run train -- --init file.safetensors` reads the same format.
 */
import { getEnvSpec } from '../core/envs/registry';
import type { EnvSpec } from '../core/envs/types';
import type { RunConfig } from '../core/run/config';
import type { Tokenizer } from '../core/tokenizer/tokenizer';
import { buildTokenizer, envVersionMismatch, savePolicy } from '../core/model/policy';
import { decodeSafetensors } from '../core/model/io';
import type { StoredWeights } from './persist';
import type { TrainingSession } from './session';
import type { InitSource, WeightsInfo } from './api';
import type { BasePolicy } from './base';
import { baseLabel, scratchLabel } from './init-labels';
import { startKind } from '../core/pretrain/base';

/** Where checkpoints live; `src/worker/persist.ts` implements it on IndexedDB. */
export interface WeightsStore {
  put(w: StoredWeights): Promise<void>;
  get(name: string): Promise<StoredWeights | undefined>;
  /** Without the bytes, newest first. */
  list(): Promise<WeightsInfo[]>;
  delete(name: string): Promise<void>;
}

/** Longest accepted checkpoint name (it becomes a file name on download). */
export const MAX_NAME_LENGTH = 120;

/** The trimmed name. @throws Error when it is empty or longer than MAX_NAME_LENGTH. */
export function checkName(name: string): string {
  const n = name.trim();
  if (!n) throw new Error('the checkpoint name is empty; type a name');
  if (n.length > MAX_NAME_LENGTH)
    throw new Error(`the checkpoint name has ${n.length} characters; use at most ${MAX_NAME_LENGTH}`);
  return n;
}

/**
 * Serialises the live policy of the `TrainingSession` (between updates) and stores it under `name`, replacing any
 * checkpoint of that name. Metadata: model size, vocabulary hash, env version, plus env, preset, seed and step.
 * @throws Error from `TrainingSession.withPolicy` (no run, running, released) or from the store.
 */
export async function saveCurrent(session: TrainingSession, store: WeightsStore, name: string): Promise<WeightsInfo> {
  const n = checkName(name);
  const { bytes, modelSize } = await session.withPolicy(async ({ policy, config, step }) => ({
    modelSize: config.model,
    bytes: await savePolicy(
      policy,
      config.model,
      { [config.env]: getEnvSpec(config.env).version },
      {
        env: config.env,
        preset: config.preset,
        seed: String(config.seed),
        step: String(step),
        savedBy: 'opd-playground page',
      },
    ),
  }));
  const w: StoredWeights = { name: n, bytes, modelSize, savedAt: Date.now() };
  await store.put(w);
  return { name: w.name, modelSize: w.modelSize, savedAt: w.savedAt };
}

/** A stored checkpoint's bytes. @throws Error naming the checkpoint when it does not exist. */
export async function loadBytes(store: WeightsStore, name: string): Promise<StoredWeights> {
  const w = await store.get(name);
  if (!w)
    throw new Error(
      `no saved weights named "${name}" (deleted, or saved in another browser profile); pick one from the Weights list`,
    );
  return w;
}

/**
 * The bytes of checkpoint `name` to start a run with `config` from.
 * @throws Error when it does not exist, or was saved from another model size (naming both and the fix).
 */
export async function initWeightsFor(store: WeightsStore, name: string, config: RunConfig): Promise<Uint8Array> {
  const w = await loadBytes(store, name);
  if (w.modelSize !== config.model) {
    throw new Error(
      `weights "${name}" are model size ${w.modelSize} but the run's model is ${config.model}; set Model ` +
        `to ${w.modelSize} or clear "Start from"`,
    );
  }
  return w.bytes;
}

/** Fetches and checks a base policy (`fetchBasePolicy` bound to a fetch and site root). */
export type BaseLoader = (spec: EnvSpec, preset: string, tok: Tokenizer, model: string) => Promise<BasePolicy>;

/** A run's starting point: the config to train (its `init` is `scratch` after a fallback), the bytes, and in words. */
export interface RunStart {
  /** The config to hand the trainer; equal to the asked one except `init: 'scratch'` after a base fallback. */
  config: RunConfig;
  /** Initial weights (safetensors); undefined = fresh init from the seed. */
  bytes?: Uint8Array;
  init: InitSource;
}

/**
 * Where a run with `config` starts: stored checkpoint `checkpoint` when given (it overrides
 * `config.init`), else the base policy when `config.init` is `base`, else a fresh seeded init. A base policy that
 * cannot be used (missing, corrupt, another vocabulary, env version or model size — anything `loadBase` throws)
 * never fails the run: it starts from scratch and `init.fallback` says why, in one sentence.
 * @throws Error from `initWeightsFor` when the checkpoint does not exist or has another model size.
 */
export async function resolveStart(
  config: RunConfig,
  store: WeightsStore,
  loadBase: BaseLoader,
  checkpoint?: string,
): Promise<RunStart> {
  const kind = startKind(config.init, !!checkpoint);
  if (kind === 'weights' && checkpoint) {
    const bytes = await initWeightsFor(store, checkpoint, config);
    let warning: string | undefined;
    try {
      warning = envVersionMismatch(decodeSafetensors(bytes).meta, getEnvSpec(config.env))?.message;
    } catch {
      // A corrupt file is reported by the run's own load, with the tensor and the rule.
    }
    return {
      config,
      bytes,
      init: {
        kind: 'checkpoint',
        label: `checkpoint "${checkpoint}"`,
        ...(warning ? { warning: `Checkpoint "${checkpoint}" was ${warning}.` } : {}),
      },
    };
  }
  const scratch = { kind: 'scratch' as const, label: scratchLabel(config.seed) };
  if (kind === 'scratch') return { config, init: scratch };
  const spec = getEnvSpec(config.env);
  try {
    const base = await loadBase(spec, config.preset, buildTokenizer(spec), config.model);
    const m = base.manifest;
    return { config, bytes: base.bytes, init: { kind: 'base', label: baseLabel(m.env, m.preset, m.model) } };
  } catch (e) {
    const why = (e instanceof Error ? e.message : String(e)).replace(/\.$/, '');
    return { config: { ...config, init: 'scratch' }, init: { ...scratch, fallback: `Starting from scratch: ${why}.` } };
  }
}
