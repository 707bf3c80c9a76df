/**
 * The trainer loop as an async generator of typed events (docs/architecture.md). Pulling `next()` advances
 * training: pausing is not pulling, "step once" is pulling until the next `step` event. Every random draw comes
 * from streams forked off one `Rng(seed)` by purpose and step (`init`, `tasks/s`, `rollout/s`, `minibatch/s`,
 * `eval/s`), so the evaluation schedule never shifts the training stream.
 *
 * Per step: sample B train tasks → G rollouts each → scores and group advantages → old and reference
 * log-probs re-scored → PPO-clip + KL update over mini-batches → events.
 *
 * With `checkpoints` the trainer also yields, every `checkpointEvery` steps and at the last step, a `validation`
 * event (valTasks > 0; val tasks at the eval temperature, `val/s` stream) and a `checkpoint` event with the bytes
 * resuming needs (core/train/checkpoint.ts); `resume` continues from such a checkpoint at step k + 1, and the step
 * events that follow equal an uninterrupted run's (same seed and backend).
 */
import * as tf from '../tf';
import { Rng } from '../rng';
import { SOLVED_AT } from '../run/record';
import { parseRunConfig, type RunConfig } from '../run/config';
import { getEnvSpec } from '../envs/registry';
import { TRAIN_TASK_INDICES, type EnvSpec, type TaskRef } from '../envs/types';
import { cloneFrozen, countParams, type Params } from '../model/params';
import { decodeTrainState, captureAdam, restoreAdam, encodeTrainState, type TrainState } from './checkpoint';
import { BestEval } from './best';
import { scoreSamples } from '../model/scoring';
import { buildTokenizer, createPolicy, loadPolicy, savePolicy, type PolicyHandle } from '../model/policy';
import { runEpisodes } from '../rollout/runner';
import type { Trajectory } from '../rollout/types';
import { evaluatePolicy } from '../rollout/evaluate';
import { learningRateAt } from '../optim/schedule';
import { getAlgorithm } from '../algorithms/registry';
import { outcomeAdvantages, packSamples, tokenAdvantages, type PackedSamples } from '../algorithms/outcome';
import type { AlgorithmRun, AlgorithmViews } from '../algorithms/types';
import type { Analyzer } from '../analyzer/types';
import { ppoUpdate } from './update';
import type { CheckpointEvent, EvalEvent, InterruptedEvent, StepEvent, TrainEvent, TrajectoryView, ValidationEvent } from './events';
import { disposeSnapshot, guardStep, restoreSnapshot, takeSnapshot, type StepGuard } from './rollback';
import { checkCancelled, isCancelled, type CancelSignal, type ProgressSink } from '../cancel';
import { buildStepDetail, type StepDetail } from './step-detail';
import { episodeSkillTable, type EvalJob, type Evaluator } from '../rollout/eval-job';

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
   * The analyzer for `opid` / `skill-grpo`. Default: built from the config (`heuristic`, or `http` with
   * `analyzerApiKey`). Tests inject their own.
   */
  analyzer?: Analyzer;
  /** API key for the http analyzer; never stored in the config, a link, an export or a log. */
  analyzerApiKey?: string;
  /** Add `phaseMs` (where each step's wall time went) to step events. Default false. */
  profile?: boolean;
  /**
   * Yield `validation` (config.valTasks > 0) and `checkpoint` events every config.checkpointEvery steps and at the
   * last step (checkpointEvery 0: none). Default false (the page keeps no run directory).
   */
  checkpoints?: boolean;
  /**
   * Continue from a checkpoint event's bytes (`weights`, `state`) of a run with this same config (`steps` may be
   * larger): training goes on at step k + 1 without the step-0 evaluation. `initWeights` is then ignored.
   * @throws (from `train`) Error when the state file is corrupt, belongs to another seed or algorithm state, or k ≥ steps.
   */
  resume?: { weights: Uint8Array; state: Uint8Array };
  /**
   * What the config's algorithm needs besides the config, passed to its `create` (Agentic-OPD: `teacherPool`, the
   * run's other checkpoints, and `studentSolved`, the student's solved validation tasks; algorithms/agentic-opd.ts).
   */
  algorithmInit?: Readonly<Record<string, unknown>>;
  /**
   * Pause or stop within seconds (core/cancel.ts): checked before every lockstep turn of a rollout or evaluation,
   * between a step's phases and before every mini-batch. Once set, the step or evaluation in progress is discarded
   * whole — weights, Adam state and the algorithm's state put back, its random streams unused — and the generator
   * yields an `interrupted` event. Pulling again (with the signal cleared) redoes it, so the step events equal an
   * uninterrupted run's. Costs one copy of the weights and Adam moments per step while it is given.
   */
  cancel?: CancelSignal;
  /** Progress of evaluations, rollouts and updates (core/cancel.ts `PhaseProgress`), after every turn or mini-batch. */
  onProgress?: ProgressSink;
  /**
   * Yield the step-0 evaluation after step 1's `step` and `trajectories` events instead of before step 1, so the first
   * trajectories come sooner. Its numbers do not change: it plays the frozen reference policy (the initial weights)
   * with the algorithm's state as before step 1 and the same `eval/0` stream. Ignored when resuming. Default false.
   */
  initialEvalAfterFirstStep?: boolean;
  /** Called with every group of each completed step (core/train/step-detail.ts), just before its `step` event. */
  onStepDetail?: (d: StepDetail) => void;
  /**
   * Evaluate in other threads (the CLI's worker threads, cli/eval-pool.ts): each evaluation becomes one `EvalJob` per
   * split (rollout/eval-job.ts) with the weights as `savePolicy` bytes, and step k + 1 trains while step k's evaluation
   * runs. The events, their numbers and their order are those of evaluating in this thread: step k's `eval` event still
   * comes before step k + 1's `step` event (and before a checkpoint of step k). Ignored with `cancel` (evaluation then
   * stays in this thread, where it can be cut).
   */
  evaluator?: Evaluator;
  /**
   * With `evaluator`: train step k + 1 while step k's evaluation runs (default true). The policy given to `onPolicy` has
   * then moved on to step k + 1 when step k's `eval` event arrives, so a caller that saves the weights at an `eval` event
   * (train --save-best) passes false: the splits still run in parallel, and step k + 1 waits for them.
   */
  evalOverlap?: boolean;
}

