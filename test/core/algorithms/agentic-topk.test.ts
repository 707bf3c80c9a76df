/**
 * Agentic-OPD's top-k variant (opdTopK = K > 0) with a real nano student and a fake teacher pool whose log-prob of
 * token v is −v/4 at every position: the update's targets hold the student's own top-K ids on the LAD-gated tokens
 * and the teacher's values at them; A = taskCoef·A_ep (the distillation is not in A); the reported top-K reverse KL
 * and sampled reverse KL equal their hand-computed means; a pool without scoreAt is refused.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '../../../src/core/tf';
import { agenticOpd, type AgenticOpdInit, type TeacherPool } from '../../../src/core/algorithms/agentic-opd';
import { packSamples } from '../../../src/core/algorithms/outcome';
import type { StepContext } from '../../../src/core/algorithms/types';
import type { TaskRef } from '../../../src/core/envs/types';
import type { PolicyHandle } from '../../../src/core/model/policy';
import type { Trajectory } from '../../../src/core/rollout/types';
import { modelConfig } from '../../../src/core/model/config';
import { initValues, makeVariables } from '../../../src/core/model/params';
import { freeMaskRow } from '../../../src/core/model/scoring';
import { scoreTopK } from '../../../src/core/model/topk';
import { topKReverseKl } from '../../../src/core/math/agentic';
import { DEFAULT_CONFIG } from '../../../src/core/run/config';
import { Rng } from '../../../src/core/rng';
import { useBackend } from '../../helpers/backend';

beforeAll(() => useBackend('wasm'));

const V = 80,
  K = 3,
  T = 0.7;
const mcfg = modelConfig('nano', V);
const freeRow = freeMaskRow(V, 16, 2);

function traj(ref: TaskRef, success: boolean, responses: number[][]): Trajectory {
  return {
    ref,
    task: 't',
    taskType: 'x',
    initialObservation: '',
    finalObservation: '',
    reward: success ? 1 : 0,
    success,
    invalidCount: 0,
    steps: responses.map((response) => ({
      observation: '',
      admissible: [],
      prompt: [1, 20, 30],
      response,
      allowed: response.map(() => null),
      sampleLogp: [],
      sampleEntropy: [],
      action: '',
      valid: true,
      reward: 0,
    })),
  };
}

/** Panel tasks (test-seen) are val tasks with their index as id; teacher 200 solves {3}; the student solves none. */
function pool(withScoreAt: boolean): { pool: TeacherPool; calls: [number, number[], number][] } {
  const calls: [number, number[], number][] = [];
  const p: TeacherPool = {
    ids: [200],
    solved: () => new Set([3]),
    taskType: () => 'x',
    panelTask: (ref) => (ref.split === 'test-seen' ? ref.index : undefined),
    score: async () => {
      throw new Error('the top-k variant does not call score');
    },
    ...(withScoreAt
      ? {
          async scoreAt(id: number, _samples: unknown, temperature: number, ids: Int32Array, k: number) {
            calls.push([id, Array.from(ids), k]);
            expect(temperature).toBe(T);
            return Float32Array.from(ids, (v) => -v / 4);
          },
        }
      : {}),
  };
  return { pool: p, calls };
}

// τ0 succeeds (panel 3), τ1 fails on panel 3 (gated: teacher solves, student does not), τ2 fails on panel 4 (no).
const TRAJS = () => [
  traj({ split: 'test-seen', index: 3 }, true, [[40]]),
  traj({ split: 'test-seen', index: 3 }, false, [[50, 60], [70]]),
  traj({ split: 'test-seen', index: 4 }, false, [[33]]),
];
const OLD = [-1, -2, -3, -0.5, -4];
const AEP = [1, -1, -1, -1, 0];

