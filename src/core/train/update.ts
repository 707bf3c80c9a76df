/**
 * One PPO-style update over a step's samples (PPO, Schulman et al. 2017): the samples are shuffled with the
 * run's generator and split into `miniBatches`; each mini-batch takes one Adam step on
 *   L = agg(PPO-clip(ℓ, ℓ_old, A)) + β·agg(k3(ℓ, ℓ_ref)),
 * with token-mean aggregation whose divisor (total action tokens / miniBatches) is the same for every
 * mini-batch, and the global grad norm clipped to `maxGradNorm`.
 * With `topK` targets (Agentic-OPD's opdTopK > 0) each mini-batch's loss also gets coef × the token mean over
 * distilled tokens of the top-K reverse KL (`TopKTargets`), from the same forward pass.
 *
 * Target KL (Stable-Baselines3's `target_kl`): before a mini-batch's gradient is applied, its approximate
 * KL(π_old ‖ π) (token mean, `approxKlOld`) is measured; above 1.5·targetKl the step's remaining mini-batches and
 * epochs are skipped. The first mini-batch of a step always applies (there π = π_old).
 */
import * as tf from '../tf';
import type { Rng } from '../rng';
import { activationScale, type ModelConfig } from '../model/config';
import type { Params } from '../model/params';
import { buildScoreBatch, disposeBatch, tokenLogProbs, type ScoreSample } from '../model/scoring';
import { accumulate, applyClipped, microBatches } from '../optim/gradients';
import { checkCancelled, type CancelSignal } from '../cancel';
import {
  aggLoss,
  aggPlan,
  aggWeights,
  approxKlOld,
  klK3,
  ppoClipLoss,
  topKReverseKlLoss,
  type AggMode,
  type AggPlan,
} from '../math/losses';
import { tokenLogProbsAt, topKIndex, type TopKTargets } from '../model/topk';
import { NonFiniteError } from './finite';

/** Packed per-token inputs of an update: every vector is float32 [M], sample-major (see model/scoring). */
export interface UpdateInputs {
  samples: readonly ScoreSample[];
  /** Advantage per action token. */
  adv: Float32Array;
  /** Old-policy log-probs (nats). */
  oldLogp: Float32Array;
  /** Reference-policy log-probs (nats); null when β = 0 (no KL term, and the kl metric is not measured here). */
  refLogp: Float32Array | null;
  /** Free-decoding additive mask [V] (model/scoring.freeMaskRow). */
  freeRow: Float32Array;
  /** Agentic-OPD's top-k reverse-KL term; absent (or no distilled token) = none, and the update is PPO's alone. */
  topK?: TopKTargets;
}

/** Hyper-parameters of the update (subset of RunConfig). */
export interface UpdateOptions {
  miniBatches: number;
  ppoEpochs: number;
  clipEps: number;
  dualClip: number;
  /** DAPO clip-higher ε_high (0 or absent = clipEps). */
  clipEpsHigh?: number;
  /** Entropy bonus coefficient (0 or absent = none). */
  entropyCoef?: number;
  klBeta: number;
  maxGradNorm: number;
  /** Rollout temperature T (default 1): current log-probs are of softmax(logits / T + mask), as sampled. */
  temperature?: number;
  /** Aggregation mode (default token-mean; math/losses.ts aggPlan). */
  lossAgg?: AggMode;
  /** L_max (tokens) for `seq-mean-token-sum-norm` (default 12, RunConfig.maxActionTokens). */
  maxActionTokens?: number;
  /**
   * Target KL (nats): stop the step's update once a mini-batch's approximate KL(π_old ‖ π) exceeds 1.5× this. 0 or
   * absent = never.
   */
  targetKl?: number;
  /**
   * Max padded tokens (rows × longest row) per micro-batch; bounds memory (wasm heap). Default 16384 /
   * activationScale(cfg).
   */
  microBatchTokens?: number;
}

/**
 * Padded tokens per micro-batch for nano (divided by activationScale for larger models, at least 1024). Smaller
 * micro-batches pad less (each is sorted by length) and stay in cache: on wasm, 2048 made an ALFWorld-like update ~2×
 * faster than 16384 (docs/experiments/speed.md).
 */
