/**
 * The fused Adam update on webgpu (src/core/backend/webgpu/adam.ts through optim/adam.ts `applyAdam`; Node, Dawn on
 * SwiftShader's Vulkan without a GPU) against tfjs' composed AdamOptimizer on the cpu backend over five steps with a
 * changing learning rate and two clipped steps (gradient scale ≠ 1): weights and both moments within 1e-6 relative
 * (|got − want| ≤ 1e-6·|want| + 1e-12, per element), β powers and iteration counts equal; one dispatch per
 * parameter tensor plus one per step; tf.memory().numTensors constant from step to step.
 */
import { describe, expect, it } from 'vitest';
import * as tf from '../../../src/core/tf';
import { Rng } from '../../../src/core/rng';
import { applyAdam, fusedAdamActive } from '../../../src/core/optim/adam';
import { adamUpdate } from '../../../src/core/backend/webgpu/adam';
import { installGpuStats } from '../../../src/core/backend/gpu-stats';
import { useBackend } from '../../helpers/backend';

process.env.VK_ICD_FILENAMES ??= '/usr/lib/chromium/vk_swiftshader_icd.json';
process.env.XDG_RUNTIME_DIR ??= '/tmp';

/** Parameter shapes: a matrix, a vector longer than one workgroup of 64, a 3-D tensor, a scalar. */
const shapes: Record<string, number[]> = { 'adamT/w': [7, 13], 'adamT/b': [130], 'adamT/k': [2, 3, 5], 'adamT/s': [] };
const size = (s: number[]) => s.reduce((a, b) => a * b, 1);
const rng = new Rng(11);
const init = Object.fromEntries(
  Object.entries(shapes).map(([k, s]) => [k, Float32Array.from({ length: size(s) }, () => rng.normal() * 0.5)]),
);
/** Per step: learning rate, gradient scale (the clip factor; 1 = unclipped) and gradients (some entries exactly 0). */
const steps = [
  { lr: 1e-2, scale: 1 },
  { lr: 8e-3, scale: 0.37 },
  { lr: 6e-3, scale: 1 },
  { lr: 4e-3, scale: 0.9 },
  { lr: 2e-3, scale: 1 },
].map((st) => ({
  ...st,
  g: Object.fromEntries(
    Object.entries(shapes).map(([k, s]) => [
      k,
      Float32Array.from({ length: size(s) }, (_, i) => (i % 11 === 3 ? 0 : rng.normal() * 3)),
    ]),
  ),
}));

interface Trace {
  w: Record<string, Float32Array>;
  m: Float32Array[];
  v: Float32Array[];
  acc: number[];
  iterations: number;
}

/** Run the five steps on the active backend with `applyAdam`; the state after each step. */
async function run(onStep?: (step: number) => void): Promise<Trace[]> {
  const vars = Object.fromEntries(
    Object.entries(shapes).map(([k, s]) => [k, tf.variable(tf.tensor(init[k], s), true, k)]),
  );
  const opt = tf.train.adam(1e-2, 0.9, 0.999, 1e-8);
  const fields = opt as unknown as {
    learningRate: number;
    accumulatedFirstMoment: { variable: tf.Variable }[];
    accumulatedSecondMoment: { variable: tf.Variable }[];
    accBeta1: tf.Variable;
    accBeta2: tf.Variable;
    iterations: number;
  };
  const out: Trace[] = [];
  for (const [t, st] of steps.entries()) {
    fields.learningRate = st.lr; // as train/step.ts sets the scheduled rate
    const grads = Object.fromEntries(Object.entries(shapes).map(([k, s]) => [k, tf.tensor(st.g[k], s)]));
    applyAdam(opt, grads, st.scale);
    tf.dispose(Object.values(grads));
    onStep?.(t);
    out.push({
      w: Object.fromEntries(
        await Promise.all(Object.entries(vars).map(async ([k, v]) => [k, (await v.data()) as Float32Array])),
      ),
      m: await Promise.all(fields.accumulatedFirstMoment.map(async (x) => (await x.variable.data()) as Float32Array)),
      v: await Promise.all(fields.accumulatedSecondMoment.map(async (x) => (await x.variable.data()) as Float32Array)),
      acc: [(await fields.accBeta1.data())[0], (await fields.accBeta2.data())[0]],
      iterations: fields.iterations,
    });
  }
  opt.dispose();
  tf.dispose(Object.values(vars));
  return out;
}