/** What one step's work may be told besides its inputs (TrainOptions). */
interface StepHooks {
  cancel?: CancelSignal;
  onProgress?: ProgressSink;
  /** Build the step's `StepDetail`. */
  detail: boolean;
}

/**
 * Runs `run` until it finishes, yielding an `interrupted` event each time it is cancelled at a safe point (after
 * `undo` put back what it changed); the consumer's next pull retries it. Returns `run`'s result.
 */
async function* retryCancelled<T>(step: number, phase: InterruptedEvent['phase'], run: () => Promise<T>, undo?: () => void): AsyncGenerator<InterruptedEvent, T, undefined> {
  for (;;) {
    try {
      return await run();
    } catch (e) {
      if (!isCancelled(e)) throw e;
      undo?.();
      yield { event: 'interrupted', step, phase };
    }
  }
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
  let resume: TrainState | null = null;
  if (opts.resume) {
    resume = decodeTrainState(opts.resume.state);
    if (resume.seed !== cfg.seed) throw new Error(`train: the checkpoint is of seed ${resume.seed}, the config's seed is ${cfg.seed}; resume with the run's own config`);
    if (resume.step >= cfg.steps) throw new Error(`train: the checkpoint is at step ${resume.step} and the run has ${cfg.steps} steps; nothing to resume (raise steps to continue)`);
  } else if (!opts.initWeights && cfg.init === 'base')
    throw new Error("train: config.init is 'base' but no base weights were passed (opts.initWeights); load the shipped base policy first, or set init to 'scratch'");
  const startBytes = opts.resume?.weights ?? opts.initWeights;
  const policy = startBytes ? loadPolicy(startBytes, tok) : createPolicy(cfg.model, tok, root.fork('init'));
  if ('size' in policy && policy.size !== cfg.model) {
    tf.dispose(Object.values(policy.params));
    throw new Error(`${resume ? 'checkpoint' : 'initial'} weights are model size ${policy.size} but the config asks for ${cfg.model}; set model to ${policy.size}`);
  }
  const paramCount = countParams(policy.cfg);
  let ref: Params;
  try {
    ref = resume ? referenceFrom(resume, policy.params) : cloneFrozen(policy.params);
  } catch (e) {
    tf.dispose(Object.values(policy.params));
    throw e;
  }
  const optimizer = tf.train.adam(cfg.learningRate, cfg.adamBeta1, cfg.adamBeta2, cfg.adamEps);
  const t0 = now();
  let undoneSteps = resume?.undoneSteps ?? 0, shrunkSteps = resume?.shrunkSteps ?? 0;
  try {
    const algo = getAlgorithm(cfg.algo);
    const method = algo.create({ ...opts.algorithmInit, cfg, env: spec.name, analyzer: opts.analyzer, analyzerApiKey: opts.analyzerApiKey });
    const skill = { algo: method, estimator: algo.outcomeEstimator };
    const best = new BestEval();
    if (resume) {
      if (resume.algoState !== null) {
        if (!method.loadState) throw new Error(`train: the checkpoint holds algorithm state but ${cfg.algo} keeps none; resume with the run's own algorithm`);
        method.loadState(resume.algoState);
      } else if (method.saveState) throw new Error(`train: ${cfg.algo} keeps state across steps but the checkpoint holds none; resume with the run's own algorithm`);
      await restoreAdam(optimizer, policy.params, resume.adam);
      if (resume.best) Object.assign(best, { step: resume.best.step, score: resume.best.score, splits: { ...resume.best.splits } });
    }
    opts.onPolicy?.(policy);
    const envVersions = { [spec.name]: spec.version };
    const shapes = new Map(Object.entries(policy.params).map(([k, v]) => [k, v.shape]));
    let refValues: Map<string, Float32Array> | null = resume?.reference ?? null;
    const checkpoint = async (step: number): Promise<CheckpointEvent> => {
      refValues ??= new Map(await Promise.all(Object.entries(ref).map(async ([k, v]) => [k, (await v.data()) as Float32Array] as const)));
      const weights = await savePolicy(policy, cfg.model, envVersions, { kind: 'checkpoint', step: String(step), seed: String(cfg.seed), historyTurns: String(cfg.historyTurns) });
      const state = encodeTrainState({
        step, seed: cfg.seed, envVersions, adam: await captureAdam(optimizer, policy.params), reference: refValues,
        algoState: method.saveState ? method.saveState() : null, best: best.step >= 0 ? { step: best.step, score: best.score, splits: { ...best.splits } } : null,
        undoneSteps, shrunkSteps,
      }, shapes);
      return { event: 'checkpoint', step, weights, state };
    };
    yield { event: 'start', config: cfg, backend: opts.backend, params: paramCount, vocabSize: tok.size, envVersions, ...(resume ? { resumedFrom: resume.step } : {}) };
    const hooks: StepHooks = { cancel: opts.cancel, onProgress: opts.onProgress, detail: !!opts.onStepDetail };
    const deferEval0 = cfg.evalEvery > 0 && !resume && !!opts.initialEvalAfterFirstStep;
    // A deferred step-0 evaluation acts as the policy did before step 1: an algorithm whose episode skill depends on
    // state (Skill-GRPO's memory) gets a second instance frozen at that state.
    let skill0 = skill;
    if (deferEval0 && method.episodeSkill && method.saveState) {
      const m0 = algo.create({ ...opts.algorithmInit, cfg, env: spec.name, analyzer: opts.analyzer, analyzerApiKey: opts.analyzerApiKey });
      m0.loadState?.(method.saveState());
      skill0 = { algo: m0, estimator: algo.outcomeEstimator };
    }
    // Evaluation in other threads: the evaluation started after a step, yielded before the next step's events.
    const evaluator = opts.cancel ? undefined : opts.evaluator;
    let pendingEval: Promise<EvalEvent> | null = null;
    const startEval = async (p: PolicyHandle, step: number, s: SkillState): Promise<{ ev: Promise<EvalEvent> }> => {
      const job = await evalJobs(p, spec, cfg, step, s, envVersions); // weights and skills read before training goes on
      const ev = threadedEvalEvent(job, evaluator!);
      ev.catch(() => undefined); // a failure surfaces where it is awaited; none is left unhandled if the run stops first
      return { ev };
    };
    async function* flushEval(): AsyncGenerator<EvalEvent> {
      if (!pendingEval) return;
      const ev = await pendingEval;
      pendingEval = null;
      best.offer(ev);
      yield ev;
    }
    if (cfg.evalEvery > 0 && !resume && !deferEval0) {
      if (evaluator) {
        pendingEval = (await startEval(policy, 0, skill)).ev;
        if (opts.evalOverlap === false) yield* flushEval();
      } else {
        const ev = yield* retryCancelled(0, 'eval', () => evalEvent(policy, spec, cfg, root, 0, skill, hooks));
        best.offer(ev);
        yield ev;
      }
    }
    for (let step = (resume?.step ?? 0) + 1; step <= cfg.steps; step++) {
      if (opts.signal?.aborted) return yield* flushEval();
      // A cut step may have changed the algorithm's state (Skill-GRPO's memory): keep it to put back.
      const algoState = opts.cancel && method.saveState ? method.saveState() : null;
      let ts = now();
      const { event, group, tokens, detail } = yield* retryCancelled(step, 'step', () => {
        ts = now();
        return trainStep(policy, ref, optimizer, spec, cfg, root, step, skill, opts.profile ?? false, hooks);
      }, () => algoState !== null && method.loadState?.(algoState));
      event.stepMs = now() - ts;
      event.elapsedMs = now() - t0;
      event.tokensPerSecond = (tokens * 1000) / Math.max(event.stepMs, 1e-3);
      event.numTensors = tf.memory().numTensors;
      if (event.rolledBack) undoneSteps++;
      else if (event.stepScale < 1) shrunkSteps++;
      if (detail) opts.onStepDetail?.(detail);
      yield* flushEval();
      yield event;
      yield { event: 'trajectories', step, group };
      if (deferEval0 && step === (resume?.step ?? 0) + 1) {
        // The reference policy is a frozen copy of the initial weights: the same numbers as evaluating before step 1.
        const ev = evaluator ? await (await startEval({ ...policy, params: ref }, 0, skill0)).ev : yield* retryCancelled(0, 'eval', () => evalEvent({ ...policy, params: ref }, spec, cfg, root, 0, skill0, hooks));
        best.offer(ev);
        yield ev;
      }
      const checkpointDue = opts.checkpoints && cfg.checkpointEvery > 0 && (step % cfg.checkpointEvery === 0 || step === cfg.steps);
      if (cfg.evalEvery > 0 && (step % cfg.evalEvery === 0 || step === cfg.steps)) {
        if (evaluator) {
          pendingEval = (await startEval(policy, step, skill)).ev;
          // Overlap with the next step; a checkpoint (it records the best evaluation) or the run's end waits for it.
          if (checkpointDue || step === cfg.steps || opts.evalOverlap === false) yield* flushEval();
        } else {
          const ev = yield* retryCancelled(step, 'eval', () => evalEvent(policy, spec, cfg, root, step, skill, hooks));
          best.offer(ev);
          yield ev;
        }
      }
      if (checkpointDue) {
        if (cfg.valTasks > 0) {
          const v = await validationEvent(policy, spec, cfg, root, step, skill);
          // An algorithm that follows the policy's validation (Agentic-OPD re-selects its teacher) hears of it.
          method.onValidation?.(new Set(v.passRates.flatMap((r, i) => (r >= SOLVED_AT ? [i] : []))));
          yield v;
        }
        yield await checkpoint(step);
      }
    }
    yield* flushEval();
    yield { event: 'done', steps: cfg.steps, elapsedMs: now() - t0, undoneSteps, shrunkSteps, envVersions };
  } finally {
    optimizer.dispose();
    tf.dispose(Object.values(ref));
    tf.dispose(Object.values(policy.params));
  }
}

