/**
 * Resume of a stored Agentic-OPD distillation (worker/run-resume.ts planResume, worker/distill.ts): a tiny GRPO
 * source run (B 2 × G 4, checkpoints at steps 1–3 with a hand-made solved matrix, as test/cli/agentic-opd.test.ts)
 * is recorded into a run store with IndexedDB's semantics (a Map); a distillation from its checkpoints records its
 * source in run.json; a distillation cut after its step-2 checkpoint and resumed after a "reload" (new PageRuns,
 * teacher pool rebuilt from the stored source run) yields the same step events as an uninterrupted one. With a source
 * checkpoint missing, Resume is refused naming it and what to do, the store untouched (the other refusals:
 * distill-resume-plan.test.ts).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { train } from '../../src/core/train/trainer';
import type { TrainEvent } from '../../src/core/train/events';
import { parseRunConfig, type RunConfig } from '../../src/core/run/config';
import { getEnvSpec } from '../../src/core/envs/registry';
import { buildTokenizer } from '../../src/core/model/policy';
import { CheckpointStore } from '../../src/worker/checkpoints';
import { pageFromRun, planPageDistillation, resumePageDistillation } from '../../src/worker/distill';
import { PageRuns, readMeta, readRecord } from '../../src/worker/runs-library';
import { planResume } from '../../src/worker/run-resume';
import { mapStore } from './map-run-store';
import { loadBaseFiles } from '../../cli/base';
import { useBackend } from '../helpers/backend';

const spec = getEnvSpec('household');
const VERSIONS = { household: spec.version };
let base: Uint8Array;
beforeAll(async () => {
  await useBackend('wasm');
  base = (await loadBaseFiles(spec, 'easy', buildTokenizer(spec))).bytes;
}, 120_000);

const TINY = {
  model: 'nano',
  preset: 'easy',
  tasksPerStep: 2,
  groupSize: 4,
  miniBatches: 2,
  evalEvery: 0,
  valTasks: 6,
  valSamples: 2,
  seed: 3,
} as const;
/** The source run's solved matrix: step 2 solves {0,1,2,3} (the student), step 1 {0,1,4}, step 3 {4,5}. */
const ROWS: Record<number, number[]> = { 1: [1, 0.5, 0, 0, 1, 0], 2: [1, 1, 0.5, 1, 0, 0], 3: [0, 0, 0, 0, 0.5, 1] };
const TIMING = ['tokensPerSecond', 'stepMs', 'elapsedMs', 'phaseMs', 'valMs'];
const steps = (evs: TrainEvent[]) =>
  evs
    .filter((e) => e.event === 'step')
    .map((e) => Object.fromEntries(Object.entries(e).filter(([k]) => !TIMING.includes(k))));

/**
 * Pull `gen` into `runs` (recorded) and, for the source run, into the checkpoint store with the hand-made solved
 * matrix; stop after the checkpoint of step `stopAfter` (a run cut there: the page reloaded).
 */
async function pull(
  gen: AsyncGenerator<TrainEvent>,
  runs: PageRuns,
  o: { ckpts?: CheckpointStore; cfg?: RunConfig; stopAfter?: number } = {},
): Promise<TrainEvent[]> {
  const sink = runs.tap(() => undefined);
  const out: TrainEvent[] = [];
  for await (const e0 of gen) {
    const e = o.ckpts && e0.event === 'validation' ? { ...e0, passRates: ROWS[e0.step] } : e0;
    sink(e);
    if (o.ckpts && e.event === 'validation') o.ckpts.addValidation(e, o.cfg!);
    if (o.ckpts && e.event === 'checkpoint') o.ckpts.addCheckpoint(e.step, e.weights);
    out.push(e);
    if (e.event === 'checkpoint' && e.step === o.stopAfter) break;
  }
  await runs.flush();
  return out;
}

