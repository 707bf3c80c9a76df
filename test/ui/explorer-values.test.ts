/**
 * The explorer's token quantities and the phase progress summary: exact stored values (float32 as stored), the k3 KL
 * from ℓ_ref and ℓ_old by hand, missing vectors as null, colour scales, and rate / ETA arithmetic.
 */
import { describe, expect, it } from 'vitest';
import type { TokenArrays } from '../../src/core/train/step-detail';
import {
  formatQuantity,
  hasQuantity,
  quantityColour,
  quantityRange,
  tokenQuantity,
} from '../../src/ui/state/explorer-values';
import { phaseLabel, summarize } from '../../src/ui/state/phase-progress.svelte';

const f = (xs: number[]) => Float32Array.from(xs);
const tokens: TokenArrays = {
  ids: Int32Array.from([5, 6, 7]),
  adv: f([0.5, -0.25, 0.1]),
  aEp: f([0.5, -0.25, 0.1]),
  aSkill: null,
  logpSkill: null,
  logpOld: f([-1, -0.5, -2]),
  logpRef: f([-1, -1.5, -2]),
  entropy: f([0.3, 0.2, 0.9]),
  ratio: f([1, 1.25, NaN]),
};

describe('explorer quantities', () => {
  it('returns the stored float32 values, null where the step computed none', () => {
    expect(tokenQuantity(tokens, 'adv', 2)).toBe(Math.fround(0.1));
    expect(tokenQuantity(tokens, 'aSkill', 0)).toBeNull();
    expect(hasQuantity(tokens, 'aSkill')).toBe(false);
    expect(hasQuantity(tokens, 'kl')).toBe(true);
    expect(hasQuantity({ ...tokens, logpRef: null }, 'kl')).toBe(false);
    expect(tokenQuantity(tokens, 'adv', 3)).toBeNull();
  });

  it('k3 KL = exp(δ) − δ − 1 with δ = ℓ_ref − ℓ_old', () => {
    expect(tokenQuantity(tokens, 'kl', 0)).toBe(0);
    expect(tokenQuantity(tokens, 'kl', 1)).toBeCloseTo(Math.exp(-1) + 1 - 1, 12); // δ = −1
  });

  it('scales: range over the group, diverging tints by sign, sequential by position in the range', () => {
    expect(quantityRange(tokens, 'adv')).toEqual({ min: Math.fround(-0.25), max: 0.5 });
    expect(quantityColour(0.5, { min: -0.25, max: 0.5 }, 'diverging')).toBe('rgba(34, 163, 90, 0.650)');
    expect(quantityColour(-0.25, { min: -0.25, max: 0.5 }, 'diverging')).toBe('rgba(220, 38, 38, 0.325)');
    expect(quantityColour(0.6, { min: 0.2, max: 1 }, 'sequential')).toBe('rgba(232, 89, 12, 0.325)');
    expect(quantityColour(null, { min: 0, max: 1 }, 'sequential')).toBe('');
    expect(formatQuantity(-0.123456789, 'logpOld')).toBe('-0.123457 nats');
    expect(formatQuantity(null, 'adv')).toMatch(/^n\/a/);
  });

  it('the PPO ratio: stored values, NaN (no applied mini-batch) as null, tinted by its side of 1', () => {
    expect(tokenQuantity(tokens, 'ratio', 1)).toBe(1.25);
    expect(tokenQuantity(tokens, 'ratio', 2)).toBeNull();
    expect(hasQuantity({ ...tokens, ratio: null }, 'ratio')).toBe(false);
    expect(quantityRange(tokens, 'ratio')).toEqual({ min: 1, max: 1.25 });
    // |ρ − 1| / max |ρ − 1| over the range [0.5, 1.25]: 0.5 → red at full opacity, 1.25 → green at half, 1
    // → none.
    expect(quantityColour(0.5, { min: 0.5, max: 1.25 }, 'ratio')).toBe('rgba(220, 38, 38, 0.650)');
    expect(quantityColour(1.25, { min: 0.5, max: 1.25 }, 'ratio')).toBe('rgba(34, 163, 90, 0.325)');
    expect(quantityColour(1, { min: 0.5, max: 1.25 }, 'ratio')).toBe('');
    expect(formatQuantity(1.0000123456, 'ratio')).toBe('1.00001');
  });
});

describe('phase progress summary', () => {
  it('rate = done per second since the phase began; ETA = spent·(1 − f)/f', () => {
    const s = summarize({
      phase: 'eval',
      step: 0,
      done: 20,
      total: 80,
      unit: 'episodes',
      fraction: 0.4,
      startedAt: 1000,
      at: 11_000,
    });
    expect(s).toEqual({
      label: 'evaluating before training (step 0)',
      count: '20 / 80 episodes',
      rate: 2,
      etaMs: 15_000,
      fraction: 0.4,
    });
    expect(phaseLabel({ phase: 'update', step: 3 })).toBe('update of step 3');
    expect(
      summarize({ phase: 'rollout', step: 1, done: 0, total: 16, unit: 'episodes', fraction: 0, startedAt: 5, at: 5 }),
    ).toMatchObject({ rate: null, etaMs: null });
  });
});
