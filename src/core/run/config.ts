/**
 * RunConfig: one schema for every setting of a run (DESIGN.md §3 "Run config and links"; issue #2).
 *
 * The schema (zod) is the single source of truth for defaults, ranges and accepted names; the CLI flags, the
 * page's controls and the URL hash all read it. Each field documents type, default, meaning, what 0 means,
 * the paper symbol and a recommended value (TRL style). Cross-field rules are checked by `validateRunConfig`.
 */
import { z } from 'zod';
import { LR_SCHEDULES } from '../optim/schedule';

/** Bumped whenever a field is renamed or its meaning changes; stored in links and exports. */
export const SCHEMA_VERSION = 1;

/** Environment names known to the config (the env registry must agree). */
export const ENV_NAMES = ['household'] as const;
/** Algorithm names (registered in core/algos). */
export const ALGO_NAMES = ['grpo', 'opid', 'skill-grpo'] as const;
/** OPID ablations (issue #4): none, no episode skills, no step skills, additive routing. */
export const ABLATIONS = ['none', 'no-episode', 'no-step', 'additive'] as const;
/** Model sizes (core/model/config.ts). */
export const MODEL_SIZES = ['nano', 'small', 'base'] as const;
/** Backends; `auto` means webgpu → webgl → wasm → cpu in the page, wasm in Node. */
export const BACKENDS = ['auto', 'webgpu', 'webgl', 'wasm', 'cpu'] as const;

const int = (min: number, max: number) => z.number().int().min(min).max(max);
const num = (min: number, max: number) => z.number().min(min).max(max);

