/**
 * KV-cached batched sampling of responses (the roll-out in a training step, docs/architecture.md).
 *
 * Prompts of different lengths are left-padded into [B, Lmax]; position ids restart at 0 after the padding and
 * padded keys are masked, so each row sees exactly its own prompt. Each decoding step runs one token per row
 * through the cached keys/values. The next token is drawn on the CPU with the explicit `Rng` from
 * softmax((logits + allowedMask)/temperature), so sampling is reproducible on every backend given the logits.
 * On the wasm backend the decoding step is ./decode-wasm.ts (a preallocated cache and fused kernels, the same bits as
 * transformer.ts `decodeStep`; `setWasmDecodeEnabled(false)` switches it off).
 */
import * as tf from '../tf';
import { noDrawMessage, type Rng } from '../rng';
import type { ModelConfig } from './config';
import type { Params } from './params';
import { decodeStep, forward, NEG, type LayerCache } from './transformer';
import { WasmDecoder, wasmDecodeUsable } from './decode-wasm';

/** Options of `sampleResponses`. */
export interface SampleOptions {
  /** Softmax temperature (> 0); logits are divided by it. */
  temperature: number;
  /** Max response tokens (including <eos>); a row that reaches it stops without <eos>. */
  maxTokens: number;
  /** Id of the end-of-response token. */
  eos: number;
  /**
   * Allowed next tokens for row `row` after it produced `prefix` (ids so far), or null for the free set
   * (`freeRow`). An empty array means the row cannot continue and is stopped.
   */
  allowed: (row: number, prefix: readonly number[]) => Int32Array | null;
  /** Additive mask [V] of the free-decoding set (0 allowed, NEG not). */
  freeRow: Float32Array;
  /** The run's generator; one draw per sampled token, rows in order. */
  rng: Rng;
}

/** One sampled response. */
export interface SampledResponse {
  /** Token ids, ending with eos unless cut at maxTokens. */
  tokens: number[];
  /** Allowed set used at each token (null = free set). */
  allowed: (Int32Array | null)[];
  /**
   * Sampler's own log-probs at the sampling temperature (nats, float64 from the float32 logits of the KV-cached pass):
   * the old policy's log-probs of these tokens (RunConfig.oldLogProbs `sampler`).
   */
  sampleLogp: number[];
  /** Entropy of the distribution each token was drawn from (nats). */
  sampleEntropy: number[];
}

/**
 * Sample one response per prompt. prompts: B arrays of token ids (each ≤ maxSeq − maxTokens long).
 * @throws Error if a prompt is empty or too long.
 */
export async function sampleResponses(
  p: Params,
  cfg: ModelConfig,
  prompts: readonly (readonly number[])[],
  o: SampleOptions,
): Promise<SampledResponse[]> {
  const B = prompts.length;
  if (B === 0) return [];
  const Lmax = Math.max(...prompts.map((x) => x.length));
  if (Math.min(...prompts.map((x) => x.length)) === 0) throw new Error('sampleResponses: empty prompt');
  if (Lmax + o.maxTokens > cfg.maxSeq)
    throw new Error(
      `sampleResponses: prompt length ${Lmax} + ${o.maxTokens} response tokens exceeds maxSeq ${cfg.maxSeq}`,
    );
  const { ids, pos, keyBias } = leftPad(prompts, Lmax);
  const out: SampledResponse[] = prompts.map(() => ({ tokens: [], allowed: [], sampleLogp: [], sampleEntropy: [] }));
  const active = prompts.map(() => true);
  // The tied head's wteᵀ [d, V], transposed once per call rather than at every token (`logits` transposes per call;
  // the product is the same matMul on the same values, so the logits are the same bits).
  const wteT = tf.transpose(p.wte) as tf.Tensor2D;
  const head = (hidden: tf.Tensor2D): tf.Tensor2D => tf.matMul(hidden, wteT);
  // Prefill: logits at the last prompt position and the caches.
  let { lastLogits, cache } = tf.tidy(() => {
    const f = forward(
      p,
      cfg,
      tf.tensor2d(ids, [B, Lmax], 'int32'),
      tf.tensor2d(pos, [B, Lmax], 'int32'),
      tf.tensor2d(keyBias.flat(), [B, Lmax]),
      true,
    );
    const last = tf.reshape(tf.slice(f.hidden, [0, Lmax - 1, 0], [B, 1, -1]), [B, -1]) as tf.Tensor2D;
    return { lastLogits: head(last), cache: f.cache };
  });
  const row = new Float64Array(cfg.vocabSize),
    e = new Float64Array(cfg.vocabSize);
  // On wasm, the fused decoding step (./decode-wasm.ts, the same bits as decodeStep) over a preallocated cache.
  let fast: WasmDecoder | null = null;
  try {
    if (wasmDecodeUsable() && o.maxTokens > 1) {
      const [wte, wpe] = [(await p.wte.data()) as Float32Array, (await p.wpe.data()) as Float32Array];
      fast = new WasmDecoder(p, cfg, B, Lmax + o.maxTokens - 1, wte, wpe, cache, Float32Array.from(keyBias.flat()));
      disposeCache(cache);
      cache = [];
    }
    for (let step = 0; step < o.maxTokens; step++) {
      const lg = (await lastLogits.data()) as Float32Array;
      lastLogits.dispose();
      const next = drawNext(lg, out, active, o, row, e);
      if (!active.some(Boolean) || step === o.maxTokens - 1) break;
      // One cached decoding step for every row (finished rows compute a throwaway token).
      const t = Lmax + step;
      const stepPos = prompts.map((pr) => pr.length + step);
      if (fast) {
        const dec = fast;
        lastLogits = tf.tidy(() => head(dec.step(next, Int32Array.from(stepPos), t)));
        continue;
      }
      for (let i = 0; i < B; i++) keyBias[i].push(0);
      const r = tf.tidy(() => {
        const d = decodeStep(
          p,
          cfg,
          tf.tensor2d(next, [B, 1], 'int32'),
          tf.tensor2d(stepPos, [B, 1], 'int32'),
          tf.tensor2d(keyBias.flat(), [B, t + 1]),
          cache,
        );
        return { lastLogits: head(tf.reshape(d.hidden, [B, -1]) as tf.Tensor2D), cache: d.cache };
      });
      disposeCache(cache);
      cache = r.cache;
      lastLogits = r.lastLogits;
    }
  } finally {
    fast?.dispose();
    if (!lastLogits.isDisposed) lastLogits.dispose();
    disposeCache(cache);
    wteT.dispose();
  }
  return out;
}

