/**
 * What Resume of a stored distillation reads (worker/run-resume.ts planResume): the source stored run's solved matrix
 * and checkpoints, checked against the stage's run.json `fromRun`; refusals name the source run or the checkpoint and
 * what to do, and write nothing. Records are made from plain events with well-formed zero nano weights (no training).
 */
import { describe, expect, it } from 'vitest';
import type { TrainEvent } from '../../src/core/train/events';
import { DEFAULT_CONFIG, parseRunConfig } from '../../src/core/run/config';
import { encodeSafetensors } from '../../src/core/model/io';
import { modelConfig } from '../../src/core/model/config';
import { paramShapes } from '../../src/core/model/params';
import { buildTokenizer } from '../../src/core/model/policy';
import { getEnvSpec } from '../../src/core/envs/registry';
import { vocabHash } from '../../src/core/tokenizer/tokenizer';
import { CheckpointStore } from '../../src/worker/checkpoints';
import { pageFromRun, planPageDistillation, resumePageDistillation } from '../../src/worker/distill';
import { PageRuns } from '../../src/worker/runs-library';
import { planResume } from '../../src/worker/run-resume';
import { mapStore } from './map-run-store';
import { getAlgorithm } from '../../src/core/algorithms/registry';

const spec = getEnvSpec('household');
const tok = buildTokenizer(spec);
const VERSIONS = { household: spec.version };
/** Zero nano weights whose first value is `mark` (so each checkpoint's bytes differ). */
function nanoBytes(mark: number): Uint8Array {
  const cfg = modelConfig('nano', tok.size);
  const values = new Map(paramShapes(cfg).map(([n, shape]) => [n, new Float32Array(shape.reduce((a, b) => a * b, 1))]));
  values.values().next().value![0] = mark;
  return encodeSafetensors(cfg, values, {
    format: 'opd-playground',
    modelSize: 'nano',
    vocabSize: String(tok.size),
    vocabHash: vocabHash(tok),
    envVersions: JSON.stringify({ household: spec.version }),
  });
}
const ROWS: Record<number, number[]> = { 1: [1, 0.5, 0, 0, 1, 0], 2: [1, 1, 0.5, 1, 0, 0], 3: [0, 0, 0, 0, 0.5, 1] };
const start = (config: object): TrainEvent =>
  ({
    event: 'start',
    config,
    backend: 'wasm',
    params: 1,
    vocabSize: tok.size,
    envVersions: VERSIONS,
  }) as unknown as TrainEvent;
const step = (s: number): TrainEvent =>
  ({ event: 'step', step: s, successRate: 0, rewardMean: 0, policyLoss: 0 }) as unknown as TrainEvent;

