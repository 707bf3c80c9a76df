/**
 * TrainingSession drives the trainer generator: Step pulls exactly one update with its trailing events,
 * Pause stops between updates, a new config discards the old generator (its `finally` runs).
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, type RunConfig } from '../../src/core/run/config';
import type { TrainEvent } from '../../src/core/train/events';
import { TrainingSession, evalDueAfter, type TrainFn } from '../../src/worker/session';

/** A stand-in trainer with the real one's event order; records how far it was pulled and whether it was closed. */
function fakeTrainer() {
  const log = { pulledSteps: 0, closed: 0 };
  const trainFn: TrainFn = async function* (config, opts) {
    try {
      yield { event: 'start', config, backend: opts.backend, params: 1, vocabSize: 1 } as TrainEvent;
      if (config.evalEvery > 0) yield { event: 'eval', step: 0, splits: {}, evalMs: 0 };
      for (let step = 1; step <= config.steps; step++) {
        if (opts.signal?.aborted) return;
        log.pulledSteps = step;
        yield { event: 'step', step } as TrainEvent;
        yield { event: 'trajectories', step, group: [] };
        if (evalDueAfter(config, step)) yield { event: 'eval', step, splits: {}, evalMs: 0 };
        await new Promise((r) => setTimeout(r, 1));
      }
      yield { event: 'done', steps: config.steps, elapsedMs: 0 };
    } finally {
      log.closed++;
    }
  };
  return { log, trainFn };
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
