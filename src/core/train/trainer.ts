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
 *
 * One step is in step.ts, the evaluations and validation in evaluation.ts, the options in options.ts.
 */
import * as tf from '../tf';
import { Rng } from '../rng';
import { SOLVED_AT } from '../run/record';
import { parseRunConfig, type RunConfig } from '../run/config';
import { getEnvSpec } from '../envs/registry';
import { cloneFrozen, countParams, type Params } from '../model/params';
import { decodeTrainState, captureAdam, restoreAdam, encodeTrainState, type TrainState } from './checkpoint';
import { BestEval } from './best';
import { buildTokenizer, createPolicy, loadPolicy, savePolicy, type PolicyHandle } from '../model/policy';
import { getAlgorithm, type RegisteredAlgorithm } from '../algorithms/registry';
import type { AlgorithmRun } from '../algorithms/types';
import type { EnvSpec } from '../envs/types';
import type { Tokenizer } from '../tokenizer/tokenizer';
import type { Evaluator } from '../rollout/eval-job';
import type { CheckpointEvent, ErrorEvent, EvalEvent, InterruptedEvent, TrainEvent } from './events';
import { divergenceSettings, isNonFinite, nonFiniteMessage, valueText, type NonFiniteError } from './finite';
import { isCancelled } from '../cancel';
import { trainStep, type AlgorithmState, type StepHooks } from './step';
import { now } from '../clock';
import { evalEvent, evalJobs, threadedEvalEvent, validationEvent } from './evaluation';
import type { TrainOptions } from './options';
import { counted } from '../count-text';

export type { TrainOptions } from './options';

/**
 * Runs `run` until it finishes, yielding an `interrupted` event each time it is cancelled at a safe point (after
 * `undo` put back what it changed); the consumer's next pull retries it. Returns `run`'s result.
 */
