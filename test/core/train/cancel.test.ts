/**
 * Pausing mid-step (TrainOptions.cancel, core/cancel.ts): a run cut at safe points — in the middle of an update
 * (after one mini-batch was applied), in the middle of a rollout and in the middle of an evaluation — and pulled
 * again yields the same step and eval events as an uninterrupted run (timing fields excluded), for GRPO and for
 * Skill-GRPO (its memory changes during a step, so a cut step must put it back). The step-0 evaluation deferred
 * after step 1 gives the same numbers. No tensor is left behind.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '../../../src/core/tf';
import { train, type TrainOptions } from '../../../src/core/train/trainer';
import type { StepEvent, TrainEvent } from '../../../src/core/train/events';
import type { PhaseProgress } from '../../../src/core/cancel';
import type { StepDetail } from '../../../src/core/train/step-detail';
import { buildTokenizer } from '../../../src/core/model/policy';
import { getEnvSpec } from '../../../src/core/envs/registry';
import { loadBaseFiles } from '../../../cli/base';
import { useBackend } from '../../helpers/backend';

let base: Uint8Array;
beforeAll(async () => {
  await useBackend('wasm');
  const spec = getEnvSpec('household');
  base = (await loadBaseFiles(spec, 'easy', buildTokenizer(spec))).bytes;
});

const tiny = {
  model: 'nano',
  preset: 'easy',
  tasksPerStep: 2,
  groupSize: 2,
  miniBatches: 2,
  steps: 3,
  evalEvery: 2,
  evalEpisodes: 2,
  seed: 1,
} as const;
const TIMING = ['tokensPerSecond', 'stepMs', 'elapsedMs', 'analyzerLatencyMs', 'phaseMs', 'evalMs'];
const strip = (evs: TrainEvent[]) =>
  evs
    .filter((e) => e.event === 'step' || e.event === 'eval')
    .map((e) => {
      const r: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(e)) if (!TIMING.includes(k)) r[k] = v;
      return r;
    });

/**
 * Pulls a run to the end; `cutAt` decides, from each progress report, whether to cancel there (cleared on
 * `interrupted`).
 */
async function run(
  algo: string,
  extra: Partial<TrainOptions> = {},
  cutAt?: (p: PhaseProgress) => boolean,
  cfg: Record<string, unknown> = {},
): Promise<{ events: TrainEvent[]; progress: PhaseProgress[] }> {
  // poll: a macrotask yield at every safe point, as the worker passes (it changes no number).
  const cancel = { aborted: false, poll: () => new Promise<void>((r) => setTimeout(r, 0)) };
  const events: TrainEvent[] = [],
    progress: PhaseProgress[] = [];
  const onProgress = (p: PhaseProgress) => {
    progress.push(p);
    if (cutAt?.(p)) cancel.aborted = true;
  };
  for await (const e of train({ ...tiny, ...cfg, algo } as never, {
    backend: 'wasm',
    initWeights: base,
    cancel,
    onProgress,
    ...extra,
  })) {
    events.push(e);
    if (e.event === 'interrupted') cancel.aborted = false; // "Resume"
  }
  return { events, progress };
}