describe('planResume of a distillation', () => {
  it('reads the teachers back from the source run; a changed or deleted source is refused, naming it', async () => {
    const { store, files, snapshot } = mapStore();
    const runs = new PageRuns(store, () => 1);
    const src = parseRunConfig({
      ...DEFAULT_CONFIG,
      model: 'nano',
      seed: 3,
      steps: 3,
      checkpointEvery: 1,
      valTasks: 6,
      valSamples: 2,
    });
    const ckpts = new CheckpointStore();
    runs.begin({ kind: 'base' });
    const sink = runs.tap(() => undefined);
    sink(start(src));
    for (const k of [1, 2, 3]) {
      const v = {
        event: 'validation',
        step: k,
        samples: 2,
        passRates: ROWS[k],
        taskTypes: ROWS[k].map(() => 'pick'),
        successRate: 0,
      } as unknown as TrainEvent;
      const w = nanoBytes(k);
      sink(step(k));
      sink(v);
      sink({ event: 'checkpoint', step: k, weights: w, state: Uint8Array.of(k) } as TrainEvent);
      ckpts.addValidation(v as never, src);
      ckpts.addCheckpoint(k, w);
    }
    await runs.flush();
    const srcId = runs.activeId!;
    const heard: number[] = [];
    const d = planPageDistillation(ckpts, { ...src, steps: 4, checkpointEvery: 2 }, (x) => heard.push(x.round));
    const fromRun = await pageFromRun(srcId, ckpts.valRecord()!, d);
    runs.begin({ kind: 'checkpoint', name: 'distillation student (step 2)' }, fromRun);
    const dsink = runs.tap(() => undefined);
    dsink(start(d.config));
    dsink(step(1));
    dsink(step(2));
    dsink({ event: 'checkpoint', step: 2, weights: nanoBytes(9), state: Uint8Array.of(9) } as TrainEvent);
    await runs.flush();
    // The stage's algorithm as the trainer drives it: round 1 at create, round 2 after a validation; its state then.
    const algo = getAlgorithm('agentic-opd');
    const first = algo.create({ ...d.algorithmInit, cfg: d.config, env: 'household' });
    first.onValidation!(new Set([0, 1, 2, 3, 4]));
    expect(heard).toEqual([1, 2]);
    const saved = first.saveState!();
    d.pool.dispose();
    const id = runs.activeId!;

    const before = snapshot();
    const plan = await planResume(store, id, VERSIONS);
    expect(plan.distill!.fromRun).toEqual(fromRun);
    expect(plan.distill!.sources.map((s) => s.step)).toEqual([2, 1, 3]);
    const resumed: number[] = [];
    const r = resumePageDistillation(
      plan.distill!.fromRun,
      plan.distill!.val,
      plan.distill!.sources,
      plan.config,
      (x) => resumed.push(x.round),
    );
    expect([r.studentStep, r.pool.ids, [...r.algorithmInit.studentSolved]]).toEqual([2, [1, 3], [0, 1, 2, 3]]);
    // Resume creates the algorithm afresh (it reports a round 1) and loads the checkpoint's state (round 2): the
    // Checkpoints view hears only the rounds the resumed run makes (round 3 after its next validation), no stray round
    // 1.
    const again = algo.create({ ...r.algorithmInit, cfg: plan.config, env: 'household' });
    again.loadState!(saved);
    again.onValidation!(new Set([0, 1, 2, 3, 4, 5]));
    expect(resumed).toEqual([3]);
    r.pool.dispose();
    expect(snapshot()).toBe(before);

    const msg = `run "agentic-opd household/easy seed 3 · `;
    // A teacher checkpoint replaced by other bytes, then missing, then the source deleted.
    const f3 = files.get(`${srcId}/ckpt-3.safetensors`)!;
    files.set(`${srcId}/ckpt-3.safetensors`, nanoBytes(7));
    await expect(planResume(store, id, VERSIONS)).rejects.toThrow(
      new RegExp(
        'cannot resume without its teachers: the checkpoint of step 3 of the source run ' +
          '"grpo household\\/easy seed 3 · .*" \\(a teacher\\) differs from the one the distillation began with; ' +
          'start a new distillation instead',
      ),
    );
    files.delete(`${srcId}/ckpt-3.safetensors`);
    const s1 = snapshot();
    await expect(planResume(store, id, VERSIONS)).rejects.toThrow(
      new RegExp(
        'the checkpoint of step 3 of the source run "grpo household\\/easy seed 3 · .*" \\(a teacher\\) ' +
          'is missing from storage \\(deleted, or never stored because storage was full\\); ' +
          'start a new distillation instead \\(Distil in the Checkpoints view .*\\); the stored runs are unchanged',
      ),
    );
    expect(snapshot()).toBe(s1);
    files.set(`${srcId}/ckpt-3.safetensors`, f3);
    await store.delete(srcId);
    const s2 = snapshot();
    const err = await planResume(store, id, VERSIONS).catch((e: Error) => e.message);
    expect(err).toContain(msg);
    expect(err).toContain(
      `is an Agentic-OPD distillation and cannot resume without its teachers: its source run (stored run ` +
        `id ${srcId}, whose checkpoints of steps 2, 1, 3 are the student and the teachers) was deleted; ` +
        `start a new distillation instead`,
    );
    expect(snapshot()).toBe(s2);
  });
});
