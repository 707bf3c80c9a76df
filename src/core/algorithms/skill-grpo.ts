/**
 * Skill-GRPO, the OPID paper's baseline (OPID, Yang et al. 2026, §4 baselines; docs/references.md#opid): GRPO with a
 * memory of skills. The episode skills the analyzer writes for successful trajectories are remembered by task type; the
 * most recent top-k are injected into rollout and evaluation prompts. No distillation: the advantage is GRPO's.
 *
 * The remembered skills are the analyzer's concrete episode skills (a successful trajectory's own plan, with its
 * arguments), not the general, task-type-level principles of the paper's skill library (SkillRL). Where a plan names
 * the task's own entities, a remembered skill is another task's solution: in search-based QA it is another question's
 * searches and answer, which a base policy taught to follow hints copies (measured in docs/experiments/).
 */
import { makeAnalyzer } from '../analyzer';
import { analyzeStep } from './analysis';
import { ALGORITHM_CATALOG } from '../algorithm-catalog';
import type { RunConfig } from '../run/config';
import { NO_INIT, type Algorithm } from './types';
import { now } from '../clock';

/**
 * Skill-GRPO's memory (OPID paper's baseline): episode skills of successful trajectories by task type, most recent
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

  /** The memory as JSON: `{"v":1,"byType":[[taskType, [skill, …most recent first]], …]}` in insertion order. */
  toJSON(): string {
    return JSON.stringify({ v: 1, byType: [...this.byType] });
  }

  /**
   * Replace the memory with one written by `toJSON` (insertion order kept; lists cut to the capacity).
   * @throws Error naming the problem when `s` is not such JSON.
   */
  load(s: string): void {
    let o: unknown;
    try {
      o = JSON.parse(s);
    } catch {
      throw new Error('skill-grpo state: not JSON; the checkpoint is corrupt');
    }
    const ok = (x: unknown): x is { v: 1; byType: [string, string[]][] } =>
      typeof x === 'object' &&
      x !== null &&
      Object.hasOwn(x, 'v') &&
      (x as { v: unknown }).v === 1 &&
      Object.hasOwn(x, 'byType') &&
      Array.isArray((x as { byType: unknown }).byType) &&
      (x as { byType: unknown[] }).byType.every(
        (e) =>
          Array.isArray(e) &&
          e.length === 2 &&
          typeof e[0] === 'string' &&
          Array.isArray(e[1]) &&
          e[1].every((k: unknown) => typeof k === 'string'),
      );
    if (!ok(o))
      throw new Error(
        'skill-grpo state: expected {"v":1,"byType":[[taskType, [skill, …]], …]}; the checkpoint is corrupt',
      );
    this.byType.clear();
    for (const [type, list] of o.byType) this.byType.set(type, list.slice(0, this.capacity));
  }

  /** Number of remembered skills per task type. */
  sizes(): Record<string, number> {
    return Object.fromEntries([...this.byType].map(([k, v]) => [k, v.length]));
  }
}

/** Skill-GRPO's settings: the RunConfig fields it declares (core/algorithm-catalog.ts). */
export type SkillGrpoOptions = Pick<RunConfig, (typeof ALGORITHM_CATALOG)['skill-grpo']['configFields'][number]>;

/** Skill-GRPO as a registered algorithm. */
export const skillGrpo: Algorithm<object, SkillGrpoOptions> = {
  ...ALGORITHM_CATALOG['skill-grpo'],
  options: (cfg) => cfg,
  readInit: NO_INIT,
  create({ cfg, env, analyzer: injected, analyzerApiKey }) {
    const analyzer = injected ?? makeAnalyzer(cfg, analyzerApiKey);
    const o = skillGrpo.options(cfg);
    const memory = new SkillMemory();
    const skillFor = (type: string) => memory.get(type, o.skillMemoryTopK);
    return {
      episodeSkill: skillFor,
      saveState: () => memory.toJSON(),
      loadState: (s) => memory.load(s),
      async advantages(ctx) {
        // The skill each episode acted with (the memory does not change during a step's rollouts).
        for (const t of ctx.trajs) t.episodeSkill = skillFor(t.taskType);
        const { analysis, metrics } = await analyzeStep(analyzer, env, ctx.trajs, ctx.groupOf, o.failedOnly, now);
        ctx.trajs.forEach(
          (t, i) =>
            t.success && analysis.skills[i]?.episodeSkill && memory.add(t.taskType, analysis.skills[i]!.episodeSkill),
        );
        return {
          adv: ctx.aEpTok,
          metrics: { teacherShare: 0, skillActiveTokenRatio: 0, skillSignAgreement: 0, ...metrics, ranAsGrpo: false },
          cost: { tokens: 0, sequences: 0 },
          views: {
            trajectory: (ti) => ({ episodeSkill: ctx.trajs[ti].episodeSkill, analyzerError: analysis.errors[ti] }),
            sample: () => undefined,
            token: () => undefined,
          },
        };
      },
    };
  },
};
