/**
 * Progress of the run's phase in progress (an evaluation, a step's rollouts, its update), from the worker's progress
 * reports (core/cancel.ts `PhaseProgress`): done / total, the rate since the phase began and the time left. Svelte 5
 * runes; wall-clock times come from `now` (ms) so the arithmetic is testable.
 */
import type { PhaseProgress } from '../../core/cancel';

/** A report with when its phase began and when it arrived (ms, `now`'s clock). */
export interface TimedProgress extends PhaseProgress {
  startedAt: number;
  at: number;
}

/** The phase in progress, in words, with numbers. */
export interface ProgressSummary {
  /** e.g. `evaluating before training (step 0)`, `rollouts of step 3`, `update of step 3`. */
  label: string;
  /** e.g. `34 / 80 episodes`. */
  count: string;
  /** Units per second since the phase began, or null before a rate can be told. */
  rate: number | null;
  /** Estimated time left in the phase (ms) from the work fraction and the time spent, or null. */
  etaMs: number | null;
  /** Work fraction in [0, 1]. */
  fraction: number;
}

/** Words for a phase. */
export function phaseLabel(p: Pick<PhaseProgress, 'phase' | 'step'>): string {
  if (p.phase === 'eval')
    return p.step === 0 ? 'evaluating before training (step 0)' : `evaluating after step ${p.step}`;
  return p.phase === 'rollout' ? `rollouts of step ${p.step}` : `update of step ${p.step}`;
}

/** The summary of a timed report: rate = done / seconds since the phase began; ETA = spent·(1 − f)/f. */
export function summarize(p: TimedProgress): ProgressSummary {
  const spent = Math.max(0, p.at - p.startedAt);
  return {
    label: phaseLabel(p),
    count: `${p.done} / ${p.total} ${p.unit}`,
    rate: spent > 0 && p.done > 0 ? (1000 * p.done) / spent : null,
    etaMs: p.fraction > 0 && spent > 0 ? (spent * (1 - p.fraction)) / p.fraction : null,
    fraction: p.fraction,
  };
}

/** The page's progress of the phase in progress. */
export class PhaseProgressState {
  /** The latest report, or null between phases and runs. */
  current = $state.raw<TimedProgress | null>(null);
  /** When the work that the next phase continues began (the last phase's end, or Start). */
  private mark = 0;

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** The current phase as words and numbers, or null. */
  summary = $derived(this.current ? summarize(this.current) : null);

  /** Training (re)starts now: the next phase begins here. */
  begin(): void {
    this.mark = this.now();
    this.current = null;
  }

  /** A report from the worker. A new phase (another phase or step) begins at the previous one's end. */
  receive(p: PhaseProgress): void {
    const t = this.now();
    const c = this.current;
    const same = c !== null && c.phase === p.phase && c.step === p.step && p.done >= c.done;
    const startedAt = same ? c.startedAt : this.mark;
    this.current = { ...p, startedAt, at: t };
    if (p.done >= p.total) this.mark = t;
  }

  /** An event ended what was in progress (a step, an evaluation, a cut): the next phase begins now. */
  ended(): void {
    this.mark = this.now();
    this.current = null;
  }
}
