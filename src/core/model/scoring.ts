/**
 * Batched per-token log-probs of responses given prompts (old log-probs and OPID skill re-scoring in a training step,
 * docs/architecture.md).
 *
 * Layout: a batch of n samples is right-padded into ids [n, T] int32 (T = longest prompt+response). The
 * dense masks [n, T] have 1 on response (action) tokens; here those positions are *packed*: M = Σ response
 * lengths, in sample-major order, and every per-token result is a float32 [M] vector. `unpack` turns it back
 * into per-sample arrays. Only the M predicting positions go through the output head (cheaper than [n,T,V]),
 * which also means prompt tokens can never receive gradient from the loss.
 *
 * Log-probs are of the *sampling* distribution: logits / T + allowed-mask (T = the rollout temperature; admissible
 * decoding: only tokens that extend a prefix of an admissible action; free decoding: every non-special token and
 * <eos>), log-softmax in nats — exactly what model/sample.ts sampled from, so PPO ratios, KL and OPID's skill
 * advantage are of the distribution that acted.
 */
import * as tf from '../tf';
import { activationScale, type ModelConfig } from './config';
import type { Params } from './params';
import { forward, logits, NEG } from './transformer';
import { gatherRows } from './ops';
import { fusedTokenLogProbs, fusedTokenLogProbsUsable } from '../backend/webgpu/logprob';

/**
 * Where a step's old-policy log-probs come from (RunConfig.oldLogProbs): `sampler` = the sampler's own log-probs of
 * the tokens it drew (the rollout policy is the pre-update policy, so no second pass is needed; the KV-cached and the
 * full forward pass agree to ~1e-5 nats); `rescore` = one more full forward pass over the step's samples, as verl
 * recomputes old log-probs when its inference engine differs from the trainer.
 */
export const OLD_LOGPROB_SOURCES = ['sampler', 'rescore'] as const;

/** One (prompt, response) pair to score. */
export interface ScoreSample {
  /** Prompt token ids (context, never trained). */
  prompt: readonly number[];
  /** Response (action) token ids, ending with <eos> when the action was complete. */
  response: readonly number[];
  /** Per response token: the allowed next-token ids when it was sampled, or null for the free-decoding set. */
  allowed: readonly (Int32Array | null)[];
}

/** Tensors for one scoring batch; dispose with `disposeBatch`. */
export interface ScoreBatch {
  ids: tf.Tensor2D; // [n,T] int32
  pos: tf.Tensor2D; // [n,T] int32
  predIdx: tf.Tensor1D; // [M] int32: flat index i·T + (t−1) of the position predicting response token t
  targets: tf.Tensor1D; // [M] int32
  maskAdd: tf.Tensor2D; // [M,V] float32: 0 allowed, NEG otherwise
  /** Response length per sample (to unpack [M] results). */
  lengths: number[];
  /** Total tokens in ids (n·T), for throughput accounting. */
  tokens: number;
}

/** Additive mask [V] for free decoding: NEG on special tokens except `eos`, 0 elsewhere. */
export function freeMaskRow(vocabSize: number, specialCount: number, eos: number): Float32Array {
  const row = new Float32Array(vocabSize);
  for (let i = 0; i < specialCount; i++) if (i !== eos) row[i] = NEG;
  return row;
}

/**
 * Build the tensors for scoring `samples`. `freeRow` is `freeMaskRow(...)`.
 * @throws Error if a sample is longer than cfg.maxSeq or a response is empty.
 */
export function buildScoreBatch(samples: readonly ScoreSample[], cfg: ModelConfig, freeRow: Float32Array): ScoreBatch {
  const n = samples.length;
  let T = 0,
    M = 0;
  for (const s of samples) {
    if (s.response.length === 0) throw new Error('scoring: empty response');
    T = Math.max(T, s.prompt.length + s.response.length);
    M += s.response.length;
  }
  if (T > cfg.maxSeq) throw new Error(`scoring: sample length ${T} exceeds maxSeq ${cfg.maxSeq}`);
  const V = cfg.vocabSize;
  const ids = new Int32Array(n * T),
    pos = new Int32Array(n * T);
  const predIdx = new Int32Array(M),
    targets = new Int32Array(M);
  const mask = new Float32Array(M * V);
  let m = 0;
  samples.forEach((s, i) => {
    const L = s.prompt.length;
    for (let t = 0; t < T; t++) pos[i * T + t] = t;
    for (let t = 0; t < L; t++) ids[i * T + t] = s.prompt[t];
    for (let r = 0; r < s.response.length; r++) {
      ids[i * T + L + r] = s.response[r];
      predIdx[m] = i * T + L + r - 1;
      targets[m] = s.response[r];
      const allowed = s.allowed[r];
      const row = mask.subarray(m * V, (m + 1) * V);
      if (allowed) {
        row.fill(NEG);
        for (const a of allowed) row[a] = 0;
      } else row.set(freeRow);
      m++;
    }
  });
  return {
    ids: tf.tensor2d(ids, [n, T], 'int32'),
    pos: tf.tensor2d(pos, [n, T], 'int32'),
    predIdx: tf.tensor1d(predIdx, 'int32'),
    targets: tf.tensor1d(targets, 'int32'),
    maskAdd: tf.tensor2d(mask, [M, V]),
    lengths: samples.map((s) => s.response.length),
    tokens: n * T,
  };
}

