/**
 * The timed backend probe behind the page's `auto` backend: its rules (when to stop timing a backend, which one
 * wins), the reason the badge gives, and the remembered choice (a record validated with zod when read back, so a
 * corrupted or foreign value means "probe again", never a crash). Pure: timing and storage are the worker's
 * (src/worker/backend.ts, src/worker/backend-choice.ts).
 */
import { z } from 'zod';
import { CONCRETE_BACKENDS } from '../backend/names';

/** Backends the probe may time, in the order `auto` tries them. */
export const PROBE_BACKENDS = CONCRETE_BACKENDS;
/** One of PROBE_BACKENDS. */
export type ProbeBackend = (typeof PROBE_BACKENDS)[number];

/** Wall-time budget of one backend's probe (ms), warm-up included. */
export const PROBE_BUDGET_MS = 2000;
/** Timed steps after the warm-up when the budget allows. */
export const PROBE_STEPS = 3;
/** A backend whose mean step is this many times the best so far is clearly slower: its probe stops. */
export const PROBE_SLOWER_FACTOR = 2;

/** One backend's probe outcome. */
export interface ProbeTiming {
  backend: ProbeBackend;
  /**
   * Mean wall time of one timed probe step (ms): forward + backward + Adam of the probe model, read back. When no
   * timed step finished (`complete` false with `steps` 0) it is the time spent so far, a lower bound.
   */
  msPerStep: number;
  /** Timed steps that finished. */
  steps: number;
  /** True when all PROBE_STEPS timed steps ran; false when the probe stopped early (budget or clearly slower). */
  complete: boolean;
}

/**
 * Whether to stop timing a backend now.
 * @param elapsedMs wall time since its probe began, warm-up included (ms).
 * @param timedMs wall time of its timed steps so far (ms); `steps` of them finished.
 * @param bestMs the best mean step time (ms) of the backends probed before it, or null when it is the first.
 * @returns true when all PROBE_STEPS ran, the budget is spent, or (after at least one timed step, or a warm-up
 *   longer than PROBE_SLOWER_FACTOR × PROBE_STEPS best steps) it is clearly slower than the best.
 */
export function shouldStopProbe(elapsedMs: number, timedMs: number, steps: number, bestMs: number | null): boolean {
  if (steps >= PROBE_STEPS || elapsedMs >= PROBE_BUDGET_MS) return true;
  if (bestMs === null) return false;
  if (steps === 0) return elapsedMs > PROBE_SLOWER_FACTOR * PROBE_STEPS * bestMs + PROBE_BUDGET_MS / 2;
  return timedMs / steps > PROBE_SLOWER_FACTOR * bestMs;
}

/**
 * The fastest backend: the lowest `msPerStep` among timings with at least one timed step; ties go to the earlier
 * backend in PROBE_BACKENDS order. A backend with no timed step is slower than any with one.
 * @returns null when `timings` is empty.
 */
export function chooseFastest(timings: readonly ProbeTiming[]): ProbeTiming | null {
  const rank = (t: ProbeTiming) => PROBE_BACKENDS.indexOf(t.backend);
  let best: ProbeTiming | null = null;
  for (const t of timings) {
    if (!best) best = t;
    else if (t.steps > 0 !== best.steps > 0) best = t.steps > 0 ? t : best;
    else if (t.msPerStep < best.msPerStep || (t.msPerStep === best.msPerStep && rank(t) < rank(best))) best = t;
  }
  return best;
}

/** `wasm 41 ms` or `cpu >2000 ms` (no timed step) or `webgl 95 ms (stopped: slower)`. */
export function timingText(t: ProbeTiming): string {
  const ms = Math.round(t.msPerStep);
  if (t.steps === 0) return `${t.backend} >${ms} ms`;
  return `${t.backend} ${ms} ms${t.complete ? '' : ' (stopped early)'}`;
}

/**
 * The badge's reason for an auto choice, e.g. `fastest of wasm 41 ms, cpu 160 ms (stopped early) per probe step`,
 * or `the only backend that works` with one timing.
 */
export function probeReason(chosen: ProbeBackend, timings: readonly ProbeTiming[]): string {
  if (timings.length <= 1) return `${chosen}: the only backend left to probe`;
  const sorted = [...timings].sort((a, b) =>
    a.backend === chosen ? -1 : b.backend === chosen ? 1 : a.msPerStep - b.msPerStep,
  );
  return `fastest of ${sorted.map(timingText).join(', ')} per probe step`;
}

/**
 * The key a remembered choice is stored under: the browser (user agent), its logical cores and every adapter it
 * offers (WebGPU adapter text, WebGL renderer), so a new GPU or browser probes again.
 */
export function probeKey(parts: { userAgent: string; cores: number; webgpu: string; webgl: string }): string {
  return JSON.stringify([parts.userAgent, parts.cores, parts.webgpu, parts.webgl]);
}

/** Version of the remembered-choice record; a record of another version is ignored (probe again). */
export const PROBE_RECORD_VERSION = 1;

const timingSchema = z.strictObject({
  backend: z.enum(PROBE_BACKENDS),
  msPerStep: z.number().finite().nonnegative(),
  steps: z.number().int().min(0).max(PROBE_STEPS),
  complete: z.boolean(),
});

/** The remembered outcome of a probe, as stored (IndexedDB) and read back. */
export const probeRecordSchema = z.strictObject({
  version: z.literal(PROBE_RECORD_VERSION),
  /** `probeKey` of the browser and adapters it was measured on. */
  key: z.string(),
  /** The backend chosen. */
  choice: z.enum(PROBE_BACKENDS),
  /** Every backend timed, in probe order. */
  timings: z.array(timingSchema).min(1),
  /** Backends not timed and why (software adapter, unavailable). */
  skipped: z.array(z.strictObject({ backend: z.string(), reason: z.string() })),
  /** When it was measured (ms since the epoch). */
  at: z.number().finite(),
});
/** A validated remembered choice. */
export type ProbeRecord = z.infer<typeof probeRecordSchema>;

/** Outcome of reading a stored value: a record to use, or why it cannot be used (then the page probes again). */
export type ProbeRecordRead = { ok: true; record: ProbeRecord } | { ok: false; reason: string };

/**
 * Validates a stored value against `key`. Missing → `no remembered choice`; not a valid record (corrupted, another
 * version, a chosen backend with no timing) → the first schema problem, naming the field; another browser or
 * adapter → `measured on another browser or adapter`.
 */
export function readProbeRecord(value: unknown, key: string): ProbeRecordRead {
  if (value === undefined || value === null) return { ok: false, reason: 'no remembered choice' };
  const r = probeRecordSchema.safeParse(value);
  if (!r.success) {
    const i = r.error.issues[0];
    return { ok: false, reason: `remembered choice unreadable (${i.path.join('.') || 'record'}: ${i.message})` };
  }
  if (!r.data.timings.some((t) => t.backend === r.data.choice))
    return { ok: false, reason: `remembered choice unreadable (choice ${r.data.choice} has no timing)` };
  if (r.data.key !== key) return { ok: false, reason: 'remembered choice was measured on another browser or adapter' };
  return { ok: true, record: r.data };
}
