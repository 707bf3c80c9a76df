/**
 * The trainer loop as an async generator of typed events (DESIGN.md §2; issue #2). Pulling `next()` advances
 * training: pausing is not pulling, "step once" is pulling until the next `step` event. Every random draw comes
 * from streams forked off one `Rng(seed)` by purpose and step (`init`, `tasks/s`, `rollout/s`, `minibatch/s`,
 * `eval/s`), so the evaluation schedule never shifts the training stream.
 *
 * Per step: sample B train tasks → G rollouts each → scores and group advantages → old and reference
 * log-probs re-scored → PPO-clip + KL update over mini-batches → events.
 */
import * as tf from '../tf';
import { Rng } from '../rng';
import { parseRunConfig, type RunConfig } from '../run/config';
import { getEnvSpec } from '../envs/registry';
import type { EnvSpec, TaskRef } from '../envs/types';
import { cloneFrozen, type Params } from '../model/params';
import { scoreSamples } from '../model/scoring';
import { runEpisodes } from '../rollout/runner';
import type { PolicyHandle } from '../model/policy';
import type { Trajectory } from '../rollout/types';
import { buildTokenizer, createPolicy, loadPolicy } from '../model/policy';
import { countParams } from '../model/params';
import { ppoUpdate } from './update';
import { outcomeAdvantages, packSamples, tokenAdvantages } from './step';
import { evaluatePolicy } from '../rollout/evaluate';
import { analyzeBatch, skillRescore, SkillMemory, type BatchAnalysis, type SkillRescore } from './opid';
import { combineAdvantages, skillMetrics } from '../algos/skill';
import { makeAnalyzer } from '../analyzer';
import type { Analyzer } from '../analyzer/types';
import type { EvalEvent, StepEvent, TrainEvent, TrajectoryView } from './events';
import { learningRateAt } from '../optim/schedule';
import { disposeSnapshot, guardStep, takeSnapshot, type StepGuard } from './rollback';

/** Options of `train` that are not part of the run config. */
export interface TrainOptions {
  /** Name of the active tfjs backend (reported in the start event). */
  backend: string;
  /** Set `aborted` to stop after the current step (the generator then returns without a `done` event). */
  signal?: { aborted: boolean };
  /** Called with the live policy once built (e.g. to save weights at the end, before the generator finishes). */
  onPolicy?: (p: PolicyHandle) => void;
  /** Start from these weights (safetensors bytes) instead of a fresh init; must match the config's model size. */
  initWeights?: Uint8Array;
  /**
   * The analyzer for `opid` / `skill-grpo` (issue #4). Default: built from the config (`heuristic`, or `http` with
   * `analyzerApiKey`). Tests inject their own.
   */
  analyzer?: Analyzer;
  /** API key for the http analyzer; never stored in the config, a link, an export or a log. */
  analyzerApiKey?: string;
}

const now = () => (typeof performance !== 'undefined' ? performance.now() : Date.now());

/**
 * Train per `config` (validated here; throws ConfigError naming bad fields). Yields start, eval (step 0), then per
 * step: step, trajectories, and eval every `evalEvery` steps and at the last step; finally done.
 * Disposes every tensor it made when the generator finishes or is closed early.
 */
