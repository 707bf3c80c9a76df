/**
 * The algorithms as plain data: names, one-line summaries, sources and the traits the outer layers read (the
 * run-config schema, the trainer's step event, the page, the worker and the CLI). A leaf module: it imports nothing,
 * so the schema (core/run/config.ts) can read it while every algorithm implementation imports the schema's types.
 * registry.ts maps each name to its implementation (which spreads its entry here); docs/architecture.md "How to add
 * an algorithm".
 */

/** Accepted algorithm names (RunConfig.algo, `--algo`, links), in the order help texts and groups list them. */
export const ALGORITHM_NAMES = ['grpo', 'opid', 'skill-grpo', 'agentic-opd'] as const;
/** One of ALGORITHM_NAMES. */
export type AlgorithmName = (typeof ALGORITHM_NAMES)[number];

/** Agentic-OPD's teacher selection rules: HCN (the paper's) and the ablations (RunConfig.teacherSelect). */
export const TEACHER_SELECTORS = ['hcn', 'fixed', 'random', 'union'] as const;
/** One of TEACHER_SELECTORS. */
export type TeacherSelector = (typeof TEACHER_SELECTORS)[number];

/**
 * The page's algorithm charts (ui/components/Charts.svelte), each over step-event fields: `teacher-share`
 * (teacherShare), `skill-active` (skillActiveTokenRatio), `sign-agreement` (skillSignAgreement), `analyzer`
 * (analyzerCalls, analyzerFailures) and `analyzer-time` (analyzerLatencyMs).
 */
export const ALGORITHM_CHARTS = [
  'teacher-share',
  'skill-active',
  'sign-agreement',
  'analyzer',
  'analyzer-time',
] as const;
/** One of ALGORITHM_CHARTS. */
export type AlgorithmChart = (typeof ALGORITHM_CHARTS)[number];

/**
 * How an algorithm uses skills: `none`; `prompt` (Skill-GRPO: a remembered episode skill is put in the rollout and
 * evaluation prompts); `hindsight` (OPID: the analyzer's hindsight skills re-score the sampled action tokens, so every
 * action token has ℓ_skill and A_skill = ℓ_skill − ℓ_old, and critical steps have a step skill).
 */
export type SkillUse = 'none' | 'prompt' | 'hindsight';

/** What an algorithm is, as plain data (the `Algorithm` of types.ts adds `create`). */
export interface AlgorithmTraits {
  /** Name used in configs, links and `--algo`. */
  readonly name: AlgorithmName;
  /** One line for help texts. */
  readonly summary: string;
  /** Paper and equation the algorithm implements. */
  readonly source: string;
  /** The outcome-advantage estimator A_ep it builds on (math/advantages.ts OUTCOME_ESTIMATORS), e.g. `grpo`. */
  readonly outcomeEstimator: string;
  /** True when it runs an analyzer (OPID, Skill-GRPO): the analyzer settings are then checked and shown. */
  readonly usesAnalyzer: boolean;
  /** Its use of skills (SkillUse): what the trajectory viewer and the explorer show. */
  readonly skills: SkillUse;
  /**
   * True when it distils from a teacher pool, the checkpoints of a source run (Agentic-OPD): the CLI needs
   * `--from-run DIR`, the page starts it from the kept checkpoints (Distil), a resume reads the source again.
   */
  readonly teacherPool: boolean;
  /**
   * The run-config fields (RunConfig keys) it reads besides the ones every algorithm reads, in schema order: the
   * CLI refuses them with another algorithm, and they are its `Options` (types.ts `Algorithm`).
   */
  readonly configFields: readonly string[];
  /**
   * The step-event fields (StepEvent keys) it fills besides the ones every algorithm fills: those of its
   * AlgorithmMetrics (zero for the others) and those it returns in `AlgorithmStep.extra`, which the step event
   * takes (core/train/step.ts) in this order.
   */
  readonly metricKeys: readonly string[];
  /** The page's charts of its metrics, in display order. */
  readonly charts: readonly AlgorithmChart[];
  /**
   * The heading of its settings in the page's panel: the run-config fields whose group is named after it (shown only
   * while it is the run's algorithm) and in `--help`. Empty when it has no settings of its own.
   */
  readonly settingsTitle: string;
}

const ANALYZER_METRICS = [
  'analyzerCalls',
  'analyzerFailures',
  'analyzerLatencyMs',
  'analyzerFailureReasons',
  'ranAsGrpo',
] as const;

/** Agentic-OPD's per-token advantage as its `source` line writes it (sg: stop-gradient; log-probs in nats). */
const AGENTIC_OPD_ADVANTAGE = 'A = opdCoef·sg(ℓ_teacher − ℓ_student) + taskCoef·A_ep';

