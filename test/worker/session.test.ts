/**
 * TrainingSession drives the trainer generator: Step pulls exactly one update with its trailing events,
 * Pause stops between updates, a new config discards the old generator (its `finally` runs). It hands out the
 * live policy between updates (also after `done`) and refuses once it is released.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, type RunConfig } from '../../src/core/run/config';
import type { TrainEvent } from '../../src/core/train/events';
import type { PolicyHandle } from '../../src/core/model/policy';
import { TrainingSession, evalDueAfter, type TrainFn } from '../../src/worker/session';

/** A stand-in policy: one "tensor" whose `isDisposed` the fake trainer sets in its `finally`. */
type FakePolicy = { params: { w: { isDisposed: boolean } } };

/**
 * A stand-in trainer with the real one's event order; records how far it was pulled, whether it was closed,
 * the initial weights it got, and its policy (handed out through `onPolicy`, disposed in `finally`).
 */
function fakeTrainer(failAtStep = 0, nanAtStep = 0) {
  const log = {
    pulledSteps: 0,
    closed: 0,
    initWeights: [] as (Uint8Array | undefined)[],
    policies: [] as FakePolicy[],
  };
  const trainFn: TrainFn = async function* (config, opts) {
    const policy: FakePolicy = { params: { w: { isDisposed: false } } };
    log.policies.push(policy);
    log.initWeights.push(opts.initWeights);
    opts.onPolicy?.(policy as unknown as PolicyHandle);
    try {
      yield { event: 'start', config, backend: opts.backend, params: 1, vocabSize: 1 } as TrainEvent;
      if (config.evalEvery > 0) yield { event: 'eval', step: 0, splits: {}, evalMs: 0 };
      for (let step = 1; step <= config.steps; step++) {
        if (opts.signal?.aborted) return;
        log.pulledSteps = step;
        if (step === failAtStep) throw new Error('boom');
        if (step === nanAtStep) {
          yield nanEvent(step);
          return;
        }
        yield { event: 'step', step } as TrainEvent;
        yield { event: 'trajectories', step, group: [] };
        if (evalDueAfter(config, step)) yield { event: 'eval', step, splits: {}, evalMs: 0 };
        await new Promise((r) => setTimeout(r, 1));
      }
      yield { event: 'done', steps: config.steps, elapsedMs: 0, undoneSteps: 0, shrunkSteps: 0, envVersions: {} };
    } finally {
      policy.params.w.isDisposed = true;
      log.closed++;
    }
  };
  return { log, trainFn };
}

/** The trainer's `error` event of a run stopped by a non-finite gradient norm at `step` (core/train/finite.ts). */
function nanEvent(step: number): TrainEvent {
  return {
    event: 'error',
    step,
    quantity: 'gradNorm',
    value: 'NaN',
    settings: { learningRate: 1, klBeta: 10, maxGradNorm: 0, entropyCoef: 0 },
    lastCheckpoint: null,
    message: `step ${step}: the gradient norm is NaN; the run stopped`,
  };
}

const small: Partial<RunConfig> = { steps: 5, evalEvery: 2, tasksPerStep: 1, groupSize: 2, miniBatches: 1 };

describe('TrainingSession', () => {
  it('stepOnce pulls one update and exactly its trailing events', async () => {
    const { log, trainFn } = fakeTrainer();
    const s = new TrainingSession(trainFn, () => 'cpu');
    await s.configure(small);
    const events: string[] = [];
    const sink = (e: TrainEvent) => events.push(`${e.event}${'step' in e ? e.step : ''}`);
    expect(await s.stepOnce(sink)).toBe('paused');
    expect(events).toEqual(['start', 'eval0', 'step1', 'trajectories1']);
    expect(await s.stepOnce(sink)).toBe('paused');
    expect(events.slice(4)).toEqual(['step2', 'trajectories2', 'eval2']);
    expect(log.pulledSteps).toBe(2);
    expect(await s.start(sink)).toBe('done');
    expect(events.slice(-4)).toEqual(['step5', 'trajectories5', 'eval5', 'done']);
    expect(s.status).toBe('done');
    expect(await s.stepOnce(sink)).toBe('done');
  });

  it('pause stops a running start between updates', async () => {
    const { log, trainFn } = fakeTrainer();
    const s = new TrainingSession(trainFn, () => 'cpu');
    await s.configure({ ...small, steps: 1000 });
    let steps = 0;
    const running = s.start((e) => {
      if (e.event === 'step' && ++steps === 3) s.pause();
    });
    expect(s.status).toBe('running');
    expect(await running).toBe('paused');
    expect(log.pulledSteps).toBe(3);
    expect(s.status).toBe('paused');
  });

  it('configure validates, and discards the running generator', async () => {
    const { log, trainFn } = fakeTrainer();
    const s = new TrainingSession(trainFn, () => 'cpu');
    await expect(s.configure({ steps: 0 })).rejects.toBeInstanceOf(ConfigError);
    await s.configure(small);
    await s.stepOnce(() => undefined);
    await s.configure(small);
    expect(log.closed).toBe(1);
    expect(s.status).toBe('idle');
    const events: string[] = [];
    await s.stepOnce((e) => events.push(e.event));
    expect(events[0]).toBe('start');
  });

  it('refuses a second driver while one runs', async () => {
    const { trainFn } = fakeTrainer();
    const s = new TrainingSession(trainFn, () => 'cpu');
    await s.configure({ ...small, steps: 50 });
    const first = s.start(() => undefined);
    await expect(s.stepOnce(() => undefined)).rejects.toThrow(/already running/);
    s.pause();
    await first;
  });
});

