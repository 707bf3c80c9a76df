/**
 * RunConfig: one schema for every setting of a run, and the one place each setting is declared.
 *
 * Each field is a zod schema (type, range, default) with its metadata attached by `.meta()` (`FieldMeta`: page label,
 * CLI flag, unit, group, help, paper symbol, recommended value). The CLI's flags and `--help`, the page's controls,
 * the plain-language error messages and the links are all derived from this schema; ranges are read through zod's
 * public `z.toJSONSchema`. Enum tuples are owned by the modules that implement them and imported here. Cross-field
 * rules are checked by `crossFieldIssues`. Adding a setting = one entry here plus the code that uses it.
 */
import { z } from 'zod';
import { LR_SCHEDULES } from '../optim/schedule';
import {
  ALGORITHM_CATALOG,
  ALGORITHM_NAMES,
  TEACHER_SELECTORS,
  algorithmTraits,
  type AlgorithmName,
} from '../algorithm-catalog';
import { AGG_MODES } from '../math/losses';
import { ADV_GROUP_BYS, ADV_NORMS } from '../math/advantages';
import { SKILL_ABLATIONS, SKILL_VARIANTS } from '../math/skill';
import { ANALYZER_KINDS } from '../analyzer/types';
import { MODEL_SIZES } from '../model/config';
import { DECODINGS } from '../rollout/runner';
import { OLD_LOGPROB_SOURCES } from '../model/scoring';
import { DEFAULT_ENV, ENV_NAMES, ENV_SPECS, getEnvSpec } from '../envs/registry';
import { INIT_SOURCES } from '../pretrain/base';
import { BACKENDS } from '../backend/names';
import { lookAlikeNote, nearestName } from '../near';
import { visibleText } from '../visible-text';

/** Bumped when a field is renamed or changes meaning; stored in links and exports (src/ui/state/link.ts migrates). */
export const SCHEMA_VERSION = 2;

export { ALGORITHM_NAMES as ALGO_NAMES, SKILL_ABLATIONS as ABLATIONS, BACKENDS, ENV_NAMES, MODEL_SIZES };

/**
 * Where a setting is shown in the page (and grouped in `--help`), in this order. A group named after an algorithm
 * holds the settings only it reads (its `configFields`, core/algorithm-catalog.ts), shown while it is the run's
 * algorithm under its `settingsTitle`.
 */
export const FIELD_GROUPS = [
  'run',
  'environment',
  'training',
  'advanced',
  ...ALGORITHM_NAMES,
  'rollouts',
  'evaluation',
  'analyzer',
  'settings',
  'internal',
] as const;
/** One of FIELD_GROUPS. `run` fields sit in the top bar, `analyzer` in the Analyzer panel, `internal` nowhere. */
export type FieldGroup = (typeof FIELD_GROUPS)[number];

/** Metadata of one setting (TRL `GRPOConfig` style: meaning, unit, default from the schema, symbol, recommendation). */
export interface FieldMeta {
  /** Label in the page. */
  label: string;
  /** CLI flag without `--`; absent = not a flag. */
  flag?: string;
  /** Unit or what the number counts, shown beside the control. */
  unit?: string;
  group: FieldGroup;
  /** Meaning in one or two sentences, including what 0 means where it is special. */
  help: string;
  /** The paper's symbol, e.g. β, ε, λ_skill. */
  symbol?: string;
  /** A recommended value and when. */
  recommended?: string;
  /** Text shown for enum options in the page (links store the option itself). */
  optionLabels?: Record<string, string>;
}

const int = (min: number, max: number) => z.number().int().min(min).max(max);
const num = (min: number, max: number) => z.number().min(min).max(max);
const tuple = (xs: readonly string[]) => xs as unknown as [string, ...string[]];

/** Every registered env with its one-line summary, e.g. `<env> (ALFWorld-like rooms …); <env2> (…)`. */
function envSummaries(): string {
  return ENV_SPECS.map((s) => `${s.name} (${s.summary})`).join('; ');
}

/** Each env's presets with their phrases, e.g. `<env>: easy (one task type, …; used when none is named)`. */
function presetsHelp(): string {
  return ENV_SPECS.map(
    (s) =>
      `${s.name}: ` +
      s.presets
        .map((p) => {
          const notes = [s.presetSummaries?.[p], p === s.defaultPreset ? 'used when none is named' : ''].filter(
            Boolean,
          );
          return `${p}${notes.length ? ` (${notes.join('; ')})` : ''}`;
        })
        .join(' or '),
  ).join('; ');
}

/**
 * The zod schema; `RunConfigSchema.parse({})` gives the shipped defaults. Its `preset` default is the default env's;
 * `parseRunConfig` and `parseRunConfigLenient` give an input that names another env and no preset that env's
 * `defaultPreset` (`withEnvPreset`).
 */