/** The zod schema; `RunConfigSchema.parse({})` gives the shipped defaults. */
export const RunConfigSchema = z.object({
  /** Schema version of the settings (this file's SCHEMA_VERSION). */
  schemaVersion: z.literal(SCHEMA_VERSION).default(SCHEMA_VERSION),
  /** Environment family. Default `household`. */
  env: z.enum(ENV_NAMES).default('household'),
  /** Environment preset (`easy`: one task type, few receptacles, quick to learn from scratch; `default`: all six types). */
  preset: z.enum(['easy', 'default']).default('easy'),
  /**
   * Training algorithm. `grpo`: group-normalised outcome advantage + PPO-clip (DESIGN.md §2). `opid`: GRPO plus the
   * skill advantage A_skill from hindsight skills re-scored by the old policy (issue #4). `skill-grpo`: GRPO with a
   * memory of extracted skills injected into rollout and evaluation prompts, no distillation (issue #4 baseline).
   */
  algo: z.enum(ALGO_NAMES).default('grpo'),
  /** Model size: `nano` (tests, fast), `small` (default in the page), `base` (real GPUs). */
  model: z.enum(MODEL_SIZES).default('nano'),
  /**
   * Starting weights (issue #3): `base` = the shipped pretrained base policy for this env/preset (the default; the
   * caller loads it and passes the bytes to `train`), `scratch` = a fresh seeded init.
   */
  init: z.enum(['base', 'scratch']).default('base'),
  /** Seed of the one generator every random draw derives from (tasks, init, sampling, mini-batch order). */
  seed: int(0, 2 ** 31 - 1).default(1),
  /** Number of training steps (policy updates rounds). Recommended 100–300 on `easy`. */
  steps: int(1, 100000).default(120),
  /** B: tasks sampled per step from the train split. */
  tasksPerStep: int(1, 256).default(8),
  /** G: rollouts per task (the group). G=1 makes every advantage 0 under mean-std (singleton group). */
  groupSize: int(1, 64).default(8),
  /**
   * Decoding mode. `admissible`: sampling masked token by token to prefixes of admissible actions (a policy
   * trained from scratch can act at all). `free`: any token; an inadmissible action gets `Nothing happens.`.
   * Training log-probs (old, current, reference) are always those of the distribution that sampled.
   */
  decoding: z.enum(['admissible', 'free']).default('admissible'),
  /** Rollout temperature (1.0 = on-policy). */
  temperature: num(0.05, 5).default(1.0),
  /** H: how many past turns (action + observation) the prompt keeps. 0 = none. */
  historyTurns: int(0, 30).default(3),
  /** Max tokens of one action (including the end token). */
  maxActionTokens: int(2, 64).default(12),
  /**
   * Adam learning rate. Default 1e-4, for fine-tuning the pretrained base policy (the default start): from the base,
   * 1e-3 dropped eval success from 72.5% to 35% in 40 GRPO steps and made OPID collapse within 8, while 1e-4 rose to
   * 87.5% by step 20. From scratch (nano, household/easy) 5e-4 with historyTurns 0 went furthest: 81% test-seen by
   * step 350 in seed 1, while seed 2 stayed near 50% through step 500; 1e-3 made some runs collapse to 0% (README, session 5).
   */
  learningRate: num(1e-7, 1).default(1e-4),
  /**
   * Learning-rate schedule over the steps (core/train/schedule.ts): `constant` (default), `linear` or `cosine` decay
   * from learningRate at step 1 to learningRate·minLrRatio at the last step (verl's lr_scheduler_type, TRL's linear).
   */
  lrSchedule: z.enum(LR_SCHEDULES).default('constant'),
  /** Final learning rate as a fraction of learningRate for the `linear` and `cosine` schedules (verl's min_lr_ratio). */
  minLrRatio: num(0, 1).default(0),
  /** PPO clip range ε (ratio clipped to [1−ε, 1+ε]). 0 disables updates away from the old policy. */
  clipEps: num(0, 1).default(0.2),
  /** Dual-clip constant c > 1 for negative advantages (Ye et al. 2020); 0 disables dual-clip. */
  dualClip: num(0, 100).default(3),
  /**
   * Upper clip range ε_high (DAPO "clip-higher": ratio clipped to [1−ε, 1+ε_high]); 0 = same as clipEps. A larger
   * upper range lets rare good actions gain probability faster and keeps the policy's entropy from collapsing.
   */
  clipEpsHigh: num(0, 1).default(0),
  /**
   * Entropy bonus coefficient c: the loss subtracts c·(token-mean entropy of the sampling distribution, nats), as
   * verl's `entropy_coeff`. Forced tokens (one allowed continuation) have entropy 0, so only decisions get the bonus.
   */
  entropyCoef: num(0, 1).default(0),
  /**
   * β: weight of the k3 KL to the frozen initial (reference) policy. 0 = no KL term (KL still reported).
   * Default 0: from scratch the reference is a random policy, and pulling towards it only slows learning (as
   * DAPO drops the term). From a pretrained base policy 0.001–0.01 keeps it close to what it knew.
   */
  klBeta: num(0, 10).default(0),
  /** Advantage normalisation: `mean-std` (A=(S−μ)/(σ+ε), GRPO) or `mean-only` (A=S−μ, Dr. GRPO). */
  advNorm: z.enum(['mean-std', 'mean-only']).default('mean-std'),
  /**
   * Over what μ, σ are taken: `trajectory` (default; one score per trajectory, as in GRPO) or `step`
   * (over the group's step-samples, as OPID's reference code; long trajectories weigh more).
   */
  advGroupBy: z.enum(['trajectory', 'step']).default('trajectory'),
  /** ε in the advantage denominator σ+ε. */
  advEps: num(0, 1).default(1e-6),
  /**
   * ω: weight of GiGPO's step-level advantage (Feng et al. 2025; core/algos/advantages.ts `stepGroupAdvantages`):
   * A = A_ep + ω·A_step, where A_step compares the discounted returns of the group's steps taken from the same
   * anchor state (same observation and admissible actions). 0 = off (plain GRPO outcome advantage); GiGPO uses 1.
   */
  stepAdvWeight: num(0, 10).default(0),
  /** γ of the step-level returns (GiGPO uses 0.95). */
  stepAdvGamma: num(0, 1).default(0.95),
  /** Penalty subtracted from the score S per invalid (inadmissible) action. 0 = none. */
  invalidPenalty: num(0, 10).default(0.1),
  /**
   * Loss aggregation over action tokens (core/algos/losses.ts aggLoss): `token-mean` (every token weighs the same;
   * long failed trajectories weigh more — DAPO) or `seq-mean-token-mean` (every step-sample weighs the same).
   * Either way the divisor is the same for every mini-batch of a step.
   */
  lossAgg: z.enum(['token-mean', 'seq-mean-token-mean']).default('token-mean'),
  /** Mini-batches per step (one Adam update each; ratio ≠ 1 after the first). Measured on household/easy from scratch: 8 learns faster than 4. */
  miniBatches: int(1, 64).default(8),
  /** Passes over the step's samples (PPO epochs). */
  ppoEpochs: int(1, 16).default(1),
  /**
   * Target KL (nats), as Stable-Baselines3's PPO `target_kl`: a step's update stops early once a mini-batch's
   * approximate KL(π_old ‖ π) exceeds 1.5× this (core/train/update.ts). 0 = off (default). Guards against one
   * step moving the policy far, e.g. the sudden from-scratch collapses measured in issue #2 (README).
   */
  targetKl: num(0, 10).default(0),
  /**
   * Largest accepted step (nats): after the update, the approximate KL(π_old ‖ π_new) on the step's own samples is
   * measured (one more forward pass); above this the update is undone — weights and Adam state restored — as TRPO
   * rejects a step that breaks its KL bound (core/train/rollback.ts). 0 = off (default, no extra pass).
   */
  maxStepKl: num(0, 10).default(0),
  /**
   * Backtracking line search for `maxStepKl` (TRPO, Schulman et al. 2015, App. C): when the update breaks the bound,
   * the weights are set to θ_old + 0.5ᵏ·(θ_new − θ_old) for k = 1 … this, keeping the first that meets the bound; the
   * Adam state stays as the update left it (its second moment has seen the large gradients, so the next step is scaled
   * down). Only when no shrunk step meets the bound is the update undone (weights and Adam state restored). Each try
   * costs one scoring pass over the step's samples. 0 = undo at once (default).
   */
  klBacktracks: int(0, 10).default(0),
  /** Adam β₁ (first-moment decay), as verl's / PyTorch's `betas[0]`. */
  adamBeta1: num(0, 0.9999).default(0.9),
  /**
   * Adam β₂ (second-moment decay), as `betas[1]`. 0.999 is PyTorch's default; 0.95 (GPT-3, LLaMA) adapts the
   * per-weight scale faster, so a gradient much larger than the recent ones moves the weights less (issue #2 README).
   */
  adamBeta2: num(0, 0.99999).default(0.999),
  /** Adam ε (added to √v̂). */
  adamEps: num(1e-12, 1).default(1e-8),
  /** Global grad-norm clip (L2). 0 disables. */
  maxGradNorm: num(0, 1000).default(1.0),
  /** Evaluate every k steps (and at step 0 and the last step). 0 = never. */
  evalEvery: int(0, 100000).default(20),
  /** Episodes per split at each evaluation (test-seen and test-unseen). */
  evalEpisodes: int(1, 2000).default(40),
  /** Evaluation sampling temperature. */
  evalTemperature: num(0.05, 5).default(0.4),
  /** OPID ablation: `none` (critical-first routing, default), `no-episode`, `no-step`, `additive` routing. */
  ablation: z.enum(ABLATIONS).default('none'),
  /**
   * λ_skill: weight of A_skill in A = A_ep + λ·A_skill. The reference scripts use 0.001 with Qwen models; chosen for
   * our tiny base policy by measurement: from the shipped base, λ = 1 (teacher share 10–25%) made OPID fall below
   * GRPO within 20–30 steps (train success 61% → 33%); λ = 0.3 with A_skill clipped to ±1 stays stable (see README).
   */
  lambdaSkill: num(0, 100).default(0.3),
  /** K: max step skills per trajectory (household 5). */
  maxStepSkills: int(0, 20).default(5),
  /** OPID `failedOnly`: analyse only failed trajectories. */
  failedOnly: z.boolean().default(false),
  /** Z-score A_skill over the batch's skill-active tokens before λ. */
  skillZscore: z.boolean().default(false),
  /**
   * Clip A_skill to [−c, c] (after the z-score). 0 = no clip. Default 1: single tokens reached A_skill = −6.8 nats
   * where the tiny base misread a step skill, outweighing A_ep (|A_ep| ≲ 2.5).
   */
  skillClip: num(0, 100).default(1),
  /** Skill-GRPO: how many remembered skills of the task type are injected (most recent first). */
  skillMemoryTopK: int(1, 5).default(1),
  /** Analyzer for OPID / Skill-GRPO: `heuristic` (embedded, no network) or `http` (OpenAI-compatible endpoint). */
  analyzer: z.enum(['heuristic', 'http']).default('heuristic'),
  /** Base URL of the http analyzer, e.g. http://localhost:11434 (Ollama). The API key is never part of the config. */
  analyzerUrl: z.string().max(2000).default(''),
  /** Model name for the http analyzer. */
  analyzerModel: z.string().max(200).default(''),
  /** Timeout of one analyzer request (ms). */
  analyzerTimeoutMs: int(100, 600000).default(20000),
  /** Backend preference; not part of the reproducibility contract except that the same backend replays exactly. */
  backend: z.enum(BACKENDS).default('auto'),
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

/** Accepted values or range of a field, in words, for error messages. */
export function describeField(key: RunConfigKey): string {
  const def = (RunConfigSchema.shape[key] as unknown as { def: { innerType?: unknown } }).def;
  const inner = (def.innerType ?? RunConfigSchema.shape[key]) as z.ZodType;
  if (inner instanceof z.ZodEnum) return `one of ${(inner.options as string[]).join(', ')}`;
  if (inner instanceof z.ZodNumber) {
    const lo = inner.minValue, hi = inner.maxValue;
    return `${inner.isInt ? 'an integer' : 'a number'} in [${lo}, ${hi}]`;
  }
  return 'see the schema';
}

function zodIssues(err: z.ZodError): ConfigIssue[] {
  return err.issues.map((i) => {
    const field = i.path.join('.') || '(config)';
    const key = i.path[0] as RunConfigKey;
    const accepted = key in RunConfigSchema.shape ? ` (accepted: ${describeField(key)})` : '';
    return { field, message: `${i.message}${accepted}` };
  });
}

/** Cross-field rules; each message says the rule and the fix. */
export function crossFieldIssues(c: RunConfig): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  const samplesLowerBound = c.tasksPerStep * c.groupSize;
  if (c.miniBatches > samplesLowerBound)
    out.push({ field: 'miniBatches', message: `must be ≤ tasksPerStep·groupSize (${samplesLowerBound}); lower miniBatches or raise B·G` });
  if (c.klBacktracks > 0 && c.maxStepKl === 0)
    out.push({ field: 'klBacktracks', message: 'the KL line search only shrinks steps that break maxStepKl, which is 0 (off); set maxStepKl (e.g. 0.03) or set klBacktracks to 0' });
  if (c.analyzer === 'http' && (c.algo === 'opid' || c.algo === 'skill-grpo')) {
    // The URL is not echoed: a user may have pasted a key into it.
    if (!/^https?:\/\/[^\s@?#]+$/i.test(c.analyzerUrl))
      out.push({ field: 'analyzerUrl', message: 'the http analyzer needs an http:// or https:// base URL without credentials, query or fragment, e.g. http://localhost:11434 (put the API key in OPD_ANALYZER_API_KEY or the page\'s key field)' });
    if (!c.analyzerModel.trim()) out.push({ field: 'analyzerModel', message: 'the http analyzer needs a model name, e.g. qwen2.5:7b' });
  }
  if (c.dualClip !== 0 && c.dualClip <= 1)
    out.push({ field: 'dualClip', message: 'dual-clip constant must be > 1 (or 0 to disable); recommended 3' });
  return out;
}

/**
 * Parse and validate a partial config: missing fields take defaults.
 * @throws ConfigError listing every bad field with its accepted values.
 */
export function parseRunConfig(partial: unknown): RunConfig {
  const r = RunConfigSchema.safeParse(partial ?? {});
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
    if (!(k in RunConfigSchema.shape)) {
      issues.push({ field: k, message: 'unknown setting, ignored' });
      continue;
    }
    const r = (RunConfigSchema.shape[k as RunConfigKey] as z.ZodType).safeParse(v);
    if (r.success) kept[k] = r.data;
    else issues.push(...zodIssues(new z.ZodError(r.error.issues.map((i) => ({ ...i, path: [k, ...i.path] })))));
  }
  let config = RunConfigSchema.parse(kept);
  const cross = crossFieldIssues(config);
  for (const c of cross) {
    issues.push({ ...c, message: `${c.message}; reset to default` });
    config = { ...config, [c.field]: DEFAULT_CONFIG[c.field as RunConfigKey] } as RunConfig;
  }
  return { config, issues };
}
