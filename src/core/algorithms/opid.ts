/**
 * OPID, on-policy skill distillation (OPID, Yang et al. 2026, §3; docs/references.md#opid): after each step's rollouts
 * an analyzer writes hindsight skills per trajectory (an episode skill and step skills at up to K critical steps, the
 * set C_τ); the pre-update (old) policy re-scores the same sampled action tokens with the routed skill in its prompt
 * (critical-first routing, math/skill.ts `routeSkills`), A_skill = ℓ_skill − ℓ_old per action token, and A = A_ep
 * + λ_skill·A_skill (math/skill.ts `combineAdvantages`). The teacher is the policy itself with privileged hindsight
 * in its prompt. RunConfig.skillVariant other than `paper` changes A_skill beyond the paper (math/skill.ts
 * `applySkillVariant`); `centred` re-scores over the full vocabulary (`skillRescoreFull`).
 */
import { makeAnalyzer } from '../analyzer';
import type { Trajectory } from '../rollout/types';
import type { PolicyHandle } from '../model/policy';
import { scoreSamples } from '../model/scoring';
import { scoreTopK } from '../model/topk';
import { skillJobs, type SkillJobs } from './skill-prompts';
import { skillTopKRescore, type SkillTopK } from './opid-topk';
import {
  applySkillVariant,
  combineAdvantages,
  skillAdvantage,
  skillMetrics,
  skillMetricsByType,
  skillWhereEpZero,
  studentSkillKl,
} from '../math/skill';
import type { PackedSamples } from './outcome';
import { analyzeStep, type BatchAnalysis } from './analysis';
import { getEnvSpec } from '../envs/registry';
import { ALGORITHM_CATALOG } from '../algorithm-catalog';
import type { Analyzer } from '../analyzer/types';
import type { RunConfig } from '../run/config';
import { NO_INIT, type Algorithm, type AlgorithmStep, type AlgorithmViews, type StepContext } from './types';
import { now } from '../clock';

export { rebuildPrompt } from './skill-prompts';

/** Result of `skillRescore`: packed per-token vectors [M] and bookkeeping. */
export interface SkillRescore {
  /**
   * A_skill = Σ_routes (ℓ_skill − ℓ_old) per action token (0 where no skill); ℓ_old + A_skill is the
   * skill-conditioned log-prob.
   */
  aSkill: Float32Array;
  /** 1 where a skill was routed to the token. */
  active: Uint8Array;
  /**
   * Σ_routes KL(π ‖ π_skill) per action token over the full vocabulary, nats (0 where no skill); only from
   * `skillRescoreFull` (the `centred` variant).
   */
  kl?: Float32Array;
  /** Tokens through the model (prompt + response of every sequence scored). */
  tokens: number;
  /** Sequences scored (skill prompts, and with `skillRescoreFull` the rollout prompts too). */
  prompts: number;
}

/**
 * Re-score every step's sampled action tokens under its routed skill prompt(s) (`routed`, ./skill-prompts.ts
 * `skillJobs`) with `policy` (must be the pre-update policy) — no resampling. `oldLogp` [M] are the same tokens'
 * log-probs without skills (nats).
 */
export async function skillRescore(
  policy: PolicyHandle,
  packed: PackedSamples,
  routed: SkillJobs,
  oldLogp: Float32Array,
  o: { temperature: number },
): Promise<SkillRescore> {
  const M = packed.tokens;
  const aSkill = new Float32Array(M),
    active = new Uint8Array(M);
  const { jobs, jobSample } = routed;
  const scored = jobs.length
    ? await scoreSamples(policy.params, policy.cfg, jobs, policy.freeRow, { temperature: o.temperature })
    : { logp: new Float32Array(0), tokens: 0 };
  let off = 0;
  jobs.forEach((j, k) => {
    const base = packed.offsets[jobSample[k]];
    for (let i = 0; i < j.response.length; i++) {
      aSkill[base + i] += skillAdvantage(scored.logp[off + i], oldLogp[base + i]);
      active[base + i] = 1;
    }
    off += j.response.length;
  });
  const tokens = jobs.reduce((s, j) => s + j.prompt.length + j.response.length, 0);
  return { aSkill, active, tokens, prompts: jobs.length };
}