const DEFAULT_MICRO_TOKENS = 2048;

/** Gradients and metric sums of one micro-batch (caller disposes everything returned). */
function microGrads(
  params: Params,
  cfg: ModelConfig,
  vars: tf.Variable[],
  x: UpdateInputs,
  offsets: number[],
  idx: number[],
  plan: AggPlan,
  o: UpdateOptions,
  keepRatio = false,
  topDiv = 0,
): { grads: Record<string, tf.Tensor>; metrics: tf.Tensor[]; tokens: number; ratio: tf.Tensor | null } {
  const mbSamples = idx.map((i) => x.samples[i]);
  const pick = (v: Float32Array) => {
    const out = new Float32Array(mbSamples.reduce((s, q) => s + q.response.length, 0));
    let o2 = 0;
    for (const i of idx) {
      const L = x.samples[i].response.length;
      out.set(v.subarray(offsets[i], offsets[i] + L), o2);
      o2 += L;
    }
    return out;
  };
  const batch = buildScoreBatch(mbSamples, cfg, x.freeRow);
  const advT = tf.tensor1d(pick(x.adv)),
    oldT = tf.tensor1d(pick(x.oldLogp)),
    refT = x.refLogp ? tf.tensor1d(pick(x.refLogp)) : null;
  const wT = tf.tensor1d(aggWeights(batch.lengths, plan));
  const top = x.topK && topDiv > 0 ? pickTopK(x.topK, offsets, idx, x.samples, topDiv, cfg.vocabSize) : null;
  let metrics: tf.Tensor[] = [];
  let ratio: tf.Tensor | null = null;
  const { value, grads } = tf.variableGrads(() => {
    const t = top ? tokenLogProbsAt(params, cfg, batch, o.temperature ?? 1, top.index, top.k) : null;
    const { logp, entropy } = t ?? tokenLogProbs(params, cfg, batch, o.temperature ?? 1);
    const pg = ppoClipLoss(logp, oldT, advT, o.clipEps, o.dualClip, o.clipEpsHigh || o.clipEps);
    // The loss's own ρ tensor, kept for reading back (UpdateHooks.ratio): no new arithmetic.
    if (keepRatio) ratio = tf.keep(pg.ratio);
    const kl = refT ? klK3(logp, refT) : tf.zerosLike(logp);
    const pgLoss = aggLoss(pg.loss, wT, plan);
    const klLoss = aggLoss(kl, wT, plan);
    metrics = [
      pgLoss,
      tf.sum(kl),
      tf.sum(pg.clipped),
      tf.sum(entropy),
      tf.sum(approxKlOld(logp, oldT)),
      tf.sum(pg.clippedLower),
    ].map((t) => tf.keep(t));
    // Always a new tensor: `value` is disposed below while the kept metric tensors live on.
    let total = tf.add(pgLoss, tf.mul(klLoss, o.klBeta));
    if (t && top)
      total = tf.add(total, tf.mul(tf.sum(tf.mul(topKReverseKlLoss(t.top, top.teacher), top.weight)), top.coef));
    return (o.entropyCoef ? tf.sub(total, tf.mul(aggLoss(entropy, wT, plan), o.entropyCoef)) : total) as tf.Scalar;
  }, vars);
  tf.dispose([value, advT, oldT, wT, ...(refT ? [refT] : []), ...(top ? [top.index, top.teacher, top.weight] : [])]);
  const tokens = batch.tokens;
  disposeBatch(batch);
  return { grads, metrics, tokens, ratio };
}

/**
 * A micro-batch's rows of the top-k targets as tensors (the caller disposes them): the index of its ids into [Mb, V]
 * (model/topk.ts topKIndex), the teacher's log-probs [Mb, K] and per-token weights gate/topDiv [Mb].
 */