export const RunConfigSchema = z.object({
  schemaVersion: z
    .literal(SCHEMA_VERSION)
    .default(SCHEMA_VERSION)
    .meta({
      label: 'Schema version',
      group: 'internal',
      help: 'Version of the settings schema (SCHEMA_VERSION); links carry it as v.',
    } satisfies FieldMeta),
  env: z
    .enum(tuple(ENV_NAMES))
    .default(DEFAULT_ENV)
    .meta({
      label: 'Environment',
      flag: 'env',
      group: 'run',
      help: `Environment family (core/envs/registry.ts): ${envSummaries()}.`,
    } satisfies FieldMeta),
  preset: z
    .string()
    .max(40)
    .default(getEnvSpec(DEFAULT_ENV).defaultPreset)
    .meta({
      label: 'Preset',
      flag: 'preset',
      group: 'environment',
      help: `Environment preset, one of the env's presets; unset, the env's own default. ${presetsHelp()}.`,
      recommended: "the env's default to learn from scratch",
    } satisfies FieldMeta),
  algo: z
    .enum(ALGORITHM_NAMES)
    .default('grpo')
    .meta({
      label: 'Algorithm',
      flag: 'algo',
      group: 'run',
      help:
        'Training algorithm (core/algorithms/registry.ts): grpo (group advantage + PPO-clip), opid ' +
        '(GRPO + skill advantage from hindsight skills), skill-grpo (GRPO with remembered skills in ' +
        "the prompt), agentic-opd (a GRPO run's other checkpoints distilled into its best one: HCN " +
        'teacher choice, LAD gate; needs --from-run in the CLI).',
    } satisfies FieldMeta),
  model: z
    .enum(MODEL_SIZES)
    .default('nano')
    .meta({
      label: 'Model',
      flag: 'model',
      group: 'run',
      help:
        "Model size (core/model/config.ts): nano (100,464 parameters with the default env's vocabulary), " +
        "nano-deep (nano's width with 4 layers, 157,008; grown from nano weights: --init a nano file), " +
        'small (d 128, 4 layers), base (d 256, 6 layers).',
      recommended: 'nano on a CPU; small or base on a GPU',
    } satisfies FieldMeta),
  init: z
    .enum(INIT_SOURCES)
    .default('base')
    .meta({
      label: 'Start from',
      flag: 'init',
      group: 'training',
      help:
        'Starting weights: base = the shipped pretrained base policy for this env and preset; scratch ' +
        '= a fresh seeded init. The CLI also takes a .safetensors path.',
      optionLabels: { base: 'base (pretrained)', scratch: 'scratch' },
    } satisfies FieldMeta),
  seed: int(0, 2 ** 31 - 1)
    .default(1)
    .meta({
      label: 'Seed',
      flag: 'seed',
      group: 'run',
      help: 'Seed of the one generator every random draw derives from (tasks, init, sampling, mini-batch order).',
    } satisfies FieldMeta),
  steps: int(1, 100000)
    .default(120)
    .meta({
      label: 'Steps',
      flag: 'steps',
      unit: 'updates',
      group: 'training',
      help: 'Training steps (rounds of rollouts and one update).',
      recommended: '100–300 from the base on easy; 700 from scratch',
    } satisfies FieldMeta),
  tasksPerStep: int(1, 256)
    .default(8)
    .meta({
      label: 'Tasks per step (B)',
      flag: 'tasks',
      unit: 'tasks',
      group: 'training',
      symbol: 'B',
      help: 'Tasks sampled per step from the train split.',
      recommended: '8; 16 as the OPID paper',
    } satisfies FieldMeta),
  groupSize: int(1, 64)
    .default(8)
    .meta({
      label: 'Group size (G)',
      flag: 'group',
      unit: 'rollouts/task',
      group: 'training',
      symbol: 'G',
      help: 'Rollouts per task (the group). G = 1 makes every group advantage 0.',
      recommended: '8',
    } satisfies FieldMeta),
  decoding: z
    .enum(DECODINGS)
    .default('admissible')
    .meta({
      label: 'Decoding',
      flag: 'decoding',
      group: 'rollouts',
      help:
        'admissible: sampling masked token by token to prefixes of admissible actions; free: any ' +
        'token (an inadmissible action gets "Nothing happens."). Training log-probs are always of the ' +
        'distribution that sampled.',
    } satisfies FieldMeta),
  temperature: num(0.05, 5)
    .default(1.0)
    .meta({
      label: 'Temperature',
      flag: 'temperature',
      unit: 'T',
      group: 'rollouts',
      symbol: 'T',
      help:
        'Rollout sampling temperature; old, current, reference and skill log-probs are scored at the ' +
        'same T, so the PPO ratio is of the distribution that sampled.',
      recommended: '1 (on-policy)',
    } satisfies FieldMeta),
  oldLogProbs: z
    .enum(OLD_LOGPROB_SOURCES)
    .default('sampler')
    .meta({
      label: 'Old log-probs',
      flag: 'old-logprobs',
      group: 'advanced',
      help:
        "Where the old policy's log-probs come from: sampler = the sampler's own (the rollout policy " +
        "is the pre-update policy; no extra pass), rescore = one more forward pass over the step's " +
        "samples (verl's recompute; slower, identical up to ~1e-5 nats).",
      recommended: 'sampler',
    } satisfies FieldMeta),
  historyTurns: int(0, 30)
    .default(3)
    .meta({
      label: 'History (H)',
      flag: 'history',
      unit: 'past turns',
      group: 'advanced',
      symbol: 'H',
      help: 'Past turns (action + observation) the prompt keeps. 0 = task, observation and admissible actions only.',
      recommended: '3 from the base; 0 from scratch',
    } satisfies FieldMeta),
  maxActionTokens: int(2, 64)
    .default(12)
    .meta({
      label: 'Max action tokens',
      flag: 'max-action-tokens',
      unit: 'tokens',
      group: 'rollouts',
      help: 'Longest action, end token included; also L_max of the seq-mean-token-sum-norm aggregation.',
    } satisfies FieldMeta),
  learningRate: num(1e-7, 1)
    .default(1e-4)
    .meta({
      label: 'Learning rate',
      flag: 'lr',
      unit: 'Adam lr',
      group: 'training',
      help: 'Adam learning rate.',
      recommended: '1e-4 from the base policy; 5e-4 with H 0 from scratch (1e-3 made runs collapse; docs/experiments/)',
    } satisfies FieldMeta),
  lrSchedule: z
    .enum(LR_SCHEDULES)
    .default('constant')
    .meta({
      label: 'LR schedule',
      flag: 'lr-schedule',
      group: 'advanced',
      help:
        'Learning-rate schedule over the steps (core/optim/schedule.ts): constant, or linear / cosine ' +
        'decay to lr·minLrRatio at the last step (verl lr_scheduler_type).',
    } satisfies FieldMeta),
  minLrRatio: num(0, 1)
    .default(0)
    .meta({
      label: 'Final LR ratio',
      flag: 'min-lr-ratio',
      unit: '× lr',
      group: 'advanced',
      help:
        'Learning rate of the last step as a fraction of lr for linear and cosine (verl ' +
        'min_lr_ratio); constant ignores it.',
    } satisfies FieldMeta),
  clipEps: num(0, 1)
    .default(0.2)
    .meta({
      label: 'Clip (ε)',
      flag: 'clip',
      unit: 'ratio ± ε',
      group: 'advanced',
      symbol: 'ε',
      help:
        'PPO clip range: the ratio is clipped to [1−ε, 1+ε] (Schulman et al. 2017, eq. 7). 0 ' +
        'stops updates away from the old policy.',
      recommended: '0.2',
    } satisfies FieldMeta),
  dualClip: num(0, 100)
    .default(3)
    .meta({
      label: 'Dual clip (c)',
      flag: 'dual-clip',
      unit: '× |A|',
      group: 'advanced',
      symbol: 'c',
      help:
        'Dual-clip constant c > 1 bounding the loss of negative-advantage tokens by −A·c (Ye et ' +
        'al. 2020); 0 = off.',
      recommended: '3',
    } satisfies FieldMeta),
  clipEpsHigh: num(0, 1)
    .default(0)
    .meta({
      label: 'Upper clip (ε_high)',
      flag: 'clip-high',
      unit: 'ratio ≤ 1 + ε_high',
      group: 'advanced',
      symbol: 'ε_high',
      help:
        'DAPO clip-higher (Yu et al. 2025): ratio clipped to [1−ε, 1+ε_high]; 0 = same as ε. A ' +
        'larger upper range lets rare good actions gain probability faster.',
      recommended: '0.28 as DAPO, or 0',
    } satisfies FieldMeta),
  entropyCoef: num(0, 1)
    .default(0)
    .meta({
      label: 'Entropy bonus',
      flag: 'entropy-coef',
      unit: '× nats/token',
      group: 'advanced',
      help:
        'The loss subtracts this × token-mean entropy of the sampling distribution (verl ' +
        'entropy_coeff). Forced tokens have entropy 0, so only decisions get it. 0 = off.',
      recommended: '0.02 from scratch; 0 from the base',
    } satisfies FieldMeta),
  klBeta: num(0, 10)
    .default(0)
    .meta({
      label: 'KL weight (β)',
      flag: 'kl-beta',
      unit: '× nats/token',
      group: 'training',
      symbol: 'β',
      help:
        'Weight of the k3 KL to the frozen initial (reference) policy. 0 = no KL term (KL still ' +
        'reported), as DAPO.',
      recommended: '0 from scratch; 0.001–0.01 from the base to stay close to it',
    } satisfies FieldMeta),
  advNorm: z
    .enum(ADV_NORMS)
    .default('mean-std')
    .meta({
      label: 'Advantage normalisation',
      flag: 'adv-norm',
      group: 'advanced',
      help: 'mean-std: A = (S − μ)/(σ + ε) (GRPO); mean-only: A = S − μ (Dr. GRPO, Liu et al. 2025).',
      optionLabels: { 'mean-std': 'mean-std (GRPO)', 'mean-only': 'mean-only (Dr. GRPO)' },
    } satisfies FieldMeta),
  advGroupBy: z
    .enum(ADV_GROUP_BYS)
    .default('trajectory')
    .meta({
      label: 'Advantage over',
      flag: 'adv-group-by',
      group: 'advanced',
      help:
        'What μ and σ are taken over: trajectory (one score per trajectory, GRPO) or step (over the ' +
        "group's step-samples, as OPID's reference code; long trajectories weigh more).",
    } satisfies FieldMeta),
  advEps: num(0, 1)
    .default(1e-6)
    .meta({
      label: 'Advantage ε',
      flag: 'adv-eps',
      group: 'advanced',
      symbol: 'ε',
      help: 'ε in the advantage denominator σ + ε.',
    } satisfies FieldMeta),
  stepAdvWeight: num(0, 10)
    .default(0)
    .meta({
      label: 'Step advantage (ω)',
      flag: 'step-adv-weight',
      unit: '× A_step',
      group: 'advanced',
      symbol: 'ω',
      help:
        "Weight of GiGPO's step-level advantage (Feng et al. 2025): A = A_ep + ω·A_step, comparing " +
        "the discounted returns of a group's steps from the same state. 0 = off.",
      recommended: "1 from scratch (GiGPO's value)",
    } satisfies FieldMeta),
  stepAdvGamma: num(0, 1)
    .default(0.95)
    .meta({
      label: 'Step discount (γ)',
      flag: 'step-adv-gamma',
      unit: 'per step',
      group: 'advanced',
      symbol: 'γ',
      help: 'Discount of the step-level returns; used only when ω > 0.',
      recommended: '0.95 (GiGPO)',
    } satisfies FieldMeta),
  invalidPenalty: num(0, 10)
    .default(0.1)
    .meta({
      label: 'Invalid-action penalty',
      flag: 'invalid-penalty',
      unit: 'per action',
      group: 'advanced',
      help: 'Subtracted from the score S per inadmissible action. 0 = none.',
    } satisfies FieldMeta),
  lossAgg: z
    .enum(AGG_MODES)
    .default('token-mean')
    .meta({
      label: 'Loss aggregation',
      flag: 'loss-agg',
      group: 'advanced',
      help:
        'How per-token losses become one number (core/math/losses.ts aggPlan, verl loss_agg_mode): ' +
        'token-mean (every token weighs the same), seq-mean-token-mean (every step-sample weighs the ' +
        "same; GRPO's length bias), seq-mean-token-sum, seq-mean-token-sum-norm (Dr. GRPO). One " +
        'divisor for every mini-batch of a step.',
      recommended: 'token-mean',
    } satisfies FieldMeta),
  miniBatches: int(1, 64)
    .default(8)
    .meta({
      label: 'Mini-batches',
      flag: 'mini-batches',
      unit: 'per step',
      group: 'training',
      help: 'Mini-batches per step, one Adam update each (the ratio differs from 1 after the first).',
      recommended: "8 (learns faster than 4 on the default env's default preset)",
    } satisfies FieldMeta),
  ppoEpochs: int(1, 16)
    .default(1)
    .meta({
      label: 'PPO epochs',
      flag: 'ppo-epochs',
      unit: 'passes per step',
      group: 'advanced',
      help: "Passes over the step's samples.",
    } satisfies FieldMeta),
  targetKl: num(0, 10)
    .default(0)
    .meta({
      label: 'Target KL',
      flag: 'target-kl',
      unit: 'nats',
      group: 'advanced',
      help:
        "Stable-Baselines3's target_kl: a step's remaining mini-batches are skipped once one's " +
        'approximate KL(π_old ‖ π) exceeds 1.5× this (the first always applies, so it needs ≥ ' +
        '2 mini-batches or epochs). 0 = off.',
    } satisfies FieldMeta),
  maxStepKl: num(0, 10)
    .default(0)
    .meta({
      label: 'Max step KL',
      flag: 'max-step-kl',
      unit: 'nats',
      group: 'advanced',
      help:
        "After the update, the approximate KL(π_old ‖ π_new) on the step's samples is measured " +
        '(one more forward pass); above this the update is undone, weights and Adam state (TRPO-style ' +
        'rejection, core/train/rollback.ts). 0 = off.',
      recommended: '0.03 from scratch',
    } satisfies FieldMeta),
  klBacktracks: int(0, 10)
    .default(0)
    .meta({
      label: 'KL line search',
      flag: 'kl-backtracks',
      unit: 'halvings',
      group: 'advanced',
      help:
        'With max step KL: shrink a too-large update to θ_old + 0.5ᵏ·(θ_new − θ_old), k = 1 ' +
        '… this, keeping the first that meets the bound (TRPO, Schulman et al. 2015, App. C; Adam ' +
        'state kept); undo only if none does. Each try costs one scoring pass. 0 = undo at once.',
    } satisfies FieldMeta),
  adamBeta1: num(0, 0.9999)
    .default(0.9)
    .meta({
      label: 'Adam β₁',
      flag: 'adam-beta1',
      unit: 'decay',
      group: 'advanced',
      symbol: 'β₁',
      help: 'Adam first-moment decay (PyTorch betas[0]).',
      recommended: '0.9',
    } satisfies FieldMeta),
  adamBeta2: num(0, 0.99999)
    .default(0.999)
    .meta({
      label: 'Adam β₂',
      flag: 'adam-beta2',
      unit: 'decay',
      group: 'advanced',
      symbol: 'β₂',
      help:
        'Adam second-moment decay (PyTorch betas[1]). 0.95 (GPT-3, LLaMA) adapts the per-weight scale ' +
        'faster, so a sudden large gradient moves the weights less.',
      recommended: '0.999 (PyTorch) or 0.95',
    } satisfies FieldMeta),
  adamEps: num(1e-12, 1)
    .default(1e-8)
    .meta({
      label: 'Adam ε',
      flag: 'adam-eps',
      unit: 'added to √v̂',
      group: 'advanced',
      help: 'Adam ε.',
      recommended: '1e-8',
    } satisfies FieldMeta),
  maxGradNorm: num(0, 1000)
    .default(1.0)
    .meta({
      label: 'Max grad norm',
      flag: 'max-grad-norm',
      unit: 'L2',
      group: 'advanced',
      help: 'Global gradient-norm clip (L2). 0 = off.',
      recommended: '1.0',
    } satisfies FieldMeta),
  evalEvery: int(0, 100000)
    .default(20)
    .meta({
      label: 'Evaluate every',
      flag: 'eval-every',
      unit: 'steps',
      group: 'evaluation',
      help: 'Evaluate on test-seen and test-unseen every k steps, at step 0 and at the last step. 0 = never.',
    } satisfies FieldMeta),
  evalEpisodes: int(1, 2000)
    .default(40)
    .meta({
      label: 'Eval episodes',
      flag: 'eval-episodes',
      unit: 'per split',
      group: 'evaluation',
      help: 'Episodes per split at each evaluation (tasks 0..n−1 of the split).',
      recommended: '200 for a result (one standard error ≈ 3 points at 50%)',
    } satisfies FieldMeta),
  evalTemperature: num(0.05, 5)
    .default(0.4)
    .meta({
      label: 'Eval temperature',
      flag: 'eval-temperature',
      unit: 'T',
      group: 'evaluation',
      help: 'Sampling temperature of evaluation episodes.',
      recommended: '0.4',
    } satisfies FieldMeta),
  checkpointEvery: int(0, 100000)
    .default(10)
    .meta({
      label: 'Checkpoint every',
      flag: 'checkpoint-every',
      unit: 'steps',
      group: 'advanced',
      help:
        'Write a resumable checkpoint (weights, Adam state, algorithm state) every k steps and at the ' +
        'last step: train --run-dir keeps them as files, the page in memory for its Checkpoints view ' +
        "and in the browser's storage for its Runs view (Resume after a reload continues from the " +
        'latest one). 0 = none.',
    } satisfies FieldMeta),
  valTasks: int(0, 10000)
    .default(0)
    .meta({
      label: 'Validation tasks',
      flag: 'val-tasks',
      unit: 'tasks',
      group: 'advanced',
      help:
        'At every checkpoint the policy plays val tasks 0..n−1 (the train distribution at addresses ' +
        'no training step or test split uses) valSamples times each at the eval temperature; pass ' +
        'rates go to val.json (CLI, needs --run-dir) or the Checkpoints view of the page. 0 = off.',
    } satisfies FieldMeta),
  valSamples: int(1, 64)
    .default(4)
    .meta({
      label: 'Validation samples',
      flag: 'val-samples',
      unit: 'episodes per task',
      group: 'advanced',
      help: "Episodes per val task at each validation; a task's pass rate is its successes / this.",
      recommended: '4',
    } satisfies FieldMeta),
  explorerSteps: int(1, 1000)
    .default(20)
    .meta({
      label: 'Explorer steps',
      flag: 'explorer-steps',
      unit: 'steps',
      group: 'advanced',
      help:
        "The page's rollout explorer keeps every group of the last this many steps, and one group of " +
        'every 10th older step, within 64 MiB (src/worker/trajectory-store.ts). Training does not ' +
        'read it; the CLI ignores it.',
      recommended: '20',
    } satisfies FieldMeta),
  ablation: z
    .enum(SKILL_ABLATIONS)
    .default('none')
    .meta({
      label: 'Ablation',
      flag: 'ablation',
      group: 'opid',
      help: 'OPID ablation (OPID paper §4.3): none (critical-first routing), no-episode, no-step, additive routing.',
      optionLabels: {
        none: 'none (critical-first)',
        'no-episode': 'no episode skills',
        'no-step': 'no step skills',
        additive: 'additive routing',
      },
    } satisfies FieldMeta),
  lambdaSkill: num(0, 100)
    .default(0.3)
    .meta({
      label: 'Skill weight (λ_skill)',
      flag: 'lambda-skill',
      unit: '× A_skill',
      group: 'opid',
      symbol: 'λ_skill',
      help:
        'Weight of A_skill in A = A_ep + λ_skill·A_skill (with top-k skill distillation: the weight ' +
        'of its KL term). 0 = GRPO with skill metrics.',
      recommended:
        '0.3 with skill clip 1 for the nano base (λ 1 made it fall below GRPO; docs/experiments/); the ' +
        "paper's scripts use 0.001 with Qwen models",
    } satisfies FieldMeta),
  silentSkillScale: num(0, 1000)
    .default(1)
    .meta({
      label: 'Skill weight on silent groups',
      flag: 'silent-skill-scale',
      unit: '× λ_skill',
      group: 'opid',
      help:
        'λ on tokens whose A_ep is 0 (every rollout of their group got the same reward, so the ' +
        "outcome gives them no signal) is this × λ_skill. 1 = the OPID paper's one λ everywhere; " +
        'more lets the skill advantage carry the groups GRPO cannot learn from without raising its ' +
        'weight where the outcome speaks.',
      recommended: "1 (the paper); docs/experiments/ measures more (the OPID table's page)",
    } satisfies FieldMeta),
  maxStepSkills: int(0, 20)
    .default(5)
    .meta({
      label: 'Step skills (K)',
      flag: 'max-step-skills',
      unit: 'per rollout',
      group: 'opid',
      symbol: 'K',
      help: 'Most step skills (critical steps C_τ) per trajectory.',
      recommended: '5 (the OPID paper for ALFWorld and WebShop; 2 for search-QA)',
    } satisfies FieldMeta),
  failedOnly: z
    .boolean()
    .default(false)
    .meta({
      label: 'Failed rollouts only',
      flag: 'failed-only',
      group: 'opid',
      help: 'Analyse only failed trajectories.',
    } satisfies FieldMeta),
  episodeSkillOnSearch: z
    .boolean()
    .default(true)
    .meta({
      label: 'Episode skill on search steps',
      flag: 'episode-skill-on-search',
      group: 'opid',
      help:
        "Route the episode skill to search steps too (the env's EnvSpec.searchSteps, e.g. go to / open before the " +
        "task's object was in sight), where hindsight names a place the policy could not have known; off = " +
        'those steps get no skill signal unless they hold a step skill.',
    } satisfies FieldMeta),
  skillZscore: z
    .boolean()
    .default(false)
    .meta({
      label: 'Z-score A_skill',
      flag: 'skill-zscore',
      group: 'opid',
      help: "Z-score A_skill over the step's skill-active tokens before λ. Not used with top-k skill distillation.",
    } satisfies FieldMeta),
  skillClip: num(0, 100)
    .default(1)
    .meta({
      label: 'Clip A_skill',
      flag: 'skill-clip',
      unit: '± c',
      group: 'opid',
      help: 'Clip A_skill to [−c, c] after the z-score. 0 = no clip. Not used with top-k skill distillation.',
      recommended: '1 (single tokens reached −6.8 nats where the base misread a skill)',
    } satisfies FieldMeta),
  skillTopK: int(0, 64)
    .default(0)
    .meta({
      label: 'Top-k skill distillation',
      flag: 'skill-topk',
      unit: 'tokens',
      group: 'opid',
      symbol: 'K_top',
      help:
        'K ≥ 2: instead of the sampled-token A_skill, the update adds λ_skill × the token mean, ' +
        'over skill-routed action tokens, of the reverse KL from the policy to the skill-conditioned ' +
        "old policy over the policy's K most likely tokens (both renormalised over those K; " +
        "Agentic-OPD's top-k form, not in the OPID paper). Moves the probability the skill takes from " +
        'the sampled token to the tokens the skill prefers. Skill clip, z-score and the silent-group ' +
        'scale act on the sampled A_skill and are not used. Not with additive routing; 1 is refused ' +
        '(over one token both renormalised distributions are 1, the KL always 0). 0 = the OPID ' +
        "paper's sampled-token A_skill.",
      recommended: "0 (the paper); docs/experiments/ measures 16 (the OPID table's page)",
    } satisfies FieldMeta),
  skillVariant: z
    .enum(SKILL_VARIANTS)
    .default('paper')
    .meta({
      label: 'Skill advantage variant',
      flag: 'skill-variant',
      group: 'opid',
      help:
        "What A_skill is per action token. paper (the default): the OPID paper's ℓ_skill − ℓ_old. Beyond the " +
        'paper (OPID, Yang et al. 2026, Eq. for A_skill; docs/references.md): centred = ℓ_skill − ℓ_old + ' +
        'KL(π ‖ π_skill) at that position over the full vocabulary (Δℓ minus its mean under the policy; one ' +
        "more forward pass over the routed steps' rollout prompts); per-action = each token gets the mean of " +
        "ℓ_skill − ℓ_old over its action's tokens; where-ep-zero = A_skill only on tokens whose A_ep is 0 " +
        '(all-success or all-fail groups), 0 elsewhere (with top-k skill distillation: its KL term only there). ' +
        'Applied before the z-score and clip. centred and per-action change the sampled A_skill, so they are ' +
        'not used with top-k skill distillation.',
      optionLabels: {
        paper: 'paper (ℓ_skill − ℓ_old)',
        centred: 'centred under the policy (beyond the paper)',
        'per-action': 'per-action mean (beyond the paper)',
        'where-ep-zero': 'only where A_ep = 0 (beyond the paper)',
      },
      recommended: 'paper',
    } satisfies FieldMeta),
  skillMemoryTopK: int(1, 5)
    .default(1)
    .meta({
      label: 'Remembered skills',
      flag: 'skill-memory-top-k',
      unit: 'per prompt',
      group: 'skill-grpo',
      help: 'Skill-GRPO: how many remembered skills of the task type are injected, most recent first.',
    } satisfies FieldMeta),
  teacherSelect: z
    .enum(TEACHER_SELECTORS)
    .default('hcn')
    .meta({
      label: 'Teacher selection',
      flag: 'teacher-select',
      group: 'agentic-opd',
      help:
        'Agentic-OPD: hcn (Highest Coverage Next: the checkpoint covering most validation tasks the ' +
        'student fails, with weights that grow for teachers passed over), fixed (the checkpoint ' +
        'solving the most validation tasks), random, union (per task, a checkpoint that solves it: an ' +
        'upper reference; a val task gets the earliest that solves it, a training task the first, by ' +
        'val tasks of its type solved then step, whose own G rollouts of it succeed: up to one ' +
        'teacher pass-rate estimate of G episodes per teacher per failed task).',
      recommended: 'hcn',
    } satisfies FieldMeta),
  opdCoef: num(0, 100)
    .default(1)
    .meta({
      label: 'Distillation weight',
      flag: 'opd-coef',
      unit: '× A_opd',
      group: 'agentic-opd',
      symbol: 'c_opd',
      help:
        'A = c_opd·sg(ℓ_teacher − ℓ_student) + c_task·A_ep on the action tokens of LAD-gated ' +
        'rollouts (Agentic-OPD).',
      recommended: '1',
    } satisfies FieldMeta),
  taskCoef: num(0, 100)
    .default(0)
    .meta({
      label: 'Task advantage weight',
      flag: 'task-coef',
      unit: '× A_ep',
      group: 'agentic-opd',
      symbol: 'c_task',
      help: 'Weight of the GRPO advantage A_ep beside the distillation term; 0 = distillation only.',
      recommended: '0',
    } satisfies FieldMeta),
  ladGate: z
    .boolean()
    .default(true)
    .meta({
      label: 'LAD gate',
      flag: 'lad-gate',
      group: 'agentic-opd',
      help:
        'Locality-Aware Distillation: distil only failed rollouts on tasks where the teacher does ' +
        "better (its own pass rate beats the student group's); off = every rollout.",
      recommended: 'on',
    } satisfies FieldMeta),
  opdTopK: int(0, 64)
    .default(0)
    .meta({
      label: 'Top-k reverse KL',
      flag: 'opd-topk',
      unit: 'tokens',
      group: 'agentic-opd',
      symbol: 'K',
      help:
        'K > 0: instead of the sampled-token A_opd, add c_opd × the token mean of KL(p̃_student ‖ ' +
        "p̃_teacher) over the student's K most likely tokens at each action token of LAD-gated " +
        "rollouts (both renormalised over those K; the student's pre-update top K at the rollout " +
        'temperature). 0 = off (sampled-token A_opd).',
      recommended: '0 (off) or 16',
    } satisfies FieldMeta),
  analyzer: z
    .enum(ANALYZER_KINDS)
    .default('heuristic')
    .meta({
      label: 'Analyzer',
      flag: 'analyzer',
      group: 'analyzer',
      help:
        'Analyzer for OPID and Skill-GRPO: heuristic (embedded, no network), http (an ' +
        "OpenAI-compatible endpoint) or oracle. oracle is PRIVILEGED: it reads the environment's hidden " +
        "state through its expert (the expert's plan; its action where a rollout deviated), so it is the " +
        'ceiling of what skills can give, not a fair comparison with the other analyzers.',
      optionLabels: {
        heuristic: 'heuristic (embedded)',
        http: 'http (OpenAI-compatible)',
        oracle: 'oracle (privileged: the expert)',
      },
    } satisfies FieldMeta),
  analyzerUrl: z
    .string()
    .max(2000)
    .default('')
    .meta({
      label: 'Base URL',
      flag: 'analyzer-url',
      group: 'analyzer',
      help:
        'Base URL of the http analyzer, e.g. http://localhost:11434 (Ollama). The API key is never ' +
        'part of the config (CLI: OPD_ANALYZER_API_KEY).',
    } satisfies FieldMeta),
  analyzerModel: z
    .string()
    .max(200)
    .default('')
    .meta({
      label: 'Analyzer model',
      flag: 'analyzer-model',
      group: 'analyzer',
      help: 'Model name for the http analyzer, e.g. qwen2.5:7b.',
    } satisfies FieldMeta),
  analyzerTimeoutMs: int(100, 600000)
    .default(20000)
    .meta({
      label: 'Timeout',
      flag: 'analyzer-timeout-ms',
      unit: 'ms per request',
      group: 'analyzer',
      help: 'Timeout of one analyzer request.',
    } satisfies FieldMeta),
  backend: z
    .enum(BACKENDS)
    .default('auto')
    .meta({
      label: 'Backend',
      flag: 'backend',
      group: 'settings',
      help:
        'tfjs backend. The page takes auto (webgpu → webgl → wasm → cpu, the first that starts) or one of ' +
        'them; the CLI takes cpu, wasm or webgpu (default wasm). The same backend replays a run exactly.',
    } satisfies FieldMeta),
});

