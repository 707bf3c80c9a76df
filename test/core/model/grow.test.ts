/**
 * Growing nano weights into nano-deep (core/model/grow.ts): the grown model computes the nano's logits, its new
 * blocks have zero output projections and otherwise the seeded initialiser's values, its size is exact, another
 * size is refused naming both, and growing leaks no tensor.
 */
import fs from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '../../../src/core/tf';
import { Rng } from '../../../src/core/rng';
import { getEnvSpec } from '../../../src/core/envs/registry';
import { modelConfig } from '../../../src/core/model/config';
import { canGrow, growValues, growWeights, GROWS_FROM } from '../../../src/core/model/grow';
import { decodeSafetensors, encodeSafetensors } from '../../../src/core/model/io';
import { countParams, initValues, paramShapes } from '../../../src/core/model/params';
import { buildTokenizer, disposePolicy, loadPolicy, type PolicyHandle } from '../../../src/core/model/policy';
import { forward, logits } from '../../../src/core/model/transformer';
import { sha256Hex } from '../../../src/core/sha256';
import { vocabHash } from '../../../src/core/tokenizer/tokenizer';
import { useBackend } from '../../helpers/backend';

beforeAll(() => useBackend('wasm'));

const tok = buildTokenizer(getEnvSpec('household'));
/** The shipped household base policy: trained nano weights. */
const NANO = new Uint8Array(fs.readFileSync('public/base/household-default.safetensors'));

/** Logits [B·T, V] of `p` on right-aligned sequences of equal length. */
async function logitsOf(p: PolicyHandle, seqs: number[][]): Promise<Float32Array> {
  const T = seqs[0].length;
  const out = tf.tidy(() => {
    const ids = tf.tensor2d(seqs, [seqs.length, T], 'int32');
    const pos = tf.tensor2d(
      seqs.map(() => Array.from({ length: T }, (_, i) => i)),
      [seqs.length, T],
      'int32',
    );
    const h = forward(p.params, p.cfg, ids, pos).hidden;
    return logits(p.params, tf.reshape(h, [-1, p.cfg.dModel]) as tf.Tensor2D);
  });
  const v = (await out.data()) as Float32Array;
  out.dispose();
  return v;
}

describe('nano-deep', () => {
  it('is nano with 4 blocks: 157008 parameters with the household vocabulary (nano 100464 + 2 × 28272)', () => {
    expect(tok.size).toBe(529);
    expect(modelConfig('nano-deep', tok.size)).toEqual({
      vocabSize: 529,
      dModel: 48,
      nLayers: 4,
      nHeads: 2,
      maxSeq: 384,
    });
    expect(countParams(modelConfig('nano', tok.size))).toBe(100464);
    // A block: 12d² + 13d = 12·48² + 13·48 = 28272.
    expect(countParams(modelConfig('nano-deep', tok.size))).toBe(157008);
    expect(GROWS_FROM).toEqual({ 'nano-deep': 'nano' });
    expect([canGrow('nano', 'nano-deep'), canGrow('small', 'nano-deep'), canGrow('nano', 'small')]).toEqual([
      true,
      false,
      false,
    ]);
    expect(canGrow('nano-deep', 'nano-deep')).toBe(false);
  });
});