describe('Resume of a stored distillation', () => {
  it(
    'rebuilds the teacher pool from the stored source run: continued step events = an uninterrupted ' +
      "run's; a missing checkpoint is named",
    async () => {
      const { store, files, snapshot } = mapStore();
      const runs = new PageRuns(store, () => 1);
      const srcCfg = parseRunConfig({ ...TINY, steps: 3, checkpointEvery: 1 });
      const ckpts = new CheckpointStore();
      runs.begin({ kind: 'base' });
      await pull(train(srcCfg, { backend: 'wasm', initWeights: base, checkpoints: true }), runs, {
        ckpts,
        cfg: srcCfg,
      });
      const srcId = runs.activeId!;

      const dCfg = parseRunConfig({ ...TINY, algo: 'agentic-opd', steps: 4, checkpointEvery: 2 });
      const stage = async (stopAfter?: number) => {
        const d = planPageDistillation(ckpts, dCfg, () => undefined);
        expect([d.studentStep, d.pool.ids]).toEqual([2, [1, 3]]);
        runs.begin(
          { kind: 'checkpoint', name: 'distillation student (step 2)' },
          await pageFromRun(srcId, ckpts.valRecord()!, d),
        );
        const evs = await pull(
          train(d.config, {
            backend: 'wasm',
            initWeights: d.initWeights,
            checkpoints: true,
            algorithmInit: d.algorithmInit,
          }),
          runs,
          { stopAfter },
        );
        d.pool.dispose();
        return { id: runs.activeId!, evs };
      };
      const straight = await stage();
      const cut = await stage(2);
      expect(steps(cut.evs).map((e) => e.step)).toEqual([1, 2]);
      expect(steps(cut.evs)).toEqual(steps(straight.evs).slice(0, 2));
      const { run } = await readRecord(store, await readMeta(store, cut.id));
      expect(run.fromRun).toMatchObject({
        dir: srcId,
        student: { step: 2, file: 'ckpt-2.safetensors' },
        teachers: [{ step: 1 }, { step: 3 }],
      });

      // A teacher's checkpoint missing from the source run: refused, naming the step, the run and what to do; nothing
      // written.
      const f3 = files.get(`${srcId}/ckpt-3.safetensors`)!;
      files.delete(`${srcId}/ckpt-3.safetensors`);
      const noCkpt = snapshot();
      await expect(planResume(store, cut.id, VERSIONS)).rejects.toThrow(
        new RegExp(
          'is an Agentic-OPD distillation and cannot resume without its teachers: ' +
            'the checkpoint of step 3 of the source run "grpo household\\/easy seed 3 · .*" \\(a teacher\\) ' +
            'is missing from storage .*; start a new distillation instead .*; the stored runs are unchanged',
        ),
      );
      expect(snapshot()).toBe(noCkpt);
      files.set(`${srcId}/ckpt-3.safetensors`, f3);

      // A reload: a new PageRuns over the same store; the pool comes from the stored source run only.
      const before = snapshot();
      const plan = await planResume(store, cut.id, VERSIONS);
      expect(snapshot()).toBe(before);
      expect(plan.fromStep).toBe(2);
      const d = resumePageDistillation(
        plan.distill!.fromRun,
        plan.distill!.val,
        plan.distill!.sources,
        plan.config,
        () => undefined,
      );
      const again = new PageRuns(store, () => 2);
      again.resume(plan);
      const rest = await pull(
        train(plan.config, {
          backend: 'wasm',
          checkpoints: true,
          resume: { weights: plan.weights, state: plan.state },
          algorithmInit: d.algorithmInit,
        }),
        again,
      );
      d.pool.dispose();
      expect(rest[0]).toMatchObject({ event: 'start', resumedFrom: 2 });
      expect(steps(rest)).toEqual(steps(straight.evs).slice(2));
      expect(steps(straight.evs).some((e) => (e.ladShare as number) > 0)).toBe(true);
      // The stored record of the resumed run holds the uninterrupted run's step events.
      const stored = (await readRecord(store, await readMeta(store, cut.id))).events
        .filter((e) => e.event === 'step')
        .map((e) => e.step);
      expect(stored).toEqual([1, 2, 3, 4]);
    },
    900_000,
  );
});
