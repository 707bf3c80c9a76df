/**
 * The fused per-token log-prob and entropy on webgpu (src/core/backend/webgpu/logprob.ts; Node, Dawn on SwiftShader's
 * Vulkan without a GPU) against the composed ops of model/scoring.ts `tokenLogProbs` (Div, Add, logSoftmax, OneHot,
 * Mul, Sum; Exp, Mul, Sum, Neg) on the cpu backend: log-probs and entropies within 2e-5 nats, gradients w.r.t. the
 * logits within 1e-5 of the largest entry, for upstream gradients on both outputs, on log-probs only and on entropies
 * only, at temperatures 1 and 0.7, over more tokens than one stride of 64 invocations with masked (forbidden) tokens.
 * One dispatch forward, one backward; tf.memory().numTensors unchanged.
 */
import { describe, expect, it } from 'vitest';
import * as tf from '../../../../src/core/tf';
import { Rng } from '../../../../src/core/rng';
import { NEG } from '../../../../src/core/model/transformer';
import { installGpuStats } from '../../../../src/core/backend/gpu-stats';
import { fusedTokenLogProbs, fusedTokenLogProbsUsable } from '../../../../src/core/backend/webgpu/logprob';
import { useBackend } from '../../../helpers/backend';

process.env.VK_ICD_FILENAMES ??= '/usr/lib/chromium/vk_swiftshader_icd.json';
process.env.XDG_RUNTIME_DIR ??= '/tmp';

const rng = new Rng(7);
const M = 5,
  V = 70;
const lgv = Float32Array.from({ length: M * V }, () => rng.normal() * 2);
// Row 0: every token allowed; row 1: only tokens 3, 9 and 65; rows 2-4: every third token forbidden.
const maskv = Float32Array.from({ length: M * V }, (_, k) => {
  const r = Math.floor(k / V),
    j = k % V;
  if (r === 1) return j === 3 || j === 9 || j === 65 ? 0 : NEG;
  return r >= 2 && j % 3 === 1 ? NEG : 0;
});
const targetv = Int32Array.from([5, 65, 0, 69, 33]);
const glp = Float32Array.from({ length: M }, () => rng.normal()),
  gent = Float32Array.from({ length: M }, () => rng.normal());

/** The composed path of scoring.ts tokenLogProbs on its logits. */
function composed(lg: tf.Tensor2D, mask: tf.Tensor2D, targets: tf.Tensor1D, temperature: number) {
  const lsm = tf.logSoftmax(tf.add(temperature === 1 ? lg : tf.div(lg, temperature), mask));
  const logp = tf.sum(tf.mul(lsm, tf.oneHot(targets, V)), 1) as tf.Tensor1D;
  const entropy = tf.neg(tf.sum(tf.mul(tf.exp(lsm), lsm), 1)) as tf.Tensor1D;
  return { logp, entropy };
}
type Fn = typeof composed;
/** Which outputs the upstream gradient reaches. */
const modes = ['both', 'logp', 'entropy'] as const;

/** Log-probs, entropies and, per mode, the gradient of Σ glp·logp + Σ gent·entropy w.r.t. the logits. */
async function evaluate(f: Fn, temperature: number) {
  const lg = tf.tensor2d(lgv, [M, V]),
    mask = tf.tensor2d(maskv, [M, V]),
    targets = tf.tensor1d(targetv, 'int32');
  const a = tf.tensor1d(glp),
    b = tf.tensor1d(gent);
  const o = f(lg, mask, targets, temperature);
  const out = {
    logp: (await o.logp.data()) as Float32Array,
    entropy: (await o.entropy.data()) as Float32Array,
    grads: [] as Float32Array[],
  };
  for (const mode of modes) {
    const g = tf.grad((x: tf.Tensor) => {
      const r = f(x as tf.Tensor2D, mask, targets, temperature);
      const lp = tf.sum(tf.mul(r.logp, a)),
        en = tf.sum(tf.mul(r.entropy, b));
      return mode === 'both' ? tf.add(lp, en) : mode === 'logp' ? lp : en;
    })(lg);
    out.grads.push((await g.data()) as Float32Array);
    g.dispose();
  }
  tf.dispose([lg, mask, targets, a, b, o.logp, o.entropy]);
  return out;
}

