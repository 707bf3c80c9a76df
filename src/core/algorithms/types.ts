/**
 * The interface every training algorithm implements (GRPO, OPID, Skill-GRPO, Agentic-OPD; registry.ts looks them up
 * by name, core/algorithm-catalog.ts holds their traits as plain data).
 *
 * The trainer (core/train/trainer.ts) owns everything algorithms share: sampling B tasks × G rollouts, the
 * outcome advantage A_ep with the optional GiGPO step term (outcome.ts), old/reference re-scoring, the PPO-clip update
 * and the events. An algorithm adds two things: what goes into the rollout and evaluation prompts (an episode skill),
 * and how the step's scored trajectories become per-token advantages (with its own metrics and display fields).
 * See docs/architecture.md "How to add an algorithm".
 */
import type { Analyzer } from '../analyzer/types';
import type { TaskTypeSkillMetrics } from '../math/skill';
import type { PolicyHandle } from '../model/policy';
import type { RunConfig } from '../run/config';
import type { Trajectory } from '../rollout/types';
import type { PackedSamples } from './outcome';
import type { TopKTargets } from '../model/topk';
import type { AlgorithmTraits } from '../algorithm-catalog';

/** What every algorithm is built from at the start of a run (the trainer's part). */
export interface AlgorithmBase {
  /** The validated run config. */
  cfg: RunConfig;
  /** Environment name (analyzer groups carry it). */
  env: string;
  /** An injected analyzer (tests); default: built from the config by core/analyzer `makeAnalyzer`. */
  analyzer?: Analyzer;
  /** API key of the http analyzer; never stored. */
  analyzerApiKey?: string;
}

/**
 * What an algorithm's `create` gets: the base and its own inputs `Init` besides the config (Agentic-OPD: its teacher
 * pool and the student's solved set; `{}` for the others).
 */
export type AlgorithmInit<Init extends object = object> = AlgorithmBase & Init;

/**
 * What reaches an algorithm besides the config from the CLI or the worker (TrainOptions.algorithmInit): plain
 * named values that the algorithm's `readInit` checks and types.
 */
export type AlgorithmExtras = Readonly<Record<string, unknown>>;

/** Everything one step's advantage computation may read. Vectors are float32 [M], packed sample-major (outcome.ts). */
export interface StepContext {
  /** The pre-update (old) policy; OPID re-scores with it. */
  policy: PolicyHandle;
  /** The step's B·G trajectories, task-major (trajectory i belongs to group groupOf[i]). */
  trajs: Trajectory[];
  groupOf: readonly number[];
  packed: PackedSamples;
  /** A_ep per trajectory (GRPO group advantage, Shao et al. 2024). */
  aEpTraj: readonly number[];
  /** A_ep per action token, with ω·A_step added when GiGPO is on [M]. */
  aEpTok: Float32Array;
  /** Old-policy log-probs of the sampled action tokens (nats) [M]. */
  oldLogp: Float32Array;
}

/** Per-step metrics an algorithm reports (StepEvent fields; 0 / {} for algorithms without skills). */
export interface AlgorithmMetrics {
  /** mean |λ·A_skill| / mean |A| over action tokens. */
  teacherShare: number;
  /** Fraction of action tokens with a skill routed to them. */
  skillActiveTokenRatio: number;
  /** Fraction of analysed trajectories whose mean A_skill has the sign of A_ep. */
  skillSignAgreement: number;
  /** Analyzer requests this step (heuristic: trajectories analysed). */
  analyzerCalls: number;
  /** Trajectories whose analysis failed this step. */
  analyzerFailures: number;
  /** Wall time spent waiting for the analyzer (ms). */
  analyzerLatencyMs: number;
  /** Failure reasons in words, with counts. */
  analyzerFailureReasons: Record<string, number>;
  /** True when the algorithm wanted a skill signal this step but every analysis failed (OPID ran as GRPO). */
  ranAsGrpo: boolean;
  /**
   * OPID: teacher share, skill-active tokens and sign agreement per task type (math/skill.ts `skillMetricsByType`).
   */
  skillByTaskType?: Record<string, TaskTypeSkillMetrics>;
}

