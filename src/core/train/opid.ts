/**
 * OPID and Skill-GRPO pieces of a training step (issue #4; DESIGN.md §2 steps 5–7):
 * trajectories → analyzer groups (discounted returns, γ = 0.95), skill prompts rebuilt from the trajectory exactly
 * as at rollout plus the routed skill, re-scored by the pre-update (old) policy on the same sampled tokens, and
 * A_skill = (ℓ_skill − ℓ_old) per action token. Also the Skill-GRPO skill memory.
 */
import type { Analyzer, AnalyzerGroup, AnalysisResult, TrajectorySkills } from '../analyzer/types';
import { discountedReturns } from '../algos/returns';
import type { Trajectory } from '../rollout/types';
import type { PolicyHandle } from '../model/policy';
import { buildPrompt, type Turn } from '../rollout/prompt';
import { scoreSamples, type ScoreSample } from '../model/scoring';
import { routeSkills, type SkillAblation } from '../algos/skill';
import type { PackedSamples } from './step';

/** Analyzer input for one group: the trajectories with per-step discounted returns. */
export function toAnalyzerGroup(env: string, trajs: readonly Trajectory[]): AnalyzerGroup {
  return {
    env,
    trajectories: trajs.map((t) => {
      const G = discountedReturns(t.steps.map((s) => s.reward));
      return {
        task: t.task, success: t.success, finalObservation: t.finalObservation,
        steps: t.steps.map((s, i) => ({ observation: s.observation, action: s.action, valid: s.valid, return: G[i] })),
      };
    }),
  };
}

/** Per-trajectory analysis of a batch: skills (or null) and the failure reason for nulls, if known. */
export interface BatchAnalysis {
  skills: (TrajectorySkills | null)[];
  errors: (string | undefined)[];
}

/**
 * Analyse each group (trajectories with the same `groupOf` value, in order). An analyzer that throws fails its
 * whole group (every trajectory null, reason = the error message) — the run goes on.
 */
export async function analyzeBatch(analyzer: Analyzer, env: string, trajs: readonly Trajectory[], groupOf: readonly number[]): Promise<BatchAnalysis> {
  const groups = new Map<number, number[]>();
  groupOf.forEach((g, i) => groups.set(g, [...(groups.get(g) ?? []), i]));
  const skills: (TrajectorySkills | null)[] = trajs.map(() => null);
  const errors: (string | undefined)[] = trajs.map(() => undefined);
  await Promise.all(
    [...groups.values()].map(async (idx) => {
      let r: AnalysisResult;
      try {
        r = await analyzer.analyze(toAnalyzerGroup(env, idx.map((i) => trajs[i])));
      } catch (e) {
        idx.forEach((i) => (errors[i] = `analyzer failed: ${(e as Error).message}`));
        return;
      }
      idx.forEach((i, k) => (skills[i] = r[k] ?? null));
    }),
  );
  return { skills, errors };
}

/** The history turns before step t of a trajectory, as the runner built them. */
function historyBefore(t: Trajectory, step: number): Turn[] {
  const out: Turn[] = [];
  for (let k = 0; k < step; k++) out.push({ action: t.steps[k].action, observation: k + 1 < t.steps.length ? t.steps[k + 1].observation : t.finalObservation });
  return out;
}

/**
 * Rebuild step `step`'s prompt with optional skills (no skills and the rollout's episode skill → the identical
 * rollout prompt; tested).
 */
export function rebuildPrompt(policy: PolicyHandle, t: Trajectory, step: number, historyTurns: number, maxActionTokens: number, skills: { episodeSkill?: string; stepSkill?: string }): number[] {
  const s = t.steps[step];
  return buildPrompt(policy.tok, {
    task: t.task, history: historyBefore(t, step), observation: s.observation, admissible: s.admissible, historyTurns,
    episodeSkill: skills.episodeSkill, stepSkill: skills.stepSkill,
  }, policy.cfg.maxSeq - maxActionTokens);
}

