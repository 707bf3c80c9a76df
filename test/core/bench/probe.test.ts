import { describe, expect, it } from 'vitest';
import {
  chooseFastest,
  probeKey,
  probeReason,
  readProbeRecord,
  shouldStopProbe,
  timingText,
  PROBE_BUDGET_MS,
  PROBE_RECORD_VERSION,
  type ProbeTiming,
} from '../../../src/core/bench/probe';

const t = (backend: ProbeTiming['backend'], msPerStep: number, steps = 3): ProbeTiming => ({
  backend,
  msPerStep,
  steps,
  complete: steps === 3,
});

describe('backend probe: when to stop timing a backend', () => {
  it('stops after all 3 timed steps, and when the 2000 ms budget is spent', () => {
    expect(shouldStopProbe(100, 90, 3, null)).toBe(true);
    expect(shouldStopProbe(PROBE_BUDGET_MS, 0, 0, null)).toBe(true);
    expect(shouldStopProbe(PROBE_BUDGET_MS - 1, 0, 0, null)).toBe(false);
    expect(shouldStopProbe(500, 200, 2, null)).toBe(false);
  });
  it('stops a backend whose mean step is more than 2× the best so far, not one at 2× or less', () => {
    expect(shouldStopProbe(300, 90, 1, 40)).toBe(true); // 90 > 2 × 40
    expect(shouldStopProbe(300, 80, 1, 40)).toBe(false); // 80 = 2 × 40
    expect(shouldStopProbe(300, 160, 2, 40)).toBe(false); // mean 80
  });
  it('stops during the warm-up only when it already took longer than 2 × 3 best steps + half the budget', () => {
    expect(shouldStopProbe(1240, 0, 0, 40)).toBe(false); // 2·3·40 + 1000 = 1240
    expect(shouldStopProbe(1241, 0, 0, 40)).toBe(true);
  });
});

describe('backend probe: choosing the fastest', () => {
  it('picks the lowest mean step time', () => {
    expect(chooseFastest([t('webgl', 95), t('wasm', 41), t('cpu', 160, 1)])?.backend).toBe('wasm');
  });
  it('breaks a tie by the order webgpu → webgl → wasm → cpu', () => {
    expect(chooseFastest([t('wasm', 50), t('webgl', 50)])?.backend).toBe('webgl');
  });
  it('prefers any backend with a timed step over one that never finished its warm-up in time', () => {
    expect(chooseFastest([t('webgpu', 10, 0), t('wasm', 300, 1)])?.backend).toBe('wasm');
  });
  it('returns null for no timings', () => {
    expect(chooseFastest([])).toBeNull();
  });
  it('says why in words, the chosen backend first, then the others from fastest', () => {
    expect(probeReason('wasm', [t('webgl', 95.4), t('wasm', 41.2), t('cpu', 160, 1)])).toBe(
      'fastest of wasm 41 ms, webgl 95 ms, cpu 160 ms (stopped early) per probe step',
    );
    expect(probeReason('wasm', [t('wasm', 41)])).toBe('wasm: the only backend left to probe');
    expect(timingText(t('webgpu', 2100, 0))).toBe('webgpu >2100 ms');
  });
});

describe('backend probe: the remembered choice', () => {
  const key = probeKey({ userAgent: 'Chromium/140', cores: 2, webgpu: 'google · swiftshader', webgl: '' });
  const record = {
    version: PROBE_RECORD_VERSION,
    key,
    choice: 'wasm',
    timings: [t('wasm', 41), t('cpu', 160, 1)],
    skipped: [{ backend: 'webgpu', reason: 'software adapter' }],
    at: 1_764_500_000_000,
  };

  it('reads back a valid record for the same browser and adapters', () => {
    const r = readProbeRecord(structuredClone(record), key);
    expect(r).toEqual({ ok: true, record });
  });
  it('asks for a new probe, naming the field, when the stored value is corrupted (no crash)', () => {
    expect(readProbeRecord({ ...record, choice: 'tpu' }, key)).toEqual({
      ok: false,
      reason: expect.stringMatching(/^remembered choice unreadable \(choice: /),
    });
    expect(
      readProbeRecord({ ...record, timings: [{ backend: 'wasm', msPerStep: -1, steps: 3, complete: true }] }, key),
    ).toEqual({ ok: false, reason: expect.stringMatching(/^remembered choice unreadable \(timings\.0\.msPerStep: /) });
    expect(readProbeRecord('{"version":1', key)).toEqual({
      ok: false,
      reason: expect.stringMatching(/^remembered choice unreadable \(record: /),
    });
    expect(readProbeRecord({ ...record, version: 0 }, key)).toEqual({
      ok: false,
      reason: expect.stringMatching(/^remembered choice unreadable \(version: /),
    });
    expect(readProbeRecord({ ...record, extra: 1 }, key).ok).toBe(false);
  });
  it('asks for a new probe when the chosen backend has no timing', () => {
    expect(readProbeRecord({ ...record, choice: 'webgl' }, key)).toEqual({
      ok: false,
      reason: 'remembered choice unreadable (choice webgl has no timing)',
    });
  });
  it('asks for a new probe on another browser or adapter, and when nothing is stored', () => {
    const other = probeKey({ userAgent: 'Chromium/140', cores: 2, webgpu: 'nvidia · ampere', webgl: '' });
    expect(readProbeRecord(record, other)).toEqual({
      ok: false,
      reason: 'remembered choice was measured on another browser or adapter',
    });
    expect(readProbeRecord(undefined, key)).toEqual({ ok: false, reason: 'no remembered choice' });
    expect(readProbeRecord(null, key)).toEqual({ ok: false, reason: 'no remembered choice' });
  });
});
