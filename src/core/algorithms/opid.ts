/**
 * OPID, on-policy skill distillation (OPID, Yang et al. 2026, §3; docs/references.md#opid): after each step's rollouts
 * an analyzer writes hindsight skills per trajectory (an episode skill and step skills at up to K critical steps, the
 * set C_τ); the pre-update (old) policy re-scores the same sampled action tokens with the routed skill in its prompt
 * (critical-first routing, math/skill.ts `routeSkills`), A_skill = ℓ_skill − ℓ_old per action token, and A = A_ep
 * + λ_skill·A_skill (math/skill.ts `combineAdvantages`). The teacher is the policy itself with privileged hindsight
 * in its prompt.
 */
import { makeAnalyzer } from '../analyzer';
import type { Trajectory } from '../rollout/types';
import type { PolicyHandle } from '../model/policy';
import { scoreSamples } from '../model/scoring';
import { skillJobs, type SkillJobs } from './skill-prompts';
import { skillTopKRescore } from './opid-topk';
import { combineAdvantages, skillMetrics, skillMetricsByType } from '../math/skill';
import type { PackedSamples } from './outcome';
import { analyzeStep } from './analysis';
import { getEnvSpec } from '../envs/registry';
import type { Algorithm } from './types';

const now = () => (typeof performance !== 'undefined' ? performance.now() : Date.now());

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
  /** Tokens through the model (prompt + response of every skill prompt scored). */
  tokens: number;
  /** Skill prompts scored. */
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
      aSkill[base + i] += scored.logp[off + i] - oldLogp[base + i];
      active[base + i] = 1;
    }
    off += j.response.length;
  });
  const tokens = jobs.reduce((s, j) => s + j.prompt.length + j.response.length, 0);
  return { aSkill, active, tokens, prompts: jobs.length };
}

/** OPID as a registered algorithm. */
export const opid: Algorithm = {
  name: 'opid',
  summary: 'GRPO plus the skill advantage: hindsight skills re-scored by the old policy (on-policy skill distillation)',
  usesAnalyzer: true,
  outcomeEstimator: 'grpo',
  source: 'OPID paper (2026), §3: A = A_ep + λ_skill·(ℓ_skill − ℓ_old), critical-first routing',
  create({ cfg, env, analyzer: injected, analyzerApiKey }) {
    const analyzer = injected ?? makeAnalyzer(cfg, analyzerApiKey);
    const spec = getEnvSpec(env);
    // Search steps get no episode skill unless the config says so (RunConfig.episodeSkillOnSearch).
    const searchSteps =
      !cfg.episodeSkillOnSearch && spec.searchSteps ? (t: Trajectory) => spec.searchSteps!(t.task, t.steps) : undefined;
    return {
      async advantages(ctx) {
        const { analysis, metrics, analysed } = await analyzeStep(
          analyzer,
          env,
          ctx.trajs,
          ctx.groupOf,
          cfg.failedOnly,
          now,
        );
        const routed = skillJobs(ctx.policy, ctx.trajs, analysis.skills, {
          ablation: cfg.ablation,
          historyTurns: cfg.historyTurns,
          maxActionTokens: cfg.maxActionTokens,
          searchSteps,
        });
        // Top-k form (./opid-topk.ts): the skill enters the update as a reverse-KL term, so A = A_ep and teacher share
        // 0.
        const top =
          cfg.skillTopK > 0
            ? await skillTopKRescore(ctx.policy, ctx.packed, routed, ctx.oldLogp, {
                k: cfg.skillTopK,
                temperature: cfg.temperature,
                coef: cfg.lambdaSkill,
              })
            : null;
        const rescore =
          top ?? (await skillRescore(ctx.policy, ctx.packed, routed, ctx.oldLogp, { temperature: cfg.temperature }));
        const lambda = top ? 0 : cfg.lambdaSkill;
        const c = top
          ? { adv: Float32Array.from(ctx.aEpTok), aSkillUsed: top.aSkill }
          : combineAdvantages(ctx.aEpTok, rescore.aSkill, rescore.active, {
              lambda,
              zscore: cfg.skillZscore,
              clip: cfg.skillClip,
              silentScale: cfg.silentSkillScale,
            });
        const { packed } = ctx;
        const tokenTraj = new Int32Array(packed.tokens);
        packed.samples.forEach((x, i) =>
          tokenTraj.fill(packed.sampleTraj[i], packed.offsets[i], packed.offsets[i] + x.response.length),
        );
        const sm = skillMetrics(
          ctx.aEpTok,
          c.aSkillUsed,
          c.adv,
          rescore.active,
          tokenTraj,
          lambda,
          rescore.aSkill,
          cfg.silentSkillScale,
        );
        const skillByTaskType = skillMetricsByType(
          ctx.aEpTok,
          c.aSkillUsed,
          c.adv,
          rescore.active,
          tokenTraj,
          ctx.trajs.map((t) => t.taskType),
          lambda,
          rescore.aSkill,
          cfg.silentSkillScale,
        );
        return {
          adv: c.adv,
          metrics: {
            ...sm,
            ...metrics,
            ranAsGrpo: analysed > 0 && metrics.analyzerFailures === analysed,
            skillByTaskType,
          },
          cost: { tokens: rescore.tokens, sequences: rescore.prompts },
          ...(top ? { topK: top.targets, extra: { topkReverseKl: top.topkReverseKl } } : {}),
          views: {
            trajectory: (ti) => ({
              episodeSkill: analysis.skills[ti]?.episodeSkill,
              analyzerError: analysis.errors[ti],
            }),
            sample: (i) => ({ critical: routed.critical[i], stepSkill: routed.stepSkill[i] }),
            token: (m) => ({
              logpSkill: ctx.oldLogp[m] + rescore.aSkill[m],
              advSkill: c.aSkillUsed[m],
              advEp: ctx.aEpTok[m],
            }),
          },
        };
      },
    };
  },
};