export async function* train(config: Partial<RunConfig>, opts: TrainOptions): AsyncGenerator<TrainEvent> {
  const cfg = parseRunConfig(config);
  const spec = getEnvSpec(cfg.env);
  const root = new Rng(cfg.seed);
  const tok = buildTokenizer(spec);
  if (!opts.initWeights && cfg.init === 'base')
    throw new Error("train: config.init is 'base' but no base weights were passed (opts.initWeights); load the shipped base policy first, or set init to 'scratch'");
  const policy = opts.initWeights ? loadPolicy(opts.initWeights, tok) : createPolicy(cfg.model, tok, root.fork('init'));
  if ('size' in policy && policy.size !== cfg.model) {
    tf.dispose(Object.values(policy.params));
    throw new Error(`initial weights are model size ${policy.size} but the config asks for ${cfg.model}; set model to ${policy.size}`);
  }
  const paramCount = countParams(policy.cfg);
  const ref: Params = cloneFrozen(policy.params);
  const optimizer = tf.train.adam(cfg.learningRate, cfg.adamBeta1, cfg.adamBeta2, cfg.adamEps);
  const skill: SkillState = { analyzer: cfg.algo === 'grpo' ? null : (opts.analyzer ?? makeAnalyzer(cfg, opts.analyzerApiKey)), memory: new SkillMemory() };
  opts.onPolicy?.(policy);
  const t0 = now();
  let undoneSteps = 0, shrunkSteps = 0;
  try {
    yield { event: 'start', config: cfg, backend: opts.backend, params: paramCount, vocabSize: tok.size };
    if (cfg.evalEvery > 0) yield await evalEvent(policy, spec, cfg, root, 0, skill);
    for (let step = 1; step <= cfg.steps; step++) {
      if (opts.signal?.aborted) return;
      const ts = now();
      const { event, group, tokens } = await trainStep(policy, ref, optimizer, spec, cfg, root, step, skill);
      event.stepMs = now() - ts;
      event.elapsedMs = now() - t0;
      event.tokensPerSecond = (tokens * 1000) / Math.max(event.stepMs, 1e-3);
      event.numTensors = tf.memory().numTensors;
      if (event.rolledBack) undoneSteps++;
      else if (event.stepScale < 1) shrunkSteps++;
      yield event;
      yield { event: 'trajectories', step, group };
      if (cfg.evalEvery > 0 && (step % cfg.evalEvery === 0 || step === cfg.steps)) yield await evalEvent(policy, spec, cfg, root, step, skill);
    }
    yield { event: 'done', steps: cfg.steps, elapsedMs: now() - t0, undoneSteps, shrunkSteps };
  } finally {
    optimizer.dispose();
    tf.dispose(Object.values(ref));
    tf.dispose(Object.values(policy.params));
  }
}

async function evalEvent(policy: PolicyHandle, spec: EnvSpec, cfg: RunConfig, root: Rng, step: number, skill: SkillState): Promise<EvalEvent> {
  const t = now();
  const r = await evaluatePolicy(policy, spec, {
    preset: cfg.preset, splits: ['test-seen', 'test-unseen'], episodes: cfg.evalEpisodes, temperature: cfg.evalTemperature,
    decoding: cfg.decoding, historyTurns: cfg.historyTurns, maxActionTokens: cfg.maxActionTokens, rng: root.fork(`eval/${step}`),
    // Skill-GRPO evaluates with its memory's skills in the prompt, as it acts at rollout.
    episodeSkillFor: cfg.algo === 'skill-grpo' ? (type) => skill.memory.get(type, cfg.skillMemoryTopK) : undefined,
  });
  return { event: 'eval', step, splits: r.splits, evalMs: now() - t };
}

