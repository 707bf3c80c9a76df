/**
 * Fused Adam update for tfjs' webgpu backend (tfjs-backend-webgpu 4.22): one dispatch per parameter tensor computes
 * the new first moment, second moment and weight (Kingma & Ba 2015, Algorithm 1) where tfjs' AdamOptimizer runs 14
 * element-wise dispatches (Mul, Mul, Add; Mul, Square, Mul, Add; Div, Div; Sqrt, Add, Div, Mul, Add), plus one
 * dispatch per step for the bias-correction powers where tfjs runs four (two Subs, two Muls).
 *
 * Per element, in float32 and in tfjs' order of operations (adam_optimizer.ts), with ĝ = g·s (s the global-norm clip
 * scale, 1 when not clipping; the composed path multiplies the gradient by s first, too):
 *   m' = m·β₁ + ĝ·(1 − β₁)
 *   v' = v·β₂ + (ĝ·ĝ)·(1 − β₂)
 *   w' = ((m' / c₁) / (√(v' / c₂) + ε))·(−lr) + w,   c₁ = 1 − β₁ᵗ, c₂ = 1 − β₂ᵗ,
 * with β₁ᵗ, β₂ᵗ read on the GPU from the optimizer's own accumulators (`accBeta1`, `accBeta2`, which then
 * advance to β₁ᵗ⁺¹, β₂ᵗ⁺¹ in the same dispatch as the cs). The composed path rounds each step to
 * float32 too, so the two agree to a few float32 roundings (division and square root on the GPU are not correctly
 * rounded); the cpu comparison is in test/core/optim/adam-fused.test.ts.
 */
import * as tf from '../../tf';
import { dispatchFor, flatIndex, maxStorageBuffers, rawPipeline, runRaw, uniformStruct, type RawProgram } from './raw';
import { registerWebGpuKernel, type KernelArgs } from './program';

/** tfjs kernel names: the per-tensor update and the per-step bias-correction powers. */
export const ADAM_KERNEL = 'OpdAdamUpdate',
  ADAM_POWERS_KERNEL = 'OpdAdamPowers';
/** Invocations per workgroup of the update (one element each). */
const BLOCK = 64;
/** Bound storage buffers of the update: w', then w, m, v, g, c, then m', v'. */
const UPDATE_BUFFERS = 8;

/**
 * The update's own uniforms, after the tensors' shapes: −lr, β₁, 1 − β₁, β₂, 1 − β₂, ε,
 * the gradient scale and the element count n.
 */
const UPDATE_UNIFORMS =
  'negLr : f32, beta1 : f32, oneMinusBeta1 : f32, beta2 : f32, oneMinusBeta2 : f32, ' +
  'eps : f32, gradScale : f32, n : i32,';

/**
 * One dispatch: w', m', v' from w, m, v, g and c = [1 − β₁ᵗ, 1 − β₂ᵗ]. Class name = the gpu-stats program
 * name.
 */
class AdamUpdateProgram implements RawProgram {
  pipeline: unknown;
  dispatch: [number, number, number];
  constructor(backend: unknown, n: number) {
    this.dispatch = dispatchFor(backend, n, BLOCK);
    this.pipeline = rawPipeline(
      backend,
      'opdAdamUpdate',
      () => `
      ${uniformStruct(UPDATE_BUFFERS, UPDATE_UNIFORMS)}
      @group(0) @binding(0) var<storage, read_write> wOut : array<f32>;
      @group(0) @binding(1) var<storage, read> w : array<f32>;
      @group(0) @binding(2) var<storage, read> m : array<f32>;
      @group(0) @binding(3) var<storage, read> v : array<f32>;
      @group(0) @binding(4) var<storage, read> g : array<f32>;
      @group(0) @binding(5) var<storage, read> c : array<f32>;
      @group(0) @binding(6) var<storage, read_write> mOut : array<f32>;
      @group(0) @binding(7) var<storage, read_write> vOut : array<f32>;
      @group(0) @binding(8) var<uniform> u : U;
      @compute @workgroup_size(${BLOCK})
      fn main(@builtin(global_invocation_id) gid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>) {
        let i = ${flatIndex(BLOCK)};
        if (i >= u.n) { return; }
        let gi = g[i] * u.gradScale;
        let mi = m[i] * u.beta1 + gi * u.oneMinusBeta1;
        let vi = v[i] * u.beta2 + (gi * gi) * u.oneMinusBeta2;
        mOut[i] = mi;
        vOut[i] = vi;
        let mHat = mi / c[0];
        let vHat = vi / c[1];
        wOut[i] = (mHat / (sqrt(vHat) + u.eps)) * u.negLr + w[i];
      }`,
    );
  }
}

/**
 * One dispatch per step: c = [1 − β₁ᵗ, 1 − β₂ᵗ] and the advanced accumulators β₁ᵗ·β₁,
 * β₂ᵗ·β₂.
 */
