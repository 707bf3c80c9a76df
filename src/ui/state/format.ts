/**
 * Number formatting for the page: every number is shown with its unit (UI layer, docs/architecture.md).
 * Pure functions; `—` stands for "no value yet".
 */

/** Placeholder for a missing value. */
export const NONE = '—';

/** A rate in [0, 1] as a percentage, e.g. `0.4567 → "45.7 %"`. */
export function pct(x: number | null | undefined, digits = 1): string {
  return x == null || !Number.isFinite(x) ? NONE : `${(x * 100).toFixed(digits)} %`;
}

/**
 * Below this magnitude a value is shown as 0: floating-point round-off, not a measurement. E.g. the sampled KL k3
 * of a policy against an identical reference is mean(e^d − d − 1) ≈ d²/2 ≈ 1e-15 nats/token when the two
 * float32 log-probs differ in their last bit (d ≈ 4e-8); the CLI's 4 decimals show it as 0.0000.
 */
export const ROUND_OFF = 1e-12;

/**
 * A plain number with a fixed number of significant-looking digits, e.g. `num(0.01234, 3) → "0.012"`; magnitudes
 * under 1e-3 or from 1e5 in exponent form (`"2.50e-4"`); under ROUND_OFF as zero (`num(1e-15, 4) → "0.0000"`).
 */
export function num(x: number | null | undefined, digits = 3): string {
  if (x == null || !Number.isFinite(x)) return NONE;
  const a = Math.abs(x);
  if (a < ROUND_OFF) return (0).toFixed(digits);
  if (a < 1e-3 || a >= 1e5) return x.toExponential(2);
  return x.toFixed(a >= 100 ? 0 : digits);
}

/** The fewest decimals (0–8) that write `step` to a millionth of itself, e.g. 5 → 0, 0.2 → 1, 0.25 → 2. */
function decimalsFor(step: number): number {
  for (let d = 0; d < 8; d++) if (Math.abs(+step.toFixed(d) - step) <= step * 1e-6) return d;
  return 8;
}

/**
 * A rate axis tick in [0, 1] as a percentage without padding zeros, e.g. `0.6 → "60 %"`, `0.125 → "12.5 %"`. With
 * `step`, the spacing of the axis' ticks (a rate), as many decimals as the spacing needs, so neighbouring ticks never
 * read the same: ticks 0, 0.0002, 0.0004 with step 0.0002 → "0 %", "0.02 %", "0.04 %" (not "0 %" three times).
 */
export function pctTick(x: number, step?: number): string {
  const d = step && step > 0 && Number.isFinite(step) ? decimalsFor(step * 100) : 1;
  return `${+(x * 100).toFixed(d)} %`;
}

/** Plain axis ticks of up to 4 decimals, with thousands separators (as uPlot's own ticks), by decimals. */
const TICK_FORMATS = new Map<number, Intl.NumberFormat>();

/**
 * A plain-number axis tick. With `step`, the spacing of the axis' ticks, as many decimals as the spacing needs, so
 * neighbouring ticks never read the same: spacings of up to 4 decimals as `0.0135`, `25,000`; finer ones in exponent
 * form, ticks 0, 0.00005, 0.0001 → "0", "5e-5", "1e-4" (uPlot's own ticks, 3 decimals at most, read "0" at each).
 */
export function numTick(x: number, step?: number): string {
  const s = step && step > 0 && Number.isFinite(step) ? step : undefined;
  const d = s === undefined ? 3 : decimalsFor(s);
  if (s !== undefined && d > 4) return Math.abs(x) < s * 1e-6 ? '0' : (+x.toPrecision(6)).toExponential();
  let f = TICK_FORMATS.get(d);
  if (!f) TICK_FORMATS.set(d, (f = new Intl.NumberFormat('en-US', { maximumFractionDigits: d })));
  return f.format(x);
}

/** The spacing of an axis' ticks: the smallest gap between neighbouring ticks; undefined for fewer than two. */
export function tickStep(ticks: readonly number[]): number | undefined {
  let step = Infinity;
  for (let i = 1; i < ticks.length; i++) {
    const gap = Math.abs(ticks[i] - ticks[i - 1]);
    if (gap > 0) step = Math.min(step, gap);
  }
  return Number.isFinite(step) ? step : undefined;
}

/** Time left: `"ETA 12.3 s"` (duration of `ms`), or `"done"` once the work is finished (never `"ETA 0 ms"`). */
export function eta(ms: number | null | undefined, done: boolean): string {
  return done ? 'done' : `ETA ${duration(ms)}`;
}

/** A duration in milliseconds as `850 ms`, `12.3 s` or `4 min 05 s`. */
export function duration(ms: number | null | undefined): string {
  if (ms == null || !Number.isFinite(ms) || ms < 0) return NONE;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${String(Math.round(s - m * 60)).padStart(2, '0')} s`;
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} min`;
}

/** A signed number, e.g. `+0.71` / `−0.71`, for advantages. */
export function signed(x: number | null | undefined, digits = 2): string {
  if (x == null || !Number.isFinite(x)) return NONE;
  return (x >= 0 ? '+' : '−') + Math.abs(x).toFixed(digits);
}

/** An integer count with thousands separators and a unit, e.g. `count(1234, 'params') → "1,234 params"`. */
export function count(x: number | null | undefined, unit: string): string {
  return x == null || !Number.isFinite(x) ? NONE : `${Math.round(x).toLocaleString('en-US')} ${unit}`;
}

/**
 * One action token as the page shows it: the end token `<eos>` as `⏎`, a byte token of a printable ASCII character
 * (the tokenizer's `<0xNN>` for a character outside the vocabulary's pieces, e.g. the brackets of `click[…]`) as that
 * character (`<0x5B>` → `[`), any other token as its text. The exact id stays in the run's data.
 */
export function shownToken(text: string): string {
  if (text === '<eos>') return '⏎';
  const byte = /^<0x([0-9A-F]{2})>$/.exec(text);
  const code = byte ? parseInt(byte[1], 16) : -1;
  return code >= 0x20 && code <= 0x7e ? String.fromCharCode(code) : text;
}