/** Largest |got − want| / (|want| + 1e-6), and whether every element is within 1e-6·|want| + 1e-12. */
function relErr(got: Float32Array, want: Float32Array): { max: number; ok: boolean } {
  let max = 0,
    ok = got.length === want.length;
  for (let i = 0; i < want.length; i++) {
    const d = Math.abs(got[i] - want[i]);
    max = Math.max(max, d / (Math.abs(want[i]) + 1e-6));
    if (!(d <= 1e-6 * Math.abs(want[i]) + 1e-12)) ok = false;
  }
  return { max, ok };
}

describe('fused Adam on webgpu', () => {
  it(
    'weights and moments within 1e-6 relative of tfjs Adam on cpu over 5 steps; 1 + (tensors) dispatches ' +
      'per step; no tensor leaks',
    async () => {
      await useBackend('cpu');
      const probe = tf.train.adam(0.1);
      expect(fusedAdamActive(probe)).toBe(false);
      probe.dispose();
      const want = await run();
      // The composed cpu path really moved things: the weights changed and a clipped step scaled the gradient.
      expect(want[0].w['adamT/w'][0]).not.toBe(init['adamT/w'][0]);

      await useBackend('webgpu');
      const probe2 = tf.train.adam(0.1);
      expect(fusedAdamActive(probe2)).toBe(true);
      probe2.dispose();
      expect(fusedAdamActive(tf.train.sgd(0.1))).toBe(false);
      const stats = installGpuStats()!;
      const tensors: number[] = [],
        dispatches: number[] = [];
      stats.reset();
      const got = await run(() => {
        tensors.push(tf.memory().numTensors);
        dispatches.push(stats.counters().dispatches);
        stats.reset();
      });
      stats.uninstall();
      const n = Object.keys(shapes).length;
      // Step 1 also fills the 2n zero moments (tfjs' zerosLike) and uploads the gradients; later steps: n + 1.
      expect(dispatches).toEqual([3 * n + 1, n + 1, n + 1, n + 1, n + 1]);
      expect(new Set(tensors).size).toBe(1);

      let worst = 0;
      for (const [t, w] of want.entries()) {
        const g = got[t];
        expect(g.iterations).toBe(t + 1);
        expect(g.iterations).toBe(w.iterations);
        expect(g.acc).toEqual(w.acc); // β₁ᵗ⁺¹, β₂ᵗ⁺¹: one float32 multiply each, exact on both backends
        const pairs: [string, Float32Array, Float32Array][] = [
          ...Object.keys(shapes).map((k) => [`w ${k}`, g.w[k], w.w[k]] as [string, Float32Array, Float32Array]),
          ...w.m.map((x, i) => [`m ${i}`, g.m[i], x] as [string, Float32Array, Float32Array]),
          ...w.v.map((x, i) => [`v ${i}`, g.v[i], x] as [string, Float32Array, Float32Array]),
        ];
        for (const [name, a, b] of pairs) {
          const e = relErr(a, b);
          worst = Math.max(worst, e.max);
          expect(e.ok, `step ${t + 1}, ${name}: max relative error ${e.max}`).toBe(true);
        }
      }
      console.log(`fused Adam vs cpu: largest relative error over 5 steps ${worst.toExponential(2)}`);
    },
  );

  it('refuses moments of another shape, naming the argument', async () => {
    await useBackend('webgpu');
    const w = tf.zeros([3]),
      m = tf.zeros([4]),
      c = tf.ones([2]);
    expect(() => adamUpdate(w, m, w, w, c, { lr: 1e-3, beta1: 0.9, beta2: 0.999, eps: 1e-8, gradScale: 1 })).toThrow(
      /m has shape \[4\] but the weight has \[3\]/,
    );
    tf.dispose([w, m, c]);
  });
});
