/**
 * The fused LayerNorm on webgpu (src/core/backend/webgpu/layernorm.ts; Node, Dawn on SwiftShader's Vulkan without a
 * GPU) against the composed ops.ts LayerNorm on the cpu backend, same inputs: outputs within 5e-5 absolute (outputs of
 * order 1; each case's first row is offset by +100 at σ ≈ 2, so centring in float32 leaves errors of
 * ~100·2⁻²⁴/2 on both backends, summed in different orders), gradients for x, γ and β within 1e-5 of the
 * largest gradient entry; one dispatch forward and four backward, where the composed forward alone takes nine. ops.ts
 * `layerNorm` runs it on webgpu.
 */
import { describe, expect, it } from 'vitest';
import * as tf from '../../../../src/core/tf';
import { Rng } from '../../../../src/core/rng';
import { composedLayerNorm, layerNorm } from '../../../../src/core/model/ops';
import { installGpuStats } from '../../../../src/core/backend/gpu-stats';
import { fusedLayerNorm, fusedLayerNormUsable } from '../../../../src/core/backend/webgpu/layernorm';
import { useBackend } from '../../../helpers/backend';

process.env.VK_ICD_FILENAMES ??= '/usr/lib/chromium/vk_swiftshader_icd.json';
process.env.XDG_RUNTIME_DIR ??= '/tmp';

const rng = new Rng(3);
// Rows of width 48 (nano), 130 (more than one stride of 64 invocations) and 5; 150 rows of 20 (the parameter
// gradients' column kernel strides over rows); an offset row tests the centring.
const cases = [
  [2, 3, 48],
  [4, 130],
  [7, 5],
  [3, 50, 20],
].map((shape) => {
  const n = shape.reduce((a, b) => a * b, 1),
    d = shape[shape.length - 1];
  const draw = (len: number, f: (i: number) => number) => Float32Array.from({ length: len }, (_, i) => f(i));
  return {
    shape,
    d,
    x: draw(n, (i) => rng.normal() * 2 + (i < d ? 100 : 0)),
    g: draw(d, () => 1 + 0.5 * rng.normal()),
    b: draw(d, () => rng.normal()),
    w: draw(n, () => rng.normal()), // the upstream gradient dy
  };
});
type Case = (typeof cases)[number];

/** y and the gradients of Σ y·w for x, γ, β under `f`, read back. */
async function forwardAndGrads(f: (x: tf.Tensor, g: tf.Tensor, b: tf.Tensor) => tf.Tensor, c: Case) {
  const x = tf.tensor(c.x, c.shape),
    g = tf.tensor1d(c.g),
    b = tf.tensor1d(c.b),
    w = tf.tensor(c.w, c.shape);
  const y = f(x, g, b);
  const grads = tf.grads((a: tf.Tensor, bb: tf.Tensor, cc: tf.Tensor) => f(a, bb, cc))([x, g, b], w);
  const out = {
    y: (await y.data()) as Float32Array,
    grads: (await Promise.all(grads.map((t) => t.data()))) as Float32Array[],
  };
  tf.dispose([x, g, b, w, y, ...grads]);
  return out;
}

const maxAbs = (a: ArrayLike<number>) => Array.from(a).reduce((m, v) => Math.max(m, Math.abs(v)), 0);
const maxDiff = (a: ArrayLike<number>, b: ArrayLike<number>) =>
  Array.from(a).reduce((m, v, i) => Math.max(m, Math.abs(v - b[i])), 0);

describe('fused LayerNorm on webgpu', () => {
  it('forward within 5e-5 and gradients within 1e-5 (relative to the largest) of the composed ops on cpu', async () => {
    await useBackend('cpu');
    expect(fusedLayerNormUsable(4)).toBe(false); // cpu active
    const want: Awaited<ReturnType<typeof forwardAndGrads>>[] = [];
    for (const c of cases) want.push(await forwardAndGrads(composedLayerNorm, c));
    await useBackend('webgpu');
    expect(fusedLayerNormUsable(4)).toBe(true);
    const before = tf.memory().numTensors;
    for (const [k, c] of cases.entries()) {
      const got = await forwardAndGrads(fusedLayerNorm, c);
      expect(maxDiff(got.y, want[k].y), `y ${c.shape}`).toBeLessThan(5e-5);
      ['x', 'gamma', 'beta'].forEach((name, i) => {
        const scale = maxAbs(want[k].grads[i]);
        expect(scale).toBeGreaterThan(0);
        expect(maxDiff(got.grads[i], want[k].grads[i]) / scale, `d${name} ${c.shape}`).toBeLessThan(1e-5);
      });
    }
    expect(tf.memory().numTensors).toBe(before);
  });

  it('one dispatch forward and four backward; ops.ts layerNorm takes the fused path on webgpu', async () => {
    await useBackend('webgpu');
    const c = cases[0];
    const x = tf.tensor(c.x, c.shape),
      g = tf.tensor1d(c.g),
      b = tf.tensor1d(c.b),
      w = tf.tensor(c.w, c.shape);
    const stats = installGpuStats()!;
    const count = (f: () => tf.Tensor | tf.Tensor[]) => {
      stats.reset();
      tf.dispose(f());
      return stats.counters().dispatches;
    };
    const grad = (f: typeof layerNorm) => () =>
      tf.grads((a: tf.Tensor, bb: tf.Tensor, cc: tf.Tensor) => f(a, bb, cc))([x, g, b], w);
    expect(count(() => fusedLayerNorm(x, g, b))).toBe(1);
    expect(count(() => layerNorm(x, g, b))).toBe(1);
    expect(count(grad(layerNorm))).toBe(5); // forward 1 + row statistics, dx, dγ, dβ
    expect(count(() => composedLayerNorm(x, g, b))).toBeGreaterThanOrEqual(9); // the composed forward it replaces
    expect(count(grad(composedLayerNorm))).toBeGreaterThan(15);
    stats.uninstall();
    tf.dispose([x, g, b, w]);
  });
});