describe('cancellation at safe points', () => {
  it.each(['grpo', 'skill-grpo'])(
    '%s: cut mid-update, mid-rollout and mid-evaluation, then resumed = uninterrupted',
    async (algo) => {
      const n0 = tf.memory().numTensors;
      // G 4 (as the resume test): non-zero gradients and successes that fill Skill-GRPO's memory within 3 steps.
      const g4 = { groupSize: 4 };
      const straight = await run(algo, {}, undefined, g4);
      // Cut the update of the first step with non-zero gradients (so putting its applied mini-batch back matters).
      const u = straight.events.find((e): e is StepEvent => e.event === 'step' && e.gradNorm > 0)?.step;
      expect(u).toBeDefined();
      const cuts: string[] = [];
      const cut = (p: PhaseProgress) => {
        const key = `${p.phase}/${p.step}`;
        // Once per place: the first mini-batch of step u, the first rollout turn of step 3, the first turn of the
        // step-2 evaluation.
        const hit =
          (p.phase === 'update' && p.step === u && p.done === 1) ||
          (p.phase === 'rollout' && p.step === 3) ||
          (p.phase === 'eval' && p.step === 2);
        if (!hit || cuts.includes(key)) return false;
        cuts.push(key);
        return true;
      };
      const resumed = await run(algo, {}, cut, g4);
      expect([...cuts].sort()).toEqual(['eval/2', 'rollout/3', `update/${u}`]);
      const cutEvents = resumed.events
        .filter((e) => e.event === 'interrupted')
        .map((e) => `${e.event === 'interrupted' ? e.phase : ''}/${e.step}`);
      expect(cutEvents.sort()).toEqual(['eval/2', 'step/3', `step/${u}`].sort());
      expect(strip(resumed.events)).toEqual(strip(straight.events));
      expect(strip(straight.events).length).toBe(3 + 3); // steps 1–3, evaluations at 0, 2, 3
      expect(tf.memory().numTensors).toBe(n0);
    },
    300_000,
  );

  it(
    'reports progress: episodes of rollouts and evaluations, mini-batches of updates, fractions ending ' + 'at 1',
    async () => {
      const { progress } = await run('grpo');
      const last = (phase: string, step: number) =>
        progress.filter((p) => p.phase === phase && p.step === step).at(-1)!;
      expect(last('rollout', 1)).toMatchObject({ done: 4, total: 4, unit: 'episodes', fraction: 1 });
      // 2 episodes × 2 splits
      expect(last('eval', 0)).toMatchObject({ done: 4, total: 4, unit: 'episodes', fraction: 1 });
      expect(last('update', 1)).toMatchObject({ done: 2, total: 2, unit: 'mini-batches', fraction: 1 });
      const fr = progress.filter((p) => p.phase === 'rollout' && p.step === 1).map((p) => p.fraction);
      expect(fr.every((f, i) => i === 0 || f >= fr[i - 1])).toBe(true);
    },
    300_000,
  );

  it.each(['grpo', 'skill-grpo'])(
    '%s: the step-0 evaluation deferred after step 1 has the same numbers; step details match the step',
    async (algo) => {
      const n0 = tf.memory().numTensors;
      const straight = await run(algo);
      const details: StepDetail[] = [];
      const deferred = await run(algo, { initialEvalAfterFirstStep: true, onStepDetail: (d) => details.push(d) });
      expect(deferred.events.map((e) => `${e.event}${'step' in e ? e.step : ''}`).slice(0, 5)).toEqual([
        'start',
        'step1',
        'trajectories1',
        'eval0',
        'step2',
      ]);
      const sortEv = (x: Record<string, unknown>[]) =>
        [...x].sort((a, b) => `${a.event}${a.step}`.localeCompare(`${b.event}${b.step}`));
      expect(sortEv(strip(deferred.events))).toEqual(sortEv(strip(straight.events)));
      // Every group of every step, and group 0's per-token A equals the trajectories event's.
      expect(details.map((d) => [d.step, d.groups.length])).toEqual([
        [1, 2],
        [2, 2],
        [3, 2],
      ]);
      const tr = deferred.events.find((e) => e.event === 'trajectories' && e.step === 1)!;
      if (tr.event !== 'trajectories') throw new Error('no trajectories event');
      const g0 = details[0].groups[0];
      const fromEvent = tr.group.flatMap((t) => t.steps.flatMap((s) => s.tokens.map((k) => k.adv)));
      expect(Array.from(g0.tokens.adv)).toEqual(fromEvent);
      expect(Array.from(g0.tokens.logpOld)).toEqual(
        tr.group.flatMap((t) => t.steps.flatMap((s) => s.tokens.map((k) => k.logpOld))),
      );
      expect(g0.trajectories.map((t) => t.turns.length)).toEqual(tr.group.map((t) => t.steps.length));
      expect(g0.trajectories[0].turns.at(-1)!.done).toBe(true);
      expect(details[0].groups[1].tokens.logpRef).toBeNull(); // β = 0 scores the reference on group 0 only
      expect(tf.memory().numTensors).toBe(n0);
    },
    300_000,
  );
});
