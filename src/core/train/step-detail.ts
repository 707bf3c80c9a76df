/**
 * Every group of a training step as the trainer used it, for the page's rollout explorer (the worker keeps a bounded
 * store of them: src/worker/trajectory-store.ts). Plain data and typed arrays only, structured-cloneable.
 *
 * Unlike the `trajectories` event (the first group, with per-token objects), a `StepDetail` holds every group of the
 * step, the prompts as the policy saw them (token ids, decoded on demand), and the per-token numbers as packed
 * float32 vectors: the exact values the update used (A, A_ep, A_skill), the log-probs it compared (ℓ_old, ℓ_ref)
 * and the PPO ratio its loss computed. Built only when TrainOptions.onStepDetail asks for it; it copies arrays the step
 * computed anyway (the ratio is read back from the loss's own tensor), no extra forward pass.
 */
import type { Trajectory } from '../rollout/types';
import type { PackedSamples } from '../algorithms/outcome';
import type { AlgorithmViews } from '../algorithms/types';

/** One turn (env step = one training sample) of a stored trajectory. */
export interface TurnDetail {
  /**
   * The prompt token ids exactly as the policy was given them (task, history window, observation, admissible actions,
   * cue); null in a group read back from a stored run (core/run-files/trajectories.ts `storedGroup`: prompts are not
   * kept).
   */
  prompt: Int32Array | null;
  /** The observation the action answered. */
  observation: string;
  /** The environment's reply to the action (the next turn's observation, or the final one). */
  reply: string;
  /** The sampled action as sent to the environment. */
  action: string;
  /** False when the action was inadmissible (the env answered `Nothing happens.`). */
  valid: boolean;
  /** The step's reward. */
  reward: number;
  /** True on the trajectory's last turn (task complete or step limit). */
  done: boolean;
  /** Index of the turn's first action token in the group's `TokenArrays`. */
  tokenStart: number;
  /** Action tokens of the turn (the response, `<eos>` included when sampled). */
  tokenCount: number;
  /** OPID: the turn is in the critical set C_τ (its re-scoring prompt holds its step skill). */
  critical?: boolean;
  /** OPID: the step skill routed to this turn, if any. */
  stepSkill?: string;
}

/** One trajectory of a stored group. */
export interface TrajectoryDetail {
  success: boolean;
  /** Outcome reward R(τ). */
  reward: number;
  /** S = R − invalidPenalty·#invalid, the score the group advantage used. */
  score: number;
  /** Trajectory-level A_ep (GRPO group advantage). */
  advantage: number;
  /** Inadmissible actions in the episode. */
  invalidCount: number;
  initialObservation: string;
  /** OPID: the analyzer's episode skill; Skill-GRPO: the memory skill in the rollout prompt. */
  episodeSkill?: string;
  /** OPID / Skill-GRPO: why the analysis failed, in words. */
  analyzerError?: string;
  turns: TurnDetail[];
}

/**
 * Per-token vectors of a group, float32 [T] over the group's action tokens in trajectory then turn order (each
 * turn's slice is `tokenStart … tokenStart + tokenCount`). Log-probs in nats at the rollout temperature.
 */
export interface TokenArrays {
  /** Action token ids (int32 [T]). */
  ids: Int32Array;
  /** A: the per-token advantage the update used (A_ep + λ·A_skill under OPID). */
  adv: Float32Array;
  /** A_ep per token: the outcome advantage, plus ω·A_step with GiGPO (algorithms/outcome.ts `tokenAdvantages`). */
  aEp: Float32Array;
  /** OPID: A_skill as used (after z-score and clip, before λ); null for other algorithms. */
  aSkill: Float32Array | null;
  /** OPID: ℓ_skill, the old policy's log-prob with the routed skill in the prompt; null for other algorithms. */
  logpSkill: Float32Array | null;
  /** ℓ_old: the old (pre-update) policy's log-prob. */
  logpOld: Float32Array;
  /**
   * ℓ_ref: the frozen reference policy's log-prob; null when the step did not score this group (β = 0 scores the
   * first group only).
   */
  logpRef: Float32Array | null;
  /** Entropy of the distribution each token was sampled from (nats). */
  entropy: Float32Array;
  /**
   * ρ = π_θ/π_old = exp(ℓ − ℓ_old), the PPO ratio (Schulman et al. 2017, eq. 7) as the update's loss computed
   * it at the mini-batch that used the token (float32, log-ratio clamped to [−20, 20]; with ppoEpochs > 1 the last
   * epoch's; the first mini-batch's is 1 up to the sampler's rounding). NaN where no applied mini-batch used the token
   * (target KL stopped the step first); null when the step did not record it (a detail built by an older trainer).
   */
  ratio: Float32Array | null;
}

/** One group (G trajectories of one task) of a step. */
export interface GroupDetail {
  step: number;
  /** Index of the group in the step (0 … B−1; the `trajectories` event shows group 0). */
  group: number;
  task: string;
  taskType: string;
  /** Index of the task in the train split. */
  taskIndex: number;
  trajectories: TrajectoryDetail[];
  tokens: TokenArrays;
  /**
   * Set on a group read back from a stored run's trajectories.jsonl (core/run-files/trajectories.ts `storedGroup`):
   * `notKept` names, in words, what the stored line lacks (shown as not kept, never as values: those fields are NaN
   * or empty); `tokens` is false when it has no action tokens or per-token numbers at all. Absent on a live group.
   */
  stored?: { notKept: string[]; tokens: boolean };
}

