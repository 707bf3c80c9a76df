/**
 * Fused per-token log-prob and entropy for tfjs' webgpu backend (tfjs-backend-webgpu 4.22), forward and backward, as
 * one differentiable kernel that model/scoring.ts `tokenLogProbs` uses on webgpu. For row r (one scored token) with
 * logits lg [V], additive mask [V] (0 for an allowed token, the NEG of model/scoring.ts for a forbidden one), target t
 * and sampling temperature τ:
 *   z_j = lg_j / τ + mask_j,   l_j = (z_j − max z) − log Σ_k exp(z_k − max z)   (tfjs' logSoftmax, same order),
 *   logp = l_t,   H = −Σ_j exp(l_j)·l_j   (nats),
 * one workgroup of 64 invocations per row, sums and maxima by a fixed tree (deterministic). The composed path it
 * replaces is a Div (τ ≠ 1), an Add, logSoftmax's Max, Sub, Exp, Sum, Log, Sub, a OneHot, Mul and Sum for logp and
 * Exp, Mul, Sum, Neg for H — and more dispatches in the backward pass.
 *
 * Backward, one dispatch over the [M, V] elements: with p_j = exp(z_j − lse) (lse = max z + log Σ exp(z − max z),
 * saved by the forward) and upstream gradients g (of logp) and e (of H),
 *   ∂/∂lg_j = (g·([j = t] − p_j) − e·p_j·(l_j + H)) / τ
 * (∂l_t/∂z_j = [j = t] − p_j; ∂H/∂z_j = −p_j·(l_j + H)). No gradient flows to the mask or the targets.
 * Exp, log and the summation order differ from the cpu backend's, so results agree to float32 rounding
 * (test/core/backend/webgpu/logprob.test.ts), not bit for bit.
 */
import * as tf from '../../tf';
import { BLOCK, registerWebGpuKernel, treeMax, treeSum, type KernelArgs } from './program';
import { dispatchFor, flatIndex, rawPipeline, runRaw, uniformStruct, type RawProgram } from './raw';

/** tfjs kernel names of the forward and backward. */
const LOGP_FWD = 'OpdTokenLogProb',
  LOGP_BWD = 'OpdTokenLogProbGrad';

/** The forward's entry-point parameters: invocation index in the workgroup, workgroup index and workgroup count. */
const ROW_BUILTINS =
  '@builtin(local_invocation_id) lid : vec3<u32>, @builtin(workgroup_id) wid : vec3<u32>, ' +
  '@builtin(num_workgroups) nwg : vec3<u32>';

/** Forward: lg [M, V], mask [M, V], targets [M] int32 → logp [M], then (extra outputs) H [M], lse [M]. */
class TokenLogProbProgram implements RawProgram {
  pipeline: unknown;
  dispatch: [number, number, number];
  constructor(backend: unknown, rows: number) {
    this.dispatch = dispatchFor(backend, rows, 1);
    this.pipeline = rawPipeline(
      backend,
      'opdTokenLogProb',
      () => `
      ${uniformStruct(6, 'temperature : f32, V : i32, M : i32,')}
      @group(0) @binding(0) var<storage, read_write> logp : array<f32>;
      @group(0) @binding(1) var<storage, read> lg : array<f32>;
      @group(0) @binding(2) var<storage, read> mask : array<f32>;
      @group(0) @binding(3) var<storage, read> targets : array<i32>;
      @group(0) @binding(4) var<storage, read_write> ent : array<f32>;
      @group(0) @binding(5) var<storage, read_write> lse : array<f32>;
      @group(0) @binding(6) var<uniform> u : U;
      var<workgroup> buf : array<f32, ${BLOCK}>;
      fn z(k : i32) -> f32 { return lg[k] / u.temperature + mask[k]; }
      @compute @workgroup_size(${BLOCK})
      fn main(${ROW_BUILTINS}) {
        let row = i32(wid.y * nwg.x + wid.x);
        if (row >= u.M) { return; }
        let tid = i32(lid.x);
        let base = row * u.V;
        var mx = -3.402823e+38;
        for (var j = tid; j < u.V; j += ${BLOCK}) { mx = max(mx, z(base + j)); }
        buf[tid] = mx;
        workgroupBarrier();
        ${treeMax('buf')}
        let rowMax = buf[0];
        workgroupBarrier();
        var s = 0.0;
        for (var j = tid; j < u.V; j += ${BLOCK}) { s += exp(z(base + j) - rowMax); }
        buf[tid] = s;
        workgroupBarrier();
        ${treeSum('buf')}
        let logS = log(buf[0]);
        workgroupBarrier();
        var e = 0.0;
        for (var j = tid; j < u.V; j += ${BLOCK}) {
          let l = (z(base + j) - rowMax) - logS;
          e += exp(l) * l;
        }
        buf[tid] = e;
        workgroupBarrier();
        ${treeSum('buf')}
        if (tid == 0) {
          logp[row] = (z(base + targets[row]) - rowMax) - logS;
          ent[row] = -buf[0];
          lse[row] = rowMax + logS;
        }
      }`,
    );
  }
}

