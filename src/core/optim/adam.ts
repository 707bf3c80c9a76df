/**
 * The Adam step of every trainer (the RL update, behaviour cloning, pre-training and the bench). On the webgpu
 * backend it runs the fused kernels of src/core/backend/webgpu/adam.ts — one dispatch per parameter tensor plus one
 * per step — and on the wasm backend the kernel of src/core/backend/wasm/adam.ts — one call per parameter tensor,
 * the same float32 bits as tfjs' applyGradients — on tfjs' own AdamOptimizer state (its
 * `accumulatedFirstMoment`/`accumulatedSecondMoment` variables,
 * `accBeta1`/`accBeta2` and iteration counter, read and written as tfjs 4.22 `applyGradients` does), so checkpoints
 * (src/core/train/checkpoint.ts) and rollback snapshots (train/rollback.ts) see the same state either way. On every
 * other backend, and for any other optimizer, it is exactly the composed path: the gradients multiplied by the clip
 * scale (when it is not 1), then `optimizer.applyGradients`.
 */
import * as tf from '../tf';
import { adamPowers, adamUpdate, fusedAdamUsable } from '../backend/webgpu/adam';
import { adamCorrections, wasmAdamUpdate, wasmAdamUsable } from '../backend/wasm/adam';

/** tfjs 4.22 AdamOptimizer's fields read and written here (protected in its typings). */
interface AdamFields {
  learningRate: number;
  beta1: number;
  beta2: number;
  epsilon: number;
  accBeta1: tf.Variable;
  accBeta2: tf.Variable;
  accumulatedFirstMoment: ({ originalName: string; variable: tf.Variable } | undefined)[];
  accumulatedSecondMoment: ({ originalName: string; variable: tf.Variable } | undefined)[];
  incrementIterations(): void;
}

/** True when `optimizer` is a tfjs AdamOptimizer (its state fields present). */
function isTfAdam(optimizer: tf.Optimizer): boolean {
  // Not `instanceof`: tfjs gives every Optimizer class a Symbol.hasInstance that accepts any optimizer.
  const s = optimizer as unknown as Partial<AdamFields>;
  return (
    (optimizer.constructor as { className?: string }).className === 'Adam' &&
    Array.isArray(s.accumulatedFirstMoment) &&
    s.accBeta1 !== undefined
  );
}

/** True when `applyAdam` runs the fused kernels for `optimizer`: a tfjs AdamOptimizer on the webgpu backend. */
export function fusedAdamActive(optimizer: tf.Optimizer): boolean {
  return isTfAdam(optimizer) && fusedAdamUsable();
}

/**
 * True when `applyAdam` runs the wasm Adam kernel for `optimizer`: a tfjs AdamOptimizer on the wasm backend with the
 * kernel registered and switched on (src/core/backend/wasm/adam.ts `wasmAdamUsable`, `setWasmAdamEnabled`).
 */
export function wasmAdamActive(optimizer: tf.Optimizer): boolean {
  return isTfAdam(optimizer) && wasmAdamUsable();
}

/**
 * Each gradient's variable and its moments, created lazily in the gradients' order exactly as tfjs Adam creates them.
 */
function slots(s: AdamFields, names: string[]): { value: tf.Variable; m: tf.Variable; v: tf.Variable }[] {
  return names.map((name, i) => {
    const value = tf.engine().registeredVariables[name];
    if (!value)
      throw new Error(
        `applyAdam: gradient "${name}" belongs to no registered variable; key gradients by variable name ` +
          `(tf.variableGrads)`,
      );
    // zeros, not trainable, named as tfjs names them (checkpoints read the names)
    s.accumulatedFirstMoment[i] ??= {
      originalName: `${name}/m`,
      variable: tf.tidy(() => tf.zerosLike(value).variable(false)),
    };
    s.accumulatedSecondMoment[i] ??= {
      originalName: `${name}/v`,
      variable: tf.tidy(() => tf.zerosLike(value).variable(false)),
    };
    return { value, m: s.accumulatedFirstMoment[i]!.variable, v: s.accumulatedSecondMoment[i]!.variable };
  });
}

/**
 * The wasm path of `applyAdam`: the bias corrections and advanced β powers as tfjs computes them (float32 Sub and
 * Mul, here in JavaScript: wasm/adam.ts `adamCorrections`), then one kernel call per tensor.
 */
function applyAdamWasm(s: AdamFields, grads: Record<string, tf.Tensor>, gradScale: number): void {
  const names = Object.keys(grads);
  const [c1, c2, acc1, acc2] = adamCorrections(s.accBeta1.dataSync()[0], s.accBeta2.dataSync()[0], s.beta1, s.beta2);
  const h = { lr: s.learningRate, beta1: s.beta1, beta2: s.beta2, eps: s.epsilon, gradScale, c1, c2 };
  slots(s, names).forEach(({ value, m, v }, i) => {
    const g = grads[names[i]];
    if (g == null) return;
    const [w2, m2, v2] = wasmAdamUpdate(value, m, v, g, h);
    m.assign(m2);
    v.assign(v2);
    value.assign(w2);
    tf.dispose([w2, m2, v2]); // the variables hold their data now
  });
  tf.tidy(() => {
    s.accBeta1.assign(tf.scalar(acc1));
    s.accBeta2.assign(tf.scalar(acc2));
  });
  s.incrementIterations();
}

/**
 * Apply one optimizer step with gradients `grads` (keyed by variable name, as `tf.variableGrads` returns them, each of
 * its variable's shape) multiplied by `gradScale` (the global-norm clip factor; 1 = unclipped). Does not dispose
 * `grads` (entries it replaces by scaled copies on the composed path are disposed and the map updated, as
 * `applyClipped` did). The weights, Adam's moments, β powers and iteration count advance as tfjs Adam's do.
 * @throws Error naming the variable when a gradient belongs to no registered variable (webgpu and wasm paths).
 */
export function applyAdam(optimizer: tf.Optimizer, grads: Record<string, tf.Tensor>, gradScale = 1): void {
  if (wasmAdamActive(optimizer)) return applyAdamWasm(optimizer as unknown as AdamFields, grads, gradScale);
  if (!fusedAdamActive(optimizer)) {
    if (gradScale !== 1)
      for (const k of Object.keys(grads)) {
        const prev = grads[k];
        grads[k] = tf.mul(prev, gradScale);
        prev.dispose();
      }
    optimizer.applyGradients(grads as tf.NamedTensorMap);
    return;
  }
  const s = optimizer as unknown as AdamFields;
  const names = Object.keys(grads);
  tf.tidy(() => {
    const [c, acc1, acc2] = adamPowers(s.accBeta1, s.accBeta2, s.beta1, s.beta2);
    const h = { lr: s.learningRate, beta1: s.beta1, beta2: s.beta2, eps: s.epsilon, gradScale };
    slots(s, names).forEach(({ value, m, v }, i) => {
      const g = grads[names[i]];
      if (g == null) return;
      const [w2, m2, v2] = adamUpdate(value, m, v, g, c, h);
      m.assign(m2);
      v.assign(v2);
      value.assign(w2);
    });
    s.accBeta1.assign(acc1);
    s.accBeta2.assign(acc2);
  });
  s.incrementIterations();
}
