import { describe, expect, it } from 'vitest';
import { BestEval, evalScore } from '../../../src/core/train/best';

const ev = (step: number, seen: number, unseen: number) => ({
  step,
  splits: {
    'test-seen': { successRate: seen, episodes: 100, byTaskType: {} },
    'test-unseen': { successRate: unseen, episodes: 100, byTaskType: {} },
  },
});

describe('best-checkpoint selection (mean success over the evaluated splits)', () => {
  it('scores an evaluation as the plain mean of its splits', () => {
    expect(evalScore(ev(0, 0.81, 0.69))).toBeCloseTo(0.75, 12);
    expect(evalScore({ splits: { 'test-seen': { successRate: 0.3, episodes: 10, byTaskType: {} } } })).toBe(0.3);
    expect(() => evalScore({ splits: {} })).toThrow(/no splits/);
  });

  it('keeps the strictly best evaluation; ties and worse ones do not replace it', () => {
    const b = new BestEval();
    expect([b.step, b.score]).toEqual([-1, -1]);
    expect(b.offer(ev(0, 0.1, 0.1))).toBe(true);
    expect(b.offer(ev(50, 0.45, 0.38))).toBe(true);
    expect(b.offer(ev(100, 0.5, 0.33))).toBe(false); // 0.415 = 0.415: a tie keeps step 50
    expect(b.offer(ev(150, 0.53, 0.26))).toBe(false);
    expect(b.offer(ev(350, 0.81, 0.69))).toBe(true);
    expect(b.offer(ev(450, 0.8, 0.72))).toBe(true); // 0.76 > 0.75
    expect(b.offer(ev(500, 0.81, 0.68))).toBe(false);
    expect(b.step).toBe(450);
    expect(b.score).toBeCloseTo(0.76, 12);
    expect(b.splits).toEqual({ 'test-seen': 0.8, 'test-unseen': 0.72 });
  });
});
