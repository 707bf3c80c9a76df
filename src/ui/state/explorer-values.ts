/**
 * The rollout explorer's per-token quantities (pure; no DOM): which vectors of a stored group
 * (src/worker/explorer-view.ts `ExplorerGroup.tokens`) a token colour can show, a token's exact value, the colour
 * scale and its legend. The values are the trainer's own float32 numbers for that step; nothing is recomputed except
 * the k3 KL, which is derived from the stored ℓ_old and ℓ_ref exactly as the trainer's β = 0 kl metric does.
 */
import { k3 } from '../../core/math/losses';
import type { TokenArrays } from '../../core/train/step-detail';

/** A quantity a token can be coloured by. */
export type ExplorerQuantity =
  'adv' | 'aEp' | 'aSkill' | 'logpOld' | 'logpRef' | 'logpSkill' | 'kl' | 'entropy' | 'ratio';

/**
 * How a quantity is shown: its label, unit and colour scheme (`diverging`: sign matters; `sequential`: magnitude;
 * `ratio`: a ratio, whose side of 1 matters).
 */
export interface QuantityInfo {
  id: ExplorerQuantity;
  label: string;
  unit: string;
  scheme: 'diverging' | 'sequential' | 'ratio';
  /** One sentence: what the number is. */
  help: string;
}

/** A_skill before z-score and clip, as the help texts write it. */
const SKILL_GAP = 'ℓ_skill − ℓ_old';
/** The k3 estimator, as the help texts write it. */
const K3_FORMULA = 'exp(δ) − δ − 1 with δ = ℓ_ref − ℓ_old';

/** Every quantity, in menu order. */
export const QUANTITIES: readonly QuantityInfo[] = [
  {
    id: 'adv',
    label: 'A (total advantage)',
    unit: '',
    scheme: 'diverging',
    help: 'The per-token advantage the update used: A_ep, plus λ·A_skill under OPID.',
  },
  {
    id: 'aEp',
    label: 'A_ep (outcome advantage)',
    unit: '',
    scheme: 'diverging',
    help: 'The group advantage of the trajectory, plus ω·A_step with GiGPO.',
  },
  {
    id: 'aSkill',
    label: 'A_skill (skill advantage)',
    unit: '',
    scheme: 'diverging',
    help: `OPID: ${SKILL_GAP}, z-scored over the step when the Z-score setting is on, then clipped; before λ.`,
  },
  {
    id: 'logpOld',
    label: 'ℓ_old (old log-prob)',
    unit: 'nats',
    scheme: 'sequential',
    help: 'Log-prob of the token under the pre-update policy that sampled it.',
  },
  {
    id: 'logpRef',
    label: 'ℓ_ref (reference log-prob)',
    unit: 'nats',
    scheme: 'sequential',
    help: 'Log-prob under the frozen reference policy (scored for every group when β > 0, else for group 0 only).',
  },
  {
    id: 'logpSkill',
    label: 'ℓ_skill (log-prob with the skill)',
    unit: 'nats',
    scheme: 'sequential',
    help: "OPID: the old policy's log-prob with the routed skill in the prompt.",
  },
  {
    id: 'kl',
    label: 'KL k3 (old ‖ ref)',
    unit: 'nats',
    scheme: 'sequential',
    help: `${K3_FORMULA}, clamped to [−10, 10] (Schulman 2020), as the kl metric.`,
  },
  {
    id: 'entropy',
    label: 'Entropy',
    unit: 'nats',
    scheme: 'sequential',
    help: 'Entropy of the distribution the token was sampled from.',
  },
  {
    id: 'ratio',
    label: 'ρ = π_θ/π_old (PPO ratio)',
    unit: '',
    scheme: 'ratio',
    help:
      "exp(ℓ − ℓ_old) as the update's loss computed it at the token's mini-batch (1 at the " +
      'first; outside [1 − ε, 1 + ε] the clip may act), Schulman et al. 2017, eq. 7.',
  },
];

