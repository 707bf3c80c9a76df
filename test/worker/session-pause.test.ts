/**
 * TrainingSession with a trainer that stops at safe points (TrainOptions.cancel): Pause during a step ends the
 * running start with an `interrupted` event and status paused; the next start redoes that step; a pause during a
 * step's trailing evaluation makes the next update pull the redone evaluation first; the step-0 evaluation deferred
 * after step 1 is counted among step 1's events; progress reaches the sink with each phase's last report; every step's
 * groups reach the trajectory store.
 */
import { describe, expect, it } from 'vitest';
import type { RunConfig } from '../../src/core/run/config';
import type { TrainEvent } from '../../src/core/train/events';
import type { PhaseProgress } from '../../src/core/cancel';
import { TrainingSession, evalDueAfter, type TrainFn } from '../../src/worker/session';

/**
 * A stand-in trainer with the real one's order when it defers the step-0 evaluation: each step has 3 "turns" (safe
 * points, each a progress report); a cancelled step or evaluation yields `interrupted` and is redone on the next pull.
 * `hold` lets the test pause at a chosen turn.
 */
function fakeTrainer(hold: (phase: string, step: number, turn: number) => Promise<void> | void = () => undefined) {
  const log = { turns: [] as string[] };
  const trainFn: TrainFn = async function* (config, opts) {
    const cancelled = async (phase: 'eval' | 'rollout', step: number) => {
      for (let turn = 1; turn <= 3; turn++) {
        await hold(phase, step, turn);
        if (opts.cancel?.aborted) return true;
        log.turns.push(`${phase}${step}.${turn}`);
        opts.onProgress?.({ phase, step, done: turn, total: 3, unit: 'episodes', fraction: turn / 3 } as PhaseProgress);
      }
      return false;
    };
    async function* evalAt(step: number): AsyncGenerator<TrainEvent> {
      while (await cancelled('eval', step)) yield { event: 'interrupted', step, phase: 'eval' };
      yield { event: 'eval', step, splits: {}, evalMs: 0 };
    }
    yield { event: 'start', config, backend: opts.backend, params: 1, vocabSize: 1 } as TrainEvent;
    const defer = config.evalEvery > 0 && opts.initialEvalAfterFirstStep;
    if (config.evalEvery > 0 && !defer) yield* evalAt(0);
    for (let step = 1; step <= config.steps; step++) {
      while (await cancelled('rollout', step)) yield { event: 'interrupted', step, phase: 'step' };
      opts.onStepDetail?.({ step, groups: [] });
      yield { event: 'step', step } as TrainEvent;
      yield { event: 'trajectories', step, group: [] };
      if (defer && step === 1) yield* evalAt(0);
      if (evalDueAfter(config, step)) yield* evalAt(step);
    }
    yield { event: 'done', steps: config.steps, elapsedMs: 0, undoneSteps: 0, shrunkSteps: 0, envVersions: {} };
  };
  return { log, trainFn };
}

const small: Partial<RunConfig> = { steps: 3, evalEvery: 2, tasksPerStep: 1, groupSize: 2, miniBatches: 1 };
const name = (e: TrainEvent) =>
  `${e.event}${'step' in e ? e.step : ''}${e.event === 'interrupted' ? `/${e.phase}` : ''}`;

describe('TrainingSession pausing at safe points', () => {
  it("stepOnce counts the deferred step-0 evaluation among step 1's events", async () => {
    const { trainFn } = fakeTrainer();
    const s = new TrainingSession(trainFn, () => 'cpu');
    await s.configure(small);
    const events: string[] = [];
    expect(await s.stepOnce((e) => events.push(name(e)))).toBe('paused');
    expect(events).toEqual(['start', 'step1', 'trajectories1', 'eval0']);
    expect(await s.stepOnce((e) => events.push(name(e)))).toBe('paused');
    expect(events.slice(4)).toEqual(['step2', 'trajectories2', 'eval2']);
  });

  it(
    'pause mid-step ends start with interrupted; Resume redoes the step; a cut evaluation is pulled ' +
      'first next time',
    async () => {
      const pauseAt = new Set(['rollout2.2', 'eval2.1']);
      const { log, trainFn } = fakeTrainer((phase, step, turn) => {
        const key = `${phase}${step}.${turn}`;
        if (pauseAt.delete(key)) s.pause();
      });
      const s = new TrainingSession(trainFn, () => 'cpu');
      await s.configure(small);
      const events: string[] = [];
      const progress: PhaseProgress[] = [];
      const sink = (e: TrainEvent) => events.push(name(e));
      expect(await s.start(sink, (p) => progress.push(p))).toBe('paused');
      expect(events).toEqual(['start', 'step1', 'trajectories1', 'eval0', 'interrupted2/step']);
      expect(s.status).toBe('paused');
      expect(log.turns.filter((t) => t.startsWith('rollout2'))).toEqual(['rollout2.1']); // cut before its second turn
      // Each phase's last report (done = total) is always forwarded.
      expect(progress.filter((p) => p.done === p.total).map((p) => `${p.phase}${p.step}`)).toEqual([
        'rollout1',
        'eval0',
      ]);
      expect(await s.start(sink)).toBe('paused');
      expect(events.slice(5)).toEqual(['step2', 'trajectories2', 'interrupted2/eval']);
      expect(await s.stepOnce(sink)).toBe('done'); // step 3 is the last
      // The redone evaluation belongs to step 2; then the next update (step 3) with its events.
      expect(events.slice(8)).toEqual(['eval2', 'step3', 'trajectories3', 'eval3', 'done']);
      expect(s.status).toBe('done');
      expect(s.trajectories.index().steps.map((x) => x.step)).toEqual([1, 2, 3]);
    },
  );

  it('a new configure empties the trajectory store and takes explorerSteps as its window', async () => {
    const { trainFn } = fakeTrainer();
    const s = new TrainingSession(trainFn, () => 'cpu');
    await s.configure({ ...small, explorerSteps: 7 });
    await s.stepOnce(() => undefined);
    expect(s.trajectories.index().steps.length).toBe(1);
    expect(s.trajectories.bounds.recentSteps).toBe(7);
    await s.configure(small);
    expect(s.trajectories.index().steps).toEqual([]);
    expect(s.trajectories.bounds.recentSteps).toBe(20);
  });
});