describe('growValues', () => {
  const from = modelConfig('nano', 40),
    to = modelConfig('nano-deep', 40);
  const src = initValues(from, new Rng(5));

  it("copies the nano's tensors and appends 2 blocks with zero output projections, the rest the initialiser's", () => {
    const g = growValues(from, to, src, new Rng(9).fork('init'));
    const fresh = initValues(to, new Rng(9).fork('init'));
    expect([...g.keys()]).toEqual(paramShapes(to).map(([n]) => n));
    for (const [name] of paramShapes(from)) expect(g.get(name)).toEqual(src.get(name));
    for (const i of [2, 3]) {
      const sizes = { 'attn.wo': 48 * 48, 'attn.bo': 48, 'mlp.wproj': 192 * 48, 'mlp.bproj': 48 };
      for (const [z, n] of Object.entries(sizes)) {
        const v = g.get(`h${i}.${z}`)!;
        expect([z, v.length, v.every((x) => x === 0)]).toEqual([z, n, true]);
      }
      for (const k of ['ln1.g', 'ln2.g']) expect(g.get(`h${i}.${k}`)!.every((x) => x === 1)).toBe(true);
      for (const k of ['ln1.b', 'ln2.b', 'attn.bqkv', 'mlp.bfc'])
        expect(g.get(`h${i}.${k}`)!.every((x) => x === 0)).toBe(true);
      for (const k of ['attn.wqkv', 'mlp.wfc']) {
        expect(g.get(`h${i}.${k}`)).toEqual(fresh.get(`h${i}.${k}`));
        expect(g.get(`h${i}.${k}`)!.some((x) => x !== 0)).toBe(true);
      }
    }
    // The source is not changed.
    expect(src.get('h1.attn.wo')!.some((x) => x !== 0)).toBe(true);
  });

  it('refuses configs that differ in more than depth, or a grown model that is not deeper', () => {
    expect(() => growValues(from, modelConfig('small', 40), src, new Rng(1))).toThrow(
      'growValues: dModel differs (48 → 128); only the number of blocks may grow',
    );
    expect(() => growValues(to, from, initValues(to, new Rng(1)), new Rng(1))).toThrow(
      'growValues: the grown model needs more blocks than 4, got 2',
    );
  });
});

describe('growWeights', () => {
  it("the grown shipped nano computes the nano's logits; the file records grownFrom; no tensor leaks", async () => {
    const before = tf.memory().numTensors;
    const grown = await growWeights(NANO, tok, 'nano-deep', new Rng(1).fork('init'));
    const sha = await sha256Hex(NANO);
    expect(grown.grownFrom).toEqual({ model: 'nano', sha256: sha });
    const w = decodeSafetensors(grown.bytes);
    expect([w.meta.modelSize, w.meta.grownFrom]).toEqual(['nano-deep', JSON.stringify({ model: 'nano', sha256: sha })]);
    for (const name of ['h2.attn.wo', 'h2.attn.bo', 'h2.mlp.wproj', 'h2.mlp.bproj', 'h3.attn.wo', 'h3.mlp.wproj'])
      expect(w.values.get(name)!.every((x) => x === 0)).toBe(true);
    expect(w.values.get('h1.attn.wo')).toEqual(decodeSafetensors(NANO).values.get('h1.attn.wo'));

    const nano = loadPolicy(NANO, tok);
    const deep = loadPolicy(grown.bytes, tok);
    expect([nano.cfg.nLayers, deep.cfg.nLayers, deep.size]).toEqual([2, 4, 'nano-deep']);
    const rng = new Rng(3);
    const seqs = [
      tok.encode(' go to the kitchen and take the apple'),
      Array.from({ length: tok.encode(' go to the kitchen and take the apple').length }, () => rng.int(tok.size)),
    ];
    const long = [Array.from({ length: 200 }, () => rng.int(tok.size))];
    for (const s of [seqs, long]) {
      const a = await logitsOf(nano, s),
        b = await logitsOf(deep, s);
      expect(b.length).toBe(a.length);
      let maxAbs = 0;
      for (let i = 0; i < a.length; i++) maxAbs = Math.max(maxAbs, Math.abs(a[i] - b[i]));
      // x + 0 is x: the zero blocks leave the residual stream bit for bit.
      expect(maxAbs).toBe(0);
    }
    disposePolicy(nano);
    disposePolicy(deep);
    expect(tf.memory().numTensors).toBe(before);
  });

  it('refuses small weights, naming both sizes and the size nano-deep grows from', async () => {
    const small = modelConfig('small', tok.size);
    const bytes = encodeSafetensors(small, initValues(small, new Rng(1)), {
      format: 'opd-playground',
      modelSize: 'small',
      vocabSize: String(tok.size),
      vocabHash: vocabHash(tok),
    });
    await expect(growWeights(bytes, tok, 'nano-deep', new Rng(1))).rejects.toThrow(
      'growWeights: a small model does not grow into nano-deep (nano-deep grows from nano weights)',
    );
    await expect(growWeights(NANO, tok, 'small', new Rng(1))).rejects.toThrow(
      'growWeights: a nano model does not grow into small (small is not grown)',
    );
  });
});
