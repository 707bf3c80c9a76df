/**
 * Resumable training checkpoints. A checkpoint at step k is two byte arrays (the CLI writes them into the run
 * directory, core/run/record.ts documents the directory):
 *
 * - **weights** (`ckpt-<k>.safetensors`): exactly `model/policy.ts` `savePolicy`'s format, so `loadPolicy`,
 *   `eval --policy` and `train --init` read it; extra metadata `kind: "checkpoint"`, `step`, `seed`, `historyTurns`.
 * - **state** (`ckpt-<k>.state`, safetensors bytes too, F32 tensors): what resuming needs besides the weights.
 *   Tensors: `optimizer/m/<param>` and `optimizer/v/<param>` (Adam's first and second moments, each of its
 *   parameter's shape), `optimizer/accBeta1` and `optimizer/accBeta2` (shape [], β₁ᵗ and β₂ᵗ as Adam
 *   accumulated
 *   them; tfjs' `setWeights` would recompute them as pow(β, t+1), which can differ in the last bit), and
 *   `reference/<param>` (the frozen reference policy, the initial weights). Metadata (strings): `format:
 *   "opd-playground-train-state"`, `stateVersion: "1"`, `step`, `seed`, `envVersions` (JSON), `adamIterations`
 *   (tfjs' iteration counter), `adamOrder` (JSON array of parameter names: the order of Adam's accumulators, which
 *   tfjs indexes by position), `algoState` (the algorithm's `saveState()`, absent for stateless ones), `best`
 *   (JSON `{step, score, splits}` of the best evaluation so far, core/train/best.ts, absent before any), `undoneSteps`,
 *   `shrunkSteps`.
 *
 * The state file is a sibling, not extra tensors in the weights file, because `loadPolicy` refuses tensors that are
 * not parameters. Restoring weights + Adam state + reference + algorithm state is enough to continue bit for bit:
 * every random draw is forked from `Rng(seed)` by purpose and step (core/rng.ts), never carried across steps.
 */
import { z } from 'zod';
import * as tf from '../tf';
import { decodeSafetensors, encodeTensors, type NamedF32 } from '../model/io';
import type { Params } from '../model/params';
import { counted } from '../count-text';

/** `format` metadata of a state file. */
export const TRAIN_STATE_FORMAT = 'opd-playground-train-state';
/** `stateVersion` metadata this code writes and reads. */
export const TRAIN_STATE_VERSION = 1;

/** The best evaluation so far (core/train/best.ts BestEval's fields). */
export interface BestState {
  step: number;
  /** Mean success over the evaluated splits, in [0, 1]. */
  score: number;
  /** Success rate per split, in [0, 1]. */
  splits: Record<string, number>;
}

/** Adam's state in plain arrays. Moments are float32, one per parameter, of that parameter's shape. */
export interface AdamState {
  /** tfjs' iteration counter (updates applied). */
  iterations: number;
  /** Parameter names in the order of Adam's accumulators. */
  order: string[];
  m: Map<string, Float32Array>;
  v: Map<string, Float32Array>;
  /** β₁ᵗ and β₂ᵗ as float32 values. */
  accBeta1: number;
  accBeta2: number;
}

/** Everything a state file holds (see the module comment). */
export interface TrainState {
  /** The last completed step (≥ 0). */
  step: number;
  seed: number;
  envVersions: Record<string, string>;
  adam: AdamState;
  /** Reference-policy values by parameter name (float32, parameter shapes). */
  reference: Map<string, Float32Array>;
  /** The algorithm's saved state, or null when it keeps none. */
  algoState: string | null;
  best: BestState | null;
  undoneSteps: number;
  shrunkSteps: number;
}

interface AdamInternals {
  accBeta1: tf.Variable;
  accBeta2: tf.Variable;
  accumulatedFirstMoment: unknown[];
}

function adamInternals(opt: tf.Optimizer): AdamInternals {
  const s = opt as unknown as AdamInternals;
  if (!Array.isArray(s.accumulatedFirstMoment) || !s.accBeta1 || !s.accBeta2)
    throw new Error('checkpoint: the optimizer is not tfjs Adam');
  return s;
}

/**
 * Read Adam's state through tfjs' `getWeights()` (iteration counter, then first moments, then second moments, named
 * `<variable name>/m|v`) plus its β powers. @throws Error if `opt` is not tfjs Adam or an accumulator belongs to no
 * parameter of `params`.
 */
