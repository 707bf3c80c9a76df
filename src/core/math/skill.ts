/**
 * OPID's skill advantage (OPID, Yang et al. 2026, §3; docs/references.md#opid): routing of hindsight skills to steps,
 * A_skill = (ℓ_skill − ℓ_old)·m per action token (stop-gradient: plain numbers here), the combined advantage
 * A = A_ep + λ_skill·A_skill with optional batch z-score and clip of A_skill, and the OPID metrics. Beyond the paper:
 * the variants of A_skill (SKILL_VARIANTS, `applySkillVariant`: centred under the student, averaged per action, or
 * only where A_ep = 0). Pure functions over plain arrays; no tensors.
 */

/**
 * A trajectory's hindsight skills, as an analyzer writes them (analyzer/types.ts). `stepSkills` keys are 0-based step
 * indices within the trajectory.
 */
export interface TrajectorySkills {
  episodeSkill: string;
  stepSkills: Record<number, string>;
}

/**
 * Accepted OPID ablations (OPID, Yang et al. 2026, §4.3; docs/references.md#opid): none (critical-first routing), no
 * episode skills, no step skills, additive routing.
 */
export const SKILL_ABLATIONS = ['none', 'no-episode', 'no-step', 'additive'] as const;
/** One of SKILL_ABLATIONS. */
export type SkillAblation = (typeof SKILL_ABLATIONS)[number];

/** What one step is re-scored with: zero, one or two skill prompts (additive routing scores both). */
export interface StepRoute {
  /** Episode skill text to inject (undefined = none). */
  episodeSkill?: string;
  /** Step skill text to inject (undefined = none). */
  stepSkill?: string;
  /** Whether the step is in the critical set C_τ (it has a step skill that routing uses). */
  critical: boolean;
}

/**
 * Route a trajectory's skills to its steps (Critical-first routing): step t ∈ C_τ is re-scored with a
 * prompt holding only its step skill; every other step with only the episode skill. `additive`: each step is scored
 * once with the episode skill and, if t ∈ C_τ, once more with only its step skill; both gains are added.
 * `no-episode`: non-critical steps get nothing. `no-step`: C_τ is empty, every step gets the episode skill.
 * Returns, per step, the list of prompts (as skill pairs) to score: length 0, 1 or 2.
 * Step-skill keys outside [0, nSteps) are ignored. `noEpisode`: steps that get no episode skill whatever the ablation
 * (search steps, where hindsight about the object's place is information the policy could not have had; see
 * EnvSpec.searchSteps); their step skills still route.
 */
export function routeSkills(
  skills: TrajectorySkills | null,
  nSteps: number,
  ablation: SkillAblation,
  noEpisode?: ReadonlySet<number>,
): { routes: StepRoute[][]; critical: boolean[] } {
  const routes: StepRoute[][] = [],
    critical: boolean[] = [];
  for (let t = 0; t < nSteps; t++) {
    const step = ablation === 'no-step' ? undefined : skills?.stepSkills[t];
    const ep = ablation === 'no-episode' || noEpisode?.has(t) ? undefined : skills?.episodeSkill || undefined;
    const crit = !!step;
    critical.push(crit);
    const r: StepRoute[] = [];
    if (ablation === 'additive') {
      if (ep) r.push({ episodeSkill: ep, critical: crit });
      if (step) r.push({ stepSkill: step, critical: crit });
    } else if (crit) r.push({ stepSkill: step, critical: true });
    else if (ep) r.push({ episodeSkill: ep, critical: false });
    routes.push(r);
  }
  return { routes, critical };
}

/**
 * OPID's skill advantage of one action token (OPID, Yang et al. 2026, §3, A_skill = ℓ_skill − ℓ_old;
 * stop-gradient: plain numbers): how much more likely the pre-update policy makes the sampled token when the routed
 * hindsight skill is in its prompt. `logpSkill` and `logpOld` are the token's log-probs (nats) with and without the
 * skill, both of the distribution that sampled (the rollout temperature and mask); the result is in nats, > 0 where the
 * skill favours the token. Additive routing sums it over a step's two skill prompts.
 */