/** Backward: lg, mask [M, V], targets, lse, H, dlogp, dH [M] → dlg [M, V] (absent upstream gradients: flag 0). */
class TokenLogProbGradProgram implements RawProgram {
  pipeline: unknown;
  dispatch: [number, number, number];
  constructor(backend: unknown, n: number) {
    this.dispatch = dispatchFor(backend, n, BLOCK);
    this.pipeline = rawPipeline(
      backend,
      'opdTokenLogProbGrad',
      () => `
      ${uniformStruct(8, 'temperature : f32, V : i32, n : i32, hasLogp : i32, hasEnt : i32,')}
      @group(0) @binding(0) var<storage, read_write> dlg : array<f32>;
      @group(0) @binding(1) var<storage, read> lg : array<f32>;
      @group(0) @binding(2) var<storage, read> mask : array<f32>;
      @group(0) @binding(3) var<storage, read> targets : array<i32>;
      @group(0) @binding(4) var<storage, read> lse : array<f32>;
      @group(0) @binding(5) var<storage, read> ent : array<f32>;
      @group(0) @binding(6) var<storage, read> dlogp : array<f32>;
      @group(0) @binding(7) var<storage, read> dEnt : array<f32>;
      @group(0) @binding(8) var<uniform> u : U;
      @compute @workgroup_size(${BLOCK})
      fn main(@builtin(global_invocation_id) gid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>) {
        let k = ${flatIndex(BLOCK)};
        if (k >= u.n) { return; }
        let row = k / u.V;
        let j = k - row * u.V;
        let l = (lg[k] / u.temperature + mask[k]) - lse[row];
        let p = exp(l);
        var dz = 0.0;
        if (u.hasLogp != 0) {
          var hit = 0.0;
          if (j == targets[row]) { hit = 1.0; }
          dz = dlogp[row] * (hit - p);
        }
        if (u.hasEnt != 0) { dz = dz - dEnt[row] * p * (l + ent[row]); }
        dlg[k] = dz / u.temperature;
      }`,
    );
  }
}

