import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '../../../src/core/tf';
import { Rng } from '../../../src/core/rng';
import { modelConfig } from '../../../src/core/model/config';
import { initValues, makeVariables, countParams, paramShapes } from '../../../src/core/model/params';
import { sampleResponses } from '../../../src/core/model/sample';
import {
  buildScoreBatch,
  disposeBatch,
  freeMaskRow,
  scoreSamples,
  tokenLogProbs,
} from '../../../src/core/model/scoring';
import { forward } from '../../../src/core/model/transformer';
import { useBackend } from '../../helpers/backend';

beforeAll(() => useBackend('wasm'));

const V = 120;
const cfg = modelConfig('nano', V);
const free = freeMaskRow(V, 16, 2);

describe('transformer policy', () => {
  it('names sizes and rejects unknown ones', () => {
    expect(() => modelConfig('huge', 100)).toThrow(/unknown model size "huge" \(known: nano, nano-deep, small, base\)/);
    expect(countParams(modelConfig('small', 1024))).toBe(
      paramShapes(modelConfig('small', 1024)).reduce((s, [, sh]) => s + sh.reduce((a, b) => a * b, 1), 0),
    );
  });

  it('is causal: changing a later token does not change earlier hidden states', async () => {
    const p = makeVariables(cfg, initValues(cfg, new Rng(1)));
    const pos = tf.tensor2d([[0, 1, 2, 3, 4]], [1, 5], 'int32');
    const a = forward(p, cfg, tf.tensor2d([[1, 20, 30, 40, 50]], [1, 5], 'int32'), pos).hidden;
    const b = forward(p, cfg, tf.tensor2d([[1, 20, 30, 41, 99]], [1, 5], 'int32'), pos).hidden;
    const da = await tf.slice(a, [0, 0, 0], [1, 3, -1]).data(),
      db = await tf.slice(b, [0, 0, 0], [1, 3, -1]).data();
    expect(Array.from(da)).toEqual(Array.from(db));
    expect(Array.from(await a.data())).not.toEqual(Array.from(await b.data()));
  });

  it('KV-cached sampling log-probs match batched re-scoring (left padding is invisible)', async () => {
    const p = makeVariables(cfg, initValues(cfg, new Rng(1)));
    const prompts = [
      [1, 20, 30, 40],
      [1, 50, 60],
      [1, 70, 80, 90, 100, 110, 33],
    ];
    const res = await sampleResponses(p, cfg, prompts, {
      temperature: 1,
      maxTokens: 5,
      eos: 2,
      freeRow: free,
      rng: new Rng(2),
      allowed: (i) => (i === 1 ? new Int32Array([2, 33, 44]) : null),
    });
    expect(res[1].tokens.every((t) => [2, 33, 44].includes(t))).toBe(true);
    const samples = prompts.map((pr, i) => ({ prompt: pr, response: res[i].tokens, allowed: res[i].allowed }));
    const sc = await scoreSamples(p, cfg, samples, free);
    const flat = res.flatMap((r) => r.sampleLogp);
    flat.forEach((v, k) => expect(sc.logp[k]).toBeCloseTo(v, 4));
  });

  it('sampling is reproducible with the same seed and differs with another', async () => {
    const p = makeVariables(cfg, initValues(cfg, new Rng(1)));
    const run = async (seed: number) =>
      (
        await sampleResponses(
          p,
          cfg,
          [
            [1, 5, 6],
            [1, 7],
          ],
          { temperature: 1, maxTokens: 6, eos: 2, freeRow: free, rng: new Rng(seed), allowed: () => null },
        )
      ).map((r) => r.tokens);
    expect(await run(3)).toEqual(await run(3));
    expect(await run(3)).not.toEqual(await run(4));
  });

  it('every weight gets gradient, and scoring leaks no tensors', async () => {
    const p = makeVariables(cfg, initValues(cfg, new Rng(1)));
    const samples = [{ prompt: [1, 5, 6, 7], response: [9, 10, 2], allowed: [null, new Int32Array([10, 11]), null] }];
    await scoreSamples(p, cfg, samples, free);
    const before = tf.memory().numTensors;
    await scoreSamples(p, cfg, samples, free);
    expect(tf.memory().numTensors).toBe(before);
    const b = buildScoreBatch(samples, cfg, free);
    const { value, grads } = tf.variableGrads(() => tf.neg(tf.sum(tokenLogProbs(p, cfg, b).logp)) as tf.Scalar);
    for (const [name, g] of Object.entries(grads)) {
      const n = (await tf.norm(g).data())[0];
      expect(n, name).toBeGreaterThan(0);
    }
    tf.dispose([value, ...Object.values(grads)]);
    disposeBatch(b);
  });

  it('masked-out tokens have log-prob of the renormalised allowed set', async () => {
    const p = makeVariables(cfg, initValues(cfg, new Rng(1)));
    // A single allowed token has probability 1 → log-prob 0 and entropy 0.
    const s = [{ prompt: [1, 5], response: [40], allowed: [new Int32Array([40])] }];
    const b = buildScoreBatch(s, cfg, free);
    const r = tokenLogProbs(p, cfg, b);
    expect((await r.logp.data())[0]).toBeCloseTo(0, 6);
    expect((await r.entropy.data())[0]).toBeCloseTo(0, 6);
    disposeBatch(b);
  });
});

describe('loadPolicy refuses non-finite weights (fresh-eyes trial)', () => {
  it('names the tensor holding NaN', async () => {
    const { getEnvSpec } = await import('../../../src/core/envs/registry');
    const { buildTokenizer, createPolicy, savePolicy, loadPolicy, disposePolicy } =
      await import('../../../src/core/model/policy');
    const { decodeSafetensors, encodeSafetensors } = await import('../../../src/core/model/io');
    const { Rng } = await import('../../../src/core/rng');
    const tok = buildTokenizer(getEnvSpec('household'));
    const p = createPolicy('nano', tok, new Rng(1));
    const bytes = await savePolicy(p, 'nano', { household: 'x' });
    disposePolicy(p);
    const w = decodeSafetensors(bytes);
    w.values.get('wpe')![3] = NaN;
    const bad = encodeSafetensors(p.cfg, w.values, w.meta as never);
    expect(() => loadPolicy(bad, tok)).toThrow(/tensor "wpe" holds NaN or Infinity values/);
  });
});
