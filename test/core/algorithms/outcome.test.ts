import { describe, expect, it } from 'vitest';
import { stepGroupAdvantages } from '../../../src/core/math/advantages';
import { broadcastToTokens, packSamples, tokenAdvantages } from '../../../src/core/algorithms/outcome';
import type { StepRecord, Trajectory } from '../../../src/core/rollout/types';

// Group 0: three trajectories that all start in s0; τ0 and τ1 both reach sA. Group 1: one trajectory, also in s0.
const x = {
  groups: [0, 0, 0, 1],
  anchors: [['s0', 'sA', 'sB'], ['s0', 'sA', 'sC'], ['s0', 'sD'], ['s0']],
  rewards: [[0, 0, 1], [0, 0, 0], [0, 1], [1]],
};

describe('GiGPO step-level advantage (Feng et al. 2025; hand-computed)', () => {
  it('mean-std over same-anchor steps of a group; singleton step groups and other groups get 0', () => {
    // γ = 0.5 → returns τ0 [0.25, 0.5, 1], τ1 [0, 0, 0], τ2 [0.5, 1], τ3 [1].
    // s0 in group 0: {0.25, 0, 0.5}: μ 0.25, σ 0.25 → 0, −1, +1. sA: {0.5, 0}: μ 0.25, σ 0.353553 →
    // ±0.707107.
    const a = stepGroupAdvantages(x, { gamma: 0.5, norm: 'mean-std', eps: 0 });
    expect(a[0][0]).toBeCloseTo(0, 12);
    expect(a[1][0]).toBeCloseTo(-1, 12);
    expect(a[2][0]).toBeCloseTo(1, 12);
    expect(a[0][1]).toBeCloseTo(Math.SQRT1_2, 12);
    expect(a[1][1]).toBeCloseTo(-Math.SQRT1_2, 12);
    expect([a[0][2], a[1][2], a[2][1], a[3][0]]).toEqual([0, 0, 0, 0]);
  });

  it('mean-only: R_t − μ', () => {
    const a = stepGroupAdvantages(x, { gamma: 0.5, norm: 'mean-only', eps: 1e-6 });
    expect(a).toEqual([[0, 0.25, 0], [-0.25, -0.25, 0], [0.25, 0], [0]]);
  });

  it('refuses mismatched lengths and γ outside [0, 1]', () => {
    expect(() => stepGroupAdvantages({ ...x, groups: [0] }, { gamma: 0.5, norm: 'mean-only', eps: 0 })).toThrow(
      /same length/,
    );
    expect(() =>
      stepGroupAdvantages({ ...x, rewards: [[0], [0, 0, 0], [0, 1], [1]] }, { gamma: 0.5, norm: 'mean-only', eps: 0 }),
    ).toThrow(/trajectory 0 has 3 anchors but 1 rewards/);
    expect(() => stepGroupAdvantages(x, { gamma: 1.5, norm: 'mean-only', eps: 0 })).toThrow(
      /gamma must be in \[0, 1\]/,
    );
  });
});

describe('tokenAdvantages: A = A_ep + ω·A_step on every token of the step', () => {
  const st = (observation: string, reward: number, valid = true, tokens = 2): StepRecord => ({
    observation,
    admissible: ['go to desk 1', 'go to shelf 1'],
    prompt: [1, 2],
    response: Array(tokens).fill(3),
    allowed: Array(tokens).fill(null),
    sampleLogp: Array(tokens).fill(0),
    sampleEntropy: Array(tokens).fill(0),
    action: 'go to desk 1',
    valid,
    reward,
  });
  const traj = (steps: StepRecord[]): Trajectory => ({
    ref: { split: 'train', index: 0 },
    task: 't',
    taskType: 'pick',
    initialObservation: 'o',
    steps,
    reward: steps.reduce((s, x) => s + x.reward, 0),
    success: steps.some((x) => x.reward > 0),
    invalidCount: steps.filter((x) => !x.valid).length,
    finalObservation: 'f',
  });
  const trajs = [traj([st('room', 0), st('desk', 1, true, 3)]), traj([st('room', 0, false), st('shelf', 0)])];
  const p = packSamples(trajs);
  const o = { stepAdvWeight: 2, stepAdvGamma: 0.5, invalidPenalty: 0.1, advNorm: 'mean-only' as const, advEps: 1e-6 };

  it('ω = 0 is the GRPO broadcast exactly', () => {
    expect(tokenAdvantages(p, trajs, [0, 0], [0.5, -0.5], { ...o, stepAdvWeight: 0 })).toEqual(
      broadcastToTokens(p, [0.5, -0.5]),
    );
  });

  it("the shared first state compares the returns: 0.5 against −0.1 (the invalid step's penalty)", () => {
    // Returns at `room`: τ0 0 + 0.5·1 = 0.5; τ1 −0.1 + 0.5·0 = −0.1 → μ 0.2, A_step ±0.3. `desk`, `shelf`:
    // singletons → 0.
    const a = tokenAdvantages(p, trajs, [0, 0], [0.5, -0.5], o);
    expect(Array.from(a)).toEqual(Array.from(Float32Array.from([1.1, 1.1, 0.5, 0.5, 0.5, -1.1, -1.1, -0.5, -0.5])));
  });
});
