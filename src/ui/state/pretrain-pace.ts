/**
 * The pace of a pretraining (worker/pretrain.ts progress reports, `PretrainProgress`): iterations per second and the
 * time left, as the run's phases show theirs (phase-progress.svelte.ts `summarize`). Pure, so the arithmetic is
 * testable.
 */
import type { PretrainProgress } from '../../worker/api';

/** Iterations per second and the estimated time left (ms); null where they cannot be told yet. */
export interface PretrainPace {
  rate: number | null;
  etaMs: number | null;
}

/**
 * Rate = iterations done / seconds since the pretraining began (`elapsedMs`, which includes building the
 * demonstrations and any pause, so it reads low at first); ETA = elapsed · (iters − iter) / iter, the time per
 * iteration so far times the iterations left. Both null before the first iteration or with no time spent; ETA 0 once
 * every iteration is done.
 */
export function pretrainPace(p: Pick<PretrainProgress, 'iter' | 'iters' | 'elapsedMs'>): PretrainPace {
  if (p.iter <= 0 || !(p.elapsedMs > 0)) return { rate: null, etaMs: null };
  return { rate: (1000 * p.iter) / p.elapsedMs, etaMs: (p.elapsedMs * Math.max(0, p.iters - p.iter)) / p.iter };
}
