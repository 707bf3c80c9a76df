import { describe, expect, it } from 'vitest';
import {
  checkHcnState,
  combineDistill,
  distillAdvantage,
  fixedTeacher,
  groupPassRates,
  hcnInitialState,
  hcnSelect,
  hcnWeight,
  ladGate,
  randomTeacher,
  topKReverseKl,
  trajectoryTokenGate,
  unionTaskTypes,
  unionTeacherOrder,
  unionTeachers,
  HCN_MAX_WEIGHT,
  type HcnState,
  type LadEvidence,
} from '../../../src/core/math/agentic';
import { Rng } from '../../../src/core/rng';

// Task types of the validation panel: c = clean, h = heat, k = cool.
const TYPES = new Map([
  [1, 'c'],
  [2, 'c'],
  [3, 'h'],
  [4, 'h'],
  [5, 'k'],
  [6, 'k'],
]);
// Solved matrix rows Q_i (teachers are frozen, so the rows do not change between rounds).
const TEACHERS = [
  { id: 100, solved: [1, 5, 6] }, // types c, k, k
  { id: 200, solved: [1, 2, 3] }, // types c, c, h
  { id: 300, solved: [1, 3, 4] }, // types c, h, h
];
const score = (r: ReturnType<typeof hcnSelect>) => r.scores.map((s) => [s.id, s.score, s.gain, s.typeCoverage]);