function pickTopK(
  t: TopKTargets,
  offsets: number[],
  idx: number[],
  samples: readonly ScoreSample[],
  topDiv: number,
  V: number,
) {
  const K = t.k;
  const Mb = idx.reduce((n, i) => n + samples[i].response.length, 0);
  const ids = new Int32Array(Mb * K),
    teacher = new Float32Array(Mb * K),
    weight = new Float32Array(Mb);
  let m = 0;
  for (const i of idx) {
    const o = offsets[i],
      L = samples[i].response.length;
    ids.set(t.ids.subarray(o * K, (o + L) * K), m * K);
    for (let r = 0; r < L; r++) {
      const on = t.gate[o + r] !== 0;
      weight[m + r] = on ? 1 / topDiv : 0;
      // Off the gate the teacher's values are not read; zeros keep the arithmetic finite.
      if (on) teacher.set(t.teacherLogp.subarray((o + r) * K, (o + r + 1) * K), (m + r) * K);
    }
    m += L;
  }
  return {
    k: K,
    index: topKIndex(ids, K, V),
    teacher: tf.tensor2d(teacher, [Mb, K]),
    weight: tf.tensor1d(weight),
    coef: t.coef,
  };
}

/** Metrics of one update, averaged over mini-batches (token-weighted where per token). */
export interface UpdateMetrics {
  policyLoss: number;
  kl: number;
  /** Fraction of action tokens where the ordinary clip bound was active (verl pg_clipfrac). */
  clipFraction: number;
  /** Fraction of action tokens where the dual-clip bound was active (A < 0; verl pg_clipfrac_lower). */
  clipFractionLower: number;
  entropy: number;
  gradNorm: number;
  /** Approximate KL(π_old ‖ π) (nats, token mean over the mini-batches measured), before each one's own update. */
  approxKl: number;
  /** Mini-batch updates applied (miniBatches · ppoEpochs unless target KL stopped the step early). */
  updates: number;
  /** Tokens pushed through forward+backward. */
  tokens: number;
}

/** Safe points and progress of an update (core/cancel.ts). */
export interface UpdateHooks {
  /**
   * Checked before every mini-batch; once set, `ppoUpdate` throws `RunCancelled` (the caller restores the weights and
   * Adam state).
   */
  cancel?: CancelSignal;
  /** Called after every mini-batch with the mini-batches done and planned (miniBatches · ppoEpochs). */
  onMiniBatch?: (done: number, total: number) => void;
  /**
   * When given (float32 [M], packed sample-major like `x.adv`), filled with each action token's PPO ratio
   * ρ = π_θ/π_old = exp(ℓ − ℓ_old) (log-ratio clamped to [−20, 20]) exactly as the loss of its mini-batch
   * computed it (float32, read back from the loss's own tensor), at the last applied mini-batch that used the token
   * (with ppoEpochs > 1, the last epoch's); NaN stays where no applied mini-batch used it (target KL stopped the step
   * first). Reading it back changes no number of the update; it costs one read-back of the micro-batch's tokens.
   */
  ratio?: Float32Array;
}

/**
 * Run the update; mutates `params` through `optimizer`. Leaves no new tensors behind except the optimizer's state.
 * @throws RunCancelled (core/cancel.ts) when `hooks.cancel` is set before a mini-batch; earlier mini-batches stay
 * applied.
 * @throws NonFiniteError (core/train/finite.ts) when a mini-batch's loss or global gradient norm is NaN or ±Infinity,
 * before its update is applied; earlier mini-batches stay applied.
 */
