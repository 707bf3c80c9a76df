/**
 * Log-probs at a few token ids per action token, for Agentic-OPD's top-k reverse KL (Agentic-OPD 2026,
 * docs/references.md#agentic-opd; math/losses.ts `topKReverseKlLoss`): the student's K most likely tokens at each
 * action position and their log-probs, the teacher's log-probs at those same ids, and, inside the update, the
 * student's differentiable log-probs at them. Every log-prob is of the sampling distribution
 * softmax(logits / T + allowed-mask) in nats, as in ./scoring.ts; only K values per position are kept (never the
 * [M, V] distribution).
 *
 * Layout: per-position arrays are packed sample-major like ./scoring.ts, K entries per action token: entry m·K + j
 * is the j-th id (by descending student log-prob) of packed action token m.
 */
import * as tf from '../tf';
import type { ModelConfig } from './config';
import type { Params } from './params';
import { buildScoreBatch, disposeBatch, type ScoreBatch, type ScoreSample } from './scoring';
import { forward, logits } from './transformer';
import { gatherRows } from './ops';

/**
 * Agentic-OPD's top-k reverse-KL targets (Agentic-OPD 2026, docs/references.md#agentic-opd; math/losses.ts
 * `topKReverseKlLoss`): at each distilled action token, the student's top-K ids (from the pre-update policy) and the
 * frozen teacher's log-probs at them. The update (train/update.ts) adds coef · Σ_{distilled m} KL_m / (distilled
 * tokens of the step / mini-batches) to each mini-batch's loss: the token mean over distilled positions, one divisor
 * for every mini-batch (as aggPlan's token-mean).
 */
export interface TopKTargets {
  /** K ≥ 1: ids per action token. */
  k: number;
  /** [M·K] int32: the student's top-K token ids at packed action token m (entries m·K … m·K + K − 1). */
  ids: Int32Array;
  /** [M·K] float32: the teacher's log-probs (nats) at those ids; any value where gate is 0. */
  teacherLogp: Float32Array;
  /** [M]: 1 on distilled (LAD-gated) action tokens, 0 elsewhere. */
  gate: Uint8Array;
  /** c_opd, the weight of the term (≥ 0). */
  coef: number;
}

/** Samples per no-gradient chunk of `scoreTopK` (bounded memory, as scoring.ts). */
const CHUNK = 32;

/** Log-softmax [M, V] of the sampling distribution at the batch's predicting positions (differentiable w.r.t. `p`). */
function sampleLogSoftmax(p: Params, cfg: ModelConfig, b: ScoreBatch, temperature: number): tf.Tensor2D {
  const { hidden } = forward(p, cfg, b.ids, b.pos);
  const [n, T, d] = hidden.shape;
  const h = gatherRows(tf.reshape(hidden, [n * T, d]) as tf.Tensor2D, b.predIdx); // [M,d]
  const lg = logits(p, h);
  return tf.logSoftmax(tf.add(temperature === 1 ? lg : tf.div(lg, temperature), b.maskAdd)) as tf.Tensor2D;
}

/**
 * The flat index tensor of `ids` into an [M, V] matrix: int32 [M·K], entry m·K + j = m·V + ids[m·K + j]. The caller
 * disposes it; inside a gradient scope, make it outside (the backward pass reads it after the forward scope ends).
 */
export function topKIndex(ids: Int32Array, K: number, V: number): tf.Tensor1D {
  const M = ids.length / K;
  const flat = new Int32Array(ids.length);
  for (let m = 0; m < M; m++) for (let j = 0; j < K; j++) flat[m * K + j] = m * V + ids[m * K + j];
  return tf.tensor1d(flat, 'int32');
}

/** Entries of lsm [M, V] at `index` (from `topKIndex`) → [M, K]; gradient flows to lsm only. */
function gatherAt(lsm: tf.Tensor2D, index: tf.Tensor1D, K: number): tf.Tensor2D {
  const [M, V] = lsm.shape;
  return tf.reshape(gatherRows(tf.reshape(lsm, [M * V, 1]) as tf.Tensor2D, index), [M, K]) as tf.Tensor2D;
}

/**
 * Per-token log-probs, entropies and the log-probs at given ids, from one forward pass (differentiable w.r.t. `p`;
 * call inside a gradient scope). Same numbers as scoring.ts `tokenLogProbs` for logp and entropy.
 * @param index `topKIndex(ids, K, V)` of [Mb·K] token ids, K per action token of the batch (packed like its targets),
 *   made outside the gradient scope.
 * @returns logp [Mb], entropy [Mb] (nats) and top [Mb, K] (nats, normalised over the whole vocabulary).
 * @throws Error when ids.length ≠ Mb·K.
 */