/**
 * The frozen reference policy of a resumed run from its state file: one kept tensor per parameter of `params`
 * (same shapes). @throws Error when a parameter is missing or mis-sized (a corrupt or foreign checkpoint).
 */
function referenceFrom(st: TrainState, params: Params): Params {
  const out: Params = {};
  try {
    for (const [k, v] of Object.entries(params)) {
      const data = st.reference.get(k);
      if (!data || data.length !== v.size) throw new Error(`checkpoint state: reference/${k} has ${data?.length ?? 'no'} values, expected ${v.size}`);
      out[k] = tf.keep(tf.tensor(data, v.shape, 'float32'));
    }
  } catch (e) {
    tf.dispose(Object.values(out));
    throw e;
  }
  return out;
}

/**
 * Validation at a checkpoint: val tasks 0..valTasks−1, each played valSamples times (episodes task-major) in one
 * batch at the eval temperature from the `val/<step>` stream, with the algorithm's episode skill as in evaluation.
 */
async function validationEvent(policy: PolicyHandle, spec: EnvSpec, cfg: RunConfig, root: Rng, step: number, skill: SkillState): Promise<ValidationEvent> {
  const t = now();
  const r = cfg.valSamples;
  const refs: TaskRef[] = [];
  for (let i = 0; i < cfg.valTasks; i++) for (let k = 0; k < r; k++) refs.push({ split: 'val', index: i });
  const roll = await runEpisodes(policy, spec, cfg.preset, refs, {
    decoding: cfg.decoding, temperature: cfg.evalTemperature, historyTurns: cfg.historyTurns, maxActionTokens: cfg.maxActionTokens, rng: root.fork(`val/${step}`),
    episodeSkill: skill.algo.episodeSkill ? (_i, type) => skill.algo.episodeSkill!(type) : undefined,
  });
  const passRates: number[] = [], taskTypes: string[] = [];
  for (let i = 0; i < cfg.valTasks; i++) {
    const g = roll.trajectories.slice(i * r, (i + 1) * r);
    passRates.push(g.filter((x) => x.success).length / r);
    taskTypes.push(g[0].taskType);
  }
  return { event: 'validation', step, samples: r, passRates, taskTypes, successRate: mean(passRates), valMs: now() - t };
}