describe('HCN teacher selection (Agentic-OPD)', () => {
  it('five rounds: choices, every tie-break, and the weights after each round', () => {
    // Round 1, P = {}: every weight 1.
    //   100: Q∖P = {1,5,6} → score 3, gain 3, types {c,k} = 2
    //   200: {1,2,3}       → 3, 3, {c,h} = 2
    //   300: {1,3,4}       → 3, 3, {c,h} = 2      all tied → earliest checkpoint 100.
    //   Update: w_100 = 1 on {1,5,6}; w_200 +1 on {1,2,3}; w_300 +1 on {1,3,4}.
    const r1 = hcnSelect(TEACHERS, [], TYPES);
    expect(r1.teacherId).toBe(100);
    expect(r1.decidedBy).toBe('id');
    expect(score(r1)).toEqual([
      [100, 3, 3, 2],
      [200, 3, 3, 2],
      [300, 3, 3, 2],
    ]);
    expect(r1.nothingToLearn).toBe(false);
    expect(r1.state).toEqual({ weights: { 200: { 1: 2, 2: 2, 3: 2 }, 300: { 1: 2, 3: 2, 4: 2 } } });

    // Round 2, P = {1,5}:
    //   100: {6}   → w 1         = 1, gain 1, types 1
    //   200: {2,3} → w 2 + 2     = 4, gain 2, types {c,h} = 2
    //   300: {3,4} → w 2 + 2     = 4, gain 2, types {h} = 1     200 wins on type coverage.
    //   Update: w_200 = 1 on {1,2,3}; w_100(6) = 2; w_300(3), w_300(4) = 3 (w_300(1) = 2 stays: 1 ∈ P).
    const r2 = hcnSelect(TEACHERS, [1, 5], TYPES, r1.state);
    expect(r2.teacherId).toBe(200);
    expect(r2.decidedBy).toBe('typeCoverage');
    expect(score(r2)).toEqual([
      [100, 1, 1, 1],
      [200, 4, 2, 2],
      [300, 4, 2, 1],
    ]);
    expect(r2.state).toEqual({ weights: { 100: { 6: 2 }, 300: { 1: 2, 3: 3, 4: 3 } } });

    // Round 3, P = {2,3,4,6}:
    //   100: {1,5} → 1 + 1 = 2, gain 2, types {c,k} = 2
    //   200: {1}   → 1,         gain 1
    //   300: {1}   → w 2 = 2,   gain 1, types 1        100 and 300 tie on 2; 100 wins on gain.
    //   Update: w_100 = 1 on {1,5,6} (6 back to 1); w_200(1) = 2; w_300(1) = 3.
    const r3 = hcnSelect(TEACHERS, [2, 3, 4, 6], TYPES, r2.state);
    expect(r3.teacherId).toBe(100);
    expect(r3.decidedBy).toBe('gain');
    expect(score(r3)).toEqual([
      [100, 2, 2, 2],
      [200, 1, 1, 1],
      [300, 2, 1, 1],
    ]);
    expect(r3.state).toEqual({ weights: { 200: { 1: 2 }, 300: { 1: 3, 3: 3, 4: 3 } } });

    // Round 4, P = {5} (the student forgot tasks):
    //   100: {1,6}   → 1 + 1     = 2, gain 2
    //   200: {1,2,3} → 2 + 1 + 1 = 4, gain 3
    //   300: {1,3,4} → 3 + 3 + 3 = 9, gain 3          300 wins on score (its weights grew while passed over).
    //   Update: w_300 = 1; w_100 +1 on {1,6}; w_200 +1 on {1,2,3}.
    const r4 = hcnSelect(TEACHERS, [5], TYPES, r3.state);
    expect(r4.teacherId).toBe(300);
    expect(r4.decidedBy).toBe('score');
    expect(score(r4)).toEqual([
      [100, 2, 2, 2],
      [200, 4, 3, 2],
      [300, 9, 3, 2],
    ]);
    expect(r4.state).toEqual({ weights: { 100: { 1: 2, 6: 2 }, 200: { 1: 3, 2: 2, 3: 2 } } });

    // Round 5, P = {1..6}: the student solves the union → all 0, earliest 100, nothing to learn.
    //   Update: w_100 = 1 on {1,5,6}; no Q_j ∖ P for the others → their weights unchanged.
    const r5 = hcnSelect(TEACHERS, [1, 2, 3, 4, 5, 6], TYPES, r4.state);
    expect(r5.teacherId).toBe(100);
    expect(r5.decidedBy).toBe('id');
    expect(r5.nothingToLearn).toBe(true);
    expect(score(r5)).toEqual([
      [100, 0, 0, 0],
      [200, 0, 0, 0],
      [300, 0, 0, 0],
    ]);
    expect(r5.state).toEqual({ weights: { 200: { 1: 3, 2: 2, 3: 2 } } });
  });

  it('caps weights at 5: a teacher passed over six times stays at 5', () => {
    const T = [
      { id: 100, solved: [1, 3, 5, 7, 9, 11] },
      { id: 200, solved: [2] },
    ];
    const types = new Map([1, 2, 3, 5, 7, 9, 11].map((q) => [q, 'a']));
    let st: HcnState = hcnInitialState();
    const seen: number[][] = [];
    for (let k = 0; k < 6; k++) {
      const r = hcnSelect(T, [], types, st);
      expect(r.teacherId).toBe(100); // score 6 (reset to 1s every round) beats 200's ≤ 5
      st = r.state;
      seen.push([r.scores[1].score, hcnWeight(st, 200, 2)]);
    }
    expect(seen).toEqual([
      [1, 2],
      [2, 3],
      [3, 4],
      [4, 5],
      [5, 5],
      [5, 5],
    ]);
    expect(HCN_MAX_WEIGHT).toBe(5);
  });

  it('ties on score broken by gain and by type coverage (later checkpoint wins), a single teacher is "only"', () => {
    const st = { weights: { 100: { 1: 2, 3: 2 } } };
    const types = new Map([...TYPES, [7, 'z'], [8, 'z'], [9, 'z'], [10, 'z']]);
    // 100: {1,3} → 2 + 2 = 4, gain 2, types {c,h} = 2; 200: {7,8,9,10} → 4, gain 4, types {z} = 1.
    // Gain comes before type coverage → 200 (type coverage first would pick 100).
    const g = hcnSelect(
      [
        { id: 100, solved: [1, 3] },
        { id: 200, solved: [7, 8, 9, 10] },
      ],
      [],
      types,
      st,
    );
    expect([g.teacherId, g.decidedBy]).toEqual([200, 'gain']);
    // 100: {1,2} → types {c}; 200: {3,5} → types {h,k} → 200.
    const t = hcnSelect(
      [
        { id: 100, solved: [1, 2] },
        { id: 200, solved: [3, 5] },
      ],
      [],
      TYPES,
    );
    expect([t.teacherId, t.decidedBy]).toEqual([200, 'typeCoverage']);
    expect(hcnSelect([{ id: 7, solved: new Set([1]) }], [], TYPES).decidedBy).toBe('only');
  });

  it('does not modify its input state; the state round-trips through JSON', () => {
    const st = { weights: { 300: { 4: 2 } } };
    const r = hcnSelect(TEACHERS, [], TYPES, st);
    expect(st).toEqual({ weights: { 300: { 4: 2 } } });
    const back = JSON.parse(JSON.stringify(r.state)) as HcnState;
    expect(hcnSelect(TEACHERS, [2], TYPES, back)).toEqual(hcnSelect(TEACHERS, [2], TYPES, r.state));
  });

  it('throws clear errors', () => {
    expect(() => hcnSelect([], [], TYPES)).toThrow(/no teachers/);
    expect(() =>
      hcnSelect(
        [
          { id: 1, solved: [] },
          { id: 1, solved: [] },
        ],
        [],
        TYPES,
      ),
    ).toThrow(/duplicate teacher id 1/);
    expect(() => hcnSelect([{ id: 1, solved: [99] }], [], TYPES)).toThrow(/task 99.*no task type/);
    expect(() => hcnSelect([{ id: 1, solved: [1] }], [], TYPES, { weights: { 1: { 1: 6 } } })).toThrow(
      /outside \[1, 5\]/,
    );
    expect(() => checkHcnState({ weights: { 1: { 1: 0.5 } } })).toThrow(/w_1\(1\)/);
  });
});

