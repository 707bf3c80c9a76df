/**
 * Agentic-OPD's teacher pool over a GRPO run's checkpoints (Agentic-OPD 2026; docs/references.md#agentic-opd): every
 * checkpoint except the student is a frozen teacher; the validation solved matrix (run record `val.json`) gives each
 * teacher's solved set Q_i. One teacher is resident at a time: asking for another disposes the current one's tensors
 * first.
 */
import * as tf from '../tf';
import type { EnvSpec, TaskRef } from '../envs/types';
import { loadPolicy, type PolicyHandle } from '../model/policy';
import { scoreSamples, type ScoreSample } from '../model/scoring';
import { scoreTopK } from '../model/topk';
import type { Tokenizer } from '../tokenizer/tokenizer';
import { runEpisodes } from '../rollout/runner';
import { Rng } from '../rng';
import type { TeacherPool } from './agentic-opd';
import type { TeacherCheckpoint } from '../run/distill';

export type { TeacherCheckpoint } from '../run/distill';

/** Settings the pool's own teacher rollouts use (the run's: preset, rollout temperature, H, decoding, G). */
export interface TeacherRolloutSettings {
  preset: string;
  temperature: number;
  historyTurns: number;
  maxActionTokens: number;
  decoding: 'admissible' | 'free';
  /** Episodes per teacher pass-rate estimate (the run's G). */
  groupSize: number;
  seed: number;
}

/** A TeacherPool that also frees its resident teacher. */
export interface CheckpointTeacherPool extends TeacherPool {
  /** Dispose the resident teacher's tensors (call when training ends). */
  dispose(): void;
  /** Teacher weights loaded so far (a load per switch of the resident teacher). */
  loads(): number;
  /** The resident teacher's id, or null when none is loaded. */
  resident(): number | null;
  /**
   * Make teacher `id` resident now (what its next use would do). @throws Error when there is no such teacher or its
   * weights fail.
   */
  preload(id: number): void;
}

/**
 * A pool over `teachers` (ids unique; the student excluded by the caller). Validation task types come from
 * `taskTypes` (index = val task id). Weights are validated when first loaded (model/io.ts); a teacher whose weights
 * fail throws that error from `score` or `teacherPassRate`.
 * `teacherPassRate(id, ref)`: the teacher plays `ref` G times at the rollout temperature with the Rng stream
 * `teacher-pass/<id>/<split>/<index>` of the run's seed; returns the success fraction. Cost: G episodes.
 * @throws Error when `teachers` is empty or has a repeated id.
 */
export function checkpointTeacherPool(
  teachers: readonly TeacherCheckpoint[],
  taskTypes: readonly string[],
  spec: EnvSpec,
  tok: Tokenizer,
  s: TeacherRolloutSettings,
): CheckpointTeacherPool {
  if (teachers.length === 0)
    throw new Error(
      'agentic-opd: the teacher pool is empty; the run needs at least two checkpoints (the student and a teacher)',
    );
  const byId = new Map(teachers.map((t) => [t.id, t]));
  if (byId.size !== teachers.length) throw new Error('agentic-opd: two teacher checkpoints share a step');
  let resident: { id: number; policy: PolicyHandle } | null = null,
    loaded = 0;
  const root = new Rng(s.seed);
  const teacher = (id: number): PolicyHandle => {
    const t = byId.get(id);
    if (!t) throw new Error(`agentic-opd: no teacher checkpoint at step ${id}`);
    if (resident?.id === id) return resident.policy;
    if (resident) tf.dispose(Object.values(resident.policy.params));
    resident = null;
    const policy = loadPolicy(t.bytes, tok);
    loaded++;
    resident = { id, policy };
    return policy;
  };
  return {
    ids: [...byId.keys()].sort((a, b) => a - b),
    solved: (id) => byId.get(id)?.solved ?? new Set<number>(),
    taskType: (task) => (task >= 0 && task < taskTypes.length ? taskTypes[task] : undefined),
    async score(id: number, samples: readonly ScoreSample[], temperature: number) {
      const p = teacher(id);
      return (await scoreSamples(p.params, p.cfg, samples, p.freeRow, { temperature })).logp;
    },
    async scoreAt(id: number, samples: readonly ScoreSample[], temperature: number, ids: Int32Array, k: number) {
      const p = teacher(id);
      return (await scoreTopK(p.params, p.cfg, samples, p.freeRow, { temperature, k, ids })).logp;
    },
    async teacherPassRate(id: number, ref: TaskRef) {
      const p = teacher(id);
      const refs = Array.from({ length: s.groupSize }, () => ref);
      const r = await runEpisodes(p, spec, s.preset, refs, {
        decoding: s.decoding,
        temperature: s.temperature,
        historyTurns: s.historyTurns,
        maxActionTokens: s.maxActionTokens,
        rng: root.fork(`teacher-pass/${id}/${ref.split}/${ref.index}`),
      });
      return r.trajectories.filter((t) => t.success).length / refs.length;
    },
    dispose() {
      if (resident) tf.dispose(Object.values(resident.policy.params));
      resident = null;
    },
    loads: () => loaded,
    resident: () => (resident ? resident.id : null),
    preload(id: number) {
      teacher(id);
    },
  };
}