/** The splits every evaluation plays, in this order. */
const EVAL_SPLITS = ['test-seen', 'test-unseen'] as const;

/**
 * Evaluation on test-seen and test-unseen (the first evalEpisodes tasks each) at the eval temperature, `eval/<step>` stream.
 * @throws RunCancelled when `hooks.cancel` is set at a turn (nothing to undo: evaluation changes no state).
 */
async function evalEvent(policy: PolicyHandle, spec: EnvSpec, cfg: RunConfig, root: Rng, step: number, skill: SkillState, hooks: StepHooks): Promise<EvalEvent> {
  const t = now();
  const r = await evaluatePolicy(policy, spec, {
    preset: cfg.preset, splits: EVAL_SPLITS, episodes: cfg.evalEpisodes, temperature: cfg.evalTemperature,
    decoding: cfg.decoding, historyTurns: cfg.historyTurns, maxActionTokens: cfg.maxActionTokens, rng: root.fork(`eval/${step}`),
    // An algorithm that puts skills in the prompt (Skill-GRPO) evaluates with them, as it acts at rollout.
    episodeSkillFor: skill.algo.episodeSkill ? (type) => skill.algo.episodeSkill!(type) : undefined,
    cancel: hooks.cancel,
    onTurn: hooks.onProgress && ((done, total, fraction) => hooks.onProgress!({ phase: 'eval', step, done, total, unit: 'episodes', fraction })),
  });
  return { event: 'eval', step, splits: r.splits, evalMs: now() - t };
}

