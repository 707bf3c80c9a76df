/**
 * Growing a trained policy deeper: a `nano-deep` model (4 blocks) started from `nano` weights (2 blocks), computing
 * exactly the nano's function at the start. A capacity probe: does more depth let the policy use hindsight hints
 * (OPID, Yang et al. 2026; docs/references.md#opid) that the nano cannot?
 *
 * The grown model holds the nano's embeddings (`wte`, `wpe`), final LayerNorm (`lnf.*`) and blocks `h0`, `h1`
 * unchanged, then new blocks `h2`, `h3` whose residual outputs are zero: their attention output projection
 * (`attn.wo`, `attn.bo`) and MLP output projection (`mlp.wproj`, `mlp.bproj`) are 0, the other weights are what the
 * seeded initialiser (params.ts `initValues` for the grown size) draws, LayerNorms at their init (gain 1, bias 0).
 * A zero-output block adds nothing to the residual stream (x + 0 = x), so the logits are the nano's.
 *
 * The new blocks are appended after the existing ones, not interleaved: the nano's tensors keep their names and
 * their order (a nano file's every tensor is the grown file's tensor of the same name, so the two compare name by
 * name), the nano's computation up to its last block runs unchanged, and the new blocks read the nano's finished
 * residual stream just before the final LayerNorm. (Any position gives the same function at the start; appending
 * is the one that needs no renaming.) This is Net2Net's function-preserving deepening (Chen, Goodfellow and Shlens,
 * ICLR 2016, "Net2DeeperNet") in its residual form: a block whose residual branch ends in zero is the identity.
 * Training moves the zero projections first — at the first step their gradients are the new blocks' only non-zero
 * ones — and the rest of each new block follows.
 */
import type { Rng } from '../rng';
import type { Tokenizer } from '../tokenizer/tokenizer';
import { vocabHash } from '../tokenizer/tokenizer';
import { sha256Hex } from '../sha256';
import { modelConfig, type ModelConfig, type ModelSize } from './config';
import { checkWeights, decodeSafetensors, encodeSafetensors } from './io';
import { initValues, paramShapes } from './params';

/** The sizes a model can be grown into, each with the one size it grows from (grown size → source size). */
export const GROWS_FROM: Readonly<Partial<Record<ModelSize, ModelSize>>> = Object.freeze({ 'nano-deep': 'nano' });

/** Where a grown model came from: the source's model size and the hex sha256 of its weights file. */
export interface GrownFrom {
  model: ModelSize;
  sha256: string;
}

/** Can weights of size `from` start a model of size `to` by growing (GROWS_FROM)? Equal sizes are not growth. */
export function canGrow(from: string, to: string): boolean {
  return Object.hasOwn(GROWS_FROM, to) && GROWS_FROM[to as ModelSize] === from;
}

/** The output projections zeroed in a new block: with them 0 the block's residual output is 0. */
const ZEROED = ['attn.wo', 'attn.bo', 'mlp.wproj', 'mlp.bproj'];

/**
 * Values of the deeper config `to` from the values of `from` (module comment), in `paramShapes(to)` order: the
 * source's tensors copied, the new blocks `h{from.nLayers}` … `h{to.nLayers − 1}` from `initValues(to, rng)` with
 * their output projections zeroed. Pure: no tensors. `values` is not changed (copies are returned).
 * @throws Error when the configs differ in anything but depth, `to` is not deeper, or a source tensor is missing or
 *   mis-sized.
 */
export function growValues(
  from: ModelConfig,
  to: ModelConfig,
  values: ReadonlyMap<string, Float32Array>,
  rng: Rng,
): Map<string, Float32Array> {
  for (const k of ['vocabSize', 'dModel', 'nHeads', 'maxSeq'] as const)
    if (from[k] !== to[k])
      throw new Error(`growValues: ${k} differs (${from[k]} → ${to[k]}); only the number of blocks may grow`);
  if (to.nLayers <= from.nLayers)
    throw new Error(`growValues: the grown model needs more blocks than ${from.nLayers}, got ${to.nLayers}`);
  const fresh = initValues(to, rng);
  const copied = new Set(paramShapes(from).map(([name]) => name));
  const out = new Map<string, Float32Array>(); // in paramShapes(to) order, the save format's
  for (const [name, shape] of paramShapes(to)) {
    if (copied.has(name)) {
      const v = values.get(name);
      const n = shape.reduce((a, b) => a * b, 1);
      if (!v || v.length !== n) throw new Error(`growValues: source tensor ${name} [${shape}] is missing or mis-sized`);
      out.set(name, Float32Array.from(v));
    } else {
      const v = fresh.get(name)!;
      if (ZEROED.some((z) => name.endsWith(`.${z}`))) v.fill(0);
      out.set(name, v);
    }
  }
  return out;
}

/**
 * Grow a weights file (safetensors bytes, `savePolicy`'s format) into model size `to`: checked as `loadPolicy`
 * checks it (size, vocabulary of `tok`, shapes), grown by `growValues` with new blocks drawn from `rng`, written
 * back with the source's metadata, `modelSize` set to `to` and `grownFrom` (JSON `{model, sha256}`) added.
 * @returns the grown file's bytes and where it came from.
 * @throws Error from the weights checks (corrupt file, another vocabulary), or when the file's size does not grow
 *   into `to` (naming both sizes and the one `to` grows from).
 */
export async function growWeights(
  bytes: Uint8Array,
  tok: Tokenizer,
  to: ModelSize,
  rng: Rng,
): Promise<{ bytes: Uint8Array; grownFrom: GrownFrom }> {
  const w = decodeSafetensors(bytes);
  const from = checkWeights(w, { vocabSize: tok.size, vocabHash: vocabHash(tok) });
  const size = w.meta.modelSize;
  if (!canGrow(size, to))
    throw new Error(
      `growWeights: a ${size} model does not grow into ${to}` +
        (Object.hasOwn(GROWS_FROM, to) ? ` (${to} grows from ${GROWS_FROM[to]} weights)` : ` (${to} is not grown)`),
    );
  const grownFrom: GrownFrom = { model: size as ModelSize, sha256: await sha256Hex(bytes) };
  const toCfg = modelConfig(to, tok.size);
  const values = growValues(from, toCfg, w.values, rng);
  const meta = { ...w.meta, modelSize: to, grownFrom: JSON.stringify(grownFrom) };
  return { bytes: encodeSafetensors(toCfg, values, meta), grownFrom };
}
