/** The pretraining panel's pace: iterations per second and the time left, from one progress report. */
import { describe, expect, it } from 'vitest';
import { pretrainPace } from '../../src/ui/state/pretrain-pace';

describe('pretrainPace', () => {
  it('rate = iter / elapsed seconds; ETA = elapsed · (iters − iter) / iter', () => {
    // 50 of 200 iterations in 20 s: 2.5 iters/s, 150 left at 0.4 s each = 60 s.
    expect(pretrainPace({ iter: 50, iters: 200, elapsedMs: 20_000 })).toEqual({ rate: 2.5, etaMs: 60_000 });
    expect(pretrainPace({ iter: 200, iters: 200, elapsedMs: 80_000 })).toEqual({ rate: 2.5, etaMs: 0 });
  });
  it('nothing to tell before the first iteration or with no time spent', () => {
    expect(pretrainPace({ iter: 0, iters: 200, elapsedMs: 5_000 })).toEqual({ rate: null, etaMs: null });
    expect(pretrainPace({ iter: 3, iters: 200, elapsedMs: 0 })).toEqual({ rate: null, etaMs: null });
  });
});
