/**
 * The Adam kernel on wasm (src/core/backend/wasm/adam.ts through optim/adam.ts `applyAdam`) against tfjs'
 * AdamOptimizer.applyGradients (the same `applyAdam` with the kernel switched off) on the wasm backend: weights, both
 * moments, β powers and iteration counts the same float32 words after each of six steps with a changing learning
 * rate and three clipped steps (gradient scale ≠ 1), for lengths that are and are not multiples of 4 (the scalar
 * tail), two sets of hyper-parameters, and gradients from 1e-40 (subnormal) to 1e20 (whose square overflows to ∞);
 * both also equal a float32 reference in JavaScript (Math.fround after every operation, in tfjs' order). One kernel
 * call per parameter tensor; tf.memory().numTensors constant from step to step.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '../../../../src/core/tf';
import { Rng } from '../../../../src/core/rng';
import { applyAdam, wasmAdamActive } from '../../../../src/core/optim/adam';
import {
  adamCorrections,
  setWasmAdamEnabled,
  WASM_ADAM_KERNEL,
  wasmAdamUpdate,
  wasmAdamUsable,
} from '../../../../src/core/backend/wasm/adam';
import { useBackend } from '../../../helpers/backend';

beforeAll(() => useBackend('wasm'));

/** Parameter shapes: a layer's weight (65536, a multiple of 4) and lengths 130, 105, 1 and 3 (n mod 4 = 2, 1, 1, 3). */
const shapes: Record<string, number[]> = { w: [128, 512], b: [130], k: [3, 5, 7], s: [], t: [3] };
const size = (s: number[]) => s.reduce((a, b) => a * b, 1);
const rng = new Rng(31);
const init = Object.fromEntries(
  Object.entries(shapes).map(([k, s]) => [k, Float32Array.from({ length: size(s) }, () => rng.normal() * 0.5)]),
);
/**
 * A gradient entry: mostly normal draws over 9 decades, with exact ±0, subnormals and values whose square overflows.
 */
function gradValue(i: number): number {
  if (i % 17 === 3) return 0;
  if (i % 29 === 5) return -0;
  if (i % 31 === 7) return rng.normal() * 1e-40;
  if (i % 97 === 11) return rng.normal() * 1e20;
  return rng.normal() * 10 ** (rng.int(9) - 6);
}
const steps = [
  { lr: 1e-2, scale: 1 },
  { lr: 8e-3, scale: 0.37 },
  { lr: 6e-3, scale: 1 },
  { lr: 4e-3, scale: 2.5e-3 },
  { lr: 2e-3, scale: 1 },
  { lr: 1e-3, scale: 0.9 },
].map((st) => ({
  ...st,
  g: Object.fromEntries(
    Object.entries(shapes).map(([k, s]) => [k, Float32Array.from({ length: size(s) }, (_, i) => gradValue(i))]),
  ),
}));

type AdamState = {
  learningRate: number;
  beta1: number;
  beta2: number;
  epsilon: number;
  accumulatedFirstMoment: { variable: tf.Variable }[];
  accumulatedSecondMoment: { variable: tf.Variable }[];
  accBeta1: tf.Variable;
  accBeta2: tf.Variable;
  iterations: number;
};
/** Float32 words of a tensor's data. */
const words = (t: tf.Tensor) => new Uint32Array((t.dataSync() as Float32Array).slice().buffer);
/** The first few positions where two word arrays differ (an empty list: the same bits). */
const diff = (a: Uint32Array, b: Uint32Array) =>
  a.length !== b.length
    ? [-1]
    : Array.from(a.keys())
        .filter((i) => a[i] !== b[i])
        .slice(0, 5);

/** Six `applyAdam` steps with the kernel on or off; the words of every state tensor after each step and numTensors. */
function run(
  on: boolean,
  tag: string,
  opt: () => tf.AdamOptimizer,
): { states: Uint32Array[][]; counts: number[]; iterations: number[] } {
  const was = setWasmAdamEnabled(on);
  const vars = Object.fromEntries(
    Object.entries(shapes).map(([k, s]) => [
      k,
      tf.tidy(() => tf.variable(tf.tensor(init[k], s), true, `wadam${tag}/${k}`)),
    ]),
  );
  const o = opt(),
    f = o as unknown as AdamState;
  expect(wasmAdamActive(o)).toBe(on);
  const states: Uint32Array[][] = [],
    counts: number[] = [],
    iterations: number[] = [];
  for (const st of steps) {
    f.learningRate = st.lr; // as train/step.ts sets the scheduled rate
    const grads = Object.fromEntries(
      Object.entries(shapes).map(([k, s]) => [`wadam${tag}/${k}`, tf.tensor(st.g[k], s)]),
    );
    applyAdam(o, grads, st.scale);
    tf.dispose(Object.values(grads));
    counts.push(tf.memory().numTensors);
    iterations.push(f.iterations);
    states.push(
      [
        ...Object.values(vars),
        ...f.accumulatedFirstMoment.map((x) => x.variable),
        ...f.accumulatedSecondMoment.map((x) => x.variable),
        f.accBeta1,
        f.accBeta2,
      ].map(words),
    );
  }
  o.dispose();
  tf.dispose(Object.values(vars));
  setWasmAdamEnabled(was);
  return { states, counts, iterations };
}

