/** The experiment runner's total ETA: remaining steps over the pace of this call's steps (cli/eta.ts). */
import { describe, expect, it } from 'vitest';
import { totalEtaMinutes } from '../../cli/eta';

describe('totalEtaMinutes', () => {
  it('divides the steps left by the pace of the steps trained so far', () => {
    // 30 steps in 10 min (both parallel runs together): 3 steps/min; 150 steps left → 50 min
    expect(totalEtaMinutes(150, 30, 600_000)).toBe(50);
    // a resumed table: 2 runs at step 70 and 50 of 100 plus 7 new ones → 30 + 50 + 700 = 780 steps; 26 steps in 6.5
    // min → 195 min
    expect(totalEtaMinutes(780, 26, 390_000)).toBe(195);
    expect(totalEtaMinutes(0, 10, 1000)).toBe(0);
  });
  it('is NaN before the first step', () => {
    expect(totalEtaMinutes(100, 0, 5000)).toBeNaN();
  });
});