/** A complete, validated run configuration. */
export type RunConfig = z.infer<typeof RunConfigSchema>;
/** Field names of RunConfig. */
export type RunConfigKey = keyof RunConfig;

/** The shipped defaults. */
export const DEFAULT_CONFIG: RunConfig = RunConfigSchema.parse({});

/** A problem with one field: its name, what is wrong and how to fix it. */
export interface ConfigIssue {
  field: string;
  message: string;
}

/** Error thrown by `parseRunConfig`; `issues` names each bad field. */
export class ConfigError extends Error {
  constructor(readonly issues: ConfigIssue[]) {
    super(issues.map((i) => `${i.field}: ${i.message}`).join('; '));
    this.name = 'ConfigError';
  }
}

/** JSON Schema of every field (input side: defaults included), from zod's public `z.toJSONSchema`. */
const JSON_PROPS = (z.toJSONSchema(RunConfigSchema, { io: 'input' }) as { properties: Record<string, FieldJsonSchema> })
  .properties;

/** The JSON-Schema facts of one field the project reads. */
export interface FieldJsonSchema {
  type?: 'integer' | 'number' | 'string' | 'boolean';
  enum?: string[];
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  default?: unknown;
}

/** True when `key` is a RunConfig field (own property; `constructor`, `__proto__` … are not). */
export function isRunConfigKey(key: string): key is RunConfigKey {
  return Object.hasOwn(RunConfigSchema.shape, key);
}