export async function ppoUpdate(
  params: Params,
  cfg: ModelConfig,
  optimizer: tf.Optimizer,
  x: UpdateInputs,
  o: UpdateOptions,
  rng: Rng,
  hooks: UpdateHooks = {},
): Promise<UpdateMetrics> {
  const u = planUpdate(params, cfg, x, o, !!hooks.ratio);
  const n = x.samples.length,
    nMb = u.nMb;
  const sums: UpdateSums = {
    loss: 0,
    kl: 0,
    clip: 0,
    clipLower: 0,
    ent: 0,
    norm: 0,
    oldKl: 0,
    tokens: 0,
    updates: 0,
    seenTok: 0,
    seenSamples: 0,
  };
  let stop = false;
  for (let epoch = 0; epoch < o.ppoEpochs && !stop; epoch++) {
    const order = rng.shuffle([...Array(n).keys()]);
    for (let b = 0; b < nMb; b++) {
      await checkCancelled(hooks.cancel, 'mini-batch');
      const idx = order.slice(Math.floor((b * n) / nMb), Math.floor(((b + 1) * n) / nMb));
      const mb = await miniBatchGrads(u, idx, sums);
      if (o.targetKl && sums.updates > 0 && mb.oldKl / Math.max(mb.tokens, 1) > 1.5 * o.targetKl) {
        tf.dispose(Object.values(mb.grads!));
        stop = true;
        break;
      }
      if (!Number.isFinite(mb.loss)) {
        tf.dispose(Object.values(mb.grads!));
        throw new NonFiniteError('loss', mb.loss);
      }
      if (hooks.ratio) writeRatios(u, mb.ratios, hooks.ratio);
      const norm = await applyClipped(optimizer, mb.grads!, o.maxGradNorm, true);
      if (!Number.isFinite(norm)) throw new NonFiniteError('gradNorm', norm);
      sums.norm += norm;
      sums.updates++;
      hooks.onMiniBatch?.(epoch * nMb + b + 1, nMb * o.ppoEpochs);
    }
  }
  return updateMetrics(sums, u.plan);
}

/** What every mini-batch of one update shares: its inputs, the packed offsets and the aggregation plan. */
interface UpdatePlan {
  params: Params;
  cfg: ModelConfig;
  vars: tf.Variable[];
  x: UpdateInputs;
  o: UpdateOptions;
  /** Offset of each sample's first action token in the packed vectors of `x`. */
  offsets: number[];
  /** Mini-batches per epoch: `miniBatches`, at most one per sample. */
  nMb: number;
  plan: AggPlan;
  /** The top-k term's divisor: distilled tokens of the step per mini-batch (0 = no term). */
  topDiv: number;
  /** Max padded tokens per micro-batch. */
  microTokens: number;
  /** Read each token's PPO ratio back (UpdateHooks.ratio). */
  keepRatio: boolean;
}

/**
 * Running sums of an update's metrics (token sums, or per-sample sums for seq-mean losses), added in the order the
 * micro-batches run so the float results do not depend on how the loop is arranged.
 */
interface UpdateSums {
  loss: number;
  kl: number;
  clip: number;
  clipLower: number;
  ent: number;
  norm: number;
  oldKl: number;
  tokens: number;
  updates: number;
  /** Action tokens and samples of the mini-batches run (metrics are averaged over what was measured). */
  seenTok: number;
  seenSamples: number;
}

/** The update's plan: packed offsets of the M action tokens, the aggregation plan and the micro-batch size. */
function planUpdate(params: Params, cfg: ModelConfig, x: UpdateInputs, o: UpdateOptions, keepRatio: boolean) {
  const offsets: number[] = [];
  let M = 0;
  for (const s of x.samples) {
    offsets.push(M);
    M += s.response.length;
  }
  const nMb = Math.min(o.miniBatches, x.samples.length);
  const plan = aggPlan(
    o.lossAgg ?? 'token-mean',
    x.samples.map((s) => s.response.length),
    nMb,
    o.maxActionTokens ?? 12,
  );
  const vars = Object.values(params) as tf.Variable[];
  const topDiv = x.topK ? checkTopK(x.topK, M) / nMb : 0;
  const microTokens = o.microBatchTokens ?? Math.max(1024, Math.floor(DEFAULT_MICRO_TOKENS / activationScale(cfg)));
  const u: UpdatePlan = { params, cfg, vars, x, o, offsets, nMb, plan, topDiv, microTokens, keepRatio };
  return u;
}

/**
 * One mini-batch's gradient (the caller applies or disposes it), accumulated over micro-batches of bounded padded
 * size; each uses the same constant divisor, so the summed gradient equals the whole mini-batch's gradient. Adds its
 * metrics to `sums`; returns its approximate-KL sum, its action tokens, the ratios read back per micro-batch and the
 * sum of its loss terms as read back (policy, KL, entropy when in the loss; only its finiteness is used).
 */