async function* retryCancelled<T>(
  step: number,
  phase: InterruptedEvent['phase'],
  run: () => Promise<T>,
  undo?: () => void,
): AsyncGenerator<InterruptedEvent, T, undefined> {
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

/**
 * Train per `config` (validated here; throws ConfigError naming bad fields). Yields start, eval (step 0), then per
 * step: step, trajectories, and eval every `evalEvery` steps and at the last step; finally done. A step whose update
 * meets a NaN or ±Infinity (core/train/finite.ts) is not kept: the run ends with an `error` event instead of done.
 * Disposes every tensor it made when the generator finishes or is closed early.
 */
export async function* train(config: Partial<RunConfig>, opts: TrainOptions): AsyncGenerator<TrainEvent> {
  const cfg = parseRunConfig(config);
  const spec = getEnvSpec(cfg.env);
  const root = new Rng(cfg.seed);
  const tok = buildTokenizer(spec);
  const resume = checkedResume(cfg, opts);
  const policy = startingPolicy(cfg, opts, tok, root, resume);
  const paramCount = countParams(policy.cfg);
  const ref = referencePolicy(policy, resume);
  const optimizer = tf.train.adam(cfg.learningRate, cfg.adamBeta1, cfg.adamBeta2, cfg.adamEps);
  const t0 = now();
  try {
    const run = await setupRun({ cfg, opts, spec, root, policy, ref, optimizer, t0 }, resume);
    yield {
      event: 'start',
      config: cfg,
      backend: opts.backend,
      params: paramCount,
      vocabSize: tok.size,
      envVersions: run.envVersions,
      ...(resume ? { resumedFrom: resume.step } : {}),
    };
    freezeStepZeroSkill(run);
    yield* initialEval(run);
    for (let step = run.resumedFrom + 1; step <= cfg.steps; step++) {
      if (opts.signal?.aborted) return yield* flushEval(run);
      // A value turned non-finite: the step was not kept and the run ends at its error event (no done).
      if ((yield* trainingStep(run, step)) === 'stopped') return;
    }
    yield* flushEval(run);
    const { undoneSteps, shrunkSteps, envVersions } = run;
    yield { event: 'done', steps: cfg.steps, elapsedMs: now() - t0, undoneSteps, shrunkSteps, envVersions };
  } finally {
    optimizer.dispose();
    tf.dispose(Object.values(ref));
    tf.dispose(Object.values(policy.params));
  }
}

/** What `train` has built before its algorithm: the inputs, the live and reference policies and the optimizer. */
interface RunBase {
  cfg: RunConfig;
  opts: TrainOptions;
  spec: EnvSpec;
  root: Rng;
  policy: PolicyHandle;
  /** The frozen reference policy (the initial weights). */
  ref: Params;
  optimizer: tf.AdamOptimizer;
  /** Wall-clock start of the run in ms (`now()`). */
  t0: number;
}

/** One run of `train` across its phases: what `RunBase` holds, the algorithm, the best evaluation and counters. */
interface TrainRun extends RunBase {
  algo: RegisteredAlgorithm;
  method: AlgorithmRun;
  /** The algorithm as the steps and evaluations see it. */
  skill: AlgorithmState;
  /** The algorithm as the deferred step-0 evaluation sees it (`skill`, or an instance frozen before step 1). */
  skill0: AlgorithmState;
  best: BestEval;
  envVersions: Record<string, string>;
  shapes: Map<string, number[]>;
  hooks: StepHooks;
  /** Whether the run continues from a checkpoint, and the step it continues from (0 for a fresh run). */
  resumed: boolean;
  resumedFrom: number;
  /** Evaluate step 0 after step 1 (`initialEvalAfterFirstStep`). */
  deferEval0: boolean;
  /** Evaluation in other threads (none when the run can be cancelled). */
  evaluator: Evaluator | undefined;
  /** An evaluation started in other threads after a step, yielded before the next step's events. */
  pendingEval: Promise<EvalEvent> | null;
  /** The reference policy's values: the resumed state's, else read at the first checkpoint. */
  refValues: Map<string, Float32Array> | null;
  /** Steps the max-step-KL guard undid, and steps it shrank (counted from the resumed checkpoint's). */
  undoneSteps: number;
  shrunkSteps: number;
  /** The step of the last checkpoint yielded, or resumed from; null when none. */
  lastCheckpoint: number | null;
}

/**
 * The checkpoint `opts.resume` continues from, checked against `cfg`; null for a fresh run.
 * @throws Error when the checkpoint is of another seed or already at the last step, or when a fresh run asks for
 *   base weights that were not passed.
 */
function checkedResume(cfg: RunConfig, opts: TrainOptions): TrainState | null {
  if (!opts.resume) {
    if (!opts.initWeights && cfg.init === 'base')
      throw new Error(
        "train: config.init is 'base' but no base weights were passed (opts.initWeights); load the shipped " +
          "base policy first, or set init to 'scratch'",
      );
    return null;
  }
  const resume = decodeTrainState(opts.resume.state);
  if (resume.seed !== cfg.seed)
    throw new Error(
      `train: the checkpoint is of seed ${resume.seed}, the config's seed is ${cfg.seed}; resume with ` +
        `the run's own config`,
    );
  if (resume.step >= cfg.steps)
    throw new Error(
      `train: the checkpoint is at step ${resume.step} and the run has ${counted(cfg.steps, 'step')}; nothing to ` +
        `resume (raise steps to continue)`,
    );
  return resume;
}

/**
 * The policy training starts from: the checkpoint's or the initial weights, else a fresh init from the `init` stream.
 * @throws Error (after disposing the loaded weights) when their model size is not the config's.
 */
function startingPolicy(
  cfg: RunConfig,
  opts: TrainOptions,
  tok: Tokenizer,
  root: Rng,
  resume: TrainState | null,
): PolicyHandle {
  const startBytes = opts.resume?.weights ?? opts.initWeights;
  const policy = startBytes ? loadPolicy(startBytes, tok) : createPolicy(cfg.model, tok, root.fork('init'));
  if ('size' in policy && policy.size !== cfg.model) {
    tf.dispose(Object.values(policy.params));
    throw new Error(
      `${resume ? 'checkpoint' : 'initial'} weights are model size ${policy.size} but the config asks for ` +
        `${cfg.model}; set model to ${policy.size}`,
    );
  }
  return policy;
}

/**
 * The frozen reference policy: the resumed checkpoint's, else a copy of `policy`'s weights.
 * @throws Error (after disposing `policy`'s weights) on a corrupt or foreign checkpoint.
 */
function referencePolicy(policy: PolicyHandle, resume: TrainState | null): Params {
  try {
    return resume ? referenceFrom(resume, policy.params) : cloneFrozen(policy.params);
  } catch (e) {
    tf.dispose(Object.values(policy.params));
    throw e;
  }
}

/** The run's instance of `algo` for `cfg`, with the analyzer and the algorithm's extra inputs of `opts`. */
function createMethod(algo: RegisteredAlgorithm, cfg: RunConfig, spec: EnvSpec, opts: TrainOptions): AlgorithmRun {
  return algo.create({
    ...opts.algorithmInit,
    cfg,
    env: spec.name,
    analyzer: opts.analyzer,
    analyzerApiKey: opts.analyzerApiKey,
  });
}

/**
 * Setup: the algorithm's instance and, when resuming, its state, the Adam state and the best evaluation put back;
 * then hands the live policy to `onPolicy`.
 * @throws Error when the checkpoint's algorithm state does not fit the config's algorithm.
 */
async function setupRun(base: RunBase, resume: TrainState | null): Promise<TrainRun> {
  const { cfg, opts, spec, policy } = base;
  const algo = getAlgorithm(cfg.algo);
  const method = createMethod(algo, cfg, spec, opts);
  const skill = { algo: method, estimator: algo.outcomeEstimator };
  const best = new BestEval();
  if (resume) await restoreRun(base, resume, method, best);
  opts.onPolicy?.(policy);
  return {
    ...base,
    algo,
    method,
    skill,
    skill0: skill,
    best,
    envVersions: { [spec.name]: spec.version },
    shapes: new Map(Object.entries(policy.params).map(([k, v]) => [k, v.shape])),
    hooks: { cancel: opts.cancel, onProgress: opts.onProgress, detail: !!opts.onStepDetail },
    resumed: resume !== null,
    resumedFrom: resume?.step ?? 0,
    deferEval0: cfg.evalEvery > 0 && !resume && !!opts.initialEvalAfterFirstStep,
    evaluator: opts.cancel ? undefined : opts.evaluator,
    pendingEval: null,
    refValues: resume?.reference ?? null,
    undoneSteps: resume?.undoneSteps ?? 0,
    shrunkSteps: resume?.shrunkSteps ?? 0,
    lastCheckpoint: resume?.step ?? null,
  };
}

/**
 * Resume: puts the checkpoint's algorithm state, Adam state and best evaluation back.
 * @throws Error when the checkpoint holds algorithm state and `method` keeps none, or the other way round.
 */
async function restoreRun(base: RunBase, resume: TrainState, method: AlgorithmRun, best: BestEval): Promise<void> {
  const { cfg } = base;
  if (resume.algoState !== null) {
    if (!method.loadState)
      throw new Error(
        `train: the checkpoint holds algorithm state but ${cfg.algo} keeps none; resume with the ` +
          `run's own algorithm`,
      );
    method.loadState(resume.algoState);
  } else if (method.saveState)
    throw new Error(
      `train: ${cfg.algo} keeps state across steps but the checkpoint holds none; resume with the ` +
        `run's own algorithm`,
    );
  await restoreAdam(base.optimizer, base.policy.params, resume.adam);
  if (resume.best)
    Object.assign(best, { step: resume.best.step, score: resume.best.score, splits: { ...resume.best.splits } });
}

/**
 * A deferred step-0 evaluation acts as the policy did before step 1: an algorithm whose episode skill depends on
 * state (Skill-GRPO's memory) gets a second instance frozen at that state, in `run.skill0`.
 */
function freezeStepZeroSkill(run: TrainRun): void {
  const { method } = run;
  if (!(run.deferEval0 && method.episodeSkill && method.saveState)) return;
  const m0 = createMethod(run.algo, run.cfg, run.spec, run.opts);
  m0.loadState?.(method.saveState());
  run.skill0 = { algo: m0, estimator: run.algo.outcomeEstimator };
}

/**
 * Starts evaluating `p` as at `step` in other threads; the weights and skills are read before this returns, so
 * training can go on. The result is wrapped so that awaiting this does not await the evaluation.
 */
async function startEval(
  run: TrainRun,
  p: PolicyHandle,
  step: number,
  s: AlgorithmState,
): Promise<{ ev: Promise<EvalEvent> }> {
  const job = await evalJobs(p, run.spec, run.cfg, step, s, run.envVersions);
  const ev = threadedEvalEvent(job, run.evaluator!);
  // a failure surfaces where it is awaited; none is left unhandled if the run stops first
  ev.catch(() => undefined);
  return { ev };
}

/** Waits for the evaluation running in other threads, if any, offers it to the best and yields it. */
async function* flushEval(run: TrainRun): AsyncGenerator<EvalEvent> {
  if (!run.pendingEval) return;
  const ev = await run.pendingEval;
  run.pendingEval = null;
  run.best.offer(ev);
  yield ev;
}

/** Evaluates `p` as at `step` in this thread (retried when cancelled), offers it to the best and yields it. */
async function* evalHere(
  run: TrainRun,
  p: PolicyHandle,
  step: number,
  s: AlgorithmState,
): AsyncGenerator<TrainEvent, void, undefined> {
  const { spec, cfg, root, hooks } = run;
  const ev = yield* retryCancelled(step, 'eval', () => evalEvent(p, spec, cfg, root, step, s, hooks));
  run.best.offer(ev);
  yield ev;
}

/** The step-0 evaluation of a fresh run, unless there are no evaluations or it is deferred after step 1. */
async function* initialEval(run: TrainRun): AsyncGenerator<TrainEvent, void, undefined> {
  if (!(run.cfg.evalEvery > 0 && !run.resumed && !run.deferEval0)) return;
  if (run.evaluator) {
    run.pendingEval = (await startEval(run, run.policy, 0, run.skill)).ev;
    if (run.opts.evalOverlap === false) yield* flushEval(run);
  } else yield* evalHere(run, run.policy, 0, run.skill);
}

/**
 * One step of the loop: the training step (redone whole when cancelled, the algorithm's state put back), its timing
 * fields, the events, then the deferred step-0 evaluation, the step's evaluation, validation and checkpoint as due.
 * Returns 'stopped' after yielding the `error` event of a step that met a non-finite value (nothing else of the step
 * is yielded; the algorithm's state is put back when it keeps one), else 'more'.
 */
async function* trainingStep(run: TrainRun, step: number): AsyncGenerator<TrainEvent, 'more' | 'stopped', undefined> {
  const { cfg, opts, method } = run;
  // A cut step may have changed the algorithm's state (Skill-GRPO's memory): keep it to put back.
  const algoState = opts.cancel && method.saveState ? method.saveState() : null;
  let ts = now();
  let result: Awaited<ReturnType<typeof trainStep>>;
  try {
    result = yield* retryCancelled(
      step,
      'step',
      () => {
        ts = now();
        const { policy, ref, optimizer, spec, root, skill, hooks } = run;
        return trainStep(policy, ref, optimizer, spec, cfg, root, step, skill, opts.profile ?? false, hooks);
      },
      () => algoState !== null && method.loadState?.(algoState),
    );
  } catch (e) {
    if (!isNonFinite(e)) throw e;
    if (algoState !== null) method.loadState?.(algoState);
    yield* flushEval(run);
    yield errorEvent(run, step, e);
    return 'stopped';
  }
  const { event, group, tokens, detail } = result;
  event.stepMs = now() - ts;
  event.elapsedMs = now() - run.t0;
  event.tokensPerSecond = (tokens * 1000) / Math.max(event.stepMs, 1e-3);
  event.numTensors = tf.memory().numTensors;
  if (event.rolledBack) run.undoneSteps++;
  else if (event.stepScale < 1) run.shrunkSteps++;
  if (detail) opts.onStepDetail?.(detail);
  yield* flushEval(run);
  yield event;
  yield { event: 'trajectories', step, group };
  if (run.deferEval0 && step === run.resumedFrom + 1) yield* deferredStepZeroEval(run);
  const checkpointDue =
    opts.checkpoints && cfg.checkpointEvery > 0 && (step % cfg.checkpointEvery === 0 || step === cfg.steps);
  if (cfg.evalEvery > 0 && (step % cfg.evalEvery === 0 || step === cfg.steps)) {
    if (run.evaluator) {
      run.pendingEval = (await startEval(run, run.policy, step, run.skill)).ev;
      // Overlap with the next step; a checkpoint (it records the best evaluation) or the run's end waits for it.
      if (checkpointDue || step === cfg.steps || opts.evalOverlap === false) yield* flushEval(run);
    } else yield* evalHere(run, run.policy, step, run.skill);
  }
  if (checkpointDue) yield* validationAndCheckpoint(run, step);
  return 'more';
}

/** The `error` event of `step`, stopped by the non-finite value `e`: the settings to blame and the last checkpoint. */
function errorEvent(run: TrainRun, step: number, e: NonFiniteError): ErrorEvent {
  const settings = divergenceSettings(run.cfg);
  return {
    event: 'error',
    step,
    quantity: e.quantity,
    value: valueText(e.value),
    settings,
    lastCheckpoint: run.lastCheckpoint,
    message: nonFiniteMessage(step, e, settings),
  };
}

/** The deferred step-0 evaluation, yielded after step 1's events. */
async function* deferredStepZeroEval(run: TrainRun): AsyncGenerator<TrainEvent, void, undefined> {
  // The reference policy is a frozen copy of the initial weights: the same numbers as evaluating before step 1.
  const initial = { ...run.policy, params: run.ref };
  if (run.evaluator) {
    const ev = await (await startEval(run, initial, 0, run.skill0)).ev;
    run.best.offer(ev);
    yield ev;
  } else yield* evalHere(run, initial, 0, run.skill0);
}

/** At a checkpoint step: the validation (with val tasks), then the checkpoint event. */
async function* validationAndCheckpoint(run: TrainRun, step: number): AsyncGenerator<TrainEvent, void, undefined> {
  if (run.cfg.valTasks > 0) {
    const v = await validationEvent(run.policy, run.spec, run.cfg, run.root, step, run.skill);
    // An algorithm that follows the policy's validation (Agentic-OPD re-selects its teacher) hears of it.
    run.method.onValidation?.(new Set(v.passRates.flatMap((r, i) => (r >= SOLVED_AT ? [i] : []))));
    yield v;
  }
  yield await checkpointEvent(run, step);
  run.lastCheckpoint = step;
}

/** The checkpoint at `step`: the weights and everything a continuation needs (core/train/checkpoint.ts). */
async function checkpointEvent(run: TrainRun, step: number): Promise<CheckpointEvent> {
  const { cfg, policy, envVersions, best } = run;
  run.refValues ??= new Map(
    await Promise.all(Object.entries(run.ref).map(async ([k, v]) => [k, (await v.data()) as Float32Array] as const)),
  );
  const weights = await savePolicy(policy, cfg.model, envVersions, {
    kind: 'checkpoint',
    step: String(step),
    seed: String(cfg.seed),
    historyTurns: String(cfg.historyTurns),
  });
  const state = encodeTrainState(
    {
      step,
      seed: cfg.seed,
      envVersions,
      adam: await captureAdam(run.optimizer, policy.params),
      reference: run.refValues,
      algoState: run.method.saveState ? run.method.saveState() : null,
      best: best.step >= 0 ? { step: best.step, score: best.score, splits: { ...best.splits } } : null,
      undoneSteps: run.undoneSteps,
      shrunkSteps: run.shrunkSteps,
    },
    run.shapes,
  );
  return { event: 'checkpoint', step, weights, state };
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
      if (!data || data.length !== v.size)
        throw new Error(
          `checkpoint state: reference/${k} has ${data ? counted(data.length, 'value') : 'no values'}, ` +
            `expected ${v.size}`,
        );
      out[k] = tf.keep(tf.tensor(data, v.shape, 'float32'));
    }
  } catch (e) {
    tf.dispose(Object.values(out));
    throw e;
  }
  return out;
}