/** One training step; returns its event (timing fields filled by the caller) and the tokens it processed. */
async function trainStep(
  policy: PolicyHandle, ref: Params, optimizer: tf.Optimizer, spec: EnvSpec, cfg: RunConfig, root: Rng, step: number, skill: SkillState,
): Promise<{ event: StepEvent; group: TrajectoryView[]; tokens: number }> {
  const lr = learningRateAt(cfg.learningRate, cfg.lrSchedule, cfg.minLrRatio, step, cfg.steps);
  (optimizer as unknown as { learningRate: number }).learningRate = lr; // tfjs Adam reads it at every applyGradients
  const taskRng = root.fork(`tasks/${step}`);
  const refs: TaskRef[] = [], groupOf: number[] = [];
  for (let b = 0; b < cfg.tasksPerStep; b++) {
    const index = taskRng.int(1_000_000);
    for (let g = 0; g < cfg.groupSize; g++) {
      refs.push({ split: 'train', index });
      groupOf.push(b);
    }
  }
  const roll = await runEpisodes(policy, spec, cfg.preset, refs, {
    decoding: cfg.decoding, temperature: cfg.temperature, historyTurns: cfg.historyTurns, maxActionTokens: cfg.maxActionTokens, rng: root.fork(`rollout/${step}`),
    episodeSkill: cfg.algo === 'skill-grpo' ? (_i, type) => skill.memory.get(type, cfg.skillMemoryTopK) : undefined,
  });
  const trajs = roll.trajectories;
  if (cfg.algo === 'skill-grpo') for (const t of trajs) t.episodeSkill = skill.memory.get(t.taskType, cfg.skillMemoryTopK);
  const { scores, adv } = outcomeAdvantages(trajs, groupOf, cfg.invalidPenalty, cfg.algo, { norm: cfg.advNorm, groupBy: cfg.advGroupBy, eps: cfg.advEps });
  const packed = packSamples(trajs);
  const old = await scoreSamples(policy.params, policy.cfg, packed.samples, policy.freeRow);
  const refS = await scoreSamples(ref, policy.cfg, packed.samples, policy.freeRow);
  let advTok = tokenAdvantages(packed, trajs, groupOf, adv, cfg);
  const aEpTok = advTok;
  // OPID / Skill-GRPO: analyse this step's groups (the run goes on whatever the analyzer does).
  const before = skill.analyzer?.stats();
  const ta = now();
  const analysis = skill.analyzer ? await analyzeBatch(skill.analyzer, spec.name, trajs, groupOf) : null;
  const analyzerMs = now() - ta;
  let rescore: SkillRescore | null = null;
  let sm = { teacherShare: 0, skillActiveTokenRatio: 0, skillSignAgreement: 0 };
  let aSkillUsed: Float32Array | null = null;
  if (analysis && cfg.algo === 'opid') {
    rescore = await skillRescore(policy, trajs, packed, analysis.skills, old.logp, { ablation: cfg.ablation, historyTurns: cfg.historyTurns, maxActionTokens: cfg.maxActionTokens });
    const c = combineAdvantages(aEpTok, rescore.aSkill, rescore.active, { lambda: cfg.lambdaSkill, zscore: cfg.skillZscore, clip: cfg.skillClip });
    advTok = c.adv;
    aSkillUsed = c.aSkillUsed;
    const tokenTraj = new Int32Array(packed.tokens);
    packed.samples.forEach((x, i) => tokenTraj.fill(packed.sampleTraj[i], packed.offsets[i], packed.offsets[i] + x.response.length));
    sm = skillMetrics(aEpTok, c.aSkillUsed, c.adv, rescore.active, tokenTraj, cfg.lambdaSkill, rescore.aSkill);
  }
  if (analysis && cfg.algo === 'skill-grpo')
    trajs.forEach((t, i) => t.success && analysis.skills[i]?.episodeSkill && skill.memory.add(t.taskType, analysis.skills[i]!.episodeSkill));
  const after = skill.analyzer?.stats();
  const snap = cfg.maxStepKl > 0 ? takeSnapshot(policy.params, optimizer) : null;
  const m = await ppoUpdate(policy.params, policy.cfg, optimizer, { samples: packed.samples, adv: advTok, oldLogp: old.logp, refLogp: refS.logp, freeRow: policy.freeRow }, cfg, root.fork(`minibatch/${step}`));
  let guard: StepGuard | null = null;
  if (snap) {
    guard = await guardStep(policy.params, optimizer, snap, () => scoreSamples(policy.params, policy.cfg, packed.samples, policy.freeRow), old.logp, cfg.maxStepKl, cfg.klBacktracks);
    disposeSnapshot(snap);
  }
  const nSteps = packed.samples.length;
  const event: StepEvent = {
    event: 'step', step,
    successRate: trajs.filter((t) => t.success).length / trajs.length,
    rewardMean: mean(trajs.map((t) => t.reward)),
    scoreMean: mean(scores),
    policyLoss: m.policyLoss, kl: m.kl, clipFraction: m.clipFraction, entropy: m.entropy, gradNorm: m.gradNorm, approxKl: m.approxKl, updates: m.updates,
    stepKl: guard?.stepKl ?? null, keptStepKl: guard?.keptStepKl ?? null, rolledBack: guard?.rolledBack ?? false, stepScale: guard?.stepScale ?? 1,
    advantageAbsMean: mean(Array.from(advTok, Math.abs)),
    invalidRate: trajs.reduce((s, t) => s + t.invalidCount, 0) / Math.max(nSteps, 1),
    episodeLength: nSteps / trajs.length,
    samples: nSteps, actionTokens: packed.tokens,
    tokensPerSecond: 0, learningRate: lr, stepMs: 0, elapsedMs: 0, numTensors: 0,
    ...sm,
    analyzerCalls: (after?.calls ?? 0) - (before?.calls ?? 0),
    analyzerFailures: analysis ? analysis.skills.filter((x, i) => x === null && (analysis.errors[i] !== undefined || !(cfg.failedOnly && trajs[i].success))).length : 0,
    analyzerLatencyMs: analysis ? analyzerMs : 0,
    analyzerFailureReasons: diffReasons(before?.failureReasons, after?.failureReasons, analysis?.errors),
    forwardTokens: { rollout: roll.tokens, old: old.tokens, ref: refS.tokens, skill: rescore?.tokens ?? 0, update: m.tokens },
    forwardSequences: { rollout: nSteps, old: nSteps, ref: nSteps, skill: rescore?.prompts ?? 0, update: nSteps * cfg.ppoEpochs },
  };
  const group = trajectoryViews(trajs.slice(0, cfg.groupSize), scores, adv, packed, old.logp, refS.logp, old.entropy, advTok, policy, { analysis, rescore, aSkillUsed });
  return { event, group, tokens: roll.tokens + old.tokens + refS.tokens + (rescore?.tokens ?? 0) + m.tokens + (guard?.tokens ?? 0) };
}