export function skillAdvantage(logpSkill: number, logpOld: number): number {
  return logpSkill - logpOld;
}

/**
 * What A_skill is per action token (RunConfig.skillVariant). `paper` is the OPID paper's A_skill = ℓ_skill −
 * ℓ_old (OPID, Yang et al. 2026, Eq. for A_skill; docs/references.md#opid). The others are beyond the paper:
 * `centred` (`centredSkillAdvantage`), `per-action` (`perActionSkillAdvantage`), `where-ep-zero` (`skillWhereEpZero`).
 */
export const SKILL_VARIANTS = ['paper', 'centred', 'per-action', 'where-ep-zero'] as const;
/** One of SKILL_VARIANTS. */
export type SkillVariant = (typeof SKILL_VARIANTS)[number];

/**
 * KL(π ‖ π_skill) at one position, nats (≥ 0): Σ_y π(y)·(log π(y) − log π_skill(y)) over the entries
 * given, with π the softmax of `studentLogp` over them (over the full vocabulary of a log-softmax it is π itself).
 * `studentLogp` and `skillLogp` are the log-probs (nats) of the same token ids, without and with the skill in the
 * prompt; entries where π is 0 (masked tokens) add nothing. Beyond the paper (OPID, Yang et al. 2026, Eq. for A_skill;
 * docs/references.md#opid): `centredSkillAdvantage` adds it to A_skill.
 * @throws Error when the two arrays are empty or differ in length, or every student entry is −Infinity.
 */
export function studentSkillKl(studentLogp: ArrayLike<number>, skillLogp: ArrayLike<number>): number {
  const n = studentLogp.length;
  if (n === 0 || n !== skillLogp.length)
    throw new Error(`studentSkillKl: need two non-empty arrays of the same length (got ${n} and ${skillLogp.length})`);
  let mx = -Infinity;
  for (let i = 0; i < n; i++) mx = Math.max(mx, studentLogp[i]);
  if (mx === -Infinity) throw new Error('studentSkillKl: every student log-prob is -Infinity');
  let z = 0;
  for (let i = 0; i < n; i++) z += Math.exp(studentLogp[i] - mx);
  const lz = mx + Math.log(z);
  let kl = 0;
  for (let i = 0; i < n; i++) {
    const ls = studentLogp[i] - lz,
      p = Math.exp(ls);
    if (p > 0) kl += p * (ls - skillLogp[i]);
  }
  return Math.max(0, kl);
}

/**
 * The skill advantage centred under the student (RunConfig.skillVariant `centred`; beyond the paper: OPID, Yang et al.
 * 2026, Eq. for A_skill; docs/references.md#opid): Δℓ_t minus its mean under the student's distribution at that
 * position, A_t = (ℓ_skill(y_t) − ℓ_old(y_t)) + KL(π ‖ π_skill), since E_{y∼π}[log π_skill(y) − log
 * π(y)] = −KL(π ‖ π_skill). `aSkill` is ℓ_skill − ℓ_old of the sampled token (`skillAdvantage`), `kl` from
 * `studentSkillKl` over the full vocabulary, both nats (with additive routing, each summed over the step's skill
 * prompts). Its mean over the student's own tokens is 0, so it says which token the skill prefers without the shift a
 * skill prompt gives every token alike.
 */
export function centredSkillAdvantage(aSkill: number, kl: number): number {
  return aSkill + kl;
}

/**
 * Per-action A_skill (RunConfig.skillVariant `per-action`; beyond the paper: OPID, Yang et al. 2026, Eq. for A_skill;
 * docs/references.md#opid): each token of an action gets the mean of A_skill over that action's tokens (the action's
 * Δℓ averaged, nats per token). `aSkill` is packed sample-major [M] float32, one action per sample, `lengths` its
 * response lengths (Σ = M). Returns a new float32 [M].
 * @throws Error when Σ lengths ≠ M.
 */