describe('LAD gate (Agentic-OPD)', () => {
  it('distils exactly the failed rollouts on tasks where the teacher does better', () => {
    const tr = (r: number): LadEvidence => ({ kind: 'train', teacherPassRate: r });
    const val = (teacherSolves: boolean, studentSolves: boolean): LadEvidence => ({
      kind: 'val',
      teacherSolves,
      studentSolves,
    });
    const success = [
      true,
      false,
      false,
      false, // g0: student 1/4 = 0.25, teacher 0.5 > 0.25 → the three failures
      true,
      true,
      false,
      false, //  g1: student 0.5, teacher 0.5 (not better) → none
      false,
      false, //              g2: panel task, teacher solves, student does not → both
      false, //                     g3: panel, both solve → none
      false, //                     g4: panel, teacher does not solve → none
      false, //                     g5: no evidence → none
    ];
    const groupOf = [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 4, 5];
    const ev = [
      tr(0.5),
      tr(0.5),
      tr(0.5),
      tr(0.5),
      tr(0.5),
      tr(0.5),
      tr(0.5),
      tr(0.5),
      val(true, false),
      val(true, false),
      val(true, true),
      val(false, false),
      { kind: 'none' as const },
    ];
    const g = ladGate(success, groupOf, ev);
    expect(g.mask.map((m, i) => (m ? i : -1)).filter((i) => i >= 0)).toEqual([1, 2, 3, 8, 9]);
    expect(g.ladShare).toBe(5 / 13);
    expect(g.studentPassRate.slice(0, 8)).toEqual([0.25, 0.25, 0.25, 0.25, 0.5, 0.5, 0.5, 0.5]);
    // A success is never distilled, even where the teacher is perfect.
    expect(ladGate([true], [0], [tr(1)]).mask).toEqual([false]);
    expect(ladGate([], [], []).ladShare).toBe(0);
  });

  it('checks its inputs', () => {
    expect(() => ladGate([false], [0], [{ kind: 'train', teacherPassRate: 1.5 }])).toThrow(/outside \[0, 1\]/);
    expect(() => ladGate([false], [0, 1], [{ kind: 'none' }])).toThrow(/same length/);
    expect(groupPassRates([true, false, true], [3, 3, 9])).toEqual([0.5, 0.5, 1]);
  });
});

describe('distillation advantage (Agentic-OPD)', () => {
  it(
    'A = ℓ_teacher − ℓ_student on gated tokens, ' +
      '0 elsewhere; ' +
      'reverse KL is the gated token mean of ' +
      'ℓ_s − ℓ_t',
    () => {
      const teacher = [-0.5, -1.25, Number.NaN, -2];
      const student = [-1, -0.25, -3, -2];
      const d = distillAdvantage(teacher, student, [1, 1, 0, 1]);
      // −0.5 − (−1) = 0.5; −1.25 − (−0.25) = −1; ungated 0; −2 − (−2) = 0.
      expect(Array.from(d.aOpd)).toEqual([0.5, -1, 0, 0]);
      // ((−1 + 0.5) + (−0.25 + 1.25) + 0) / 3 = 0.5 / 3
      expect(d.reverseKl).toBeCloseTo(0.5 / 3, 15);
      expect(d.gatedTokens).toBe(3);
      expect(Array.from(combineDistill(d.aOpd, [1, 1, 1, 1]))).toEqual([0.5, -1, 0, 0]); // defaults 1, 0
      expect(Array.from(combineDistill(d.aOpd, [1, 1, 1, 1], { opdCoef: 2, taskCoef: 0.5 }))).toEqual([
        1.5, -1.5, 0.5, 0.5,
      ]);
      expect(distillAdvantage([0], [0], [0]).reverseKl).toBe(0);
      expect(() => distillAdvantage([-Infinity], [0], [1])).toThrow(/non-finite/);
      expect(() => distillAdvantage([0, 0], [0], [1])).toThrow(/lengths differ/);
    },
  );

  it("expands a trajectory mask to its samples' tokens", () => {
    // samples: traj 0 [0,2), traj 1 [2,3), traj 1 [3,5), traj 2 [5,6)
    expect(Array.from(trajectoryTokenGate([false, true, false], [0, 1, 1, 2], [0, 2, 3, 5], [2, 1, 2, 1], 6))).toEqual([
      0, 0, 1, 1, 1, 0,
    ]);
  });

  it('top-k reverse KL on a hand-made distribution', () => {
    // Student top-3 probabilities 0.4, 0.2, 0.2 → renormalised p̃_s = 0.5, 0.25, 0.25.
    // Teacher on the same ids 0.1, 0.1, 0.2   → renormalised p̃_t = 0.25, 0.25, 0.5.
    // KL = 0.5·ln(0.5/0.25) + 0.25·ln(0.25/0.25) + 0.25·ln(0.25/0.5) = 0.5 ln 2 − 0.25 ln 2 = 0.25 ln 2 ≈
    // 0.1732868.
    const kl = topKReverseKl([0.4, 0.2, 0.2].map(Math.log), [0.1, 0.1, 0.2].map(Math.log));
    expect(kl).toBeCloseTo(0.25 * Math.LN2, 12);
    expect(kl).toBeCloseTo(0.17328679514, 10);
    expect(topKReverseKl([-1, -2], [-1, -2])).toBe(0);
    // A zero-mass student token contributes 0 but still renormalises the teacher: p̃_s = (1, 0), p̃_t(v₀) =
    // e⁻¹/(e⁻¹ + e⁻⁵), KL = −ln p̃_t(v₀) = ln(1 + e⁻⁴) ≈ 0.0181499.
    expect(topKReverseKl([-1, -Infinity], [-1, -5])).toBeCloseTo(Math.log1p(Math.exp(-4)), 14);
    expect(topKReverseKl([-1, -1], [-1, -Infinity])).toBe(Infinity);
    expect(() => topKReverseKl([], [])).toThrow(/non-empty/);
    expect(() => topKReverseKl([-Infinity], [0])).toThrow(/-Infinity/);
  });
});

