/**
 * The fused causal-masked attention softmax on webgpu (src/core/backend/webgpu/softmax.ts; Node, Dawn on SwiftShader's
 * Vulkan without a GPU) against the composed path of ops.ts `attentionSoftmax` (Multiply, Add of transformer.ts's
 * additive mask, Softmax) on the cpu backend: weights within 2e-6 absolute, gradients w.r.t. the raw scores within
 * 1e-5 of the largest entry, in one dispatch forward and one backward. Cases: a full forward with left padding (whose
 * padded query rows have every key masked), a causal forward without padding over more keys than one stride of 64
 * invocations, and a KV-cached decoding step (T = 1).
 */
import { describe, expect, it } from 'vitest';
import * as tf from '../../../../src/core/tf';
import { Rng } from '../../../../src/core/rng';
import { attentionMask, attentionSoftmax } from '../../../../src/core/model/ops';
import { causalBias, NEG } from '../../../../src/core/model/transformer';
import { installGpuStats } from '../../../../src/core/backend/gpu-stats';
import {
  fusedAttentionSoftmax,
  fusedAttentionSoftmaxUsable,
  MASK_NEG,
} from '../../../../src/core/backend/webgpu/softmax';
import { useBackend } from '../../../helpers/backend';

process.env.VK_ICD_FILENAMES ??= '/usr/lib/chromium/vk_swiftshader_icd.json';
process.env.XDG_RUNTIME_DIR ??= '/tmp';

const rng = new Rng(5);
const draw = (n: number, s = 1) => Float32Array.from({ length: n }, () => rng.normal() * s);
/** B, heads, T queries, Tk keys, key bias [B, Tk] (null: none), raw scores and upstream gradient [B·h, T, Tk]. */
const cases = [
  { B: 2, h: 2, T: 6, Tk: 6, kb: Float32Array.from({ length: 12 }, (_, i) => (i === 6 || i === 7 ? NEG : 0)) },
  { B: 1, h: 3, T: 70, Tk: 70, kb: null },
  { B: 3, h: 2, T: 1, Tk: 9, kb: Float32Array.from({ length: 27 }, (_, i) => (i % 9 < i / 9 ? NEG : 0)) },
].map((c) => ({ ...c, s: draw(c.B * c.h * c.T * c.Tk, 3), w: draw(c.B * c.h * c.T * c.Tk) }));
type Case = (typeof cases)[number];
const scale = 1 / Math.sqrt(8);

/**
 * The additive bias transformer.ts builds: causal (+ key bias) for a full forward, the key bias alone when decoding.
 */
function composedBias(c: Case): tf.Tensor {
  const kb = c.kb && tf.reshape(tf.tensor2d(c.kb, [c.B, c.Tk]), [c.B, 1, 1, c.Tk]);
  if (c.T === 1) return kb!;
  return kb ? tf.add(causalBias(c.T), kb) : causalBias(c.T);
}

/** Weights and the gradient of Σ y·w w.r.t. the raw scores under `f`, read back. */
async function weightsAndGrad(f: (s: tf.Tensor3D) => tf.Tensor, c: Case) {
  const s = tf.tensor3d(c.s, [c.B * c.h, c.T, c.Tk]),
    w = tf.tensor3d(c.w, s.shape);
  const y = f(s);
  const [g] = tf.grads((a: tf.Tensor) => f(a as tf.Tensor3D))([s], w);
  const out = { y: (await y.data()) as Float32Array, g: (await g.data()) as Float32Array };
  tf.dispose([s, w, y, g]);
  return out;
}

const maxDiff = (a: ArrayLike<number>, b: ArrayLike<number>) =>
  Array.from(a).reduce((m, v, i) => Math.max(m, Math.abs(v - b[i])), 0);

describe('fused attention softmax on webgpu', () => {
  it(
    'weights within 2e-6 and score gradients within 1e-5 (relative) of the composed ops on cpu; rows sum ' + 'to 1',
    async () => {
      expect(MASK_NEG).toBe(NEG);
      await useBackend('cpu');
      expect(fusedAttentionSoftmaxUsable(8)).toBe(false);
      const want: Awaited<ReturnType<typeof weightsAndGrad>>[] = [];
      for (const c of cases) {
        const bias = composedBias(c);
        want.push(await weightsAndGrad((s) => attentionSoftmax(s, scale, c.B, c.h, { bias }), c));
        bias.dispose();
      }
      await useBackend('webgpu');
      const before = tf.memory().numTensors;
      for (const [k, c] of cases.entries()) {
        const kb = c.kb ? tf.tensor2d(c.kb, [c.B, c.Tk]) : undefined;
        const mask = attentionMask(
          c.B * c.h * c.T,
          () => {
            throw new Error('the fused path builds no bias');
          },
          kb,
        );
        expect(mask.bias).toBeNull();
        const got = await weightsAndGrad((s) => attentionSoftmax(s, scale, c.B, c.h, mask), c);
        expect(maxDiff(got.y, want[k].y), `weights, case ${k}`).toBeLessThan(2e-6);
        const gmax = Array.from(want[k].g).reduce((m, v) => Math.max(m, Math.abs(v)), 0);
        expect(gmax).toBeGreaterThan(0);
        expect(maxDiff(got.g, want[k].g) / gmax, `gradient, case ${k}`).toBeLessThan(1e-5);
        for (let r = 0; r < got.y.length; r += c.Tk)
          expect(Math.abs(got.y.subarray(r, r + c.Tk).reduce((a, v) => a + v, 0) - 1)).toBeLessThan(1e-6);
        // Masked keys get exactly 0 (a future key of a real query; a padding key of a real query).
        if (k === 0) {
          expect(got.y[1]).toBe(0); // head 0 of row 0, query 0, key 1: future
          expect(got.y[(3 * 6 + 5) * 6 + 0]).toBe(0); // sequence 1, head 1 (row 3), query 5, key 0: padding
        }
        kb?.dispose();
      }
      expect(tf.memory().numTensors).toBe(before);
    },
  );

  it('one dispatch forward and one backward; refuses a key bias of the wrong shape', async () => {
    await useBackend('webgpu');
    const c = cases[0];
    const s = tf.tensor3d(c.s, [c.B * c.h, c.T, c.Tk]),
      w = tf.tensor3d(c.w, s.shape),
      kb = tf.tensor2d(c.kb!, [c.B, c.Tk]);
    const stats = installGpuStats()!;
    stats.reset();
    tf.dispose(fusedAttentionSoftmax(s, scale, c.h, kb));
    expect(stats.counters().dispatches).toBe(1);
    stats.reset();
    tf.dispose(tf.grads((a: tf.Tensor) => fusedAttentionSoftmax(a as tf.Tensor3D, scale, c.h, kb))([s], w));
    expect(stats.counters().dispatches).toBe(2);
    stats.uninstall();
    expect(() => fusedAttentionSoftmax(s, scale, 1, kb)).toThrow(/keyBias has shape \[2,6\].*need \[4, 6\]/);
    tf.dispose([s, w, kb]);
  });
});
