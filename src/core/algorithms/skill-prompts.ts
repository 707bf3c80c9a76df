/**
 * The skill prompts OPID scores (OPID, Yang et al. 2026, §3; docs/references.md#opid): each step's prompt rebuilt with
 * the skill(s) critical-first routing gives it (math/skill.ts `routeSkills`), paired with the action the rollout
 * sampled there. Shared by the sampled-token skill advantage (./opid.ts `skillRescore`) and its top-k form
 * (./opid-topk.ts).
 */
import type { TrajectorySkills } from '../analyzer/types';
import type { Trajectory } from '../rollout/types';
import type { PolicyHandle } from '../model/policy';
import { buildPrompt, type Turn } from '../rollout/prompt';
import type { ScoreSample } from '../model/scoring';
import { routeSkills, type SkillAblation } from '../math/skill';

/** The history turns before step t of a trajectory, as the runner built them. */
function historyBefore(t: Trajectory, step: number): Turn[] {
  const out: Turn[] = [];
  for (let k = 0; k < step; k++)
    out.push({
      action: t.steps[k].action,
      observation: k + 1 < t.steps.length ? t.steps[k + 1].observation : t.finalObservation,
    });
  return out;
}

/**
 * Rebuild step `step`'s prompt with optional skills (no skills and the rollout's episode skill → the identical
 * rollout prompt; tested). Returns token ids, at most cfg.maxSeq − maxActionTokens long.
 */
export function rebuildPrompt(
  policy: PolicyHandle,
  t: Trajectory,
  step: number,
  historyTurns: number,
  maxActionTokens: number,
  skills: { episodeSkill?: string; stepSkill?: string },
): number[] {
  const s = t.steps[step];
  return buildPrompt(
    policy.tok,
    {
      task: t.task,
      history: historyBefore(t, step),
      observation: s.observation,
      admissible: s.admissible,
      historyTurns,
      episodeSkill: skills.episodeSkill,
      stepSkill: skills.stepSkill,
    },
    policy.cfg.maxSeq - maxActionTokens,
  );
}

/** The skill prompts of one training step, in the packed sample order of its trajectories' steps. */
export interface SkillJobs {
  /** One (skill prompt, sampled action) pair per routed skill: 0, 1 or 2 per step (additive routing scores two). */
  jobs: ScoreSample[];
  /** Per job: the packed step-sample index whose action tokens it re-scores. */
  jobSample: number[];
  /** Per step-sample: in the critical set C_τ. */
  critical: boolean[];
  /** Per step-sample: the step skill used, if any. */
  stepSkill: (string | undefined)[];
}

/**
 * Route every trajectory's skills to its steps (math/skill.ts `routeSkills`) and build the prompts to score.
 * `skills[i]` belongs to `trajs[i]` (null = none); `o.searchSteps`: a trajectory's search steps, which get no episode
 * skill; absent = none. Step-samples are numbered as algorithms/outcome.ts packs them (trajectory-major, step order).
 */
export function skillJobs(
  policy: PolicyHandle,
  trajs: readonly Trajectory[],
  skills: readonly (TrajectorySkills | null)[],
  o: {
    ablation: SkillAblation;
    historyTurns: number;
    maxActionTokens: number;
    searchSteps?: (t: Trajectory) => number[];
  },
): SkillJobs {
  const jobs: ScoreSample[] = [],
    jobSample: number[] = [],
    critical: boolean[] = [],
    stepSkill: (string | undefined)[] = [];
  let sample = 0;
  trajs.forEach((t, ti) => {
    const { routes, critical: crit } = routeSkills(
      skills[ti],
      t.steps.length,
      o.ablation,
      o.searchSteps ? new Set(o.searchSteps(t)) : undefined,
    );
    t.steps.forEach((s, si) => {
      critical.push(crit[si]);
      stepSkill.push(routes[si].find((r) => r.stepSkill)?.stepSkill);
      for (const r of routes[si]) {
        jobs.push({
          prompt: rebuildPrompt(policy, t, si, o.historyTurns, o.maxActionTokens, r),
          response: s.response,
          allowed: s.allowed,
        });
        jobSample.push(sample);
      }
      sample++;
    });
  });
  return { jobs, jobSample, critical, stepSkill };
}