describe('agentic-opd, top-k variant', () => {
  it(
    "targets: the student's own top K on gated tokens, the teacher's values there; A = taskCoef·A_ep; " +
      'KL means by hand',
    async () => {
      const params = makeVariables(mcfg, initValues(mcfg, new Rng(3)));
      const policy = { params, cfg: mcfg, freeRow } as unknown as PolicyHandle;
      const { pool: p, calls } = pool(true);
      const cfg = { ...DEFAULT_CONFIG, temperature: T, opdTopK: K, taskCoef: 0.5, opdCoef: 2 };
      const run = agenticOpd.create({ cfg, env: 'household', teacherPool: p, studentSolved: [] } as AgenticOpdInit);
      const trajs = TRAJS();
      const packed = packSamples(trajs);
      const ctx: StepContext = {
        policy,
        trajs,
        groupOf: [0, 0, 1],
        packed,
        aEpTraj: [],
        aEpTok: Float32Array.from(AEP),
        oldLogp: Float32Array.from(OLD),
      };
      const n0 = tf.memory().numTensors;
      const step = await run.advantages(ctx);
      expect(tf.memory().numTensors).toBe(n0);
      expect(Array.from(step.adv)).toEqual(AEP.map((a) => 0.5 * a));
      const t = step.topK!;
      expect([t.k, t.coef, Array.from(t.gate)]).toEqual([K, 2, [0, 1, 1, 1, 0]]);
      // The student's own top K on τ1's two samples (packed tokens 1, 2, 3).
      const own = await scoreTopK(params, mcfg, packed.samples.slice(1, 3), freeRow, { temperature: T, k: K });
      expect(Array.from(t.ids.subarray(K, 4 * K))).toEqual(Array.from(own.ids));
      expect(Array.from(t.teacherLogp.subarray(K, 4 * K))).toEqual(Array.from(own.ids, (v) => -v / 4));
      // One teacher call, K + 1 ids per token: the top K then the sampled token.
      expect(calls.length).toBe(1);
      expect(calls[0][2]).toBe(K + 1);
      expect(calls[0][1].filter((_, i) => i % (K + 1) === K)).toEqual([50, 60, 70]);
      // Sampled reverse KL: mean of ℓ_old − ℓ_teacher = mean(−2 + 12.5, −3 + 15, −0.5 + 17.5) = 13.1667.
      expect(step.extra.reverseKl).toBeCloseTo((10.5 + 12 + 17) / 3, 5);
      let kl = 0;
      for (let m = 0; m < 3; m++)
        kl += topKReverseKl(
          Array.from(own.logp.subarray(m * K, (m + 1) * K)),
          Array.from(own.ids.subarray(m * K, (m + 1) * K), (v) => -v / 4),
        );
      expect(step.extra.topkReverseKl).toBeCloseTo(kl / 3, 6);
      expect(step.extra.topkReverseKl).toBeGreaterThan(0);
      expect([
        step.extra.gatedTokens,
        step.extra.ladShare,
        step.metrics.teacherShare,
        step.metrics.skillActiveTokenRatio,
      ]).toEqual([3, 1 / 3, 0, 3 / 5]);
      tf.dispose(Object.values(params));
    },
  );

  it('a pool without scoreAt is refused with the fix; opdTopK must be an integer ≥ 0', async () => {
    const { pool: p } = pool(false);
    const cfg = { ...DEFAULT_CONFIG, temperature: T, opdTopK: K };
    const run = agenticOpd.create({ cfg, env: 'household', teacherPool: p, studentSolved: [] } as AgenticOpdInit);
    const trajs = TRAJS();
    const ctx: StepContext = {
      policy: {} as PolicyHandle,
      trajs,
      groupOf: [0, 0, 1],
      packed: packSamples(trajs),
      aEpTraj: [],
      aEpTok: Float32Array.from(AEP),
      oldLogp: Float32Array.from(OLD),
    };
    await expect(run.advantages(ctx)).rejects.toThrow(
      'agentic-opd: opdTopK > 0 needs a teacher pool that scores at given token ids ' +
        '(TeacherPool.scoreAt); set opdTopK to 0',
    );
    expect(() =>
      agenticOpd.create({
        cfg: { ...cfg, opdTopK: 1.5 },
        env: 'household',
        teacherPool: p,
        studentSolved: [],
      } as AgenticOpdInit),
    ).toThrow('agentic-opd: opdTopK must be an integer ≥ 0 (0 = off), got 1.5');
  });
});
