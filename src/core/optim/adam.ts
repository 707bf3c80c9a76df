/**
 * The Adam step of every trainer (the RL update, behaviour cloning, pre-training and the bench). On the webgpu
 * backend it runs the fused kernels of src/core/backend/webgpu-adam.ts — one dispatch per parameter tensor plus one
 * per step — on tfjs' own AdamOptimizer state (its `accumulatedFirstMoment`/`accumulatedSecondMoment` variables,
 * `accBeta1`/`accBeta2` and iteration counter, read and written as tfjs 4.22 `applyGradients` does), so checkpoints
 * (src/core/train/checkpoint.ts) and rollback snapshots (rollback.ts) see the same state either way. On every other
 * backend, and for any other optimizer, it is exactly the composed path: the gradients multiplied by the clip scale
 * (when it is not 1), then `optimizer.applyGradients`.
 */
import * as tf from '../tf';
import { adamPowers, adamUpdate, fusedAdamUsable } from '../backend/webgpu-adam';

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

/** True when `applyAdam` runs the fused kernels for `optimizer`: a tfjs AdamOptimizer on the webgpu backend. */
export function fusedAdamActive(optimizer: tf.Optimizer): boolean {
  // Not `instanceof`: tfjs gives every Optimizer class a Symbol.hasInstance that accepts any optimizer.
  const s = optimizer as unknown as Partial<AdamFields>;
  const isAdam = (optimizer.constructor as { className?: string }).className === 'Adam' && Array.isArray(s.accumulatedFirstMoment) && s.accBeta1 !== undefined;
  return isAdam && fusedAdamUsable();
}

/**
 * Apply one optimizer step with gradients `grads` (keyed by variable name, as `tf.variableGrads` returns them, each of
 * its variable's shape) multiplied by `gradScale` (the global-norm clip factor; 1 = unclipped). Does not dispose
 * `grads` (entries it replaces by scaled copies on the composed path are disposed and the map updated, as
 * `applyClipped` did). The weights, Adam's moments, β powers and iteration count advance as tfjs Adam's do.
 * @throws Error naming the variable when a gradient belongs to no registered variable (fused path).
 */
export function applyAdam(optimizer: tf.Optimizer, grads: Record<string, tf.Tensor>, gradScale = 1): void {
  if (!fusedAdamActive(optimizer)) {
    if (gradScale !== 1) for (const k of Object.keys(grads)) {
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
    names.forEach((name, i) => {
      const value = tf.engine().registeredVariables[name];
      if (!value) throw new Error(`applyAdam: gradient "${name}" belongs to no registered variable; key gradients by variable name (tf.variableGrads)`);
      // Created lazily and in the gradients' order, exactly as tfjs Adam creates them (zeros, not trainable).
      s.accumulatedFirstMoment[i] ??= { originalName: `${name}/m`, variable: tf.tidy(() => tf.zerosLike(value).variable(false)) };
      s.accumulatedSecondMoment[i] ??= { originalName: `${name}/v`, variable: tf.tidy(() => tf.zerosLike(value).variable(false)) };
      const g = grads[name];
      if (g == null) return;
      const m = s.accumulatedFirstMoment[i]!.variable, v = s.accumulatedSecondMoment[i]!.variable;
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