/** Display fields an algorithm adds to the trajectory viewer (all optional). */
export interface AlgorithmViews {
  /** Per trajectory: its episode skill and, if its analysis failed, why. */
  trajectory(ti: number): { episodeSkill?: string; analyzerError?: string } | undefined;
  /** Per step-sample: in the critical set C_τ, and its step skill. */
  sample(i: number): { critical?: boolean; stepSkill?: string } | undefined;
  /** Per action token m: the skill-conditioned log-prob (nats) and the A_skill used. */
  token(m: number): { logpSkill?: number; advSkill?: number } | undefined;
}

/** What `advantages` returns. */
export interface AlgorithmStep {
  /** Per-token advantage A the update uses, float32 [M]. */
  adv: Float32Array;
  metrics: AlgorithmMetrics;
  /** Extra forward passes the algorithm ran (OPID's skill re-scoring): tokens and sequences. */
  cost: { tokens: number; sequences: number };
  views?: AlgorithmViews;
  /**
   * Algorithm-specific numbers for the step event (Agentic-OPD: teacherId, teacherScore, ladShare, reverseKl …): the
   * step event takes the fields named in the algorithm's `metricKeys` whose value is a number or null.
   */
  extra?: object;
  /**
   * A loss term the update adds besides PPO-clip on A: Agentic-OPD's top-k reverse KL (train/update.ts
   * UpdateInputs.topK).
   */
  topK?: TopKTargets;
}

/** One run's instance of an algorithm (it may keep state across steps, e.g. Skill-GRPO's memory). */
export interface AlgorithmRun {
  /** Episode skill injected into rollout and evaluation prompts for a task type (Skill-GRPO), if any. */
  episodeSkill?(taskType: string): string | undefined;
  /**
   * Turn the step's scored trajectories into per-token advantages. Must not throw for analyzer failures (they are
   * counted in the metrics; the step goes on).
   */
  advantages(ctx: StepContext): Promise<AlgorithmStep>;
  /**
   * The state this instance keeps across steps (Skill-GRPO's memory), as a string for a resumable checkpoint
   * (core/train/checkpoint.ts). Absent for stateless algorithms (GRPO, OPID).
   */
  saveState?(): string;
  /**
   * Replace the state with one written by `saveState` of the same algorithm, so that training resumed from a
   * checkpoint continues exactly as the uninterrupted run. @throws Error naming the problem on a malformed string.
   */
  loadState?(s: string): void;
  /**
   * Called after each validation of the policy being trained (run records with val tasks) with the validation tasks
   * it solved (pass rate ≥ 0.5): Agentic-OPD chooses its teacher again. Absent for algorithms that do not care.
   */
  onValidation?(solved: ReadonlySet<number>): void;
}

/**
 * An algorithm: its traits (core/algorithm-catalog.ts: name, summary, source, analyzer, skills, teacher pool, config
 * fields, metric keys, charts) and how a run of it is made. Generic over its own inputs `Init` (what `create` needs
 * besides the base) and its settings `Options` (the run-config fields it declares, `configFields`, read by `options`),
 * so each reads a narrow typed view. registry.ts erases the generics into a `RegisteredAlgorithm`.
 */
export interface Algorithm<Init extends object = object, Options extends object = object> extends AlgorithmTraits {
  /**
   * Its settings from the validated config (a view of its `configFields`, defaults and checks applied).
   * @throws Error naming the setting when a value cannot run it.
   */
  options(cfg: RunConfig): Options;
  /**
   * Its inputs besides the config, checked and typed, from the plain values the CLI or the worker passes
   * (AlgorithmExtras; undefined = none were passed).
   * @throws Error saying what is missing or malformed and where it comes from (e.g. `--from-run`).
   */
  readInit(extra: AlgorithmExtras | undefined): Init;
  /** Build the per-run instance. @throws Error when the config cannot run it (e.g. an http analyzer without a URL). */
  create(init: AlgorithmInit<Init>): AlgorithmRun;
}

/** `readInit` of an algorithm that needs nothing besides the config. */
export const NO_INIT = (): Record<never, never> => ({});

/** Metrics of an algorithm without skills. */
export const NO_SKILL_METRICS: Readonly<AlgorithmMetrics> = Object.freeze({
  teacherShare: 0,
  skillActiveTokenRatio: 0,
  skillSignAgreement: 0,
  analyzerCalls: 0,
  analyzerFailures: 0,
  analyzerLatencyMs: 0,
  analyzerFailureReasons: {},
  ranAsGrpo: false,
});