/** tfjs' Adam in JavaScript, Math.fround after every operation (the float32 result of each double operation). */
function reference(b1: number, b2: number, eps: number): Float32Array[] {
  const r = Math.fround;
  const w = Object.values(init).map((x) => Float32Array.from(x)),
    m = w.map((x) => new Float32Array(x.length)),
    v = w.map((x) => new Float32Array(x.length));
  let acc1 = r(b1),
    acc2 = r(b2);
  for (const st of steps) {
    const c1 = r(1 - acc1),
      c2 = r(1 - acc2);
    Object.keys(shapes).forEach((k, j) => {
      for (let i = 0; i < w[j].length; i++) {
        const g = r(st.g[k][i] * r(st.scale));
        const mi = r(r(m[j][i] * r(b1)) + r(g * r(1 - b1)));
        const vi = r(r(v[j][i] * r(b2)) + r(r(g * g) * r(1 - b2)));
        m[j][i] = mi;
        v[j][i] = vi;
        w[j][i] = r(r(r(r(mi / c1) / r(r(Math.sqrt(r(vi / c2))) + r(eps))) * r(-st.lr)) + w[j][i]);
      }
    });
    acc1 = r(acc1 * r(b1));
    acc2 = r(acc2 * r(b2));
  }
  return [...w, ...m, ...v, Float32Array.of(acc1), Float32Array.of(acc2)];
}

describe('Adam kernel on wasm', () => {
  it('is used on the wasm backend for tfjs Adam only', () => {
    expect(wasmAdamUsable()).toBe(true);
    const adam = tf.train.adam(0.1),
      sgd = tf.train.sgd(0.1);
    expect(wasmAdamActive(adam)).toBe(true);
    expect(wasmAdamActive(sgd)).toBe(false);
    adam.dispose();
    sgd.dispose();
  });

  for (const [name, make, hyper] of [
    ['β 0.9, 0.999, ε 1e-8', () => tf.train.adam(1e-2, 0.9, 0.999, 1e-8), [0.9, 0.999, 1e-8]],
    ["β 0.8, 0.95, the backend's ε (1e-7)", () => tf.train.adam(1e-2, 0.8, 0.95), [0.8, 0.95, 1e-7]],
  ] as const) {
    it(`gives tfjs applyGradients' words over six steps (${name}), numTensors constant`, () => {
      const stock = run(false, `S${name.length}`, make),
        fused = run(true, `F${name.length}`, make);
      for (let t = 0; t < steps.length; t++) {
        expect(fused.states[t].length).toBe(stock.states[t].length);
        fused.states[t].forEach((x, j) => expect([t, j, diff(x, stock.states[t][j])]).toEqual([t, j, []]));
      }
      expect(fused.iterations).toEqual([1, 2, 3, 4, 5, 6]);
      expect(stock.iterations).toEqual(fused.iterations);
      expect(new Set(fused.counts).size).toBe(1);
      expect(new Set(stock.counts).size).toBe(1);
      // Both equal the JavaScript float32 reference; the weights really moved and an overflowed v' stayed +∞.
      const ref = reference(hyper[0], hyper[1], hyper[2]).map((x) => new Uint32Array(x.buffer));
      ref.forEach((x, j) => expect([j, diff(fused.states[5][j], x)]).toEqual([j, []]));
      const w0 = new Float32Array(fused.states[5][0].buffer),
        v0 = new Float32Array(fused.states[5][5 + 5].buffer);
      expect(w0[0]).not.toBe(init.w[0]);
      expect(v0[11]).toBe(Infinity);
    });
  }

  it('runs one kernel per parameter tensor and leaves no tensor behind', async () => {
    const before = tf.memory().numTensors;
    const vars = Object.entries(shapes).map(([k, s]) =>
      tf.tidy(() => tf.variable(tf.tensor(init[k], s), true, `wadamK/${k}`)),
    );
    const opt = tf.train.adam(1e-3);
    const step = () => {
      const grads = Object.fromEntries(vars.map((v) => [v.name, tf.onesLike(v)]));
      applyAdam(opt, grads);
      tf.dispose(Object.values(grads));
    };
    step(); // creates the moments
    const info = await tf.profile(() => step());
    expect(info.kernelNames.filter((k) => k !== 'OnesLike')).toEqual([WASM_ADAM_KERNEL]);
    expect(info.kernels.filter((k) => k.name === WASM_ADAM_KERNEL).length).toBe(vars.length);
    opt.dispose();
    tf.dispose(vars);
    expect(tf.memory().numTensors).toBe(before);
  });

  it('rejects mismatched shapes and non-float32 tensors by name', () => {
    const h = { lr: 1e-3, beta1: 0.9, beta2: 0.999, eps: 1e-8, gradScale: 1, c1: 0.1, c2: 0.001 };
    const w = tf.zeros([4]),
      m = tf.zeros([4]),
      bad = tf.zeros([5]),
      ints = tf.zeros([4], 'int32');
    expect(() => wasmAdamUpdate(w, m, m, bad, h)).toThrow(/g has shape \[5\]/);
    expect(() => wasmAdamUpdate(w, ints, m, m, h)).toThrow(/m is int32/);
    tf.dispose([w, m, bad, ints]);
  });

  it('computes the bias corrections as float32 Sub and Mul', () => {
    // β₁ᵗ = 0.9 (float32 0.89999998), β₂ᵗ = 0.999: 1 − β rounded to float32, the powers one float32
    // product further.
    const [c1, c2, a1, a2] = adamCorrections(Math.fround(0.9), Math.fround(0.999), 0.9, 0.999);
    const want = tf.tidy(() => {
      const acc = tf.tensor1d([0.9, 0.999]);
      return [...tf.sub(1, acc).dataSync(), ...tf.mul(acc, tf.tensor1d([0.9, 0.999])).dataSync()];
    });
    expect([c1, c2, a1, a2]).toEqual(want);
    expect(c1).toBe(Math.fround(0.100000024));
  });
});