export function perActionSkillAdvantage(aSkill: Float32Array, lengths: readonly number[]): Float32Array {
  const total = lengths.reduce((s, l) => s + l, 0);
  if (total !== aSkill.length)
    throw new Error(`perActionSkillAdvantage: the action lengths sum to ${total}, A_skill has ${aSkill.length} tokens`);
  const out = new Float32Array(aSkill.length);
  let o = 0;
  for (const L of lengths) {
    let s = 0;
    for (let i = o; i < o + L; i++) s += aSkill[i];
    out.fill(L ? s / L : 0, o, o + L);
    o += L;
  }
  return out;
}

/**
 * A_skill only where the token's A_ep is exactly 0 (its group's rewards all equal: all success or all fail), 0
 * elsewhere (RunConfig.skillVariant `where-ep-zero`; beyond the paper: OPID, Yang et al. 2026, Eq. for A_skill;
 * docs/references.md#opid). `aSkill`, `active`, `aEp` are float32 / uint8 / float32 [M]; returns new vectors, `active`
 * cleared where A_ep ≠ 0 (so a z-score of A_skill counts only the tokens that keep it).
 * @throws Error when the lengths differ.
 */
export function skillWhereEpZero(
  aSkill: Float32Array,
  active: Uint8Array,
  aEp: Float32Array,
): { aSkill: Float32Array; active: Uint8Array } {
  if (aSkill.length !== aEp.length || active.length !== aEp.length)
    throw new Error(
      `skillWhereEpZero: A_skill, active and A_ep hold ${aSkill.length}, ${active.length} and ${aEp.length} tokens`,
    );
  const a = new Float32Array(aSkill.length),
    act = new Uint8Array(active.length);
  for (let i = 0; i < a.length; i++)
    if (aEp[i] === 0) {
      a[i] = aSkill[i];
      act[i] = active[i];
    }
  return { aSkill: a, active: act };
}

/** Inputs of `applySkillVariant`: packed per-token vectors [M] of one step. */
export interface SkillVariantInputs {
  /** Σ_routes (ℓ_skill − ℓ_old) per action token, nats (0 where no skill). */
  aSkill: Float32Array;
  /** 1 where a skill was routed to the token. */
  active: Uint8Array;
  /** A_ep per action token. */
  aEp: Float32Array;
  /** Response length of each action (sample), Σ = M. */
  lengths: readonly number[];
  /** Σ_routes KL(π ‖ π_skill) per action token, nats (`studentSkillKl`); needed by `centred` only. */
  kl?: Float32Array;
}

/**
 * A_skill and its active mask as `variant` defines them (SKILL_VARIANTS), before combineAdvantages' z-score and clip:
 * `paper` returns the inputs unchanged; `centred` A_skill + KL; `per-action` each action's mean; `where-ep-zero`
 * A_skill only where A_ep = 0.
 * @throws Error when `centred` has no `kl` or one of another length, or from the variant's function.
 */
export function applySkillVariant(
  variant: SkillVariant,
  x: SkillVariantInputs,
): { aSkill: Float32Array; active: Uint8Array } {
  if (variant === 'paper') return { aSkill: x.aSkill, active: x.active };
  if (variant === 'per-action') return { aSkill: perActionSkillAdvantage(x.aSkill, x.lengths), active: x.active };
  if (variant === 'where-ep-zero') return skillWhereEpZero(x.aSkill, x.active, x.aEp);
  const kl = x.kl;
  if (!kl || kl.length !== x.aSkill.length)
    throw new Error(
      `applySkillVariant: centred needs KL(π ‖ π_skill) per action token (${x.aSkill.length}), got ` +
        `${kl ? kl.length : 'none'}`,
    );
  const a = new Float32Array(x.aSkill.length);
  for (let i = 0; i < a.length; i++) a[i] = x.active[i] ? centredSkillAdvantage(x.aSkill[i], kl[i]) : 0;
  return { aSkill: a, active: x.active };
}

