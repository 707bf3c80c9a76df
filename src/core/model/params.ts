/**
 * Named parameter tensors of the policy, their initialisation (seeded) and cloning (for the frozen reference).
 *
 * Names and shapes (d = dModel, V = vocabSize, S = maxSeq, L = nLayers):
 *   wte [V, d] token embedding, also the tied output head;  wpe [S, d] position embedding;
 *   h{i}.ln1.g / h{i}.ln1.b [d];  h{i}.attn.wqkv [d, 3d], h{i}.attn.bqkv [3d];  h{i}.attn.wo [d, d], h{i}.attn.bo [d];
 *   h{i}.ln2.g / h{i}.ln2.b [d];  h{i}.mlp.wfc [d, 4d], h{i}.mlp.bfc [4d];  h{i}.mlp.wproj [4d, d], h{i}.mlp.bproj [d];
 *   lnf.g / lnf.b [d].  All float32.
 */
import * as tf from '../tf';
import type { Rng } from '../rng';
import type { ModelConfig } from './config';
import { counted } from '../count-text';

/** Parameter tensors by name (variables for the trained policy, plain tensors for frozen copies). */
export type Params = Record<string, tf.Tensor>;

/** Every parameter's name and shape, in a fixed order (the save format's order). */
export function paramShapes(cfg: ModelConfig): [string, number[]][] {
  const { dModel: d, vocabSize: V, maxSeq: S, nLayers: L } = cfg;
  const out: [string, number[]][] = [
    ['wte', [V, d]],
    ['wpe', [S, d]],
  ];
  for (let i = 0; i < L; i++) {
    out.push(
      [`h${i}.ln1.g`, [d]],
      [`h${i}.ln1.b`, [d]],
      [`h${i}.attn.wqkv`, [d, 3 * d]],
      [`h${i}.attn.bqkv`, [3 * d]],
      [`h${i}.attn.wo`, [d, d]],
      [`h${i}.attn.bo`, [d]],
      [`h${i}.ln2.g`, [d]],
      [`h${i}.ln2.b`, [d]],
      [`h${i}.mlp.wfc`, [d, 4 * d]],
      [`h${i}.mlp.bfc`, [4 * d]],
      [`h${i}.mlp.wproj`, [4 * d, d]],
      [`h${i}.mlp.bproj`, [d]],
    );
  }
  out.push(['lnf.g', [d]], ['lnf.b', [d]]);
  return out;
}

/** Total number of scalar parameters. */
export function countParams(cfg: ModelConfig): number {
  return paramShapes(cfg).reduce((s, [, sh]) => s + sh.reduce((a, b) => a * b, 1), 0);
}

/**
 * Initial values, drawn from `rng` (GPT-2 scheme): weights N(0, 0.02), residual projections (attn.wo,
 * mlp.wproj) N(0, 0.02/√(2L)), biases 0, LayerNorm gains 1. Returns plain Float32Arrays (no tensors).
 */
export function initValues(cfg: ModelConfig, rng: Rng): Map<string, Float32Array> {
  const out = new Map<string, Float32Array>();
  const residStd = 0.02 / Math.sqrt(2 * cfg.nLayers);
  for (const [name, shape] of paramShapes(cfg)) {
    const n = shape.reduce((a, b) => a * b, 1);
    const a = new Float32Array(n);
    if (name.endsWith('.g')) a.fill(1);
    else if (shape.length === 2) {
      const std = name.endsWith('.wo') || name.endsWith('.wproj') ? residStd : 0.02;
      for (let i = 0; i < n; i++) a[i] = rng.normal() * std;
    }
    out.set(name, a);
  }
  return out;
}

/**
 * Make trainable variables from values (shapes from cfg). @throws Error if a value is missing or has the wrong size.
 */
export function makeVariables(cfg: ModelConfig, values: Map<string, Float32Array>): Params {
  const p: Params = {};
  for (const [name, shape] of paramShapes(cfg)) {
    const v = values.get(name);
    const n = shape.reduce((a, b) => a * b, 1);
    if (!v) throw new Error(`weights: missing parameter ${name} [${shape}]`);
    if (v.length !== n)
      throw new Error(`weights: parameter ${name} has ${counted(v.length, 'value')}, expected [${shape}] = ${n}`);
    const t = tf.tensor(v, shape, 'float32');
    p[name] = tf.variable(t, true, `p_${name}_${nextId++}`);
    t.dispose(); // the variable holds its own reference to the data
  }
  return p;
}
let nextId = 0;

/** A frozen copy of params (plain tensors, not trainable): the reference policy. Caller disposes. */
export function cloneFrozen(p: Params): Params {
  const out: Params = {};
  for (const [k, v] of Object.entries(p)) out[k] = tf.keep(tf.clone(v));
  return out;
}
