/**
 * The page's words for the analyzer: failure reasons of every step merged into one
 * notice (counts summed, not one notice per step), the "Test connection" answer, and a last guard that keeps the API
 * key out of anything shown. Pure functions; no DOM.
 */
import type { ConnectionResult } from '../../core/analyzer/http';
import type { StepEvent } from '../../core/train/events';
import { duration } from './format';

/** Analyzer failures of a run so far, merged over its steps. */
export interface FailureSummary {
  /** Rollouts whose analysis failed (they got no skill signal), summed over steps. */
  total: number;
  /** Steps with at least one failure. */
  steps: number;
  /** Steps where every analysis failed, so OPID had no skill signal and ran as GRPO (StepEvent.ranAsGrpo). */
  stepsAsGrpo: number;
  /** One entry per distinct reason, most frequent first (ties: alphabetical); counts summed over steps. */
  reasons: { reason: string; count: number }[];
}

/** Merges `analyzerFailures` and `analyzerFailureReasons` of every step (events from older trainers may lack them). */
export function summariseFailures(steps: readonly StepEvent[]): FailureSummary {
  const byReason = new Map<string, number>();
  let total = 0,
    withFailures = 0,
    asGrpo = 0;
  for (const s of steps) {
    if (s.ranAsGrpo) asGrpo++;
    const n = s.analyzerFailures ?? 0;
    total += n;
    if (n > 0) withFailures++;
    for (const [reason, count] of Object.entries(s.analyzerFailureReasons ?? {}))
      byReason.set(reason, (byReason.get(reason) ?? 0) + count);
  }
  const reasons = [...byReason]
    .map(([reason, count]) => ({ reason, count }))
    .sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason));
  return { total, steps: withFailures, stepsAsGrpo: asGrpo, reasons };
}

/** Placeholder shown where a text held the key. */
export const REDACTED = '[API key hidden]';

/**
 * `text` with every occurrence of `key` (trimmed) replaced by REDACTED. The core never puts the key in a message;
 * this is the page's second line of defence before anything reaches the screen. Keys under 4 characters are left alone.
 */
export function redact(text: string, key: string): string {
  const k = key.trim();
  return k.length >= 4 ? text.split(k).join(REDACTED) : text;
}

/** The "Test connection" answer in one sentence, e.g. "Connected: qwen2.5:7b answered in 850 ms." */
export function connectionText(r: ConnectionResult): string {
  return r.ok ? `Connected: ${r.model} answered in ${duration(r.latencyMs)}.` : `Connection failed: ${r.reason}.`;
}