/** An evaluation's split jobs and the weights they play, read from the policy and the algorithm now. */
interface EvalJobs {
  step: number;
  jobs: EvalJob[];
  weights: Uint8Array;
}

/**
 * The jobs of `evalEvent`'s evaluation (the same tasks, settings, `eval/<step>` stream forked per split, and the
 * algorithm's episode skills as they are now) and the policy's current weights as bytes.
 */
async function evalJobs(policy: PolicyHandle, spec: EnvSpec, cfg: RunConfig, step: number, skill: SkillState, envVersions: Record<string, string>): Promise<EvalJobs> {
  const episodeSkills = skill.algo.episodeSkill ? episodeSkillTable(spec, cfg.preset, (type) => skill.algo.episodeSkill!(type)) : null;
  const jobs = EVAL_SPLITS.map((split): EvalJob => ({
    env: cfg.env, preset: cfg.preset, split, firstTask: 0, episodes: cfg.evalEpisodes, temperature: cfg.evalTemperature, decoding: cfg.decoding,
    historyTurns: cfg.historyTurns, maxActionTokens: cfg.maxActionTokens, seed: cfg.seed, streams: [`eval/${step}`, split], hints: 'none', episodeSkills,
  }));
  return { step, jobs, weights: await savePolicy(policy, cfg.model, envVersions) };
}

