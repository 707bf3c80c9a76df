/**
 * Token colouring of the trajectory panel: each action token's applied episode advantage A_ep, its skill
 * advantage A_skill (OPID) or its KL to the reference policy, as a background tint. Pure functions; no DOM.
 */
import { k3 } from '../../core/math/losses';
import type { TokenView } from '../../core/train/events';

/** What the token tint shows: nothing, A_ep, A_skill (after z-score/clip, before λ) or the k3 KL (nats). */
export type TokenColouring = 'none' | 'aEp' | 'aSkill' | 'kl';

/** The choices, with their labels. */
export const TOKEN_COLOURINGS: { value: TokenColouring; label: string }[] = [
  { value: 'none', label: 'none' },
  { value: 'aEp', label: 'A_ep (episode advantage)' },
  { value: 'aSkill', label: 'A_skill (skill advantage)' },
  { value: 'kl', label: 'KL to reference (k3)' },
];

/**
 * The value one token shows, or null when it has none (A_skill outside OPID, or tint off).
 * - `aEp`: the token's A_ep as the trainer had it (`advEp`); for a token without it, A − λ·A_skill (A = A_ep +
 *   λ·A_skill),
 *   or A itself when the token has no A_skill.
 * - `aSkill`: A_skill as used (z-scored when the config says so, then clipped; before λ).
 * - `kl`: k3 = exp(r) − r − 1 with r = logpRef − logpOld (nats; ≥ 0), the estimator the trainer uses.
 * @param lambda λ_skill of the run.
 */
export function tokenValue(tok: TokenView, mode: TokenColouring, lambda: number): number | null {
  switch (mode) {
    case 'aEp':
      if (tok.advEp !== undefined) return tok.advEp;
      return tok.advSkill === undefined ? tok.adv : tok.adv - lambda * tok.advSkill;
    case 'aSkill':
      return tok.advSkill ?? null;
    case 'kl':
      return k3(tok.logpRef - tok.logpOld);
    default:
      return null;
  }
}

/**
 * A CSS background for value `v` on a scale whose largest magnitude is `max` (> 0): green for positive, red for
 * negative advantages; orange for KL. Opacity ∝ |v|/max, at most 0.6 so the text stays readable; '' for null or 0.
 */
export function tokenTint(v: number | null, max: number, mode: TokenColouring): string {
  if (v == null || !Number.isFinite(v) || v === 0 || !(max > 0)) return '';
  const a = Math.min(0.6, (0.6 * Math.abs(v)) / max).toFixed(3);
  if (mode === 'kl') return `rgba(232, 89, 12, ${a})`;
  return v > 0 ? `rgba(34, 163, 90, ${a})` : `rgba(220, 38, 38, ${a})`;
}

/** Largest |value| over the tokens (0 when none), the scale of `tokenTint`. */
export function tintScale(tokens: Iterable<TokenView>, mode: TokenColouring, lambda: number): number {
  let m = 0;
  for (const t of tokens) {
    const v = tokenValue(t, mode, lambda);
    if (v != null && Number.isFinite(v)) m = Math.max(m, Math.abs(v));
  }
  return m;
}