export function tokenLogProbsAt(
  p: Params,
  cfg: ModelConfig,
  b: ScoreBatch,
  temperature: number,
  index: tf.Tensor1D,
  K: number,
): { logp: tf.Tensor1D; entropy: tf.Tensor1D; top: tf.Tensor2D } {
  const M = b.targets.shape[0];
  if (index.shape[0] !== M * K)
    throw new Error(`tokenLogProbsAt: ${index.shape[0]} ids for ${M} action tokens × K ${K}`);
  const lsm = sampleLogSoftmax(p, cfg, b, temperature);
  const oh = tf.oneHot(b.targets, cfg.vocabSize);
  const logp = tf.sum(tf.mul(lsm, oh), 1) as tf.Tensor1D;
  const entropy = tf.neg(tf.sum(tf.mul(tf.exp(lsm), lsm), 1)) as tf.Tensor1D;
  return { logp, entropy, top: gatherAt(lsm, index, K) };
}

/**
 * Without gradient, in chunks of samples: at every action token, either the policy's own K most likely ids and their
 * log-probs (`ids` absent: the student's top K, ties broken by tf.topk), or its log-probs at the given ids (`ids`
 * present: the teacher at the student's top K).
 * @param ids [M·K] int32 (M = Σ response lengths of `samples`), or undefined.
 * @returns ids [M·K] int32, logp [M·K] float32 (nats) and tokens pushed through the model.
 * @throws Error when K is not an integer in [1, V], `ids` has the wrong length, or from buildScoreBatch.
 */
export async function scoreTopK(
  p: Params,
  cfg: ModelConfig,
  samples: readonly ScoreSample[],
  freeRow: Float32Array,
  o: { temperature: number; k: number; ids?: Int32Array },
): Promise<{ ids: Int32Array; logp: Float32Array; tokens: number }> {
  const K = o.k;
  if (!Number.isInteger(K) || K < 1 || K > cfg.vocabSize)
    throw new Error(`scoreTopK: K must be an integer in [1, ${cfg.vocabSize}], got ${K}`);
  const M = samples.reduce((n, s) => n + s.response.length, 0);
  if (o.ids && o.ids.length !== M * K)
    throw new Error(`scoreTopK: ${o.ids.length} ids for ${M} action tokens × K ${K}`);
  const ids = o.ids ? o.ids : new Int32Array(M * K);
  const logp = new Float32Array(M * K);
  let off = 0,
    tokens = 0;
  for (let i = 0; i < samples.length; i += CHUNK) {
    const chunk = samples.slice(i, i + CHUNK);
    const b = buildScoreBatch(chunk, cfg, freeRow);
    const Mc = chunk.reduce((n, s) => n + s.response.length, 0);
    const given = o.ids ? o.ids.subarray(off * K, (off + Mc) * K) : null;
    const r = tf.tidy(() => {
      const lsm = sampleLogSoftmax(p, cfg, b, o.temperature);
      if (given) return [gatherAt(lsm, topKIndex(given, K, cfg.vocabSize), K)];
      const t = tf.topk(lsm, K);
      return [t.values, t.indices];
    });
    logp.set((await r[0].data()) as Float32Array, off * K);
    if (r.length > 1) ids.set((await r[1].data()) as Int32Array, off * K);
    tf.dispose(r);
    tokens += b.tokens;
    disposeBatch(b);
    off += Mc;
  }
  return { ids, logp, tokens };
}

/**
 * The ids a teacher reads per action token: the student's top K (`ids`, [M·K] int32 as `scoreTopK` returns them)
 * followed by the sampled token, K + 1 per position ([M·(K + 1)] int32, packed like `samples`' responses), so one
 * teacher pass gives both the top-k targets and the sampled token's log-prob.
 * @throws Error when ids.length ≠ M·K for M = Σ response lengths of `samples`.
 */
export function idsWithSampled(
  ids: Int32Array,
  samples: readonly { response: readonly number[] }[],
  K: number,
): Int32Array {
  const M = samples.reduce((n, s) => n + s.response.length, 0);
  if (ids.length !== M * K) throw new Error(`idsWithSampled: ${ids.length} ids for ${M} action tokens × K ${K}`);
  const plus = new Int32Array(M * (K + 1));
  let m = 0;
  for (const s of samples)
    for (const tok of s.response) {
      plus.set(ids.subarray(m * K, (m + 1) * K), m * (K + 1));
      plus[m * (K + 1) + K] = tok;
      m++;
    }
  return plus;
}