describe('ablation selectors (Agentic-OPD)', () => {
  const T = [
    { id: 300, solved: [1, 2] },
    { id: 100, solved: [2, 3] },
    { id: 200, solved: [3, 4] },
    { id: 50, solved: [6] },
  ];
  it('fixed: most solved, earliest on ties', () => {
    expect(fixedTeacher(T)).toBe(100);
    expect(
      fixedTeacher([
        { id: 9, solved: [1] },
        { id: 4, solved: [] },
      ]),
    ).toBe(9);
    expect(() => fixedTeacher([])).toThrow(/no teachers/);
  });
  it('random: the injected Rng over the sorted ids, independent of input order', () => {
    const ids = [300, 100, 200];
    for (const seed of [1, 2, 3, 4, 5])
      expect(randomTeacher(ids, new Rng(seed))).toBe(new Rng(seed).pick([100, 200, 300]));
    expect(randomTeacher(ids, new Rng(11))).toBe(randomTeacher([200, 300, 100], new Rng(11)));
    expect(new Set([1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((s) => randomTeacher(ids, new Rng(s)))).size).toBeGreaterThan(1);
    expect(() => randomTeacher([], new Rng(1))).toThrow(/no teachers/);
  });
  it('union: per task, the earliest teacher that solves it', () => {
    expect([...unionTeachers(T)]).toEqual([
      [1, 300],
      [2, 100],
      [3, 100],
      [4, 200],
      [6, 50],
    ]);
  });
  it('union off the panel: every teacher, most val tasks of the type solved first, then the earlier checkpoint', () => {
    const type = (q: number) => TYPES.get(q);
    // TEACHERS: 100 solves c×1, k×2; 200 c×2, h×1; 300 c×1, h×2.
    expect(unionTeacherOrder(TEACHERS, type, 'c')).toEqual([
      { id: 200, typeSolved: 2 },
      { id: 100, typeSolved: 1 },
      { id: 300, typeSolved: 1 },
    ]);
    expect(unionTeacherOrder(TEACHERS, type, 'h').map((c) => c.id)).toEqual([300, 200, 100]);
    expect(unionTeacherOrder(TEACHERS, type, 'k').map((c) => c.id)).toEqual([100, 200, 300]);
    // A type no teacher solves on the panel (or not on it at all): by id; input order does not matter.
    expect(unionTeacherOrder([TEACHERS[2], TEACHERS[0], TEACHERS[1]], type, 'pick')).toEqual([
      { id: 100, typeSolved: 0 },
      { id: 200, typeSolved: 0 },
      { id: 300, typeSolved: 0 },
    ]);
    expect(() => unionTeacherOrder([], type, 'c')).toThrow(/no teachers/);
    expect(() => unionTeacherOrder([TEACHERS[0], TEACHERS[0]], type, 'c')).toThrow(/duplicate teacher id 100/);
    expect(unionTaskTypes(TEACHERS, type)).toEqual(['c', 'h', 'k']);
    expect(
      unionTaskTypes(
        [
          { id: 1, solved: [3] },
          { id: 2, solved: [9] },
        ],
        type,
      ),
    ).toEqual(['h']); // task 9 has no type
    expect(unionTaskTypes([{ id: 1, solved: [] }], type)).toEqual([]);
  });
});