/** The JSON-Schema facts of a field (type, enum, minimum, maximum, default). */
export function fieldSchema(key: RunConfigKey): FieldJsonSchema {
  return JSON_PROPS[key];
}

/** The metadata of a field (label, flag, unit, group, help, symbol, recommended). */
export function fieldMeta(key: RunConfigKey): FieldMeta {
  return RunConfigSchema.shape[key].meta() as unknown as FieldMeta;
}

/** Every field key in declaration order. */
export const RUN_CONFIG_KEYS = Object.keys(RunConfigSchema.shape) as RunConfigKey[];

/** The fields of a group, in declaration order. */
export function fieldsOfGroup(group: FieldGroup): RunConfigKey[] {
  return RUN_CONFIG_KEYS.filter((k) => fieldMeta(k).group === group);
}

/**
 * The algorithms that read a field, or undefined when every algorithm does: those whose `configFields`
 * (core/algorithm-catalog.ts) name it, and for a field of the analyzer group those whose `usesAnalyzer` is true.
 */
export function algorithmsUsing(key: RunConfigKey): readonly AlgorithmName[] | undefined {
  if (fieldMeta(key).group === 'analyzer') return ALGORITHM_NAMES.filter((a) => ALGORITHM_CATALOG[a].usesAnalyzer);
  const users = ALGORITHM_NAMES.filter((a) => (ALGORITHM_CATALOG[a].configFields as readonly string[]).includes(key));
  return users.length ? users : undefined;
}