/** What OPID / Skill-GRPO keep across steps: the analyzer and the skill memory. */
interface SkillState {
  analyzer: Analyzer | null;
  memory: SkillMemory;
}

/** Failure reasons added this step (analyzer counters' difference, plus thrown-analyzer errors). */
function diffReasons(a: Record<string, number> | undefined, b: Record<string, number> | undefined, errors: (string | undefined)[] | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(b ?? {})) if (v - (a?.[k] ?? 0) > 0) out[k] = v - (a?.[k] ?? 0);
  for (const e of errors ?? []) if (e) out[e] = (out[e] ?? 0) + 1;
  return out;
}

function mean(xs: readonly number[]): number {
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0;
}

/** Display records of the first group (trajectories 0..G−1), with per-token numbers. */
function trajectoryViews(
  trajs: readonly Trajectory[], scores: number[], adv: number[], packed: ReturnType<typeof packSamples>,
  oldLogp: Float32Array, refLogp: Float32Array, entropy: Float32Array, advTok: Float32Array, policy: PolicyHandle,
  sk: { analysis: BatchAnalysis | null; rescore: SkillRescore | null; aSkillUsed: Float32Array | null },
): TrajectoryView[] {
  let sample = 0;
  return trajs.map((t, ti) => ({
    task: t.task, taskType: t.taskType, success: t.success, reward: t.reward, score: scores[ti], advantage: adv[ti],
    initialObservation: t.initialObservation,
    // Skill-GRPO shows the skill injected into this episode; OPID the analyzer's skill for it.
    ...(sk.analysis ? { episodeSkill: sk.rescore ? sk.analysis.skills[ti]?.episodeSkill : t.episodeSkill, analyzerError: sk.analysis.errors[ti] } : {}),
    steps: t.steps.map((s) => {
      const i = sample++;
      const off = packed.offsets[i];
      return {
        observation: s.observation, action: s.action, valid: s.valid,
        ...(sk.rescore ? { critical: sk.rescore.critical[i], stepSkill: sk.rescore.stepSkill[i] } : {}),
        tokens: s.response.map((id, k) => ({
          text: policy.tok.tokenText(id), logpOld: oldLogp[off + k], logpRef: refLogp[off + k], adv: advTok[off + k], entropy: entropy[off + k],
          ...(sk.rescore && sk.aSkillUsed ? { logpSkill: sk.rescore.logpSkill[off + k], advSkill: sk.aSkillUsed[off + k] } : {}),
        })),
      };
    }),
  }));
}