const maxDiff = (a: ArrayLike<number>, b: ArrayLike<number>) =>
  Array.from(a).reduce((m, v, i) => Math.max(m, Math.abs(v - b[i])), 0);

describe('fused token log-prob and entropy on webgpu', () => {
  it(
    'log-probs and entropies within 2e-5 nats, logit gradients within 1e-5 (relative) of the composed ' + 'ops on cpu',
    async () => {
      await useBackend('cpu');
      expect(fusedTokenLogProbsUsable(M)).toBe(false);
      const temps = [1, 0.7];
      const want = [];
      for (const t of temps) want.push(await evaluate(composed, t));
      // Row 1 allows 3 tokens: its entropy is at most ln 3 and its log-probs' mass sits on them.
      expect(want[0].entropy[1]).toBeLessThan(Math.log(3) + 1e-6);

      await useBackend('webgpu');
      const before = tf.memory().numTensors;
      for (const [i, t] of temps.entries()) {
        const got = await evaluate(fusedTokenLogProbs, t);
        expect(maxDiff(got.logp, want[i].logp), `logp, temperature ${t}`).toBeLessThan(2e-5);
        expect(maxDiff(got.entropy, want[i].entropy), `entropy, temperature ${t}`).toBeLessThan(2e-5);
        for (const [k, mode] of modes.entries()) {
          const gmax = Array.from(want[i].grads[k]).reduce((m, v) => Math.max(m, Math.abs(v)), 0);
          expect(gmax).toBeGreaterThan(0);
          expect(maxDiff(got.grads[k], want[i].grads[k]) / gmax, `gradient (${mode}), temperature ${t}`).toBeLessThan(
            1e-5,
          );
          // Forbidden tokens get exactly no gradient (their probability is exactly 0).
          expect(got.grads[k][1 * V + 4]).toBe(0);
        }
      }
      expect(tf.memory().numTensors).toBe(before);
    },
  );

  it('one dispatch forward and one backward; refuses targets of the wrong dtype', async () => {
    await useBackend('webgpu');
    const lg = tf.tensor2d(lgv, [M, V]),
      mask = tf.tensor2d(maskv, [M, V]),
      targets = tf.tensor1d(targetv, 'int32');
    const stats = installGpuStats()!;
    stats.reset();
    const o = fusedTokenLogProbs(lg, mask, targets, 1);
    expect(stats.counters().dispatches).toBe(1);
    tf.dispose([o.logp, o.entropy]);
    stats.reset();
    const x = tf.variable(lg, true, 'logprobT/lg');
    const { value, grads } = tf.variableGrads(() => {
      const r = fusedTokenLogProbs(x, mask, targets, 1);
      return tf.sum(tf.add(r.logp, r.entropy)) as tf.Scalar;
    }, [x]);
    tf.dispose([value, x, ...Object.values(grads)]);
    const fused = stats.counters().byProgram,
      fusedDispatches = stats.counters().dispatches;
    expect(fused.TokenLogProbProgram).toBe(1);
    expect(fused.TokenLogProbGradProgram).toBe(1);
    // The composed ops on the same backend, forward and backward, for comparison.
    stats.reset();
    const y = tf.variable(lg, true, 'logprobT/lg2');
    const c = tf.variableGrads(() => {
      const r = composed(y, mask, targets, 1);
      return tf.sum(tf.add(r.logp, r.entropy)) as tf.Scalar;
    }, [y]);
    tf.dispose([c.value, y, ...Object.values(c.grads)]);
    const composedDispatches = stats.counters().dispatches;
    console.log(
      `Σ(logp + entropy) and its gradient: ${fusedDispatches} dispatches fused, ${composedDispatches} composed`,
    );
    expect(composedDispatches).toBeGreaterThan(fusedDispatches + 10);
    stats.uninstall();
    const bad = tf.tensor1d([1, 2, 3, 4, 5]);
    expect(() => fusedTokenLogProbs(lg, mask, bad as tf.Tensor1D, 1)).toThrow(
      /targets \[5\] float32 must be \[5, 70\] and \[5\] int32/,
    );
    tf.dispose([lg, mask, targets, bad]);
  });
});