export async function captureAdam(opt: tf.Optimizer, params: Params): Promise<AdamState> {
  const s = adamInternals(opt);
  const keyOf = new Map(Object.entries(params).map(([k, v]) => [(v as tf.Variable).name, k]));
  const w = await opt.getWeights();
  try {
    const iterations = (await w[0].tensor.data())[0];
    const rest = w.slice(1);
    const n = rest.length / 2;
    const order: string[] = [];
    const m = new Map<string, Float32Array>(),
      v = new Map<string, Float32Array>();
    for (let i = 0; i < n; i++) {
      const key = keyOf.get(rest[i].name.replace(/\/m$/, ''));
      if (key === undefined)
        throw new Error(`checkpoint: Adam accumulator ${rest[i].name} belongs to no policy parameter`);
      order.push(key);
      m.set(key, Float32Array.from((await rest[i].tensor.data()) as Float32Array));
      v.set(key, Float32Array.from((await rest[n + i].tensor.data()) as Float32Array));
    }
    const accBeta1 = (await s.accBeta1.data())[0],
      accBeta2 = (await s.accBeta2.data())[0];
    return { iterations, order, m, v, accBeta1, accBeta2 };
  } finally {
    w[0].tensor.dispose(); // saveIterations made a new scalar; the moments are Adam's own variables
  }
}

/**
 * Put Adam's state back into a fresh tfjs Adam optimizer (one that has applied no update) through `setWeights`, then
 * set its β powers to the saved values. @throws Error if a parameter in `a.order` is not in `params` or a moment's
 * length differs from its parameter's size.
 */
export async function restoreAdam(opt: tf.Optimizer, params: Params, a: AdamState): Promise<void> {
  const s = adamInternals(opt);
  if (s.accumulatedFirstMoment.length)
    throw new Error('checkpoint: restoreAdam needs an optimizer that has applied no update');
  const made: tf.Tensor[] = [];
  const tensorOf = (key: string, data: Float32Array | undefined, which: string) => {
    if (!Object.hasOwn(params, key))
      throw new Error(`checkpoint: Adam state names parameter ${key}, which the model does not have`);
    const p = params[key];
    if (!data || data.length !== p.size)
      throw new Error(
        `checkpoint: Adam ${which} of ${key} has ${data ? counted(data.length, 'value') : 'no values'}, ` +
          `expected ${p.size}`,
      );
    const t = tf.tensor(data, p.shape, 'float32');
    made.push(t);
    return { name: `${(p as tf.Variable).name}/${which}`, tensor: t };
  };
  try {
    const iter = tf.scalar(a.iterations, 'int32');
    made.push(iter);
    const list = [
      { name: 'iter', tensor: iter },
      ...a.order.map((k) => tensorOf(k, a.m.get(k), 'm')),
      ...a.order.map((k) => tensorOf(k, a.v.get(k), 'v')),
    ];
    await opt.setWeights(list);
    tf.tidy(() => {
      s.accBeta1.assign(tf.scalar(a.accBeta1));
      s.accBeta2.assign(tf.scalar(a.accBeta2));
    });
  } finally {
    tf.dispose(made); // the optimizer's variables hold their own references
  }
}

/** Serialise a TrainState as a state file (module comment). `shapes` gives each parameter's shape. */
export function encodeTrainState(st: TrainState, shapes: ReadonlyMap<string, number[]>): Uint8Array {
  const shapeOf = (k: string) => {
    const s = shapes.get(k);
    if (!s) throw new Error(`encodeTrainState: no shape for parameter ${k}`);
    return s;
  };
  const tensors: NamedF32[] = [
    ...st.adam.order.map((k) => ({ name: `optimizer/m/${k}`, shape: shapeOf(k), data: st.adam.m.get(k)! })),
    ...st.adam.order.map((k) => ({ name: `optimizer/v/${k}`, shape: shapeOf(k), data: st.adam.v.get(k)! })),
    { name: 'optimizer/accBeta1', shape: [], data: Float32Array.of(st.adam.accBeta1) },
    { name: 'optimizer/accBeta2', shape: [], data: Float32Array.of(st.adam.accBeta2) },
    ...[...st.reference].map(([k, data]) => ({ name: `reference/${k}`, shape: shapeOf(k), data })),
  ];
  const meta: Record<string, string> = {
    format: TRAIN_STATE_FORMAT,
    stateVersion: String(TRAIN_STATE_VERSION),
    step: String(st.step),
    seed: String(st.seed),
    envVersions: JSON.stringify(st.envVersions),
    adamIterations: String(st.adam.iterations),
    adamOrder: JSON.stringify(st.adam.order),
    undoneSteps: String(st.undoneSteps),
    shrunkSteps: String(st.shrunkSteps),
    ...(st.algoState !== null ? { algoState: st.algoState } : {}),
    ...(st.best ? { best: JSON.stringify(st.best) } : {}),
  };
  return encodeTensors(tensors, meta);
}