/** Result of `skillRescore`: packed per-token vectors [M] and bookkeeping. */
export interface SkillRescore {
  /** A_skill = Σ_routes (ℓ_skill − ℓ_old) per action token (0 where no skill). */
  aSkill: Float32Array;
  /** ℓ_old + A_skill: the skill-conditioned log-prob (nats) for display. */
  logpSkill: Float32Array;
  /** 1 where a skill was routed to the token. */
  active: Uint8Array;
  /** Per step-sample: in the critical set C_τ. */
  critical: boolean[];
  /** Per step-sample: the step skill used, if any. */
  stepSkill: (string | undefined)[];
  /** Tokens through the model (prompt + response of every skill prompt scored). */
  tokens: number;
  /** Skill prompts scored. */
  prompts: number;
}

/**
 * Re-score every step's sampled action tokens under its routed skill prompt(s) with `policy` (must be the
 * pre-update policy) — no resampling. `oldLogp` [M] are the same tokens' log-probs without skills.
 */
export async function skillRescore(
  policy: PolicyHandle, trajs: readonly Trajectory[], packed: PackedSamples, skills: readonly (TrajectorySkills | null)[], oldLogp: Float32Array,
  o: { ablation: SkillAblation; historyTurns: number; maxActionTokens: number },
): Promise<SkillRescore> {
  const M = packed.tokens;
  const aSkill = new Float32Array(M), active = new Uint8Array(M);
  const critical: boolean[] = [], stepSkill: (string | undefined)[] = [];
  const jobs: ScoreSample[] = [], jobSample: number[] = [];
  let sample = 0;
  trajs.forEach((t, ti) => {
    const { routes, critical: crit } = routeSkills(skills[ti], t.steps.length, o.ablation);
    t.steps.forEach((s, si) => {
      critical.push(crit[si]);
      stepSkill.push(routes[si].find((r) => r.stepSkill)?.stepSkill);
      for (const r of routes[si]) {
        jobs.push({ prompt: rebuildPrompt(policy, t, si, o.historyTurns, o.maxActionTokens, r), response: s.response, allowed: s.allowed });
        jobSample.push(sample);
      }
      sample++;
    });
  });
  const scored = jobs.length ? await scoreSamples(policy.params, policy.cfg, jobs, policy.freeRow) : { logp: new Float32Array(0), tokens: 0 };
  let off = 0;
  jobs.forEach((j, k) => {
    const base = packed.offsets[jobSample[k]];
    for (let i = 0; i < j.response.length; i++) {
      aSkill[base + i] += scored.logp[off + i] - oldLogp[base + i];
      active[base + i] = 1;
    }
    off += j.response.length;
  });
  const logpSkill = new Float32Array(M);
  for (let i = 0; i < M; i++) logpSkill[i] = oldLogp[i] + aSkill[i];
  const tokens = jobs.reduce((s, j) => s + j.prompt.length + j.response.length, 0);
  return { aSkill, logpSkill, active, critical, stepSkill, tokens, prompts: jobs.length };
}

/**
 * Skill-GRPO's memory (issue #4 baseline): episode skills of successful trajectories by task type, most recent
 * first, deduplicated; `get` joins the top k.
 */
export class SkillMemory {
  private readonly byType = new Map<string, string[]>();

  /** @param capacity max skills kept per task type (oldest dropped). */
  constructor(private readonly capacity = 16) {}

  /** Remember a skill for a task type (moved to the front if already known). */
  add(taskType: string, skill: string): void {
    const list = (this.byType.get(taskType) ?? []).filter((s) => s !== skill);
    list.unshift(skill);
    this.byType.set(taskType, list.slice(0, this.capacity));
  }

  /** The top-k skills for a task type joined by a space, or undefined if none is known. */
  get(taskType: string, k: number): string | undefined {
    const list = this.byType.get(taskType);
    return list?.length ? list.slice(0, k).join(' ') : undefined;
  }

  /** Number of remembered skills per task type. */
  sizes(): Record<string, number> {
    return Object.fromEntries([...this.byType].map(([k, v]) => [k, v.length]));
  }
}
