/**
 * Building a run's pieces from its config: tokenizer from the env's corpus, a freshly initialised policy, and
 * the frozen reference copy.
 */
import { skillCorpus } from '../skills/grammar';
import * as tf from '../tf';
import type { EnvSpec } from '../envs/types';
import { Tokenizer, SPECIAL_TOKENS, vocabHash } from '../tokenizer/tokenizer';
import { checkWeights, decodeSafetensors, encodeSafetensors } from './io';
import { modelConfig } from './config';
import { initValues, makeVariables, countParams } from './params';
import { freeMaskRow } from './scoring';
import type { ModelConfig } from './config';
import type { Params } from './params';

/** A policy's weights plus what is needed to prompt and decode it. */
export interface PolicyHandle {
  params: Params;
  cfg: ModelConfig;
  tok: Tokenizer;
  /** Free-decoding additive mask [V] (see model/scoring.freeMaskRow). */
  freeRow: Float32Array;
}
import type { Rng } from '../rng';

/**
 * Word-level vocabulary for an env, built deterministically from `spec.vocabularyCorpus()` plus the skill grammar's
 * words (`skillCorpus`, so hints encode as words); each line is also
 * added with a leading space, since prompt sections and actions are encoded as `␣text`.
 */
export function buildTokenizer(spec: EnvSpec): Tokenizer {
  const corpus = [...spec.vocabularyCorpus(), ...skillCorpus()];
  return Tokenizer.fromCorpus([...corpus, ...corpus.map((l) => ' ' + l)]);
}

/** A policy of a named size with weights drawn from `rng`. @throws Error naming accepted sizes. */
export function createPolicy(size: string, tok: Tokenizer, rng: Rng): PolicyHandle & { paramCount: number } {
  const cfg = modelConfig(size, tok.size);
  const params = makeVariables(cfg, initValues(cfg, rng));
  return {
    params,
    cfg,
    tok,
    freeRow: freeMaskRow(tok.size, SPECIAL_TOKENS.length, tok.special('<eos>')),
    paramCount: countParams(cfg),
  };
}

/** Dispose a policy's parameter tensors. */
export function disposePolicy(p: PolicyHandle): void {
  tf.dispose(Object.values(p.params));
}

/** Current parameter values (name → float32 copy), read asynchronously from the backend. */
export async function policyValues(p: PolicyHandle): Promise<Map<string, Float32Array>> {
  const out = new Map<string, Float32Array>();
  for (const [k, v] of Object.entries(p.params)) out.set(k, (await v.data()) as Float32Array);
  return out;
}

/** Serialise a policy to safetensors bytes with its size, vocabulary hash and env versions in the metadata. */
export async function savePolicy(
  p: PolicyHandle,
  size: string,
  envVersions: Record<string, string>,
  extra: Record<string, string> = {},
): Promise<Uint8Array> {
  return encodeSafetensors(p.cfg, await policyValues(p), {
    format: 'opd-playground',
    modelSize: size,
    vocabSize: String(p.tok.size),
    vocabHash: vocabHash(p.tok),
    envVersions: JSON.stringify(envVersions),
    ...extra,
  });
}

/**
 * Load a policy from safetensors bytes for tokenizer `tok`.
 * @throws Error naming the problem (corrupt file, vocabulary mismatch, wrong shapes) — nothing is half-loaded.
 */
export function loadPolicy(
  bytes: Uint8Array,
  tok: Tokenizer,
): PolicyHandle & { size: string; meta: Record<string, string> } {
  const w = decodeSafetensors(bytes);
  const cfg = checkWeights(w, { vocabSize: tok.size, vocabHash: vocabHash(tok) });
  for (const [name, v] of w.values)
    if (!v.every(Number.isFinite))
      throw new Error(
        `weights file: tensor "${name}" holds NaN or Infinity values (a diverged or corrupt run); use other weights`,
      );
  const params = makeVariables(cfg, w.values);
  return {
    params,
    cfg,
    tok,
    freeRow: freeMaskRow(tok.size, SPECIAL_TOKENS.length, tok.special('<eos>')),
    size: w.meta.modelSize,
    meta: w.meta,
  };
}

/**
 * The environment version a weights file was made with, compared with the code's (metadata `envVersions`, a JSON
 * object env → version written by `savePolicy`). Weights of another version still load — the vocabulary check
 * refuses what cannot work — but the tasks may differ, so their success rates are not comparable.
 * @returns both versions and a one-sentence warning, or null when they agree or the file records none.
 */
export function envVersionMismatch(
  meta: Readonly<Record<string, string>>,
  spec: Pick<EnvSpec, 'name' | 'version'>,
): { made: string; current: string; message: string } | null {
  if (!Object.hasOwn(meta, 'envVersions')) return null;
  let made: unknown;
  try {
    made = JSON.parse(meta.envVersions);
  } catch {
    return null; // decodeSafetensors refuses malformed envVersions
  }
  const v =
    made && typeof made === 'object' && Object.hasOwn(made, spec.name)
      ? (made as Record<string, unknown>)[spec.name]
      : undefined;
  if (typeof v !== 'string' || v === spec.version) return null;
  return {
    made: v,
    current: spec.version,
    message:
      `made with environment version ${v.slice(0, 40)}; this is ${spec.version}: the tasks may ` +
      `differ, so success rates are not comparable`,
  };
}