async function miniBatchGrads(u: UpdatePlan, idx: number[], sums: UpdateSums) {
  const { x } = u;
  let grads: Record<string, tf.Tensor> | null = null;
  let mbOldKl = 0,
    mbTok = 0,
    mbLoss = 0;
  const ratios: { micro: number[]; r: Float32Array }[] = [];
  for (const micro of microBatches(idx, x.samples, u.microTokens)) {
    const r = microGrads(u.params, u.cfg, u.vars, x, u.offsets, micro, u.plan, u.o, u.keepRatio, u.topDiv);
    grads = accumulate(grads, r.grads);
    const [pgL, klS, clipS, entS, oldKlS, clipLowS, ratio] = await Promise.all(
      [...r.metrics, ...(r.ratio ? [r.ratio] : [])].map((t) => t.data()),
    );
    if (r.ratio) {
      ratios.push({ micro, r: ratio as Float32Array });
      r.ratio.dispose();
    }
    // The read-back loss terms (policy, KL, entropy when it is in the loss): a NaN or ±Infinity shows in the sum.
    mbLoss += pgL[0] + klS[0] + (u.o.entropyCoef ? entS[0] : 0);
    sums.loss += pgL[0];
    sums.kl += klS[0];
    sums.clip += clipS[0];
    sums.clipLower += clipLowS[0];
    sums.ent += entS[0];
    mbOldKl += oldKlS[0];
    for (const i of micro) mbTok += x.samples[i].response.length;
    sums.tokens += r.tokens;
    tf.dispose(r.metrics);
  }
  sums.seenTok += mbTok;
  sums.seenSamples += idx.length;
  sums.oldKl += mbOldKl;
  return { grads, oldKl: mbOldKl, tokens: mbTok, ratios, loss: mbLoss };
}

/**
 * Writes an applied mini-batch's ratios into `out`, in the packed order of x.adv (each micro-batch's tokens come in
 * `micro` order).
 */
function writeRatios(u: UpdatePlan, ratios: readonly { micro: number[]; r: Float32Array }[], out: Float32Array) {
  for (const { micro, r } of ratios) {
    let k = 0;
    for (const i of micro) {
      const L = u.x.samples[i].response.length;
      out.set(r.subarray(k, k + L), u.offsets[i]);
      k += L;
    }
  }
}

/** The update's metrics from its sums: means over the tokens (or samples) measured and the updates applied. */
function updateMetrics(s: UpdateSums, plan: AggPlan): UpdateMetrics {
  return {
    policyLoss: (s.loss * plan.divisor) / (plan.per === 'token' ? s.seenTok : s.seenSamples),
    kl: s.kl / s.seenTok,
    clipFraction: s.clip / s.seenTok,
    clipFractionLower: s.clipLower / s.seenTok,
    entropy: s.ent / s.seenTok,
    gradNorm: s.norm / s.updates,
    approxKl: s.oldKl / s.seenTok,
    updates: s.updates,
    tokens: s.tokens,
  };
}

/**
 * Distilled tokens of top-k targets over M action tokens.
 * @throws Error when a length does not fit M, K is not a positive integer or coef is not finite and ≥ 0.
 */
function checkTopK(t: TopKTargets, M: number): number {
  if (!Number.isInteger(t.k) || t.k < 1) throw new Error(`ppoUpdate: top-k K must be a positive integer, got ${t.k}`);
  if (t.gate.length !== M || t.ids.length !== M * t.k || t.teacherLogp.length !== M * t.k)
    throw new Error(
      `ppoUpdate: top-k targets hold gate ${t.gate.length}, ids ${t.ids.length}, teacher ${t.teacherLogp.length} ` +
        `entries; M = ${M} action tokens × K ${t.k} expected`,
    );
  if (!(t.coef >= 0) || !Number.isFinite(t.coef))
    throw new Error(`ppoUpdate: top-k coef must be finite and ≥ 0, got ${t.coef}`);
  let n = 0;
  for (let m = 0; m < M; m++) if (t.gate[m]) n++;
  return n;
}