/** Register the forward and backward kernels and the forward's gradient (idempotent). */
export function registerWebGpuTokenLogProb(): void {
  registerWebGpuKernel(LOGP_FWD, (({ inputs, backend, attrs }: KernelArgs) => {
    const { lg, mask, targets } = inputs as Record<string, tf.TensorInfo>;
    const [M, V] = lg.shape;
    return runRaw(
      backend,
      new TokenLogProbProgram(backend, M),
      [lg, mask, targets],
      [[M], [M], [M]],
      [
        { type: 'float32', data: [attrs!.temperature as number] },
        { type: 'int32', data: [V] },
        { type: 'int32', data: [M] },
      ],
    );
  }) as unknown as (args: KernelArgs) => tf.TensorInfo);
  registerWebGpuKernel(LOGP_BWD, (({ inputs, backend, attrs }: KernelArgs) => {
    const { lg, mask, targets, lse, ent, dlogp, dEnt } = inputs as Record<string, tf.TensorInfo>;
    const [M, V] = lg.shape;
    const a = attrs as Record<string, number>;
    return runRaw(
      backend,
      new TokenLogProbGradProgram(backend, M * V),
      [lg, mask, targets, lse, ent, dlogp, dEnt],
      [[M, V]],
      [
        { type: 'float32', data: [a.temperature] },
        { type: 'int32', data: [V] },
        { type: 'int32', data: [M * V] },
        { type: 'int32', data: [a.hasLogp] },
        { type: 'int32', data: [a.hasEnt] },
      ],
    )[0];
  }) as unknown as (args: KernelArgs) => tf.TensorInfo);
  if (tf.getGradient(LOGP_FWD)) return;
  tf.registerGradient({
    kernelName: LOGP_FWD,
    inputsToSave: ['lg', 'mask', 'targets'],
    outputsToSave: [false, true, true],
    gradFunc: (dy: tf.Tensor | tf.Tensor[], saved: tf.Tensor[], attrs: tf.NamedAttrMap) => {
      const [dlogp, dEnt] = dy as (tf.Tensor | null)[];
      const [lg, mask, targets, ent, lse] = saved;
      const some = (dlogp ?? dEnt)!; // the engine calls this only when one of them is set
      const grad = () =>
        tf.engine().runKernel(
          LOGP_BWD,
          { lg, mask, targets, lse, ent, dlogp: dlogp ?? some, dEnt: dEnt ?? some } as unknown as tf.NamedTensorMap,
          {
            temperature: attrs.temperature,
            hasLogp: dlogp ? 1 : 0,
            hasEnt: dEnt ? 1 : 0,
          } as unknown as tf.NamedAttrMap,
        ) as tf.Tensor;
      // The mask and the targets are data, not parameters: no gradient flows to them (zeros if one is asked for).
      return { lg: grad, mask: () => tf.zerosLike(mask), targets: () => tf.zeros(targets.shape) };
    },
  });
}

/**
 * True when `fusedTokenLogProbs` can run on `rows` scored tokens: webgpu is active and the rows fit one dispatch
 * (two dimensions of maxComputeWorkgroupsPerDimension). False on every other backend.
 */
export function fusedTokenLogProbsUsable(rows: number): boolean {
  if (tf.getBackend() !== 'webgpu') return false;
  const max = (tf.backend() as unknown as { device: { limits: { maxComputeWorkgroupsPerDimension: number } } }).device
    .limits.maxComputeWorkgroupsPerDimension;
  if (rows > max * max) return false;
  registerWebGpuTokenLogProb();
  return true;
}

/**
 * Log-probs and entropies (nats) of scored tokens in one dispatch: logits lg [M, V] float32, additive mask [M, V]
 * float32, targets [M] int32 (each in [0, V)), temperature τ > 0 → { logp [M], entropy [M] } float32 (formulas in
 * the module docstring). Differentiable w.r.t. lg (one dispatch backward).
 * @throws Error when the kernels cannot run (check `fusedTokenLogProbsUsable`) or the shapes disagree.
 */
export function fusedTokenLogProbs(
  lg: tf.Tensor2D,
  mask: tf.Tensor2D,
  targets: tf.Tensor1D,
  temperature: number,
): { logp: tf.Tensor1D; entropy: tf.Tensor1D } {
  const [M, V] = lg.shape;
  if (!fusedTokenLogProbsUsable(M))
    throw new Error(
      'fusedTokenLogProbs: needs the webgpu backend (check fusedTokenLogProbsUsable); use scoring.ts ' +
        'tokenLogProbs instead',
    );
  if (mask.shape[0] !== M || mask.shape[1] !== V || targets.shape[0] !== M || targets.dtype !== 'int32')
    throw new Error(
      `fusedTokenLogProbs: mask [${mask.shape}] and targets [${targets.shape}] ${targets.dtype} must be [${M}, ` +
        `${V}] and [${M}] int32 like the logits`,
    );
  if (!(temperature > 0)) throw new Error(`fusedTokenLogProbs: temperature must be > 0, got ${temperature}`);
  const [logp, entropy, lse] = tf
    .engine()
    .runKernel(
      LOGP_FWD,
      { lg, mask, targets } as unknown as tf.NamedTensorMap,
      { temperature } as unknown as tf.NamedAttrMap,
    ) as unknown as tf.Tensor1D[];
  lse.dispose(); // kept by the engine for the backward when a gradient is recorded
  return { logp, entropy };
}