const Nat = z.coerce.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);
const StateMeta = z.object({
  format: z.literal(TRAIN_STATE_FORMAT),
  stateVersion: z.literal(String(TRAIN_STATE_VERSION)),
  step: Nat,
  seed: z.coerce.number().int(),
  adamIterations: Nat,
  undoneSteps: Nat,
  shrunkSteps: Nat,
  envVersions: z.string(),
  adamOrder: z.string(),
  algoState: z.string().optional(),
  best: z.string().optional(),
});
const BestSchema = z.object({ step: Nat, score: z.number(), splits: z.record(z.string(), z.number()) });

/** Own property `k` of a metadata record (never an inherited one). */
const own = (o: Record<string, string>, k: string): string | undefined => (Object.hasOwn(o, k) ? o[k] : undefined);

/**
 * Parse a state file. @throws Error naming what is wrong (not safetensors, another format or version, a bad or
 * missing metadata field, a missing tensor) — "the checkpoint is corrupt" and which file to use instead is the
 * caller's to add.
 */
export function decodeTrainState(bytes: Uint8Array): TrainState {
  const w = decodeSafetensors(bytes);
  const raw: Record<string, unknown> = {};
  for (const k of [
    'format',
    'stateVersion',
    'step',
    'seed',
    'adamIterations',
    'undoneSteps',
    'shrunkSteps',
    'envVersions',
    'adamOrder',
    'algoState',
    'best',
  ])
    raw[k] = own(w.meta, k);
  const r = StateMeta.safeParse(raw);
  if (!r.success) {
    const i = r.error.issues[0];
    throw new Error(
      `state file: metadata ${String(i.path[0])}: ${i.message} ` +
        `(format ${TRAIN_STATE_FORMAT} version ${TRAIN_STATE_VERSION} expected)`,
    );
  }
  const m = r.data;
  const json = (s: string, what: string): unknown => {
    try {
      return JSON.parse(s);
    } catch {
      throw new Error(`state file: metadata ${what} is not JSON`);
    }
  };
  const order = z.array(z.string()).safeParse(json(m.adamOrder, 'adamOrder'));
  if (!order.success) throw new Error('state file: metadata adamOrder must be a JSON array of parameter names');
  const env = z.record(z.string(), z.string()).safeParse(json(m.envVersions, 'envVersions'));
  if (!env.success) throw new Error('state file: metadata envVersions must be a JSON object {env: version}');
  let best: BestState | null = null;
  if (m.best !== undefined) {
    const b = BestSchema.safeParse(json(m.best, 'best'));
    if (!b.success) throw new Error('state file: metadata best must be JSON {step, score, splits}');
    best = b.data;
  }
  const tensor = (name: string): Float32Array => {
    const v = w.values.get(name);
    if (!v) throw new Error(`state file: missing tensor ${name}`);
    return v;
  };
  const mm = new Map<string, Float32Array>(),
    vv = new Map<string, Float32Array>();
  for (const k of order.data) {
    mm.set(k, tensor(`optimizer/m/${k}`));
    vv.set(k, tensor(`optimizer/v/${k}`));
  }
  const reference = new Map<string, Float32Array>();
  for (const name of w.values.keys())
    if (name.startsWith('reference/')) reference.set(name.slice('reference/'.length), w.values.get(name)!);
  if (!reference.size) throw new Error('state file: no reference/<param> tensors');
  return {
    step: m.step,
    seed: m.seed,
    envVersions: env.data,
    adam: {
      iterations: m.adamIterations,
      order: order.data,
      m: mm,
      v: vv,
      accBeta1: tensor('optimizer/accBeta1')[0],
      accBeta2: tensor('optimizer/accBeta2')[0],
    },
    reference,
    algoState: m.algoState ?? null,
    best,
    undoneSteps: m.undoneSteps,
    shrunkSteps: m.shrunkSteps,
  };
}
