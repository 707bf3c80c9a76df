/**
 * The page's distillation plan over the worker's checkpoint store: the best-validation checkpoint is the student, the
 * others the teachers; refusals say what to set in the page; a setting that differs from the checkpoints' run is
 * named. Checkpoints are well-formed nano weights (zeros), so no tensor is made.
 */
import { describe, expect, it } from 'vitest';
import { CheckpointStore } from '../../src/worker/checkpoints';
import { distillationInit, planPageDistillation } from '../../src/worker/distill';
import { DEFAULT_CONFIG, type RunConfig } from '../../src/core/run/config';
import { encodeSafetensors } from '../../src/core/model/io';
import { modelConfig } from '../../src/core/model/config';
import { paramShapes } from '../../src/core/model/params';
import { buildTokenizer } from '../../src/core/model/policy';
import { getEnvSpec } from '../../src/core/envs/registry';
import { vocabHash } from '../../src/core/tokenizer/tokenizer';

const spec = getEnvSpec('household');
const tok = buildTokenizer(spec);
function nanoBytes(): Uint8Array {
  const cfg = modelConfig('nano', tok.size);
  const values = new Map(paramShapes(cfg).map(([n, shape]) => [n, new Float32Array(shape.reduce((a, b) => a * b, 1))]));
  return encodeSafetensors(cfg, values, {
    format: 'opd-playground',
    modelSize: 'nano',
    vocabSize: String(tok.size),
    vocabHash: vocabHash(tok),
    envVersions: JSON.stringify({ household: spec.version }),
  });
}
const CFG: RunConfig = { ...DEFAULT_CONFIG, model: 'nano' };
/** A store with checkpoints at `rows` (step → pass rates over 3 val tasks). */
function storeWith(rows: [number, number[]][]): CheckpointStore {
  const s = new CheckpointStore();
  for (const [step, passRates] of rows) {
    s.addValidation({ step, samples: 2, passRates, taskTypes: passRates.map(() => 'pick') }, CFG);
    s.addCheckpoint(step, nanoBytes());
  }
  return s;
}

describe('planPageDistillation', () => {
  it('student = the best-validation checkpoint, teachers = the others; the config becomes agentic-opd', () => {
    // Step 2 solves {0, 1} (best), step 1 {2}, step 3 {0}: union {0, 1, 2} > 2.
    const d = planPageDistillation(
      storeWith([
        [1, [0, 0, 1]],
        [2, [1, 0.5, 0]],
        [3, [1, 0, 0]],
      ]),
      CFG,
      () => undefined,
    );
    expect([d.studentStep, d.pool.ids, [...d.algorithmInit.studentSolved]]).toEqual([2, [1, 3], [0, 1]]);
    expect(d.config).toEqual({ ...CFG, algo: 'agentic-opd' });
    expect(d.pool.solved(1)).toEqual(new Set([2]));
    d.pool.dispose();
  });

  it('refuses, saying what to set in the page', () => {
    expect(() => planPageDistillation(new CheckpointStore(), CFG, () => undefined)).toThrow(
      new RegExp(
        'this page holds none with a validation yet: ' +
          'set Checkpoint every \\(Advanced\\) .* then press Distil in the Checkpoints view',
      ),
    );
    expect(() => planPageDistillation(storeWith([[1, [1, 0, 0]]]), CFG, () => undefined)).toThrow(
      new RegExp(
        '1 checkpoint has both weights and a validation; ' +
          'Agentic-OPD needs at least two \\(a student and a teacher\\); set Checkpoint every',
      ),
    );
    expect(() =>
      planPageDistillation(
        storeWith([
          [1, [1, 0, 0]],
          [2, [1, 1, 0]],
        ]),
        CFG,
        () => undefined,
      ),
    ).toThrow(
      new RegExp(
        'nothing to distil: the best checkpoint \\(step 2\\) already solves all 2 of 3 val tasks .*; ' +
          'validate on more tasks \\(Validation tasks\\)',
      ),
    );
    expect(() =>
      planPageDistillation(
        storeWith([
          [1, [0, 0, 1]],
          [2, [1, 1, 0]],
        ]),
        { ...CFG, historyTurns: 1 },
        () => undefined,
      ),
    ).toThrow(/made with History \(H\) 3 and the distillation asks for 1: .* set History \(H\) back to 3/);
  });

  it(
    'the start shown in the page names student and teachers; a union stage whose teachers solve no val ' + 'task warns',
    () => {
      const d = planPageDistillation(
        storeWith([
          [1, [0, 0, 1]],
          [2, [1, 0.5, 0]],
          [3, [1, 0, 0]],
        ]),
        CFG,
        () => undefined,
      );
      const label = 'the best-validation checkpoint (step 2), distilled from 2 teacher checkpoints (steps 1, 3)';
      expect(distillationInit(d)).toEqual({ kind: 'checkpoint', label });
      // Teachers 1 and 3 solve val tasks of type pick: the union rule has evidence, no warning.
      expect(distillationInit({ ...d, config: { ...d.config, teacherSelect: 'union' } })).toEqual({
        kind: 'checkpoint',
        label,
      });
      // A pool whose teachers solve nothing (the CLI's warning case).
      const none = {
        ...d.pool,
        ids: d.pool.ids,
        solved: () => new Set<number>(),
        taskType: d.pool.taskType.bind(d.pool),
      };
      expect(
        distillationInit({ ...d, pool: none as typeof d.pool, config: { ...d.config, teacherSelect: 'union' } }),
      ).toEqual({
        kind: 'checkpoint',
        label,
        warning:
          'Warning: union teacher: none of the 2 teacher checkpoints solves a val task of any type, so val ' +
          'tasks get no teacher and training tasks are tried on every teacher by step with no type ' +
          'evidence: likely nothing to distil.',
      });
      d.pool.dispose();
    },
  );
});