describe('TrainingSession.withPolicy', () => {
  const read = (s: TrainingSession) =>
    s.withPolicy(async ({ policy, step }) => ({ policy: policy as unknown as FakePolicy, step }));

  it('refuses before a run exists, hands out the live policy between updates and after done', async () => {
    const { log, trainFn } = fakeTrainer();
    const s = new TrainingSession(trainFn, () => 'cpu');
    await expect(read(s)).rejects.toThrow(/no run is configured/);
    await s.configure(small);
    await expect(read(s)).rejects.toThrow(/not started yet/);
    await s.stepOnce(() => undefined);
    expect(await read(s)).toEqual({ policy: log.policies[0], step: 1 });

    const running = s.start(() => undefined);
    await expect(read(s)).rejects.toThrow(/training is running/);
    expect(await running).toBe('done');
    // Done, but the generator is kept suspended at `done`: the policy is still alive.
    const after = await read(s);
    expect(after.step).toBe(5);
    expect(after.policy.params.w.isDisposed).toBe(false);
    expect(log.closed).toBe(0);

    // The next configure finishes the generator: the policy is disposed and no longer handed out.
    await s.configure(small);
    expect(log.closed).toBe(1);
    expect(log.policies[0].params.w.isDisposed).toBe(true);
    await expect(read(s)).rejects.toThrow(/not started yet/);
  });

  it('refuses after the run failed (its policy was released)', async () => {
    const { trainFn } = fakeTrainer(2);
    const s = new TrainingSession(trainFn, () => 'cpu');
    await s.configure(small);
    await s.stepOnce(() => undefined);
    await expect(s.stepOnce(() => undefined)).rejects.toThrow(/boom/);
    expect(s.status).toBe('error');
    await expect(read(s)).rejects.toThrow(/released/);
  });

  it("a trainer's error event (a non-finite value) ends the call with its message: status error, no done", async () => {
    const { log, trainFn } = fakeTrainer(0, 3);
    const s = new TrainingSession(trainFn, () => 'cpu');
    await s.configure(small);
    const events: string[] = [];
    const sink = (e: TrainEvent) => events.push(`${e.event}${'step' in e ? e.step : ''}`);
    await expect(s.start(sink)).rejects.toThrow('step 3: the gradient norm is NaN; the run stopped');
    expect(s.status).toBe('error');
    expect(events.slice(-3)).toEqual(['trajectories2', 'eval2', 'error3']);
    expect(events).not.toContain('step3');
    expect(events).not.toContain('done');
    expect(log.pulledSteps).toBe(3);
  });

  it('updates and discard wait for a read in progress', async () => {
    const { log, trainFn } = fakeTrainer();
    const s = new TrainingSession(trainFn, () => 'cpu');
    await s.configure(small);
    await s.stepOnce(() => undefined);
    let finish!: () => void;
    const reading = s.withPolicy(
      ({ policy }) => new Promise<boolean>((r) => (finish = () => r(policy.params.w.isDisposed as unknown as boolean))),
    );
    await expect(s.stepOnce(() => undefined)).rejects.toThrow(/being saved/);
    const reconfigured = s.configure(small);
    await new Promise((r) => setTimeout(r, 5));
    expect(log.closed).toBe(0); // discard waits for the read
    finish();
    expect(await reading).toBe(false); // read while alive
    await reconfigured;
    expect(log.closed).toBe(1);
  });

  it('passes initial weights to the next run only', async () => {
    const { log, trainFn } = fakeTrainer();
    const s = new TrainingSession(trainFn, () => 'cpu');
    const bytes = new Uint8Array([1, 2, 3]);
    await s.configure(small, bytes);
    await s.stepOnce(() => undefined);
    await s.configure(small);
    await s.stepOnce(() => undefined);
    expect(log.initWeights).toEqual([bytes, undefined]);
  });
});
