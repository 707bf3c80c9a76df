/** The page's analyzer words: failures merged over steps, the test-connection sentence, the key hidden; token tints. */
import { describe, expect, it } from 'vitest';
import type { StepEvent, TokenView } from '../../src/core/train/events';
import { REDACTED, connectionText, redact, summariseFailures } from '../../src/ui/state/analyzer-view';
import { tintScale, tokenTint, tokenValue } from '../../src/ui/state/token-colours';
import { analyzerChart } from '../../src/ui/state/chart-data';

const step = (
  step: number,
  analyzerFailures: number,
  analyzerFailureReasons: Record<string, number>,
  analyzerCalls = 4,
) => ({ step, analyzerFailures, analyzerFailureReasons, analyzerCalls }) as unknown as StepEvent;

describe('summariseFailures', () => {
  it('merges reasons over steps, most frequent first, and counts the steps with failures', () => {
    const s = summariseFailures([
      step(1, 2, { 'HTTP 429 (rate limited)': 1, 'reply was not JSON': 1 }),
      step(2, 0, {}),
      step(3, 3, { 'HTTP 429 (rate limited)': 2, 'timed out after 20000 ms': 1 }),
    ]);
    expect(s).toEqual({
      total: 5,
      steps: 2,
      stepsAsGrpo: 0,
      reasons: [
        { reason: 'HTTP 429 (rate limited)', count: 3 },
        { reason: 'reply was not JSON', count: 1 },
        { reason: 'timed out after 20000 ms', count: 1 },
      ],
    });
  });

  it('GRPO steps (no analyzer fields) give nothing', () => {
    expect(summariseFailures([{ step: 1 } as StepEvent])).toEqual({ total: 0, steps: 0, stepsAsGrpo: 0, reasons: [] });
  });

  it('counts the steps where every analysis failed (OPID ran as GRPO)', () => {
    const s = summariseFailures([
      { ...step(1, 4, { 'reply was not JSON': 4 }), ranAsGrpo: true },
      step(2, 1, { 'reply was not JSON': 1 }),
    ]);
    expect([s.total, s.steps, s.stepsAsGrpo]).toEqual([5, 2, 1]);
  });
});

describe('redact and connectionText', () => {
  it('hides every occurrence of the key; short keys are left alone', () => {
    expect(redact('a sk-abcdef b sk-abcdef', ' sk-abcdef ')).toBe(`a ${REDACTED} b ${REDACTED}`);
    expect(redact('abc', 'ab')).toBe('abc');
    expect(redact('nothing here', '')).toBe('nothing here');
  });

  it('says what happened in one sentence', () => {
    expect(connectionText({ ok: true, latencyMs: 850, model: 'qwen2.5:7b' })).toBe(
      'Connected: qwen2.5:7b answered in 850 ms.',
    );
    expect(connectionText({ ok: false, reason: 'HTTP 401 (API key rejected)' })).toBe(
      'Connection failed: HTTP 401 (API key rejected).',
    );
  });
});

describe('token tints', () => {
  const tok = (adv: number, advSkill?: number, logpOld = -1, logpRef = -1): TokenView => ({
    text: 'go',
    logpOld,
    logpRef,
    adv,
    entropy: 0,
    advSkill,
  });

  it('A_ep = A − λ·A_skill; A_skill as used; KL is k3 of old vs reference', () => {
    expect(tokenValue(tok(1.5, 1), 'aEp', 0.5)).toBeCloseTo(1.0);
    expect(tokenValue(tok(0.7), 'aEp', 0.5)).toBe(0.7);
    // a silent group's token (A_ep 0, λ_silent = 10·λ): A = 1.0·0.6, and A_ep is read, not derived with the run's
    // λ
    expect(tokenValue({ ...tok(0.6, 0.6), advEp: 0 }, 'aEp', 0.1)).toBe(0);
    expect(tokenValue(tok(0.6, 0.6), 'aEp', 0.1)).toBeCloseTo(0.54, 6);
    expect(tokenValue(tok(0.7), 'aSkill', 0.5)).toBeNull();
    expect(tokenValue(tok(0.7, -2), 'aSkill', 0.5)).toBe(-2);
    const r = -0.5;
    expect(tokenValue(tok(0, undefined, -1, -1.5), 'kl', 0)).toBeCloseTo(Math.exp(r) - r - 1);
    expect(tokenValue(tok(0), 'kl', 0)).toBe(0);
    expect(tokenValue(tok(1), 'none', 0)).toBeNull();
  });

  it('green for positive, red for negative, none for 0 or null; opacity by |v|/max', () => {
    expect(tokenTint(1, 2, 'aEp')).toBe('rgba(34, 163, 90, 0.300)');
    expect(tokenTint(-2, 2, 'aSkill')).toBe('rgba(220, 38, 38, 0.600)');
    expect(tokenTint(0, 2, 'aEp')).toBe('');
    expect(tokenTint(null, 2, 'aEp')).toBe('');
    expect(tokenTint(1, 0, 'kl')).toBe('');
    expect(tintScale([tok(-3), tok(2)], 'aEp', 0)).toBe(3);
  });
});

describe('analyzerChart', () => {
  it('calls and failures per step; missing fields count 0', () => {
    expect(analyzerChart([step(1, 1, {}, 8), { step: 2 } as StepEvent])).toMatchObject({
      xs: [1, 2],
      series: [
        { label: 'calls', values: [8, 0] },
        { label: 'failures', values: [1, 0] },
      ],
    });
  });
});