/** Every group of one step. */
export interface StepDetail {
  step: number;
  groups: GroupDetail[];
}

/**
 * The step's per-token vectors, packed like `packSamples` (float32 [M]). `refLogp` may be shorter (the first group's
 * tokens).
 */
export interface StepTokenVectors {
  adv: Float32Array;
  aEp: Float32Array;
  oldLogp: Float32Array;
  refLogp: Float32Array;
  entropy: Float32Array;
  /** The update's PPO ratio per token (train/update.ts `UpdateHooks.ratio`); absent = not recorded. */
  ratio?: Float32Array;
}

/**
 * Every group of a step, with copies of the per-token vectors (views of the step's own arrays are not kept).
 * @param trajs the step's B·G trajectories, group-major (group b = trajs[b·G … (b+1)·G)).
 * @param scores S per trajectory; `adv` A_ep per trajectory.
 */
export function buildStepDetail(
  step: number,
  trajs: readonly Trajectory[],
  groupSize: number,
  scores: readonly number[],
  adv: readonly number[],
  packed: PackedSamples,
  v: StepTokenVectors,
  views: AlgorithmViews | undefined,
): StepDetail {
  const d: DetailInputs = { scores, adv, packed, v, views };
  const groups: GroupDetail[] = [];
  let sample = 0;
  for (let g0 = 0; g0 < trajs.length; g0 += groupSize) {
    const members = trajs.slice(g0, g0 + groupSize);
    const firstSample = sample;
    const start = packed.offsets[sample] ?? packed.tokens;
    const trajectories: TrajectoryDetail[] = members.map((t, k) => {
      const detail = trajectoryDetail(d, t, g0 + k, sample, start);
      sample += t.steps.length;
      return detail;
    });
    const end = packed.offsets[sample] ?? packed.tokens;
    groups.push({
      step,
      group: groups.length,
      task: members[0].task,
      taskType: members[0].taskType,
      taskIndex: members[0].ref.index,
      trajectories,
      tokens: groupTokens(d, firstSample, sample, start, end),
    });
  }
  return { step, groups };
}

/** What `buildStepDetail` reads for every group: the per-trajectory and per-token numbers and the algorithm's views. */
interface DetailInputs {
  scores: readonly number[];
  adv: readonly number[];
  packed: PackedSamples;
  v: StepTokenVectors;
  views: AlgorithmViews | undefined;
}

/**
 * Trajectory `ti` of the step, whose first turn is packed sample `first`; token positions are counted from `start`,
 * its group's first token.
 */
function trajectoryDetail(d: DetailInputs, t: Trajectory, ti: number, first: number, start: number): TrajectoryDetail {
  const { packed, views } = d;
  const turns: TurnDetail[] = t.steps.map((s, j) => {
    const i = first + j;
    const extra = views?.sample(i);
    return {
      prompt: Int32Array.from(s.prompt),
      observation: s.observation,
      reply: j + 1 < t.steps.length ? t.steps[j + 1].observation : t.finalObservation,
      action: s.action,
      valid: s.valid,
      reward: s.reward,
      done: j === t.steps.length - 1,
      tokenStart: packed.offsets[i] - start,
      tokenCount: s.response.length,
      ...(extra?.critical !== undefined ? { critical: extra.critical } : {}),
      ...(extra?.stepSkill !== undefined ? { stepSkill: extra.stepSkill } : {}),
    };
  });
  const tv = views?.trajectory(ti);
  return {
    success: t.success,
    reward: t.reward,
    score: d.scores[ti],
    advantage: d.adv[ti],
    invalidCount: t.invalidCount,
    initialObservation: t.initialObservation,
    ...(tv?.episodeSkill !== undefined
      ? { episodeSkill: tv.episodeSkill }
      : t.episodeSkill !== undefined
        ? { episodeSkill: t.episodeSkill }
        : {}),
    ...(tv?.analyzerError !== undefined ? { analyzerError: tv.analyzerError } : {}),
    turns,
  };
}

/**
 * A group's token arrays: the action token ids of packed samples [firstSample, endSample) and copies of the step's
 * per-token vectors over its packed tokens [start, end); the skill vectors are null where the views give none.
 */
function groupTokens(d: DetailInputs, firstSample: number, endSample: number, start: number, end: number): TokenArrays {
  const { packed, v, views } = d;
  const ids = new Int32Array(end - start);
  for (let i = firstSample, o = 0; i < endSample; i++) {
    ids.set(packed.samples[i].response, o);
    o += packed.samples[i].response.length;
  }
  const perToken = (pick: (m: number) => number | undefined): Float32Array | null => {
    if (!views) return null;
    const out = new Float32Array(end - start);
    let any = false;
    for (let m = start; m < end; m++) {
      const x = pick(m);
      if (x !== undefined) any = true;
      out[m - start] = x ?? NaN;
    }
    return any ? out : null;
  };
  return {
    ids,
    adv: v.adv.slice(start, end),
    aEp: v.aEp.slice(start, end),
    aSkill: perToken((m) => views?.token(m)?.advSkill),
    logpSkill: perToken((m) => views?.token(m)?.logpSkill),
    logpOld: v.oldLogp.slice(start, end),
    logpRef: end <= v.refLogp.length ? v.refLogp.slice(start, end) : null,
    entropy: v.entropy.slice(start, end),
    ratio: v.ratio ? v.ratio.slice(start, end) : null,
  };
}