/**
 * The prompts left-padded into [B, Lmax] (row-major): token ids (0 in the padding), position ids restarting at 0
 * after the padding, and each row's additive key bias (NEG on the padding, 0 on its prompt), one array per row.
 */
function leftPad(
  prompts: readonly (readonly number[])[],
  Lmax: number,
): { ids: Int32Array; pos: Int32Array; keyBias: number[][] } {
  const B = prompts.length;
  const ids = new Int32Array(B * Lmax),
    pos = new Int32Array(B * Lmax);
  const keyBias: number[][] = [];
  prompts.forEach((pr, i) => {
    const pad = Lmax - pr.length;
    const kb: number[] = [];
    for (let t = 0; t < Lmax; t++) {
      ids[i * Lmax + t] = t < pad ? 0 : pr[t - pad];
      pos[i * Lmax + t] = Math.max(0, t - pad);
      kb.push(t < pad ? NEG : 0);
    }
    keyBias.push(kb);
  });
  return { ids, pos, keyBias };
}

/**
 * One token for every active row, drawn from softmax((logits + allowed mask)/T) of its row of `lg` [B·V], rows in
 * order (one `rng` draw each); appends it with its allowed set, log-prob and entropy to `out`, and marks a row done
 * at <eos> or when nothing is allowed. `row` and `e` are [V] scratch. Returns the drawn ids [B] (0 for rows not
 * drawn).
 */
function drawNext(
  lg: Float32Array,
  out: SampledResponse[],
  active: boolean[],
  o: SampleOptions,
  row: Float64Array,
  e: Float64Array,
): Int32Array {
  const B = out.length,
    V = row.length;
  const next = new Int32Array(B);
  for (let i = 0; i < B; i++) {
    if (!active[i]) continue;
    const allowed = o.allowed(i, out[i].tokens);
    if (allowed && allowed.length === 0) {
      active[i] = false;
      continue;
    }
    for (let v = 0; v < V; v++)
      row[v] = allowed ? -Infinity : o.freeRow[v] < 0 ? -Infinity : lg[i * V + v] / o.temperature;
    if (allowed) for (const a of allowed) row[a] = lg[i * V + a] / o.temperature;
    const { tok, m, z } = drawCategorical(row, e, o.rng);
    out[i].tokens.push(tok);
    out[i].allowed.push(allowed);
    const lz = m + Math.log(z);
    let ent = 0;
    for (let v = 0; v < V; v++) if (row[v] !== -Infinity) ent -= Math.exp(row[v] - lz) * (row[v] - lz);
    out[i].sampleLogp.push(row[tok] - lz);
    out[i].sampleEntropy.push(ent);
    next[i] = tok;
    if (tok === o.eos) active[i] = false;
  }
  return next;
}

/**
 * The draw of `Rng.categorical(row)` (src/core/rng.ts: one `rng.next()`, the same sums in the same order, so the same
 * token), keeping e[v] = exp(row[v] − m) for the caller, which needs m and z = Σ e[v] for the log-prob: one pass of
 * exp instead of 2.5. @throws Error if no entry can be drawn: every one -Infinity or NaN (rng.ts `noDrawMessage`).
 */
function drawCategorical(row: Float64Array, e: Float64Array, rng: Rng): { tok: number; m: number; z: number } {
  const V = row.length;
  let m = -Infinity;
  for (let v = 0; v < V; v++) if (row[v] > m) m = row[v];
  if (m === -Infinity) throw new Error(noDrawMessage(row));
  let z = 0;
  for (let v = 0; v < V; v++) z += e[v] = Math.exp(row[v] - m);
  let u = rng.next() * z;
  let last = -1;
  for (let v = 0; v < V; v++) {
    if (row[v] === -Infinity) continue;
    last = v;
    u -= e[v];
    if (u < 0) return { tok: v, m, z };
  }
  return { tok: last, m, z };
}

function disposeCache(c: LayerCache[]): void {
  for (const l of c) tf.dispose([l.k, l.v]);
}