class AdamPowersProgram implements RawProgram {
  pipeline: unknown;
  dispatch: [number, number, number] = [1, 1, 1];
  constructor(backend: unknown) {
    this.pipeline = rawPipeline(
      backend,
      'opdAdamPowers',
      () => `
      ${uniformStruct(5, 'beta1 : f32, beta2 : f32,')}
      @group(0) @binding(0) var<storage, read_write> c : array<f32>;
      @group(0) @binding(1) var<storage, read> acc1 : array<f32>;
      @group(0) @binding(2) var<storage, read> acc2 : array<f32>;
      @group(0) @binding(3) var<storage, read_write> acc1Out : array<f32>;
      @group(0) @binding(4) var<storage, read_write> acc2Out : array<f32>;
      @group(0) @binding(5) var<uniform> u : U;
      @compute @workgroup_size(1)
      fn main() {
        c[0] = 1.0 - acc1[0];
        c[1] = 1.0 - acc2[0];
        acc1Out[0] = acc1[0] * u.beta1;
        acc2Out[0] = acc2[0] * u.beta2;
      }`,
    );
  }
}

/** Register both kernels for the webgpu backend (idempotent). */
export function registerWebGpuAdam(): void {
  registerWebGpuKernel(ADAM_KERNEL, (({ inputs, backend, attrs }: KernelArgs) => {
    const { w, m, v, g, c } = inputs as Record<string, tf.TensorInfo>;
    const a = attrs as Record<string, number>;
    const n = w.shape.reduce((x, y) => x * y, 1);
    const f = (x: number) => ({ type: 'float32' as const, data: [x] });
    return runRaw(
      backend,
      new AdamUpdateProgram(backend, n),
      [w, m, v, g, c],
      [w.shape, w.shape, w.shape],
      [
        f(-a.lr),
        f(a.beta1),
        f(1 - a.beta1),
        f(a.beta2),
        f(1 - a.beta2),
        f(a.eps),
        f(a.gradScale),
        { type: 'int32', data: [n] },
      ],
    );
  }) as unknown as (args: KernelArgs) => tf.TensorInfo);
  registerWebGpuKernel(ADAM_POWERS_KERNEL, (({ inputs, backend, attrs }: KernelArgs) => {
    const { acc1, acc2 } = inputs as Record<string, tf.TensorInfo>;
    const a = attrs as Record<string, number>;
    return runRaw(
      backend,
      new AdamPowersProgram(backend),
      [acc1, acc2],
      [[2], [], []],
      [
        { type: 'float32', data: [a.beta1] },
        { type: 'float32', data: [a.beta2] },
      ],
    );
  }) as unknown as (args: KernelArgs) => tf.TensorInfo);
}

/** True when the fused Adam kernels can run: the webgpu backend is active and binds at least 8 storage buffers. */
export function fusedAdamUsable(): boolean {
  if (tf.getBackend() !== 'webgpu') return false;
  if (maxStorageBuffers(tf.backend()) < UPDATE_BUFFERS) return false;
  registerWebGpuAdam();
  return true;
}

const run = (name: string, inputs: Record<string, tf.Tensor>, attrs: Record<string, number>) =>
  tf
    .engine()
    .runKernel(
      name,
      inputs as unknown as tf.NamedTensorMap,
      attrs as unknown as tf.NamedAttrMap,
    ) as unknown as tf.Tensor[];

/**
 * One fused Adam update of one tensor: weight w, moments m, v and gradient g (float32, one shape), c = [1 − β₁ᵗ,
 * 1 − β₂ᵗ] float32 [2] (from `adamPowers`) → fresh [w', m', v'] of w's shape (formula in the module docstring;
 * `lr` > 0 is the learning rate, `gradScale` multiplies g first). One dispatch.
 * @throws Error when the fused kernels cannot run (check `fusedAdamUsable`) or the shapes differ.
 */
export function adamUpdate(
  w: tf.Tensor,
  m: tf.Tensor,
  v: tf.Tensor,
  g: tf.Tensor,
  c: tf.Tensor,
  h: { lr: number; beta1: number; beta2: number; eps: number; gradScale: number },
): [tf.Tensor, tf.Tensor, tf.Tensor] {
  if (!fusedAdamUsable())
    throw new Error(
      'adamUpdate: needs the webgpu backend with 8 storage buffers per stage (check fusedAdamUsable); use ' +
        'tfjs AdamOptimizer.applyGradients instead',
    );
  for (const [name, t] of [
    ['m', m],
    ['v', v],
    ['g', g],
  ] as const)
    if (!tf.util.arraysEqual(t.shape, w.shape))
      throw new Error(
        `adamUpdate: ${name} has shape [${t.shape}] but the weight has [${w.shape}]; pass the weight's ` +
          `own moments and gradient`,
      );
  const [w2, m2, v2] = run(ADAM_KERNEL, { w, m, v, g, c }, h);
  return [w2, m2, v2];
}

/**
 * The bias-correction factors and advanced accumulators in one dispatch: acc1 = β₁ᵗ, acc2 = β₂ᵗ (float32
 * scalars) → [c float32 [2] = [1 − β₁ᵗ, 1 − β₂ᵗ], β₁ᵗ·β₁, β₂ᵗ·β₂ (scalars)].
 * @throws Error when the fused kernels cannot run (check `fusedAdamUsable`).
 */
export function adamPowers(
  acc1: tf.Tensor,
  acc2: tf.Tensor,
  beta1: number,
  beta2: number,
): [tf.Tensor, tf.Tensor, tf.Tensor] {
  if (!fusedAdamUsable()) throw new Error('adamPowers: needs the webgpu backend (check fusedAdamUsable)');
  const [c, a1, a2] = run(ADAM_POWERS_KERNEL, { acc1, acc2 }, { beta1, beta2 });
  return [c, a1, a2];
}