/**
 * Every algorithm's traits by name; the literal field lists are kept (`as const`), so an implementation's `Options`
 * can be the RunConfig fields it declares.
 */
export const ALGORITHM_CATALOG = Object.freeze({
  grpo: {
    name: 'grpo',
    summary: 'group-normalised outcome advantage + PPO-clip',
    source: 'Shao et al. 2024 (DeepSeekMath), §4.1 outcome supervision',
    outcomeEstimator: 'grpo',
    usesAnalyzer: false,
    skills: 'none',
    teacherPool: false,
    configFields: [],
    metricKeys: [],
    charts: [],
    settingsTitle: '',
  },
  opid: {
    name: 'opid',
    summary:
      'GRPO plus the skill advantage: hindsight skills re-scored by the old policy (on-policy skill distillation)',
    source: 'OPID paper (2026), §3: A = A_ep + λ_skill·(ℓ_skill − ℓ_old), critical-first routing',
    outcomeEstimator: 'grpo',
    usesAnalyzer: true,
    skills: 'hindsight',
    teacherPool: false,
    configFields: [
      'ablation',
      'lambdaSkill',
      'silentSkillScale',
      'maxStepSkills',
      'failedOnly',
      'episodeSkillOnSearch',
      'skillZscore',
      'skillClip',
      'skillTopK',
      'skillVariant',
    ],
    metricKeys: [
      'teacherShare',
      'skillActiveTokenRatio',
      'skillSignAgreement',
      ...ANALYZER_METRICS,
      'skillByTaskType',
      'topkReverseKl',
    ],
    charts: ['teacher-share', 'skill-active', 'sign-agreement', 'analyzer', 'analyzer-time'],
    settingsTitle: 'Skills (OPID)',
  },
  'skill-grpo': {
    name: 'skill-grpo',
    summary: 'GRPO with a memory of extracted skills injected into rollout and evaluation prompts (no distillation)',
    source: 'OPID paper (2026), §4 (Skill-GRPO baseline)',
    outcomeEstimator: 'grpo',
    usesAnalyzer: true,
    skills: 'prompt',
    teacherPool: false,
    configFields: ['maxStepSkills', 'failedOnly', 'skillMemoryTopK'],
    metricKeys: [...ANALYZER_METRICS],
    charts: ['analyzer', 'analyzer-time'],
    settingsTitle: 'Skills (Skill-GRPO)',
  },
  'agentic-opd': {
    name: 'agentic-opd',
    summary:
      "on-policy distillation from the run's own discarded checkpoints: HCN teacher choice, LAD gate, A = " +
      'ℓ_teacher − ℓ_student',
    source: `Agentic-OPD (2026), HCN / LAD: ${AGENTIC_OPD_ADVANTAGE} on LAD-gated rollouts`,
    outcomeEstimator: 'grpo',
    usesAnalyzer: false,
    skills: 'none',
    teacherPool: true,
    configFields: ['teacherSelect', 'opdCoef', 'taskCoef', 'ladGate', 'opdTopK'],
    metricKeys: [
      'teacherShare',
      'skillActiveTokenRatio',
      'teacherId',
      'teacherScore',
      'ladShare',
      'reverseKl',
      'topkReverseKl',
      'teacherRolloutCalls',
      'gatedTokens',
      'teacherRound',
    ],
    charts: [],
    settingsTitle: 'Distillation (Agentic-OPD)',
  },
} as const satisfies Readonly<Record<AlgorithmName, AlgorithmTraits>>);

/** True when `name` is one of ALGORITHM_NAMES. */
export function isAlgorithmName(name: string): name is AlgorithmName {
  return (ALGORITHM_NAMES as readonly string[]).includes(name);
}

/**
 * The traits of algorithm `name` (own keys only).
 * @throws Error naming the known algorithms when `name` is not one of them.
 */
export function algorithmTraits(name: string): AlgorithmTraits {
  if (!isAlgorithmName(name)) throw new Error(`unknown algorithm "${name}"; known: ${ALGORITHM_NAMES.join(', ')}`);
  return ALGORITHM_CATALOG[name];
}

/**
 * The algorithm that distils from a source run's checkpoints (its `teacherPool` trait): what the page's Distil button
 * and a resume of such a run start. @throws Error when no registered algorithm has a teacher pool.
 */
export function distillationAlgorithm(): AlgorithmName {
  const a = ALGORITHM_NAMES.find((n) => ALGORITHM_CATALOG[n].teacherPool);
  if (a === undefined) throw new Error('no registered algorithm distils from a teacher pool');
  return a;
}