/** Options of `combineAdvantages`. */
export interface CombineOptions {
  /** λ_skill. */
  lambda: number;
  /** Z-score A_skill over the batch's skill-active tokens before weighting. */
  zscore: boolean;
  /** Clip A_skill (after the z-score) to [−clip, clip]; 0 = no clip. */
  clip: number;
  /**
   * Factor on λ for tokens whose A_ep is exactly 0 (their group's rewards all equal, so the outcome gives them no
   * signal): λ_silent = silentScale·λ. 1 (the default) is the OPID paper's uniform λ; not in the paper otherwise.
   */
  silentScale?: number;
}

/**
 * The λ a token gets: `silentScale`·λ where its A_ep is exactly 0 (a silent group), λ elsewhere (CombineOptions).
 */
export function tokenLambda(aEp: number, lambda: number, silentScale = 1): number {
  return aEp === 0 ? lambda * silentScale : lambda;
}

/**
 * A = A_ep + λ·A_skill per action token, float32 [M] (λ·silentScale where A_ep is exactly 0). `aSkill` is already
 * (ℓ_skill − ℓ_old)·m (0 where no skill was routed; `active` marks tokens with a skill). Returns the combined
 * vector and the A_skill actually used (after z-score/clip, before λ).
 */
export function combineAdvantages(
  aEp: Float32Array,
  aSkill: Float32Array,
  active: Uint8Array,
  o: CombineOptions,
): { adv: Float32Array; aSkillUsed: Float32Array } {
  const used = Float32Array.from(aSkill);
  if (o.zscore) {
    let n = 0,
      s = 0,
      s2 = 0;
    for (let i = 0; i < used.length; i++)
      if (active[i]) {
        n++;
        s += used[i];
        s2 += used[i] * used[i];
      }
    if (n > 1) {
      const mu = s / n,
        sd = Math.sqrt(Math.max(0, s2 / n - mu * mu));
      for (let i = 0; i < used.length; i++) used[i] = active[i] ? (used[i] - mu) / (sd + 1e-6) : 0;
    }
  }
  if (o.clip > 0) for (let i = 0; i < used.length; i++) used[i] = Math.max(-o.clip, Math.min(o.clip, used[i]));
  const adv = new Float32Array(aEp.length);
  const scale = o.silentScale ?? 1;
  for (let i = 0; i < adv.length; i++) adv[i] = aEp[i] + tokenLambda(aEp[i], o.lambda, scale) * used[i];
  return { adv, aSkillUsed: used };
}

/** OPID metrics of one step (Metrics). */
export interface SkillMetrics {
  /** mean |λ·A_skill| / mean |A| over action tokens (0 when A is all 0); λ per token as `tokenLambda`. */
  teacherShare: number;
  /** Fraction of action tokens that had a skill routed to them. */
  skillActiveTokenRatio: number;
  /** Among trajectories with skill-active tokens and A_ep ≠ 0: fraction where mean A_skill has the sign of A_ep. */
  skillSignAgreement: number;
}

/**
 * Metrics from packed per-token vectors [M]: A_ep, the A_skill used (pre-λ), the combined A, the active mask, and
 * each token's trajectory index; `silentScale` as CombineOptions. Sign agreement is judged on `aSkillRaw` (ℓ_skill
 * − ℓ_old before z-score/clip; defaults to the used one), so it describes the skills, not the post-processing.
 */
