/**
 * Model sizes by name (docs/architecture.md). `small` matches the default of a PyTorch peer of the bench model
 * (d=128, 4 layers, 4 heads) so `npm run bench` compares like with like.
 */

/** Hyper-parameters of the decoder-only transformer. */
export interface ModelConfig {
  /** Vocabulary size V (tokenizer.size). */
  vocabSize: number;
  /** Model width d. */
  dModel: number;
  /** Number of transformer blocks. */
  nLayers: number;
  /** Attention heads h; d must be divisible by h (head size hs = d/h). */
  nHeads: number;
  /** Max sequence length (learned position embeddings); prompts are cut from the left to fit. */
  maxSeq: number;
}

/** Accepted model sizes (RunConfig.model, `--model`). */
export const MODEL_SIZES = ['nano', 'nano-deep', 'small', 'base'] as const;
/** One of MODEL_SIZES. */
export type ModelSize = (typeof MODEL_SIZES)[number];

/** Named sizes without the vocabulary (filled in from the tokenizer). */
export const MODEL_PRESETS: Readonly<Record<ModelSize, Omit<ModelConfig, 'vocabSize'>>> = {
  /** ~60k non-embedding params: tests and quick from-scratch runs on the CPU. */
  nano: { dModel: 48, nLayers: 2, nHeads: 2, maxSeq: 384 },
  /**
   * nano's width, vocabulary and maxSeq with 4 blocks (~113k non-embedding params): a capacity probe, grown from
   * trained nano weights (model/grow.ts: nano's 2 blocks, then 2 identity blocks), so it starts as the nano's function.
   */
  'nano-deep': { dModel: 48, nLayers: 4, nHeads: 2, maxSeq: 384 },
  /** ~0.8M non-embedding params: the page's default. */
  small: { dModel: 128, nLayers: 4, nHeads: 4, maxSeq: 384 },
  /** ~4.7M non-embedding params: real GPUs. */
  base: { dModel: 256, nLayers: 6, nHeads: 8, maxSeq: 512 },
};

/**
 * Resolve a named size for a vocabulary.
 * @throws Error naming the accepted sizes on an unknown name.
 */
export function modelConfig(size: string, vocabSize: number): ModelConfig {
  if (!Object.hasOwn(MODEL_PRESETS, size))
    throw new Error(`unknown model size "${size}" (known: ${MODEL_SIZES.join(', ')})`);
  const p = MODEL_PRESETS[size as ModelSize];
  if (!Number.isInteger(vocabSize) || vocabSize < 2)
    throw new Error(`modelConfig: vocabSize must be an integer ≥ 2, got ${vocabSize}`);
  return { ...p, vocabSize };
}

/**
 * Activation memory per token relative to `nano` (∝ dModel·nLayers; nano = 1). Used to shrink micro-batches and
 * scoring chunks for bigger models so a step fits the wasm heap (a `small` step with nano's 16k-token micro-batches
 * ran out of wasm memory: "memory access out of bounds").
 */
export function activationScale(cfg: Pick<ModelConfig, 'dModel' | 'nLayers'>): number {
  return Math.max(1, (cfg.dModel * cfg.nLayers) / (48 * 2));
}
