/**
 * The ordered row-gather gradient on webgpu (src/core/backend/webgpu/rows-grad.ts; Node, Dawn on SwiftShader's Vulkan
 * without a GPU): against tf.scatterND on the cpu backend with many repeated indices, within float32 rounding of sums
 * in another order; and bit-identical over repeated calls, which tfjs' atomic scatterND on webgpu is not (its adds
 * run in scheduling order). ops.ts `gatherRows` uses it for the embedding tables' gradients on webgpu.
 */
import { describe, expect, it } from 'vitest';
import * as tf from '../../../../src/core/tf';
import { Rng } from '../../../../src/core/rng';
import { gatherRows } from '../../../../src/core/model/ops';
import { rowsGrad, rowsGradUsable } from '../../../../src/core/backend/webgpu/rows-grad';
import { useBackend } from '../../../helpers/backend';

process.env.VK_ICD_FILENAMES ??= '/usr/lib/chromium/vk_swiftshader_icd.json';
process.env.XDG_RUNTIME_DIR ??= '/tmp';

const rng = new Rng(11);
// 1 400 batch rows drawn from 40 of a table's 53 rows (every used row hit ~35 times), 48 columns (nano's width).
const R = 53,
  C = 48,
  N = 1400;
const idx = Int32Array.from({ length: N }, () => rng.int(40));
const dyData = Float32Array.from({ length: N * C }, () => rng.normal());

const maxDiff = (a: ArrayLike<number>, b: ArrayLike<number>) =>
  Array.from(a).reduce((m, v, i) => Math.max(m, Math.abs(v - b[i])), 0);

describe('ordered row-gather gradient on webgpu', () => {
  it(
    'equals the cpu scatterND within float32 rounding, the same bits on every call, unused rows exactly ' + '0',
    async () => {
      await useBackend('cpu');
      expect(rowsGradUsable(R, C)).toBe(false); // cpu active
      const want = tf.tidy(() =>
        tf.scatterND(tf.tensor2d(Array.from(idx), [N, 1], 'int32'), tf.tensor2d(dyData, [N, C]), [R, C]),
      );
      const wantData = (await want.data()) as Float32Array;
      want.dispose();

      await useBackend('webgpu');
      expect(rowsGradUsable(R, C)).toBe(true);
      const dy = tf.tensor2d(dyData, [N, C]),
        indices = tf.tensor1d(idx, 'int32');
      const before = tf.memory().numTensors;
      const runs: Float32Array[] = [];
      for (let i = 0; i < 4; i++) {
        const g = rowsGrad(dy, indices, R);
        runs.push((await g.data()) as Float32Array);
        g.dispose();
      }
      expect(tf.memory().numTensors).toBe(before);
      // sums of ~35 normal draws: |value| up to ~20, float32 rounding of another order ~1e-5
      expect(maxDiff(runs[0], wantData)).toBeLessThan(1e-4);
      for (let i = 1; i < runs.length; i++)
        expect(Buffer.from(runs[i].buffer).equals(Buffer.from(runs[0].buffer)), `call ${i + 1}`).toBe(true);
      for (let r = 40; r < R; r++) for (let c = 0; c < C; c++) expect(runs[0][r * C + c]).toBe(0);
      // a hand-checked cell: row idx[0], column 0 is the sum of dy[k, 0] over every k with idx[k] = idx[0], in k order
      let s = Math.fround(0);
      for (let k = 0; k < N; k++) if (idx[k] === idx[0]) s = Math.fround(s + dyData[k * C]);
      expect(runs[0][idx[0] * C]).toBe(s);

      // through ops.ts gatherRows' gradient: the same words as the kernel called directly
      const table = tf.zeros([R, C]) as tf.Tensor2D;
      const [g] = tf.grads((t: tf.Tensor) => gatherRows(t as tf.Tensor2D, indices))([table], dy);
      expect(Buffer.from(((await g.data()) as Float32Array).buffer).equals(Buffer.from(runs[0].buffer))).toBe(true);
      tf.dispose([g, table, dy, indices]);
      expect(tf.memory().numTensors).toBe(before - 2);
      tf.tidy(() => {
        expect(() => rowsGrad(tf.zeros([2, C]) as tf.Tensor2D, tf.tensor1d([0, 1], 'float32'), R)).toThrow(
          /indices must be int32/,
        );
      });
    },
    120_000,
  );
});