/** Dispose a ScoreBatch's tensors. */
export function disposeBatch(b: ScoreBatch): void {
  tf.dispose([b.ids, b.pos, b.predIdx, b.targets, b.maskAdd]);
}

/**
 * Per-token log-probs (nats) and entropies (nats) of the batch's response tokens under params `p`, of the
 * distribution softmax(logits / temperature + mask) the sampler used. Differentiable w.r.t. `p` (call inside a
 * gradient scope to train). Returns logp [M] and entropy [M] float32.
 * @param temperature sampling temperature T > 0 (default 1).
 */
export function tokenLogProbs(
  p: Params,
  cfg: ModelConfig,
  b: ScoreBatch,
  temperature = 1,
): { logp: tf.Tensor1D; entropy: tf.Tensor1D } {
  const { hidden } = forward(p, cfg, b.ids, b.pos);
  const [n, T, d] = hidden.shape;
  const h = gatherRows(tf.reshape(hidden, [n * T, d]) as tf.Tensor2D, b.predIdx); // [M,d]
  const lg = logits(p, h);
  // webgpu: one dispatch forward and one backward (backend/webgpu/logprob.ts); elsewhere the composed ops below.
  if (fusedTokenLogProbsUsable(lg.shape[0])) return fusedTokenLogProbs(lg, b.maskAdd, b.targets, temperature);
  const lsm = tf.logSoftmax(tf.add(temperature === 1 ? lg : tf.div(lg, temperature), b.maskAdd)); // [M,V]
  const oh = tf.oneHot(b.targets, cfg.vocabSize); // [M,V]
  const logp = tf.sum(tf.mul(lsm, oh), 1) as tf.Tensor1D;
  const entropy = tf.neg(tf.sum(tf.mul(tf.exp(lsm), lsm), 1)) as tf.Tensor1D;
  return { logp, entropy };
}

/** Options of `scoreSamples`. */
export interface ScoreOptions {
  /** Sampling temperature T the responses were drawn at (default 1): log-probs are of softmax(logits / T + mask). */
  temperature?: number;
  /** Samples per chunk (bounded memory); default 32 / activationScale(cfg), at least 8. */
  chunk?: number;
}

/**
 * Score many samples without gradient, in chunks (bounded memory). Returns plain arrays (float32 [M] packed,
 * sample-major: log-probs and entropies in nats) and the number of tokens processed.
 * @throws Error from buildScoreBatch (a sample longer than maxSeq, an empty response).
 */
export async function scoreSamples(
  p: Params,
  cfg: ModelConfig,
  samples: readonly ScoreSample[],
  freeRow: Float32Array,
  so: ScoreOptions = {},
): Promise<{ logp: Float32Array; entropy: Float32Array; tokens: number }> {
  // 32 samples per chunk: on wasm, smaller tensors stay in cache (64 was ~10% slower for nano).
  const chunk = so.chunk ?? Math.max(8, Math.floor(32 / activationScale(cfg)));
  const temperature = so.temperature ?? 1;
  // Offsets of each sample's tokens in the packed output.
  const offsets: number[] = [];
  let M = 0;
  for (const s of samples) {
    offsets.push(M);
    M += s.response.length;
  }
  // Score in order of length so each chunk pads little; results go back to their original offsets.
  const order = samples
    .map((_, i) => i)
    .sort((a, b) => {
      const la = samples[a].prompt.length + samples[a].response.length;
      const lb = samples[b].prompt.length + samples[b].response.length;
      return la - lb || a - b;
    });
  const logp = new Float32Array(M),
    entropy = new Float32Array(M);
  let tokens = 0;
  for (let i = 0; i < order.length; i += chunk) {
    const idx = order.slice(i, i + chunk);
    const b = buildScoreBatch(
      idx.map((j) => samples[j]),
      cfg,
      freeRow,
    );
    // One read-back per chunk: log-probs and entropies concatenated [2·Mc] (a copy: the values are unchanged). Each
    // read-back is a queue submit and a map wait on webgpu, so two reads cost two round trips.
    const r = tf.tidy(() => {
      const o = tokenLogProbs(p, cfg, b, temperature);
      return tf.concat([o.logp, o.entropy]);
    });
    const both = (await r.data()) as Float32Array;
    const Mc = both.length / 2;
    const lp = both.subarray(0, Mc),
      en = both.subarray(Mc);
    let o = 0;
    for (const j of idx) {
      const L = samples[j].response.length;
      logp.set(lp.subarray(o, o + L), offsets[j]);
      entropy.set(en.subarray(o, o + L), offsets[j]);
      o += L;
    }
    tokens += b.tokens;
    tf.dispose(r);
    disposeBatch(b);
  }
  return { logp, entropy, tokens };
}
