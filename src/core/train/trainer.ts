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
import { getAlgorithm } from '../algorithms/registry';
import type { CheckpointEvent, EvalEvent, InterruptedEvent, TrainEvent } from './events';
import { isCancelled } from '../cancel';
import { now, trainStep, type AlgorithmState, type StepHooks } from './step';
import { evalEvent, evalJobs, threadedEvalEvent, validationEvent } from './evaluation';
import type { TrainOptions } from './options';

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
    if (resume.seed !== cfg.seed)
      throw new Error(
        `train: the checkpoint is of seed ${resume.seed}, the config's seed is ${cfg.seed}; resume with ` +
          `the run's own config`,
      );
    if (resume.step >= cfg.steps)
      throw new Error(
        `train: the checkpoint is at step ${resume.step} and the run has ${cfg.steps} steps; nothing to ` +
          `resume (raise steps to continue)`,
      );
  } else if (!opts.initWeights && cfg.init === 'base')
    throw new Error(
      "train: config.init is 'base' but no base weights were passed (opts.initWeights); load the shipped " +
        "base policy first, or set init to 'scratch'",
    );
  const startBytes = opts.resume?.weights ?? opts.initWeights;
  const policy = startBytes ? loadPolicy(startBytes, tok) : createPolicy(cfg.model, tok, root.fork('init'));
  if ('size' in policy && policy.size !== cfg.model) {
    tf.dispose(Object.values(policy.params));
    throw new Error(
      `${resume ? 'checkpoint' : 'initial'} weights are model size ${policy.size} but the config asks for ` +
        `${cfg.model}; set model to ${policy.size}`,
    );
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
  let undoneSteps = resume?.undoneSteps ?? 0,
    shrunkSteps = resume?.shrunkSteps ?? 0;
  try {
    const algo = getAlgorithm(cfg.algo);
    const method = algo.create({
      ...opts.algorithmInit,
      cfg,
      env: spec.name,
      analyzer: opts.analyzer,
      analyzerApiKey: opts.analyzerApiKey,
    });
    const skill = { algo: method, estimator: algo.outcomeEstimator };
    const best = new BestEval();
    if (resume) {
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
      await restoreAdam(optimizer, policy.params, resume.adam);
      if (resume.best)
        Object.assign(best, { step: resume.best.step, score: resume.best.score, splits: { ...resume.best.splits } });
    }
    opts.onPolicy?.(policy);
    const envVersions = { [spec.name]: spec.version };
    const shapes = new Map(Object.entries(policy.params).map(([k, v]) => [k, v.shape]));
    let refValues: Map<string, Float32Array> | null = resume?.reference ?? null;
    const checkpoint = async (step: number): Promise<CheckpointEvent> => {
      refValues ??= new Map(
        await Promise.all(Object.entries(ref).map(async ([k, v]) => [k, (await v.data()) as Float32Array] as const)),
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
          adam: await captureAdam(optimizer, policy.params),
          reference: refValues,
          algoState: method.saveState ? method.saveState() : null,
          best: best.step >= 0 ? { step: best.step, score: best.score, splits: { ...best.splits } } : null,
          undoneSteps,
          shrunkSteps,
        },
        shapes,
      );
      return { event: 'checkpoint', step, weights, state };
    };
    yield {
      event: 'start',
      config: cfg,
      backend: opts.backend,
      params: paramCount,
      vocabSize: tok.size,
      envVersions,
      ...(resume ? { resumedFrom: resume.step } : {}),
    };
    const hooks: StepHooks = { cancel: opts.cancel, onProgress: opts.onProgress, detail: !!opts.onStepDetail };
    const deferEval0 = cfg.evalEvery > 0 && !resume && !!opts.initialEvalAfterFirstStep;
    // A deferred step-0 evaluation acts as the policy did before step 1: an algorithm whose episode skill depends on
    // state (Skill-GRPO's memory) gets a second instance frozen at that state.
    let skill0 = skill;
    if (deferEval0 && method.episodeSkill && method.saveState) {
      const m0 = algo.create({
        ...opts.algorithmInit,
        cfg,
        env: spec.name,
        analyzer: opts.analyzer,
        analyzerApiKey: opts.analyzerApiKey,
      });
      m0.loadState?.(method.saveState());
      skill0 = { algo: m0, estimator: algo.outcomeEstimator };
    }
    // Evaluation in other threads: the evaluation started after a step, yielded before the next step's events.
    const evaluator = opts.cancel ? undefined : opts.evaluator;
    let pendingEval: Promise<EvalEvent> | null = null;
    const startEval = async (p: PolicyHandle, step: number, s: AlgorithmState): Promise<{ ev: Promise<EvalEvent> }> => {
      const job = await evalJobs(p, spec, cfg, step, s, envVersions); // weights and skills read before training goes on
      const ev = threadedEvalEvent(job, evaluator!);
      // a failure surfaces where it is awaited; none is left unhandled if the run stops first
      ev.catch(() => undefined);
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
      const { event, group, tokens, detail } = yield* retryCancelled(
        step,
        'step',
        () => {
          ts = now();
          return trainStep(policy, ref, optimizer, spec, cfg, root, step, skill, opts.profile ?? false, hooks);
        },
        () => algoState !== null && method.loadState?.(algoState),
      );
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
        const ev = evaluator
          ? await (
              await startEval({ ...policy, params: ref }, 0, skill0)
            ).ev
          : yield* retryCancelled(0, 'eval', () =>
              evalEvent({ ...policy, params: ref }, spec, cfg, root, 0, skill0, hooks),
            );
        best.offer(ev);
        yield ev;
      }
      const checkpointDue =
        opts.checkpoints && cfg.checkpointEvery > 0 && (step % cfg.checkpointEvery === 0 || step === cfg.steps);
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
      if (!data || data.length !== v.size)
        throw new Error(`checkpoint state: reference/${k} has ${data?.length ?? 'no'} values, expected ${v.size}`);
      out[k] = tf.keep(tf.tensor(data, v.shape, 'float32'));
    }
  } catch (e) {
    tf.dispose(Object.values(out));
    throw e;
  }
  return out;
}
