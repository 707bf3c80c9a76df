/**
 * The default name of a page run (worker/runs-library.ts defaultRunName): algorithm, env/preset, seed and the local
 * start time to the second, so that two runs of one setting started in the same minute are told apart in the Runs list.
 */
import { describe, expect, it } from 'vitest';
import { defaultRunName } from '../../src/worker/runs-library';

describe('defaultRunName', () => {
  it('names the setting and the start time to the second', () => {
    const cfg = { algo: 'opid', env: 'household', preset: 'easy', seed: 2 } as const;
    const a = new Date(2026, 11, 1, 5, 31, 7).getTime(),
      b = new Date(2026, 11, 1, 5, 31, 48).getTime();
    expect(defaultRunName(cfg, a)).toBe('opid household/easy seed 2 · 2026-12-01 05:31:07');
    expect(defaultRunName(cfg, b)).toBe('opid household/easy seed 2 · 2026-12-01 05:31:48');
  });
});