/** The quantity's info. @throws Error on an unknown id. */
export function quantityInfo(q: ExplorerQuantity): QuantityInfo {
  const info = QUANTITIES.find((x) => x.id === q);
  if (!info) throw new Error(`explorer: unknown quantity ${q}`);
  return info;
}

/** The stored vector behind a quantity, or null when the step did not compute it for this group. */
function vector(t: TokenArrays, q: ExplorerQuantity): Float32Array | null {
  switch (q) {
    case 'adv':
      return t.adv;
    case 'aEp':
      return t.aEp;
    case 'aSkill':
      return t.aSkill;
    case 'logpOld':
      return t.logpOld;
    case 'logpRef':
      return t.logpRef;
    case 'logpSkill':
      return t.logpSkill;
    case 'entropy':
      return t.entropy;
    case 'kl':
      return t.logpRef;
    case 'ratio':
      return t.ratio;
  }
}

/** True when the group has the quantity (e.g. no A_skill outside OPID, no ℓ_ref for groups β = 0 did not score). */
export function hasQuantity(t: TokenArrays, q: ExplorerQuantity): boolean {
  return vector(t, q) !== null;
}

/**
 * The value of token `m` (index into the group's token vectors), or null when the group lacks the quantity or the
 * value is missing (NaN: a token an OPID re-scoring did not cover). Float32 values are returned as stored.
 */
export function tokenQuantity(t: TokenArrays, q: ExplorerQuantity, m: number): number | null {
  const v = vector(t, q);
  if (!v || m < 0 || m >= v.length) return null;
  if (q === 'kl') return k3(t.logpRef![m] - t.logpOld[m]);
  return Number.isNaN(v[m]) ? null : v[m];
}

/** The colour scale of a quantity over tokens [from, to): min and max of the finite values (0, 0 when none). */
export function quantityRange(
  t: TokenArrays,
  q: ExplorerQuantity,
  from = 0,
  to = t.ids.length,
): { min: number; max: number } {
  let min = Infinity,
    max = -Infinity;
  for (let m = from; m < to; m++) {
    const x = tokenQuantity(t, q, m);
    if (x === null || !Number.isFinite(x)) continue;
    min = Math.min(min, x);
    max = Math.max(max, x);
  }
  return min === Infinity ? { min: 0, max: 0 } : { min, max };
}

/**
 * A CSS background for value `v` on a range: diverging quantities green for positive, red for negative, opacity ∝
 * |v| / max(|min|, |max|); a ratio the same around 1 (green above, red below, opacity ∝ |v − 1| / max(|min − 1|,
 * |max − 1|)); sequential ones orange, opacity ∝ (v − min)/(max − min). At most 0.65 so text stays readable; ''
 * for null or a flat range.
 */
export function quantityColour(
  v: number | null,
  range: { min: number; max: number },
  scheme: QuantityInfo['scheme'],
): string {
  if (v === null || !Number.isFinite(v)) return '';
  if (scheme === 'ratio') return quantityColour(v - 1, { min: range.min - 1, max: range.max - 1 }, 'diverging');
  if (scheme === 'diverging') {
    const m = Math.max(Math.abs(range.min), Math.abs(range.max));
    if (!(m > 0) || v === 0) return '';
    const a = Math.min(0.65, (0.65 * Math.abs(v)) / m).toFixed(3);
    return v > 0 ? `rgba(34, 163, 90, ${a})` : `rgba(220, 38, 38, ${a})`;
  }
  const span = range.max - range.min;
  if (!(span > 0)) return '';
  const a = Math.min(0.65, Math.max(0.05, (0.65 * (v - range.min)) / span)).toFixed(3);
  return `rgba(232, 89, 12, ${a})`;
}

/** A value as shown on hover and focus: 6 significant digits with its unit, or `n/a`. */
export function formatQuantity(v: number | null, q: ExplorerQuantity): string {
  if (v === null) return 'n/a (not computed for this group)';
  const unit = quantityInfo(q).unit;
  return `${Number(v.toPrecision(6))}${unit ? ` ${unit}` : ''}`;
}