/**
 * `skillRescore` plus KL(π ‖ π_skill) at every routed action token over the full vocabulary (RunConfig.skillVariant
 * `centred`, beyond the paper: OPID, Yang et al. 2026, Eq. for A_skill; docs/references.md#opid). The sampled form's
 * re-scoring pass computes the skill-conditioned log-softmax over the vocabulary at each position but keeps only the
 * sampled token's entry, and ℓ_old comes from the sampler, so the student's distribution is nowhere at hand: this
 * scores both the rollout prompts (the student, π) and the skill prompts (π_skill) of the routed steps and reads all
 * V log-probs at each action position (model/topk.ts `scoreTopK` at every id; M_routed·V floats per pass). Cost: one
 * more forward pass than `skillRescore`, over the routed steps' rollout prompts. A_skill = ℓ_skill − ℓ_old still
 * uses `oldLogp` (nats [M], the sampler's); the KL uses the re-scored student (the same policy, ~1e-5 nats apart).
 * @throws Error from model/topk.ts `scoreTopK` (a sample too long) or math/skill.ts `studentSkillKl`.
 */
export async function skillRescoreFull(
  policy: PolicyHandle,
  packed: PackedSamples,
  routed: SkillJobs,
  oldLogp: Float32Array,
  o: { temperature: number },
): Promise<SkillRescore & { kl: Float32Array }> {
  const M = packed.tokens,
    V = policy.cfg.vocabSize;
  const aSkill = new Float32Array(M),
    kl = new Float32Array(M),
    active = new Uint8Array(M);
  const { jobs, jobSample } = routed;
  if (!jobs.length) return { aSkill, kl, active, tokens: 0, prompts: 0 };
  const Mj = jobs.reduce((n, j) => n + j.response.length, 0);
  const every = new Int32Array(Mj * V);
  for (let m = 0; m < Mj; m++) for (let v = 0; v < V; v++) every[m * V + v] = v;
  const so = { temperature: o.temperature, k: V, ids: every };
  const studentSamples = jobSample.map((s) => packed.samples[s]);
  const student = await scoreTopK(policy.params, policy.cfg, studentSamples, policy.freeRow, so);
  const teacher = await scoreTopK(policy.params, policy.cfg, jobs, policy.freeRow, so);
  let m = 0;
  jobs.forEach((j, k) => {
    const base = packed.offsets[jobSample[k]];
    for (let i = 0; i < j.response.length; i++, m++) {
      const at = base + i,
        row = (x: Float32Array) => x.subarray(m * V, (m + 1) * V);
      aSkill[at] += skillAdvantage(teacher.logp[m * V + j.response[i]], oldLogp[at]);
      kl[at] += studentSkillKl(row(student.logp), row(teacher.logp));
      active[at] = 1;
    }
  });
  return { aSkill, kl, active, tokens: student.tokens + teacher.tokens, prompts: 2 * jobs.length };
}

/** OPID's settings: the RunConfig fields it declares (core/algorithm-catalog.ts), as the run reads them. */
export type OpidOptions = Pick<RunConfig, (typeof ALGORITHM_CATALOG)['opid']['configFields'][number]>;

/** What one OPID run keeps: its analyzer, settings and the shared settings the skill prompts need. */
interface OpidRun {
  analyzer: Analyzer;
  env: string;
  o: OpidOptions;
  shared: Pick<RunConfig, 'historyTurns' | 'maxActionTokens' | 'temperature'>;
  /** The search steps of a trajectory (no episode skill there), unless episodeSkillOnSearch. */
  searchSteps?: (t: Trajectory) => number[];
}

/** The step's skill signal: the re-scoring (sampled or top-k form) and A combined from it. */
interface OpidSignal {
  rescore: SkillRescore;
  top: SkillTopK | null;
  /** λ_skill applied to A (0 in the top-k form, where the skill is in the update's own term). */
  lambda: number;
  c: { adv: Float32Array; aSkillUsed: Float32Array };
}

/**
 * Re-score the routed skill prompts (top-k form when skillTopK > 0, ./opid-topk.ts: the skill enters the update as a
 * reverse-KL term, so A = A_ep and teacher share 0, and `where-ep-zero` gates that term to tokens with A_ep = 0; the
 * full-vocabulary pass for skillVariant `centred`) and combine A = A_ep + λ_skill·A_skill, A_skill as skillVariant
 * defines it (math/skill.ts `applySkillVariant`, `combineAdvantages`).
 */
