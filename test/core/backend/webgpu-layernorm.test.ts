/**
 * The fused LayerNorm forward kernel on webgpu (src/core/backend/webgpu-layernorm.ts; Node, Dawn on SwiftShader's
 * Vulkan without a GPU) against the composed ops.ts layerNorm on the cpu backend: same inputs, outputs within 1e-5
 * absolute, in one dispatch instead of nine.
 */
import { describe, expect, it } from 'vitest';
import * as tf from '../../../src/core/tf';
import { Rng } from '../../../src/core/rng';
import { layerNorm } from '../../../src/core/model/ops';
import { installGpuStats } from '../../../src/core/backend/gpu-stats';
import { fusedLayerNorm, fusedLayerNormUsable, registerWebGpuLayerNorm } from '../../../src/core/backend/webgpu-layernorm';
import { useBackend } from '../../helpers/backend';

process.env.VK_ICD_FILENAMES ??= '/usr/lib/chromium/vk_swiftshader_icd.json';
process.env.XDG_RUNTIME_DIR ??= '/tmp';

const rng = new Rng(3);
// Rows of width 48 (nano), 130 (more than one stride of 64 invocations) and 5; an offset row tests the centring.
const cases = [[2, 3, 48], [4, 130], [7, 5]].map((shape) => {
  const n = shape.reduce((a, b) => a * b, 1), d = shape[shape.length - 1];
  return {
    shape, d,
    x: Float32Array.from({ length: n }, (_, i) => rng.normal() * 2 + (i < d ? 100 : 0)),
    g: Float32Array.from({ length: d }, () => 1 + 0.5 * rng.normal()),
    b: Float32Array.from({ length: d }, () => rng.normal()),
  };
});

describe('fused LayerNorm on webgpu', () => {
  it('equals the composed layerNorm on cpu within 1e-5 in one dispatch; refuses off webgpu and inside a tape', async () => {
    await useBackend('cpu');
    registerWebGpuLayerNorm();
    expect(fusedLayerNormUsable(4)).toBe(false); // cpu active
    const want = await Promise.all(cases.map((c) => layerNorm(tf.tensor(c.x, c.shape), tf.tensor1d(c.g), tf.tensor1d(c.b)).data()));
    await useBackend('webgpu');
    expect(fusedLayerNormUsable(4)).toBe(true);
    const stats = installGpuStats()!;
    for (const [k, c] of cases.entries()) {
      const x = tf.tensor(c.x, c.shape), g = tf.tensor1d(c.g), b = tf.tensor1d(c.b);
      stats.reset();
      const y = fusedLayerNorm(x, g, b);
      expect(stats.counters().dispatches).toBe(1);
      expect(y.shape).toEqual(c.shape);
      const got = await y.data();
      let diff = 0;
      got.forEach((v, i) => (diff = Math.max(diff, Math.abs(v - want[k][i]))));
      expect(diff, `shape ${c.shape}`).toBeLessThan(1e-5);
      stats.reset();
      tf.dispose(layerNorm(x, g, b));
      expect(stats.counters().dispatches).toBeGreaterThanOrEqual(9); // the composed forward it replaces
      tf.dispose([x, g, b, y]);
    }
    stats.uninstall();
    const x = tf.variable(tf.ones([2, 4]));
    expect(() => tf.variableGrads(() => tf.sum(fusedLayerNorm(x, tf.ones([4]), tf.zeros([4]))) as tf.Scalar, [x])).toThrow(/gradient tape/);
    x.dispose();
  });
});
