/** Link codec: only non-default fields (and the seed) are written; reading keeps the valid part of a bad link. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../src/core/run/config';
import { decodeHash, encodeHash } from '../../src/ui/state/link';

describe('link codec', () => {
  it('round-trips a config and writes only what differs', () => {
    const c = { ...DEFAULT_CONFIG, seed: 7, steps: 30, learningRate: 3e-4, backend: 'wasm' as const };
    const h = encodeHash(c);
    expect(h).toBe('seed=7&steps=30&learningRate=0.0003&backend=wasm');
    expect(decodeHash(`#${h}`)).toEqual({ config: c, issues: [] });
  });

  it('defaults encode as just the seed', () => {
    expect(encodeHash(DEFAULT_CONFIG)).toBe(`seed=${DEFAULT_CONFIG.seed}`);
    expect(decodeHash('').config).toEqual(DEFAULT_CONFIG);
  });

  it('drops bad and unknown fields, names them, keeps the rest', () => {
    const r = decodeHash('#steps=abc&bogus=1&groupSize=4&model=huge&%E0%A4%A=1');
    expect(r.config.groupSize).toBe(4);
    expect(r.config.steps).toBe(DEFAULT_CONFIG.steps);
    expect(r.config.model).toBe(DEFAULT_CONFIG.model);
    expect(r.issues.map((i) => i.field).sort()).toEqual(['%E0%A4%A=1', 'bogus', 'model', 'steps'].sort());
  });
});