export function skillMetrics(
  aEp: Float32Array,
  aSkillUsed: Float32Array,
  adv: Float32Array,
  active: Uint8Array,
  tokenTraj: Int32Array,
  lambda: number,
  aSkillRaw: Float32Array = aSkillUsed,
  silentScale = 1,
): SkillMetrics {
  const M = adv.length;
  let sumSkill = 0,
    sumA = 0,
    nActive = 0;
  const perTraj = new Map<number, { s: number; n: number; ep: number }>();
  for (let i = 0; i < M; i++) {
    sumSkill += Math.abs(tokenLambda(aEp[i], lambda, silentScale) * aSkillUsed[i]);
    sumA += Math.abs(adv[i]);
    if (!active[i]) continue;
    nActive++;
    const e = perTraj.get(tokenTraj[i]) ?? { s: 0, n: 0, ep: aEp[i] };
    e.s += aSkillRaw[i];
    e.n++;
    perTraj.set(tokenTraj[i], e);
  }
  let agree = 0,
    counted = 0;
  for (const e of perTraj.values()) {
    if (e.ep === 0) continue;
    counted++;
    if (Math.sign(e.s / e.n) === Math.sign(e.ep)) agree++;
  }
  return {
    teacherShare: sumA > 0 ? sumSkill / sumA : 0,
    skillActiveTokenRatio: M ? nActive / M : 0,
    skillSignAgreement: counted ? agree / counted : 0,
  };
}

/** OPID metrics of one task type's trajectories within a step (SkillMetrics over that type's action tokens only). */
export interface TaskTypeSkillMetrics extends SkillMetrics {
  /** Trajectories of this type in the step. */
  trajectories: number;
  /** Action tokens of those trajectories. */
  tokens: number;
  /**
   * Trajectories counted for sign agreement (skill-active tokens and A_ep ≠ 0); agreeing ones = agreement × this.
   */
  agreementCounted: number;
}

/**
 * `skillMetrics` per task type: the step's action tokens split by the task type of their trajectory
 * (`trajType[tokenTraj[i]]`), each part measured on its own (teacher share = its mean |λ·A_skill| / its mean |A|).
 * Vectors as in `skillMetrics` (float32 / uint8 / int32 [M]); keys in order of first appearance.
 * @throws Error if a token's trajectory index has no entry in `trajType`.
 */
export function skillMetricsByType(
  aEp: Float32Array,
  aSkillUsed: Float32Array,
  adv: Float32Array,
  active: Uint8Array,
  tokenTraj: Int32Array,
  trajType: readonly string[],
  lambda: number,
  aSkillRaw: Float32Array = aSkillUsed,
  silentScale = 1,
): Record<string, TaskTypeSkillMetrics> {
  const tokensOf = new Map<string, number[]>();
  for (let i = 0; i < tokenTraj.length; i++) {
    const ty = trajType[tokenTraj[i]];
    if (ty === undefined)
      throw new Error(
        `skillMetricsByType: token ${i} belongs to trajectory ${tokenTraj[i]}, but trajType has ${trajType.length} ` +
          `entries`,
      );
    (tokensOf.get(ty) ?? tokensOf.set(ty, []).get(ty)!).push(i);
  }
  const out: Record<string, TaskTypeSkillMetrics> = {};
  for (const [ty, idx] of tokensOf) {
    const pick = <T extends Float32Array | Uint8Array | Int32Array>(v: T): T => {
      const r = new (v.constructor as new (n: number) => T)(idx.length);
      idx.forEach((i, k) => (r[k] = v[i]));
      return r;
    };
    const tt = pick(tokenTraj),
      ep = pick(aEp),
      act = pick(active),
      raw = pick(aSkillRaw);
    // as skillMetrics: a trajectory's A_ep is that of its first skill-active token
    const firstEp = new Map<number, number>();
    for (let k = 0; k < idx.length; k++) if (act[k] && !firstEp.has(tt[k])) firstEp.set(tt[k], ep[k]);
    out[ty] = {
      ...skillMetrics(ep, pick(aSkillUsed), pick(adv), act, tt, lambda, raw, silentScale),
      trajectories: new Set(tt).size,
      tokens: idx.length,
      agreementCounted: [...firstEp.values()].filter((e) => e !== 0).length,
    };
  }
  return out;
}