async function skillSignal(run: OpidRun, ctx: StepContext, routed: SkillJobs): Promise<OpidSignal> {
  const { o, shared } = run;
  const { policy, packed, oldLogp, aEpTok } = ctx;
  const temperature = shared.temperature;
  let top =
    o.skillTopK > 0
      ? await skillTopKRescore(policy, packed, routed, oldLogp, { k: o.skillTopK, temperature, coef: o.lambdaSkill })
      : null;
  if (top && o.skillVariant === 'where-ep-zero') {
    const gate = skillWhereEpZero(top.aSkill, top.active, aEpTok).active;
    top = { ...top, targets: { ...top.targets, gate } };
  }
  const rescore =
    top ??
    (o.skillVariant === 'centred'
      ? await skillRescoreFull(policy, packed, routed, oldLogp, { temperature })
      : await skillRescore(policy, packed, routed, oldLogp, { temperature }));
  const lambda = top ? 0 : o.lambdaSkill;
  if (top) return { rescore, top, lambda, c: { adv: Float32Array.from(aEpTok), aSkillUsed: top.aSkill } };
  const lengths = packed.samples.map((x) => x.response.length);
  const v = applySkillVariant(o.skillVariant, { ...rescore, aEp: aEpTok, lengths });
  const c = combineAdvantages(aEpTok, v.aSkill, v.active, {
    lambda,
    zscore: o.skillZscore,
    clip: o.skillClip,
    silentScale: o.silentSkillScale,
  });
  return { rescore, top, lambda, c };
}

/** The skill metrics of the step, over all tokens and per task type (math/skill.ts). */
function signalMetrics(o: OpidOptions, ctx: StepContext, x: OpidSignal) {
  const { packed } = ctx;
  const tokenTraj = new Int32Array(packed.tokens);
  packed.samples.forEach((s, i) =>
    tokenTraj.fill(packed.sampleTraj[i], packed.offsets[i], packed.offsets[i] + s.response.length),
  );
  const { c, rescore, lambda } = x;
  const sm = skillMetrics(
    ctx.aEpTok,
    c.aSkillUsed,
    c.adv,
    rescore.active,
    tokenTraj,
    lambda,
    rescore.aSkill,
    o.silentSkillScale,
  );
  const byType = skillMetricsByType(
    ctx.aEpTok,
    c.aSkillUsed,
    c.adv,
    rescore.active,
    tokenTraj,
    ctx.trajs.map((t) => t.taskType),
    lambda,
    rescore.aSkill,
    o.silentSkillScale,
  );
  return { sm, byType };
}

/** The viewer's fields: episode skills and analysis errors, critical steps, ℓ_skill and A_skill per token. */
function signalViews(ctx: StepContext, analysis: BatchAnalysis, routed: SkillJobs, x: OpidSignal): AlgorithmViews {
  return {
    trajectory: (ti) => ({ episodeSkill: analysis.skills[ti]?.episodeSkill, analyzerError: analysis.errors[ti] }),
    sample: (i) => ({ critical: routed.critical[i], stepSkill: routed.stepSkill[i] }),
    token: (m) => ({
      logpSkill: ctx.oldLogp[m] + x.rescore.aSkill[m],
      advSkill: x.c.aSkillUsed[m],
      advEp: ctx.aEpTok[m],
    }),
  };
}

/** One OPID step: analyse, route, re-score, combine; the metrics and views. */
async function opidStep(run: OpidRun, ctx: StepContext): Promise<AlgorithmStep> {
  const { o, shared } = run;
  const { analysis, metrics, analysed } = await analyzeStep(
    run.analyzer,
    run.env,
    ctx.trajs,
    ctx.groupOf,
    o.failedOnly,
    now,
  );
  const routed = skillJobs(ctx.policy, ctx.trajs, analysis.skills, {
    ablation: o.ablation,
    historyTurns: shared.historyTurns,
    maxActionTokens: shared.maxActionTokens,
    searchSteps: run.searchSteps,
  });
  const x = await skillSignal(run, ctx, routed);
  const { sm, byType } = signalMetrics(o, ctx, x);
  return {
    adv: x.c.adv,
    metrics: {
      ...sm,
      ...metrics,
      ranAsGrpo: analysed > 0 && metrics.analyzerFailures === analysed,
      skillByTaskType: byType,
    },
    cost: { tokens: x.rescore.tokens, sequences: x.rescore.prompts },
    ...(x.top ? { topK: x.top.targets, extra: { topkReverseKl: x.top.topkReverseKl } } : {}),
    views: signalViews(ctx, analysis, routed, x),
  };
}

/** OPID as a registered algorithm. */
export const opid: Algorithm<object, OpidOptions> = {
  ...ALGORITHM_CATALOG.opid,
  options: (cfg) => cfg,
  readInit: NO_INIT,
  create({ cfg, env, analyzer: injected, analyzerApiKey }) {
    const o = opid.options(cfg);
    const spec = getEnvSpec(env);
    // Search steps get no episode skill unless the config says so (RunConfig.episodeSkillOnSearch).
    const searchSteps =
      !o.episodeSkillOnSearch && spec.searchSteps ? (t: Trajectory) => spec.searchSteps!(t.task, t.steps) : undefined;
    const run: OpidRun = { analyzer: injected ?? makeAnalyzer(cfg, analyzerApiKey), env, o, shared: cfg, searchSteps };
    return { advantages: (ctx) => opidStep(run, ctx) };
  },
};