/** Field of a CLI flag (without `--`), or undefined. */
export function fieldOfFlag(flag: string): RunConfigKey | undefined {
  return RUN_CONFIG_KEYS.find((k) => fieldMeta(k).flag === flag);
}

/** Accepted values or range of a field, in words, for error messages (e.g. "an integer in [1, 256]"). */
export function describeField(key: RunConfigKey): string {
  const j = fieldSchema(key);
  if (j.enum) return `one of ${j.enum.join(', ')}`;
  if (key === 'preset')
    return `one of the env's presets (${ENV_SPECS.map((s) => `${s.name}: ${s.presets.join(', ')}`).join('; ')})`;
  if (j.type === 'integer' || j.type === 'number')
    return `${j.type === 'integer' ? 'an integer' : 'a number'} in [${j.minimum}, ${j.maximum}]`;
  if (j.type === 'boolean') return 'true or false';
  if (j.type === 'string') return `a text of at most ${j.maxLength} characters`;
  return 'see the schema';
}

function zodIssues(err: z.ZodError): ConfigIssue[] {
  return err.issues.map((i) => {
    const field = i.path.join('.') || '(config)';
    const key = String(i.path[0]);
    const accepted = isRunConfigKey(key) ? ` (accepted: ${describeField(key)})` : '';
    return { field, message: `${i.message}${accepted}` };
  });
}

