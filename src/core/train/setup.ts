/**
 * Building a run's pieces from its config: tokenizer from the env's corpus, a freshly initialised policy, and
 * the frozen reference copy.
 */
import * as tf from '../tf';
import type { EnvSpec } from '../envs/types';
import { Tokenizer, SPECIAL_TOKENS } from '../tokenizer/tokenizer';
import { modelConfig } from '../model/config';
import { initValues, makeVariables, countParams } from '../model/params';
import { freeMaskRow } from '../model/scoring';
import type { PolicyHandle } from '../rollout/runner';
import type { Rng } from '../rng';

/**
 * Word-level vocabulary for an env, built deterministically from `spec.vocabularyCorpus()`; each line is also
 * added with a leading space, since prompt sections and actions are encoded as `␣text`.
 */
export function buildTokenizer(spec: EnvSpec): Tokenizer {
  const corpus = spec.vocabularyCorpus();
  return Tokenizer.fromCorpus([...corpus, ...corpus.map((l) => ' ' + l)]);
}

/** A policy of a named size with weights drawn from `rng`. @throws Error naming accepted sizes. */
export function createPolicy(size: string, tok: Tokenizer, rng: Rng): PolicyHandle & { paramCount: number } {
  const cfg = modelConfig(size, tok.size);
  const params = makeVariables(cfg, initValues(cfg, rng));
  return { params, cfg, tok, freeRow: freeMaskRow(tok.size, SPECIAL_TOKENS.length, tok.special('<eos>')), paramCount: countParams(cfg) };
}

/** Dispose a policy's parameter tensors. */
export function disposePolicy(p: PolicyHandle): void {
  tf.dispose(Object.values(p.params));
}
