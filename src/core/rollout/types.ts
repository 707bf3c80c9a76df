/**
 * Trajectory records produced by rollouts (roll-out and scoring in a training step, docs/architecture.md). Plain
 * data, no tensors.
 */
import type { TaskRef } from '../envs/types';

/** One env step = one training sample: prompt tokens are context, response tokens are trained. */
export interface StepRecord {
  /** Observation the action answered. */
  observation: string;
  /** Admissible actions offered in the prompt. */
  admissible: string[];
  /** Prompt token ids (int32 values). */
  prompt: number[];
  /** Response token ids (the action, ending with <eos> unless cut at maxActionTokens). */
  response: number[];
  /** Allowed next-token set per response token (null = free decoding set). */
  allowed: (Int32Array | null)[];
  /** The sampler's log-prob of each response token at the rollout temperature (nats, float64); training re-scores. */
  sampleLogp: number[];
  /** Entropy of the distribution each response token was drawn from (nats). */
  sampleEntropy: number[];
  /** Decoded action text as sent to the env. */
  action: string;
  /** False for an inadmissible action (the env answered with its own invalid-action observation). */
  valid: boolean;
  /** Reward of this step. */
  reward: number;
}

/** One episode. */
export interface Trajectory {
  ref: TaskRef;
  task: string;
  taskType: string;
  initialObservation: string;
  steps: StepRecord[];
  /** Outcome reward R(τ) = Σ step rewards. */
  reward: number;
  /** R ≥ 1. */
  success: boolean;
  /** Number of inadmissible actions. */
  invalidCount: number;
  /** The env's reply to the last action (the initial observation if no step was taken). */
  finalObservation: string;
  /** Episode skill injected into this episode's prompts at rollout (Skill-GRPO), if any. */
  episodeSkill?: string;
  /**
   * The numbers the env reported besides the reward (envs/types.ts `StepResult.info`) on the latest step that
   * reported any — an env reports its episode's scores on its last step, e.g. a question-answering env's exact match,
   * token F1 and substring EM `{em, f1, subEm}`. Absent when no step reported any. Evaluations average them.
   */
  metrics?: Record<string, number>;
}