/** `evalEvent` in other threads: the split jobs run by `evaluator` at once; the same event (evalMs: their wall time). */
async function threadedEvalEvent(e: EvalJobs, evaluator: Evaluator): Promise<EvalEvent> {
  const t = now();
  const r = await Promise.all(e.jobs.map((j) => evaluator(j, e.weights)));
  const splits: EvalEvent['splits'] = {};
  e.jobs.forEach((j, i) => (splits[j.split] = r[i].eval));
  return { event: 'eval', step: e.step, splits, evalMs: now() - t };
}

/**
 * One training step; returns its event (timing fields filled by the caller), the tokens it processed and, when
 * `hooks.detail`, every group of the step.
 * @throws RunCancelled when `hooks.cancel` is set at a safe point; the weights and Adam state are then as before the
 *   step (the caller puts back the algorithm's state).
 */
async function trainStep(
  policy: PolicyHandle, ref: Params, optimizer: tf.Optimizer, spec: EnvSpec, cfg: RunConfig, root: Rng, step: number, skill: SkillState, profile: boolean,
  hooks: StepHooks,
): Promise<{ event: StepEvent; group: TrajectoryView[]; tokens: number; detail?: StepDetail }> {
  const { cancel, onProgress } = hooks;
  const lr = learningRateAt(cfg.learningRate, cfg.lrSchedule, cfg.minLrRatio, step, cfg.steps);
  (optimizer as unknown as { learningRate: number }).learningRate = lr; // tfjs Adam reads it at every applyGradients
  const taskRng = root.fork(`tasks/${step}`);
  const refs: TaskRef[] = [], groupOf: number[] = [];
  for (let b = 0; b < cfg.tasksPerStep; b++) {
    const index = taskRng.int(TRAIN_TASK_INDICES);
    for (let g = 0; g < cfg.groupSize; g++) {
      refs.push({ split: 'train', index });
      groupOf.push(b);
    }
  }
  const roll = await runEpisodes(policy, spec, cfg.preset, refs, {
    decoding: cfg.decoding, temperature: cfg.temperature, historyTurns: cfg.historyTurns, maxActionTokens: cfg.maxActionTokens, rng: root.fork(`rollout/${step}`),
    episodeSkill: skill.algo.episodeSkill ? (_i, type) => skill.algo.episodeSkill!(type) : undefined,
    cancel, onTurn: onProgress && ((done, total, fraction) => onProgress({ phase: 'rollout', step, done, total, unit: 'episodes', fraction })),
  });
  await checkCancelled(cancel, 'after the rollouts');
  const trajs = roll.trajectories;
  let tp = now();
  const lap = () => { const t = now(), d = t - tp; tp = t; return d; };
  const { scores, adv } = outcomeAdvantages(trajs, groupOf, cfg.invalidPenalty, skill.estimator, { norm: cfg.advNorm, groupBy: cfg.advGroupBy, eps: cfg.advEps });
  const packed = packSamples(trajs);
  // Every log-prob is of the distribution that sampled: the rollout temperature T (scoring.ts).
  const T = { temperature: cfg.temperature };
  // Old log-probs: the sampler's own (the rollout policy is the pre-update policy), or one more pass (oldLogProbs).
  const old = cfg.oldLogProbs === 'rescore' ? await scoreSamples(policy.params, policy.cfg, packed.samples, policy.freeRow, T) : samplerScores(trajs, packed.tokens);
  const oldMs = lap();
  // Reference log-probs feed the KL term. With β = 0 they only feed the kl metric and the viewer: score the first
  // group only, and report its KL (a sample of the step's tokens) instead of a full pass over the batch.
  const viewCount = trajs.slice(0, cfg.groupSize).reduce((n, t) => n + t.steps.length, 0);
  const refS = await scoreSamples(ref, policy.cfg, cfg.klBeta > 0 ? packed.samples : packed.samples.slice(0, viewCount), policy.freeRow, T);
  const refMs = lap();
  await checkCancelled(cancel, 'after scoring');
  const aEpTok = tokenAdvantages(packed, trajs, groupOf, adv, cfg);
  // The algorithm's per-token advantage (GRPO: A_ep; OPID: A_ep + λ·A_skill; registry.ts).
  const a = await skill.algo.advantages({ policy, trajs, groupOf, packed, aEpTraj: adv, aEpTok, oldLogp: old.logp });
  const advTok = a.adv;
  const algorithmMs = lap();
  await checkCancelled(cancel, 'after the advantages');
  // The weights and Adam state before the update: for the max-step-KL guard, and to put back a cut update.
  const snap = cfg.maxStepKl > 0 || cancel ? takeSnapshot(policy.params, optimizer) : null;
  let m: Awaited<ReturnType<typeof ppoUpdate>>;
  // The explorer's per-token PPO ratio as the update computed it (NaN where no applied mini-batch used the token).
  const ratio = hooks.detail ? new Float32Array(packed.tokens).fill(NaN) : undefined;
  try {
    m = await ppoUpdate(policy.params, policy.cfg, optimizer, { samples: packed.samples, adv: advTok, oldLogp: old.logp, refLogp: cfg.klBeta > 0 ? refS.logp : null, freeRow: policy.freeRow }, cfg, root.fork(`minibatch/${step}`), {
      cancel, ratio, onMiniBatch: onProgress && ((done, total) => onProgress({ phase: 'update', step, done, total, unit: 'mini-batches', fraction: done / total })),
    });
  } catch (e) {
    if (snap) {
      if (isCancelled(e)) restoreSnapshot(snap, policy.params, optimizer);
      disposeSnapshot(snap);
    }
    throw e;
  }
  const updateMs = lap();
  let guard: StepGuard | null = null;
  if (snap && cfg.maxStepKl > 0) {
    guard = await guardStep(policy.params, optimizer, snap, () => scoreSamples(policy.params, policy.cfg, packed.samples, policy.freeRow, T), old.logp, cfg.maxStepKl, cfg.klBacktracks);
  }
  if (snap) disposeSnapshot(snap);
  const guardMs = lap();
  const nSteps = packed.samples.length;
  const event: StepEvent = {
    event: 'step', step,
    successRate: trajs.filter((t) => t.success).length / trajs.length,
    rewardMean: mean(trajs.map((t) => t.reward)),
    scoreMean: mean(scores),
    policyLoss: m.policyLoss, kl: cfg.klBeta > 0 ? m.kl : sampledKl(old.logp, refS.logp), clipFraction: m.clipFraction, clipFractionLower: m.clipFractionLower, entropy: m.entropy, gradNorm: m.gradNorm, approxKl: m.approxKl, updates: m.updates,
    stepKl: guard?.stepKl ?? null, keptStepKl: guard?.keptStepKl ?? null, rolledBack: guard?.rolledBack ?? false, stepScale: guard?.stepScale ?? 1,
    advantageAbsMean: mean(Array.from(advTok, Math.abs)),
    invalidRate: trajs.reduce((s, t) => s + t.invalidCount, 0) / Math.max(nSteps, 1),
    episodeLength: nSteps / trajs.length,
    samples: nSteps, actionTokens: packed.tokens,
    tokensPerSecond: 0, learningRate: lr, stepMs: 0, elapsedMs: 0, numTensors: 0,
    ...(profile ? { phaseMs: { sample: roll.sampleMs, env: roll.envMs, old: oldMs, ref: refMs, algorithm: algorithmMs, update: updateMs, guard: guardMs } } : {}),
    ...a.metrics,
    ...stepExtra(a.extra),
    forwardTokens: { rollout: roll.tokens, old: old.tokens, ref: refS.tokens, skill: a.cost.tokens, update: m.tokens },
    forwardSequences: { rollout: nSteps, old: old.tokens ? nSteps : 0, ref: cfg.klBeta > 0 ? nSteps : viewCount, skill: a.cost.sequences, update: nSteps * cfg.ppoEpochs },
  };
  const group = trajectoryViews(trajs.slice(0, cfg.groupSize), scores, adv, packed, old.logp, refS.logp, old.entropy, advTok, policy, a.views);
  const detail = hooks.detail
    ? buildStepDetail(step, trajs, cfg.groupSize, scores, adv, packed, { adv: advTok, aEp: aEpTok, oldLogp: old.logp, refLogp: refS.logp, entropy: old.entropy, ratio }, a.views)
    : undefined;
  return { event, group, tokens: roll.tokens + old.tokens + refS.tokens + a.cost.tokens + m.tokens + (guard?.tokens ?? 0), detail };
}

