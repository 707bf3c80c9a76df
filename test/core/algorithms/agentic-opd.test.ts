import { describe, expect, it } from 'vitest';
import {
  agenticOpd,
  resolveAgenticOptions,
  unionStartWarning,
  type AgenticOpdInit,
  type AgenticOpdState,
  type TeacherPool,
} from '../../../src/core/algorithms/agentic-opd';
import { getAlgorithm } from '../../../src/core/algorithms/registry';
import { packSamples } from '../../../src/core/algorithms/outcome';
import type { StepContext } from '../../../src/core/algorithms/types';
import type { TaskRef } from '../../../src/core/envs/types';
import type { ScoreSample } from '../../../src/core/model/scoring';
import type { PolicyHandle } from '../../../src/core/model/policy';
import type { Trajectory } from '../../../src/core/rollout/types';
import { DEFAULT_CONFIG } from '../../../src/core/run/config';
import { Rng } from '../../../src/core/rng';

/** A trajectory with one step per response; every prompt is [0, 0, 0]. */
function traj(ref: TaskRef, success: boolean, responses: number[][], taskType = 'x'): Trajectory {
  return {
    ref,
    task: 't',
    taskType,
    initialObservation: '',
    finalObservation: '',
    reward: success ? 1 : 0,
    success,
    invalidCount: 0,
    steps: responses.map((response) => ({
      observation: '',
      admissible: [],
      prompt: [0, 0, 0],
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

/**
 * A fake pool: teacher log-prob of token v is −v/4 for teacher 200 and −v/8 for teacher 100 (exact in float32).
 * Val panel: test-seen tasks are panel tasks with their index as id. Records every call.
 */
function fakePool(passRates: Record<string, number>) {
  const calls: { score: [number, number[][], number][]; pass: [number, string][] } = { score: [], pass: [] };
  const solved: Record<number, number[]> = { 100: [1, 2], 200: [3, 4, 5] };
  const pool: TeacherPool = {
    ids: [100, 200],
    solved: (id) => new Set(solved[id]),
    taskType: (q) => ['', 'c', 'c', 'h', 'h', 'k'][q],
    panelTask: (ref) => (ref.split === 'test-seen' ? ref.index : undefined),
    async teacherPassRate(id, ref) {
      calls.pass.push([id, `${ref.split}/${ref.index}`]);
      return passRates[`${id}|${ref.split}/${ref.index}`];
    },
    async score(id, samples: readonly ScoreSample[], temperature) {
      calls.score.push([id, samples.map((s) => [...s.response]), temperature]);
      return Float32Array.from(samples.flatMap((s) => s.response.map((v) => -v / (id === 200 ? 4 : 8))));
    },
  };
  return { pool, calls };
}

const cfg = { ...DEFAULT_CONFIG, temperature: 0.7 };
const train = (index: number): TaskRef => ({ split: 'train', index });
const panel = (index: number): TaskRef => ({ split: 'test-seen', index });

function ctxOf(trajs: Trajectory[], groupOf: number[], oldLogp: number[], aEp: number[]): StepContext {
  const packed = packSamples(trajs);
  expect(packed.tokens).toBe(oldLogp.length);
  return {
    policy: {} as PolicyHandle,
    trajs,
    groupOf,
    packed,
    aEpTraj: [],
    aEpTok: Float32Array.from(aEp),
    oldLogp: Float32Array.from(oldLogp),
  };
}

// Packed tokens (index: trajectory, response token id):
//   0,1: τ0 [1,2] (success, train/7)     2: τ1 [3] and 3,4: τ1 [4,5] (failed, train/7)
//   5: τ2 [6] (failed, train/8)          6: τ3 [7] (failed, train/8)        7,8: τ4 [8,9] (failed, panel task 3)
const TRAJS = () => [
  traj(train(7), true, [[1, 2]]),
  traj(train(7), false, [[3], [4, 5]]),
  traj(train(8), false, [[6]]),
  traj(train(8), false, [[7]]),
  traj(panel(3), false, [[8, 9]]),
];
const GROUP_OF = [0, 0, 1, 1, 2];
const OLD = [-1, -1, -0.5, -2, -0.25, -1, -1, -1.5, -0.75];
const AEP = [1, 1, -1, -1, -1, 0, 0, 2, 2];

/**
 * A union pool (val types: 1 c, 2 c, 3 h, 4 h, 5 k): 100 solves {1, 2} (c×2), 200 {3} (h×1), 300 {2, 4, 5} (c, h, k).
 * Try orders: c → 100, 300, 200; h → 200, 300 (tie, smaller id first), 100; k → 300, 100, 200. Teacher log-prob
 * of token v: −v/8 (100), −v/4 (200), −v/2 (300). Pass rates on training tasks: listed, else 0.
 */
function unionPool() {
  const rates: Record<string, number> = {
    '300|train/7': 0.75,
    '100|train/8': 0.25,
    '100|train/10': 0.5,
    '300|train/10': 1,
  };
  const calls: { score: [number, number[][], number][]; pass: [number, string][] } = { score: [], pass: [] };
  const solved: Record<number, number[]> = { 100: [1, 2], 200: [3], 300: [2, 4, 5] };
  const pool: TeacherPool = {
    ids: [100, 200, 300],
    solved: (id) => new Set(solved[id]),
    taskType: (q) => ['', 'c', 'c', 'h', 'h', 'k'][q],
    panelTask: (ref) => (ref.split === 'test-seen' ? ref.index : undefined),
    async teacherPassRate(id, ref) {
      calls.pass.push([id, `${ref.split}/${ref.index}`]);
      return rates[`${id}|${ref.split}/${ref.index}`] ?? 0;
    },
    async score(id, samples: readonly ScoreSample[], temperature) {
      calls.score.push([id, samples.map((s) => [...s.response]), temperature]);
      return Float32Array.from(
        samples.flatMap((s) => s.response.map((v) => -v / ({ 100: 8, 200: 4, 300: 2 } as Record<number, number>)[id])),
      );
    },
  };
  return { pool, calls };
}
// One token per trajectory: τ0 [4] train/7 h failed, τ1 [2] train/7 h succeeded, τ2 [8] train/8 c failed,
// τ3 [6] train/9 k failed, τ4 [2] train/10 c failed, τ5 [2] train/10 c succeeded.
const UTRAJS = () => [
  traj(train(7), false, [[4]], 'h'),
  traj(train(7), true, [[2]], 'h'),
  traj(train(8), false, [[8]], 'c'),
  traj(train(9), false, [[6]], 'k'),
  traj(train(10), false, [[2]], 'c'),
  traj(train(10), true, [[2]], 'c'),
];
const UGROUP_OF = [0, 0, 1, 2, 3, 3];
const UOLD = [-1, -0.25, -0.5, -1, -0.5, -0.125];

describe('agentic-opd with a fake teacher pool', () => {
  it('HCN picks the teacher; LAD gates τ1 and τ4; A = ℓ_teacher − ℓ_old exactly on their tokens', async () => {
    // P = {1}: teacher 100 has Q∖P = {2} (score 1), teacher 200 has {3,4,5} (score 3) → 200.
    const { pool, calls } = fakePool({ '200|train/7': 1, '200|train/8': 0 });
    const run = agenticOpd.create({ cfg, env: 'household', teacherPool: pool, studentSolved: [1] } as AgenticOpdInit);
    expect(run.state()).toMatchObject({
      round: 1,
      teacherId: 200,
      teacherScore: 3,
      nothingToLearn: false,
      hcn: { weights: { 100: { 2: 2 } } },
    });
    const step = await run.advantages(ctxOf(TRAJS(), GROUP_OF, OLD, AEP));
    // LAD: train/7 student 1/2 < teacher 1 → τ1 (τ0 succeeded); train/8 student 0, teacher 0 → neither;
    // panel task 3: teacher 200 solves it, student (P = {1}) does not → τ4. ladShare = 2/5.
    // Teacher 200 log-probs −v/4: v=3 −0.75, v=4 −1, v=5 −1.25, v=8 −2, v=9 −2.25.
    // A_opd: idx2 −0.75−(−0.5) = −0.25; idx3 −1−(−2) = 1; idx4 −1.25−(−0.25) = −1; idx7
    // −2−(−1.5) = −0.5; idx8 −2.25−(−0.75) = −1.5.
    expect(Array.from(step.adv)).toEqual([0, 0, -0.25, 1, -1, 0, 0, -0.5, -1.5]);
    expect(step.extra.ladShare).toBe(0.4);
    // reverseKl = −mean(A_opd over the 5 gated tokens) = 2.25 / 5.
    expect(step.extra.reverseKl).toBeCloseTo(0.45, 12);
    expect(step.extra).toMatchObject({
      teacherId: 200,
      teachersUsed: [200],
      teacherScore: 3,
      gatedTokens: 5,
      teacherRolloutCalls: 2,
      teacherRound: 1,
    });
    // One scoring pass for the gated samples only, at the rollout temperature; pass rates once per task (τ3 hits the
    // memo).
    expect(calls.score).toEqual([[200, [[3], [4, 5], [8, 9]], 0.7]]);
    expect(calls.pass).toEqual([
      [200, 'train/7'],
      [200, 'train/8'],
    ]);
    expect(step.cost).toEqual({ tokens: 3 + 1 + (3 + 2) + (3 + 2), sequences: 3 });
    expect(step.metrics.teacherShare).toBe(1);
    expect(step.metrics.skillActiveTokenRatio).toBe(5 / 9);
    // The memo persists across steps: a second step asks for no pass rates.
    await run.advantages(ctxOf(TRAJS(), GROUP_OF, OLD, AEP));
    expect(calls.pass.length).toBe(2);
  });

  it('A = opdCoef·A_opd + taskCoef·A_ep; LAD off distils every rollout', async () => {
    const { pool } = fakePool({ '200|train/7': 1, '200|train/8': 0 });
    const run = agenticOpd.create({
      cfg,
      env: 'household',
      teacherPool: pool,
      studentSolved: [1],
      options: { opdCoef: 2, taskCoef: 0.5 },
    } as AgenticOpdInit);
    const s = await run.advantages(ctxOf(TRAJS(), GROUP_OF, OLD, AEP));
    // 2·A_opd + 0.5·A_ep: [0+0.5, 0+0.5, −0.5−0.5, 2−0.5, −2−0.5, 0, 0, −1+1, −3+1]
    expect(Array.from(s.adv)).toEqual([0.5, 0.5, -1, 1.5, -2.5, 0, 0, 0, -2]);
    const off = agenticOpd.create({
      cfg,
      env: 'household',
      teacherPool: pool,
      studentSolved: [1],
      options: { ladGate: false },
    } as AgenticOpdInit);
    const o = await off.advantages(ctxOf(TRAJS(), GROUP_OF, OLD, AEP));
    // Every token: −v/4 − ℓ_old: v=1 −0.25+1, v=2 −0.5+1, …, v=6 −1.5+1, v=7 −1.75+1.
    expect(Array.from(o.adv)).toEqual([0.75, 0.5, -0.25, 1, -1, -0.5, -0.75, -0.5, -1.5]);
    expect(o.extra.ladShare).toBe(1);
    expect(o.extra.teacherRolloutCalls).toBe(0);
  });

  it(
    'union: one teacher per panel task, scored one at a time in id order; a training task no teacher ' +
      'solves gets none',
    async () => {
      const { pool, calls } = fakePool({ '100|train/7': 0, '200|train/7': 0 });
      const run = agenticOpd.create({
        cfg,
        env: 'household',
        teacherPool: pool,
        studentSolved: [],
        options: { teacherSelect: 'union' },
      } as AgenticOpdInit);
      // panel 2 → teacher 100 (−v/8), panel 4 → teacher 200 (−v/4); train/7 (type x: no panel evidence, so by
      // id) → 100 and 200 both fail it → none.
      const trajs = [traj(panel(4), false, [[4]]), traj(panel(2), false, [[8]]), traj(train(7), false, [[2]])];
      const s = await run.advantages(ctxOf(trajs, [0, 1, 2], [-2, -0.5, -1], [0, 0, 0]));
      // τ0: −4/4 − (−2) = 1; τ1: −8/8 − (−0.5) = −0.5; τ2: 0.
      expect(Array.from(s.adv)).toEqual([1, -0.5, 0]);
      expect(calls.score.map((c) => c[0])).toEqual([100, 200]);
      expect(calls.pass).toEqual([
        [100, 'train/7'],
        [200, 'train/7'],
      ]);
      expect(s.extra).toMatchObject({
        teacherId: null,
        teachersUsed: [100, 200],
        ladShare: 2 / 3,
        teacherRolloutCalls: 2,
      });
    },
  );

  it(
    'union, training tasks off the panel: the first teacher in type order whose own rollouts succeed; ' +
      'LAD compares it with the student',
    async () => {
      const u = unionPool();
      const run = agenticOpd.create({
        cfg,
        env: 'household',
        teacherPool: u.pool,
        studentSolved: [],
        options: { teacherSelect: 'union' },
      } as AgenticOpdInit);
      const s = await run.advantages(ctxOf(UTRAJS(), UGROUP_OF, UOLD, [0, 0, 0, 0, 0, 0]));
      // train/7 (h: 200, 300, 100): 200 rate 0 → 300 rate 0.75 → teacher 300; LAD: 0.75 > student 1/2 → τ0 (τ1
      // succeeded). train/8 (c: 100, 300, 200): 100 rate 0.25 → teacher 100; LAD: 0.25 > 0 → τ2. train/9 (k: 300,
      // 100, 200): all 0 → no teacher, τ3 not distilled. train/10 (c): 100 rate 0.5 → teacher 100 (300 not tried);
      // LAD: 0.5 is not above the student's 1/2 → τ4 not distilled.
      expect(u.calls.pass).toEqual([
        [200, 'train/7'],
        [300, 'train/7'],
        [100, 'train/8'],
        [300, 'train/9'],
        [100, 'train/9'],
        [200, 'train/9'],
        [100, 'train/10'],
      ]);
      // τ0: teacher 300 −4/2 − (−1) = −1; τ2: teacher 100 −8/8 − (−0.5) = −0.5.
      expect(Array.from(s.adv)).toEqual([-1, 0, -0.5, 0, 0, 0]);
      expect(u.calls.score).toEqual([
        [100, [[8]], 0.7],
        [300, [[4]], 0.7],
      ]);
      expect(s.extra).toMatchObject({
        teacherId: null,
        teachersUsed: [100, 300],
        ladShare: 2 / 6,
        teacherRolloutCalls: 7,
        gatedTokens: 2,
      });
      expect(s.extra.reverseKl).toBe(0.75);
      expect(s.metrics.teacherShare).toBe(1);
      // LAD off: every trajectory with a teacher is distilled (successes too; their tasks' rates are memo hits):
      // τ1 300: −2/2 + 0.25 = −0.75; τ4 100: −2/8 + 0.5 = 0.25; τ5 100: −2/8 + 0.125 = −0.125.
      const v = unionPool();
      const off = agenticOpd.create({
        cfg,
        env: 'household',
        teacherPool: v.pool,
        studentSolved: [],
        options: { teacherSelect: 'union', ladGate: false },
      } as AgenticOpdInit);
      const o = await off.advantages(ctxOf(UTRAJS(), UGROUP_OF, UOLD, [0, 0, 0, 0, 0, 0]));
      expect(Array.from(o.adv)).toEqual([-1, -0.75, -0.5, 0, 0.25, -0.125]);
      expect(v.calls.pass).toEqual(u.calls.pass);
      expect(o.extra).toMatchObject({ teachersUsed: [100, 300], ladShare: 5 / 6, teacherRolloutCalls: 7 });
      // A pool without teacher rollouts has no evidence on training tasks: none gets a teacher.
      const { teacherPassRate: _, ...noRates } = unionPool().pool;
      const n = agenticOpd.create({
        cfg,
        env: 'household',
        teacherPool: noRates,
        studentSolved: [],
        options: { teacherSelect: 'union', ladGate: false },
      } as AgenticOpdInit);
      expect((await n.advantages(ctxOf(UTRAJS(), UGROUP_OF, UOLD, [0, 0, 0, 0, 0, 0]))).extra).toMatchObject({
        ladShare: 0,
        teachersUsed: [],
      });
    },
  );

  it(
    'union: the same choices in a fresh run and after a resume; the saved memo holds the search, so a ' +
      'resume repeats no teacher rollout',
    async () => {
      const a = unionPool();
      const run = agenticOpd.create({
        cfg,
        env: 'household',
        teacherPool: a.pool,
        studentSolved: [],
        options: { teacherSelect: 'union' },
      } as AgenticOpdInit);
      // Step 1 sees train/7 only; the checkpoint is taken after it.
      await run.advantages(ctxOf(UTRAJS().slice(0, 2), [0, 0], UOLD.slice(0, 2), [0, 0]));
      const saved = run.saveState!();
      expect(JSON.parse(saved).passMemo).toEqual([
        ['200|train/7', 0],
        ['300|train/7', 0.75],
      ]);
      const straight = await run.advantages(ctxOf(UTRAJS(), UGROUP_OF, UOLD, [0, 0, 0, 0, 0, 0]));
      const b = unionPool();
      const resumed = agenticOpd.create({
        cfg,
        env: 'household',
        teacherPool: b.pool,
        studentSolved: [],
        options: { teacherSelect: 'union' },
      } as AgenticOpdInit);
      resumed.loadState!(saved);
      const again = await resumed.advantages(ctxOf(UTRAJS(), UGROUP_OF, UOLD, [0, 0, 0, 0, 0, 0]));
      // Both make exactly the calls the checkpoint's memo lacks, in the same order, and the same step.
      expect(b.calls.pass).toEqual([
        [100, 'train/8'],
        [300, 'train/9'],
        [100, 'train/9'],
        [200, 'train/9'],
        [100, 'train/10'],
      ]);
      expect(a.calls.pass.slice(2)).toEqual(b.calls.pass);
      expect(Array.from(again.adv)).toEqual(Array.from(straight.adv));
      expect(again.extra).toEqual(straight.extra);
      expect(again.extra.teacherRolloutCalls).toBe(5);
      // A fresh run on the full batch: the same step (the choice depends on the memo's contents, not on when they
      // came).
      const c = unionPool();
      const fresh = agenticOpd.create({
        cfg,
        env: 'household',
        teacherPool: c.pool,
        studentSolved: [],
        options: { teacherSelect: 'union' },
      } as AgenticOpdInit);
      const f = await fresh.advantages(ctxOf(UTRAJS(), UGROUP_OF, UOLD, [0, 0, 0, 0, 0, 0]));
      expect(Array.from(f.adv)).toEqual(Array.from(straight.adv));
      expect({ ...f.extra, teacherRolloutCalls: 0 }).toEqual({ ...straight.extra, teacherRolloutCalls: 0 });
    },
  );

  it('union start warning: only when no teacher solves a val task of any type', () => {
    expect(unionStartWarning(unionPool().pool)).toBeNull();
    const empty = { ids: [100, 200], solved: () => new Set<number>(), taskType: () => 'c' };
    expect(unionStartWarning(empty)).toBe(
      'union teacher: none of the 2 teacher checkpoints solves a val task of any type, so val tasks get ' +
        'no teacher and training tasks are tried on every teacher by step with no type evidence: likely ' +
        'nothing to distil',
    );
  });

  it('newRound re-selects with HCN weights; state() round-trips through JSON for resume', () => {
    const { pool } = fakePool({});
    const run = agenticOpd.create({ cfg, env: 'household', teacherPool: pool, studentSolved: [1] } as AgenticOpdInit);
    // Round 2, P = {1, 3, 4, 5}: 100 has {2} with w 2 → 2; 200 has nothing → 0 → 100; w_100(2) back to 1.
    const s2 = run.newRound([5, 4, 3, 1]);
    expect(s2).toEqual({
      round: 2,
      teacherId: 100,
      teacherScore: 2,
      studentSolved: [1, 3, 4, 5],
      nothingToLearn: false,
      hcn: { weights: {} },
    });
    const saved = JSON.parse(JSON.stringify(run.state())) as AgenticOpdState;
    const resumed = agenticOpd.create({ cfg, env: 'household', teacherPool: pool, resume: saved } as AgenticOpdInit);
    expect(resumed.state()).toEqual(run.state());
    // Round 3, P = all: nothing to learn, still a teacher by the tie-breaks (earliest, 100).
    expect(resumed.newRound([1, 2, 3, 4, 5])).toMatchObject({
      round: 3,
      teacherId: 100,
      nothingToLearn: true,
      teacherScore: 0,
    });
  });

  it("onRound reports each choice with every teacher's HCN numbers", () => {
    const { pool } = fakePool({});
    const rounds: unknown[] = [];
    const run = agenticOpd.create({
      cfg,
      env: 'household',
      teacherPool: pool,
      studentSolved: [1],
      onRound: (r) => rounds.push(r),
    } as AgenticOpdInit);
    run.newRound([5, 4, 3, 1]);
    // Round 1, P = {1}: 100 has {2} (type c) → 1; 200 has {3, 4, 5} (types h, k) → 3. Round 2: w_100(2) = 2 →
    // 100.
    expect(rounds).toEqual([
      {
        round: 1,
        teacherId: 200,
        scores: [
          { id: 100, score: 1, gain: 1, typeCoverage: 1 },
          { id: 200, score: 3, gain: 3, typeCoverage: 2 },
        ],
        studentSolved: 1,
        nothingToLearn: false,
      },
      {
        round: 2,
        teacherId: 100,
        scores: [
          { id: 100, score: 2, gain: 1, typeCoverage: 1 },
          { id: 200, score: 0, gain: 0, typeCoverage: 0 },
        ],
        studentSolved: 4,
        nothingToLearn: false,
      },
    ]);
  });

  it(
    'saveState carries the resident teacher and the pass-rate memo: a resumed run preloads it and calls ' +
      'no teacher rollout again',
    async () => {
      const make = () => {
        const f = fakePool({ '200|train/7': 1, '200|train/8': 0.25 });
        let resident: number | null = null;
        const preloads: number[] = [];
        const pool: TeacherPool = {
          ...f.pool,
          resident: () => resident,
          preload: (id) => {
            resident = id;
            preloads.push(id);
          },
          score: async (id, samples, t) => {
            resident = id;
            return f.pool.score(id, samples, t);
          },
        };
        return { pool, calls: f.calls, preloads };
      };
      const a = make();
      const run = agenticOpd.create({
        cfg,
        env: 'household',
        teacherPool: a.pool,
        studentSolved: [1],
      } as AgenticOpdInit);
      const first = await run.advantages(ctxOf(TRAJS(), GROUP_OF, OLD, AEP));
      expect(a.calls.pass).toEqual([
        [200, 'train/7'],
        [200, 'train/8'],
      ]);
      const saved = JSON.parse(run.saveState!());
      expect(saved).toMatchObject({
        round: 1,
        teacherId: 200,
        resident: 200,
        passMemo: [
          ['200|train/7', 1],
          ['200|train/8', 0.25],
        ],
      });
      const b = make();
      const resumed = agenticOpd.create({
        cfg,
        env: 'household',
        teacherPool: b.pool,
        studentSolved: [1],
      } as AgenticOpdInit);
      resumed.loadState!(run.saveState!());
      expect(b.preloads).toEqual([200]);
      const again = await resumed.advantages(ctxOf(TRAJS(), GROUP_OF, OLD, AEP));
      expect(b.calls.pass).toEqual([]);
      expect(Array.from(again.adv)).toEqual(Array.from(first.adv));
      expect(again.extra).toEqual({ ...first.extra, teacherRolloutCalls: 0 });
      expect(() => resumed.loadState!(JSON.stringify({ ...saved, round: 0 }))).toThrow(
        /algorithm state is malformed \(round: /,
      );
      expect(() => resumed.loadState!(JSON.stringify({ ...saved, resident: 999 }))).toThrow(
        /teacher 999 is not in the pool/,
      );
    },
  );

  it('fixed and random ablations; errors', () => {
    const { pool } = fakePool({});
    const mk = (o: object, extra: object = {}) =>
      agenticOpd.create({
        cfg,
        env: 'household',
        teacherPool: pool,
        studentSolved: [],
        options: o,
        ...extra,
      } as AgenticOpdInit);
    expect(mk({ teacherSelect: 'fixed' }).state()).toMatchObject({ teacherId: 200, teacherScore: 3 }); // 3 solved > 2
    const a = mk({ teacherSelect: 'random' }, { rng: new Rng(4) }),
      b = mk({ teacherSelect: 'random' }, { rng: new Rng(4) });
    expect(a.state().teacherId).toBe(new Rng(4).fork('round/1').pick([100, 200]));
    expect([a.newRound([]).teacherId, a.newRound([]).teacherId]).toEqual([
      b.newRound([]).teacherId,
      b.newRound([]).teacherId,
    ]);
    expect(() => getAlgorithm('agentic-opd').create({ cfg, env: 'household' })).toThrow(/needs a teacher pool/);
    expect(() =>
      agenticOpd.create({
        cfg,
        env: 'household',
        teacherPool: { ...pool, ids: [] },
        studentSolved: [],
      } as AgenticOpdInit),
    ).toThrow(/no teachers/);
    expect(() => resolveAgenticOptions(cfg, { teacherSelect: 'best' as never })).toThrow(
      /unknown teacherSelect "best"/,
    );
    expect(resolveAgenticOptions({ ...cfg, opdCoef: 3 })).toEqual({
      teacherSelect: 'hcn',
      opdCoef: 3,
      taskCoef: 0,
      ladGate: true,
      opdTopK: 0,
    });
    expect(agenticOpd.name).toBe('agentic-opd');
  });
});