/**
 * The skillVariant rule of crossFieldIssues: `centred` and `per-action` change the sampled-token A_skill, which top-k
 * skill distillation (skillTopK > 0) does not use, so that pair is refused (for an algorithm that reads both).
 */
function skillVariantIssues(c: RunConfig): ConfigIssue[] {
  if (c.skillTopK === 0 || (c.skillVariant !== 'centred' && c.skillVariant !== 'per-action')) return [];
  if (!algorithmsUsing('skillVariant')?.includes(c.algo)) return [];
  return [
    {
      field: 'skillVariant',
      message:
        `skillVariant ${c.skillVariant} changes the sampled-token A_skill, which top-k skill distillation ` +
        `(skillTopK ${c.skillTopK}) does not use; set skillTopK to 0, or skillVariant to paper or where-ep-zero`,
    },
  ];
}

/** Cross-field rules; each message says the rule and the fix. */
export function crossFieldIssues(c: RunConfig): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  const presets = getEnvSpec(c.env).presets;
  if (!presets.includes(c.preset)) {
    const near = nearestName(c.preset, presets);
    out.push({
      field: 'preset',
      message:
        `${c.env} has no preset "${visibleText(c.preset.slice(0, 40))}"; one of ${presets.join(', ')}` +
        (near === null ? '' : `; did you mean ${near}?${lookAlikeNote(c.preset.slice(0, 40))}`),
    });
  }
  const samplesLowerBound = c.tasksPerStep * c.groupSize;
  if (c.miniBatches > samplesLowerBound)
    out.push({
      field: 'miniBatches',
      message:
        `is ${c.miniBatches}${c.miniBatches === DEFAULT_CONFIG.miniBatches ? ' (the default)' : ''}, more than ` +
        `tasksPerStep·groupSize (${samplesLowerBound}): each mini-batch needs a sample; set miniBatches to ` +
        `${samplesLowerBound} or fewer, or raise B·G`,
    });
  if (c.klBacktracks > 0 && c.maxStepKl === 0)
    out.push({
      field: 'klBacktracks',
      message:
        'the KL line search only shrinks steps that break maxStepKl, which is 0 (off); set maxStepKl ' +
        '(e.g. 0.03) or set klBacktracks to 0',
    });
  if (c.analyzer === 'heuristic' && algorithmTraits(c.algo).usesAnalyzer && !getEnvSpec(c.env).analyzer)
    out.push({
      field: 'analyzer',
      message:
        `the ${c.env} environment has no embedded heuristic analyzer; choose oracle (its expert, privileged) or ` +
        'http (an OpenAI-compatible server)',
    });
  const needsUrl = c.analyzer === 'http' && algorithmTraits(c.algo).usesAnalyzer;
  // The URL is not echoed: a user may have pasted a key into it. Checked whenever it is set, so a URL with
  // credentials never travels in a link even while the analyzer is unused.
  if ((needsUrl || c.analyzerUrl !== '') && !/^https?:\/\/[^\s@?#]+$/i.test(c.analyzerUrl))
    out.push({
      field: 'analyzerUrl',
      message:
        'the http analyzer needs an http:// or https:// base URL without credentials, query or fragment, ' +
        "e.g. http://localhost:11434 (put the API key in OPD_ANALYZER_API_KEY or the page's key field)",
    });
  if (needsUrl && !c.analyzerModel.trim())
    out.push({ field: 'analyzerModel', message: 'the http analyzer needs a model name, e.g. qwen2.5:7b' });
  if (c.valTasks > 0 && c.checkpointEvery === 0)
    out.push({
      field: 'valTasks',
      message:
        'validation runs at every checkpoint, and checkpointEvery is 0 (off); set checkpointEvery (e.g. ' +
        '10) or set valTasks to 0',
    });
  if (c.skillTopK === 1)
    out.push({
      field: 'skillTopK',
      message:
        'a top-1 reverse KL is always 0 (over one token both renormalised distributions are 1), so the ' +
        'skill would do nothing; set skillTopK to 16 (or any K ≥ 2), or to 0 for the sampled A_skill',
    });
  if (c.opdTopK === 1)
    out.push({
      field: 'opdTopK',
      message:
        'a top-1 reverse KL is always 0 (over one token both renormalised distributions are 1), so ' +
        'nothing would be distilled; set opdTopK to 16 (or any K ≥ 2), or to 0 for the sampled A_opd',
    });
  if (c.skillTopK > 0 && c.ablation === 'additive' && algorithmsUsing('skillTopK')?.includes(c.algo))
    out.push({
      field: 'skillTopK',
      message:
        'top-k skill distillation scores one skill prompt per step, and additive routing scores two at ' +
        'critical steps; set skillTopK to 0 or choose another ablation',
    });
  out.push(...skillVariantIssues(c));
  if (c.dualClip !== 0 && c.dualClip <= 1)
    out.push({ field: 'dualClip', message: 'dual-clip constant must be > 1 (or 0 to disable); recommended 3' });
  return out;
}

/**
 * A value for `field` that satisfies crossFieldIssues where its default does not, given the rest of `c`
 * (parseRunConfigLenient's second pass): miniBatches clamped to B·G; an http analyzer lacking a URL or model, or a
 * `heuristic` one on an env without an embedded analyzer, replaced by the default analyzer (the oracle where the env
 * has no embedded one); any other field reset with the whole config's defaults as a last resort.
 */
function fallbackFor(field: string, c: RunConfig): { patch: Partial<RunConfig>; used: string } {
  if (field === 'miniBatches') {
    const n = Math.min(DEFAULT_CONFIG.miniBatches, c.tasksPerStep * c.groupSize);
    return { patch: { miniBatches: n }, used: `using ${n} (the most B·G = ${c.tasksPerStep}·${c.groupSize} allows)` };
  }
  if (field === 'analyzerUrl' || field === 'analyzerModel' || field === 'analyzer') {
    // The default analyzer where the env has an embedded one, else the oracle (the one that needs no server).
    const embedded = !!getEnvSpec(c.env).analyzer;
    const analyzer = embedded ? DEFAULT_CONFIG.analyzer : 'oracle';
    return {
      patch: { analyzer, analyzerUrl: '', analyzerModel: DEFAULT_CONFIG.analyzerModel },
      used: embedded
        ? `using the ${analyzer} analyzer (the default)`
        : `using the oracle analyzer (${c.env} has no embedded one; oracle is privileged)`,
    };
  }
  return { patch: { [field]: DEFAULT_CONFIG[field as RunConfigKey] } as Partial<RunConfig>, used: 'using the default' };
}

/**
 * `partial` with its env's own defaults filled in when it names a registered env: `preset` ← the env's
 * `defaultPreset`, `maxActionTokens` ← the env's `maxActionTokens` (when it has one), each only when absent (the
 * schema's own defaults are the default env's). Anything else is returned as it is.
 */
export function withEnvPreset(partial: unknown): unknown {
  if (typeof partial !== 'object' || partial === null || Array.isArray(partial)) return partial;
  const p = partial as Record<string, unknown>;
  if (typeof p.env !== 'string' || !ENV_NAMES.includes(p.env)) return partial;
  const spec = getEnvSpec(p.env);
  const out = { ...p };
  if (out.preset === undefined) out.preset = spec.defaultPreset;
  if (out.maxActionTokens === undefined && spec.maxActionTokens !== undefined)
    out.maxActionTokens = spec.maxActionTokens;
  return out;
}

/**
 * The default of `key` for a config of env `env`: the env's `defaultPreset` for `preset`, its `maxActionTokens` (when
 * it has one) for `maxActionTokens`, else DEFAULT_CONFIG's.
 * (Links leave out a value equal to it.)
 */
export function defaultFor(key: RunConfigKey, env: string): unknown {
  if (!ENV_NAMES.includes(env)) return DEFAULT_CONFIG[key];
  const spec = getEnvSpec(env);
  if (key === 'preset') return spec.defaultPreset;
  if (key === 'maxActionTokens') return spec.maxActionTokens ?? DEFAULT_CONFIG.maxActionTokens;
  return DEFAULT_CONFIG[key];
}

/**
 * Parse and validate a partial config: missing fields take defaults (`preset`: the env's own default).
 * @throws ConfigError listing every bad field with its accepted values.
 */
export function parseRunConfig(partial: unknown): RunConfig {
  const r = RunConfigSchema.safeParse(withEnvPreset(partial ?? {}));
  if (!r.success) throw new ConfigError(zodIssues(r.error));
  const cross = crossFieldIssues(r.data);
  if (cross.length) throw new ConfigError(cross);
  return r.data;
}

/**
 * Like parseRunConfig but never throws: invalid fields are dropped (their defaults kept) and reported.
 * Used for links and imports so that the valid part of a malformed input is kept.
 */
export function parseRunConfigLenient(partial: Record<string, unknown>): { config: RunConfig; issues: ConfigIssue[] } {
  const issues: ConfigIssue[] = [];
  const kept: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(partial)) {
    if (!isRunConfigKey(k)) {
      issues.push({ field: k, message: 'unknown setting, ignored' });
      continue;
    }
    const r = (RunConfigSchema.shape[k] as z.ZodType).safeParse(v);
    if (r.success) kept[k] = r.data;
    // One issue per field: the last, the schema's own bound (zod checks the safe-integer range before the field's max).
    else
      issues.push(...zodIssues(new z.ZodError(r.error.issues.map((i) => ({ ...i, path: [k, ...i.path] })))).slice(-1));
  }
  let config = RunConfigSchema.parse(withEnvPreset(kept));
  const cross = crossFieldIssues(config);
  for (const c of cross) {
    if (!isRunConfigKey(c.field)) {
      issues.push(c);
      continue;
    }
    // Name the value used, not "the default": a preset may be literally called "default". The preset's default is
    // the env's own.
    const d = defaultFor(c.field, config.env);
    const used = d === '' ? 'left empty (the default)' : `using ${String(d)} (the default)`;
    issues.push({ ...c, message: `${c.message}; not accepted, ${used}` });
    config = { ...config, [c.field]: d } as RunConfig;
  }
  // A default can break the same rule with the other fields kept (miniBatches 8 > B·G 4; an http analyzer still
  // without a URL): fall back to a value that holds, and say so.
  for (const c of crossFieldIssues(config)) {
    const fix = fallbackFor(c.field, config);
    config = { ...config, ...fix.patch };
    const i = issues.findIndex((x) => x.field === c.field);
    if (i >= 0)
      issues[i] = {
        ...issues[i],
        message: issues[i].message.replace(/; not accepted, .*$/, `; not accepted, ${fix.used}`),
      };
    else issues.push({ ...c, message: `${c.message}; not accepted, ${fix.used}` });
  }
  return { config, issues };
}