/** The run's algorithm instance and the outcome estimator it builds on. */
interface SkillState {
  algo: AlgorithmRun;
  estimator: string;
}

/** The sampler's log-probs and entropies of a step's trajectories, packed like `packSamples` (float32 [M], nats). */
function samplerScores(trajs: readonly Trajectory[], M: number): { logp: Float32Array; entropy: Float32Array; tokens: number } {
  const logp = new Float32Array(M), entropy = new Float32Array(M);
  let o = 0;
  for (const t of trajs) for (const s of t.steps) {
    logp.set(s.sampleLogp, o);
    entropy.set(s.sampleEntropy, o);
    o += s.sampleLogp.length;
  }
  return { logp, entropy, tokens: 0 };
}

/**
 * k3 estimate of KL(π_old ‖ π_ref) (Schulman 2020; δ = ℓ_ref − ℓ_old, exp(δ) − δ − 1, clamped to [−10, 10] per token),
 * token mean over the first `ref.length` tokens (the first group's), in nats. The β = 0 kl metric.
 */
function sampledKl(oldLogp: Float32Array, refLogp: Float32Array): number {
  let s = 0;
  for (let i = 0; i < refLogp.length; i++) {
    const d = refLogp[i] - oldLogp[i];
    s += Math.min(10, Math.max(-10, Math.exp(d) - d - 1));
  }
  return refLogp.length ? s / refLogp.length : 0;
}

/** The step-event fields an algorithm's `extra` may set (Agentic-OPD's teacher numbers); others are ignored. */
function stepExtra(x: object | undefined): Partial<StepEvent> {
  if (!x) return {};
  const e = x as Record<string, unknown>;
  const num = (k: string) => (typeof e[k] === 'number' ? { [k]: e[k] } : {});
  return {
    ...(Object.hasOwn(e, 'teacherId') ? { teacherId: typeof e.teacherId === 'number' ? e.teacherId : null } : {}),
    ...num('teacherScore'), ...num('ladShare'), ...num('reverseKl'),
    ...(typeof e.round === 'number' ? { teacherRound: e.round } : {}),
  };
}

function mean(xs: readonly number[]): number {
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0;
}

/** Display records of the first group (trajectories 0..G−1), with per-token numbers and the algorithm's fields. */
function trajectoryViews(
  trajs: readonly Trajectory[], scores: number[], adv: number[], packed: PackedSamples,
  oldLogp: Float32Array, refLogp: Float32Array, entropy: Float32Array, advTok: Float32Array, policy: PolicyHandle, views: AlgorithmViews | undefined,
): TrajectoryView[] {
  let sample = 0;
  return trajs.map((t, ti) => ({
    task: t.task, taskType: t.taskType, success: t.success, reward: t.reward, score: scores[ti], advantage: adv[ti],
    initialObservation: t.initialObservation,
    ...(views?.trajectory(ti) ?? {}),
    steps: t.steps.map((s) => {
      const i = sample++;
      const off = packed.offsets[i];
      return {
        observation: s.observation, action: s.action, valid: s.valid,
        ...(views?.sample(i) ?? {}),
        tokens: s.response.map((id, k) => ({
          text: policy.tok.tokenText(id), logpOld: oldLogp[off + k], logpRef: refLogp[off + k], adv: advTok[off + k], entropy: entropy[off + k],
          ...(views?.token(off + k) ?? {}),
        })),
      };
    }),
  }));
}
