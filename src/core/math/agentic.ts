/**
 * Agentic-OPD (2026; docs/references.md#agentic-opd), HCN / LAD: on-policy distillation from a GRPO run's own discarded
 * checkpoints. The student is the best-validation checkpoint; every other checkpoint is a frozen teacher. This file
 * holds the math as pure functions over plain arrays (no tensors, no model):
 *
 * - HCN, Highest Coverage Next (`hcnSelect`): which teacher to distil from next, by the weighted count of validation
 *   tasks it solves that the student does not, with weights that grow while a teacher is passed over.
 * - LAD, Locality-Aware Distillation (`ladGate`): distil a student rollout only if it failed and its task is one
 *   where the teacher does better.
 * - The distillation advantage A_opd = sg(ℓ_teacher − ℓ_student) per action token of gated rollouts
 *   (`distillAdvantage`), combined as A = opdCoef·A_opd + taskCoef·A_grpo (`combineDistill`), and the top-k reverse
 *   KL over the student's renormalised top-k tokens (`topKReverseKl`).
 * - The ablation selectors: fixed (`fixedTeacher`), random (`randomTeacher`), union (`unionTeachers` on the validation
 *   panel, `unionTeacherOrder` for training tasks off it; `unionTaskTypes`: the types with panel evidence).
 *
 * Conventions: teachers are identified by a finite number (the checkpoint's step); "earlier checkpoint" = smaller
 * id. Validation tasks are identified by a number (their index in the validation panel). Log-probs are natural logs
 * (nats) of the sampling distribution (model/scoring.ts).
 */
import type { Rng } from '../rng';

// ───────────────────────────── HCN
// ─────────────────────────────

/** HCN weights start at 1 (Agentic-OPD 2026, HCN; docs/references.md#agentic-opd). */
export const HCN_INITIAL_WEIGHT = 1;
/** HCN weights are capped at 5 (Agentic-OPD 2026, HCN; docs/references.md#agentic-opd). */
export const HCN_MAX_WEIGHT = 5;

/**
 * HCN's weight state w_i(q), JSON-serialisable for resume: `weights[String(teacherId)][String(task)]`. Only weights
 * that differ from 1 are stored (a missing entry is 1). Treat as immutable: `hcnSelect` returns a new state.
 */
export interface HcnState {
  readonly weights: Readonly<Record<string, Readonly<Record<string, number>>>>;
}

/** The state before the first round: every weight 1. */
export function hcnInitialState(): HcnState {
  return { weights: {} };
}

/** w_i(q) in `state` (1 when absent). */
export function hcnWeight(state: HcnState, teacherId: number, task: number): number {
  const row = Object.hasOwn(state.weights, String(teacherId)) ? state.weights[String(teacherId)] : undefined;
  return row && Object.hasOwn(row, String(task)) ? row[String(task)] : HCN_INITIAL_WEIGHT;
}

/**
 * Check a (possibly deserialised) HCN state: every weight finite and in [1, HCN_MAX_WEIGHT].
 * @throws Error naming the first bad entry.
 */
export function checkHcnState(state: HcnState): void {
  if (!state || typeof state.weights !== 'object' || state.weights === null)
    throw new Error('HCN state: `weights` must be an object');
  for (const [i, row] of Object.entries(state.weights)) {
    if (typeof row !== 'object' || row === null)
      throw new Error(`HCN state: weights of teacher ${i} must be an object`);
    for (const [q, w] of Object.entries(row))
      if (typeof w !== 'number' || !Number.isFinite(w) || w < HCN_INITIAL_WEIGHT || w > HCN_MAX_WEIGHT)
        throw new Error(`HCN state: w_${i}(${q}) = ${w} is outside [${HCN_INITIAL_WEIGHT}, ${HCN_MAX_WEIGHT}]`);
  }
}

/**
 * A checkpoint and the validation tasks it solves (a row of the solved matrix, pass rate above the run's threshold).
 */
export interface CheckpointSolved {
  /** Checkpoint id (its step); smaller = earlier. */
  id: number;
  /** Q_i: validation task ids the checkpoint solves. */
  solved: Iterable<number>;
}

/** One teacher's HCN numbers in a round. */
export interface HcnScore {
  id: number;
  /** score_i = Σ_{q ∈ Q_i ∖ P} w_i(q) (weights before this round's update). */
  score: number;
  /** |Q_i ∖ P|: tasks the teacher could teach (first tie-break). */
  gain: number;
  /** Number of distinct task types among Q_i ∖ P (second tie-break). */
  typeCoverage: number;
}

/** What decided an HCN choice: the first key where the winner beats the runner-up (`only` = a single teacher). */
export type HcnDecider = 'only' | 'score' | 'gain' | 'typeCoverage' | 'id';

/** Result of one HCN round. */
export interface HcnResult {
  /** i*: the chosen teacher. */
  teacherId: number;
  /** Every teacher's numbers, by ascending id. */
  scores: HcnScore[];
  decidedBy: HcnDecider;
  /** True when every Q_i ∖ P is empty (the student already solves the union): i* is picked by the tie-breaks only. */
  nothingToLearn: boolean;
  /** The weights after the round (the input state is not modified). */
  state: HcnState;
}

/** Order of HCN: score, then gain, then type coverage (all descending), then the earlier checkpoint. */
function hcnCompare(a: HcnScore, b: HcnScore): number {
  return b.score - a.score || b.gain - a.gain || b.typeCoverage - a.typeCoverage || a.id - b.id;
}

function toIdSet(xs: Iterable<number>): Set<number> {
  return xs instanceof Set ? (xs as Set<number>) : new Set(xs);
}

function checkIds(teachers: readonly CheckpointSolved[], fn: string): void {
  if (teachers.length === 0)
    throw new Error(`${fn}: no teachers (the pool needs at least one checkpoint besides the student)`);
  const seen = new Set<number>();
  for (const t of teachers) {
    if (!Number.isFinite(t.id)) throw new Error(`${fn}: teacher id ${t.id} is not a finite number`);
    if (seen.has(t.id)) throw new Error(`${fn}: duplicate teacher id ${t.id}`);
    seen.add(t.id);
  }
}

/**
 * One round of HCN, Highest Coverage Next (Agentic-OPD 2026, HCN; docs/references.md#agentic-opd).
 *
 * With P = `studentSolved` (validation tasks the student solved at its latest validation) and Q_i =
 * `teachers[k].solved`: score_i = Σ_{q ∈ Q_i ∖ P} w_i(q). The teacher with the highest score is chosen; ties are
 * broken by the larger gain |Q_i ∖ P|, then by the larger type coverage (the number of distinct task types among Q_i
 * ∖ P, i.e. the number of task types in which the teacher has something to teach), then by the earlier checkpoint
 * (smaller id).
 *
 * Weight update (returned as a new state): w_{i*}(q) = 1 for q ∈ Q_{i*}; for every other teacher j,
 * w_j(q) = min(HCN_MAX_WEIGHT, w_j(q) + 1) for q ∈ Q_j ∖ P (teachers passed over gain weight). Weights of teachers
 * not in `teachers` are kept as they are.
 *
 * @param taskType the task type of every validation task (needed for every q in some Q_i ∖ P).
 * @throws Error when there are no teachers, an id is duplicated or not finite, a task in some Q_i ∖ P has no type,
 *   or `state` holds a weight outside [1, 5].
 */
export function hcnSelect(
  teachers: readonly CheckpointSolved[],
  studentSolved: Iterable<number>,
  taskType: ReadonlyMap<number, string>,
  state: HcnState = hcnInitialState(),
): HcnResult {
  checkIds(teachers, 'hcnSelect');
  checkHcnState(state);
  const P = toIdSet(studentSolved);
  const rows = teachers.map((t) => ({ id: t.id, Q: [...toIdSet(t.solved)].sort((a, b) => a - b) }));
  const scores: HcnScore[] = rows.map(({ id, Q }) => {
    let score = 0,
      gain = 0;
    const types = new Set<string>();
    for (const q of Q) {
      if (P.has(q)) continue;
      const ty = taskType.get(q);
      if (ty === undefined)
        throw new Error(`hcnSelect: validation task ${q} (solved by teacher ${id}) has no task type`);
      score += hcnWeight(state, id, q);
      gain++;
      types.add(ty);
    }
    return { id, score, gain, typeCoverage: types.size };
  });
  const ranked = scores.slice().sort(hcnCompare);
  const best = ranked[0],
    second = ranked[1];
  const decidedBy: HcnDecider = !second
    ? 'only'
    : best.score !== second.score
      ? 'score'
      : best.gain !== second.gain
        ? 'gain'
        : best.typeCoverage !== second.typeCoverage
          ? 'typeCoverage'
          : 'id';

  const next: Record<string, Record<string, number>> = {};
  for (const [i, row] of Object.entries(state.weights)) next[i] = { ...row };
  for (const { id, Q } of rows) {
    const row = (next[String(id)] ??= {});
    for (const q of Q) {
      if (id === best.id)
        delete row[String(q)]; // reset to 1
      else if (!P.has(q)) {
        const w = Math.min(HCN_MAX_WEIGHT, hcnWeight(state, id, q) + 1);
        if (w === HCN_INITIAL_WEIGHT) delete row[String(q)];
        else row[String(q)] = w;
      }
    }
    if (Object.keys(row).length === 0) delete next[String(id)];
  }
  return {
    teacherId: best.id,
    scores: scores.slice().sort((a, b) => a.id - b.id),
    decidedBy,
    nothingToLearn: scores.every((s) => s.gain === 0),
    state: { weights: next },
  };
}

// ───────────────────────────── LAD
// ─────────────────────────────

/**
 * Per-trajectory evidence whether the teacher does better on the trajectory's task (Agentic-OPD 2026, LAD;
 * docs/references.md#agentic-opd):
 * - `train`: a training task; `teacherPassRate` ∈ [0, 1] is the teacher's pass rate over its own G rollouts of the
 *   same task. The student's pass rate is its group's (computed by `ladGate`).
 * - `val`: a validation-panel task; whether the teacher and the student solve it (the solved matrix).
 * - `none`: no evidence (e.g. not looked up because the rollout succeeded): never distilled.
 */
export type LadEvidence =
  | { kind: 'train'; teacherPassRate: number }
  | { kind: 'val'; teacherSolves: boolean; studentSolves: boolean }
  | { kind: 'none' };

/** Result of `ladGate`. */
export interface LadGate {
  /** Per trajectory: distil it. */
  mask: boolean[];
  /** Fraction of trajectories distilled (0 for none). */
  ladShare: number;
  /** Per trajectory: its group's pass rate (the student's pass rate on the task). */
  studentPassRate: number[];
}

/**
 * Per trajectory, the pass rate of its group: mean of `success` over the trajectories with the same group id.
 * @throws Error when the arrays differ in length.
 */
export function groupPassRates(success: readonly boolean[], groupOf: readonly number[]): number[] {
  if (success.length !== groupOf.length)
    throw new Error('groupPassRates: success and groupOf must have the same length');
  const agg = new Map<number, { n: number; s: number }>();
  success.forEach((ok, i) => {
    const e = agg.get(groupOf[i]) ?? { n: 0, s: 0 };
    e.n++;
    if (ok) e.s++;
    agg.set(groupOf[i], e);
  });
  return groupOf.map((g) => agg.get(g)!.s / agg.get(g)!.n);
}

/**
 * LAD gate, Locality-Aware Distillation (Agentic-OPD 2026, LAD; docs/references.md#agentic-opd): trajectory i is
 * distilled iff it failed AND
 * - `train` evidence: teacherPassRate > the pass rate of i's group (strictly better), or
 * - `val` evidence: the teacher solves the task and the student does not.
 * Arrays are per trajectory, same order.
 * @throws Error when the arrays differ in length or a teacher pass rate is outside [0, 1].
 */
export function ladGate(
  success: readonly boolean[],
  groupOf: readonly number[],
  evidence: readonly LadEvidence[],
): LadGate {
  if (evidence.length !== success.length)
    throw new Error('ladGate: success, groupOf and evidence must have the same length');
  const studentPassRate = groupPassRates(success, groupOf);
  const mask = evidence.map((e, i) => {
    if (e.kind === 'train' && !(e.teacherPassRate >= 0 && e.teacherPassRate <= 1))
      throw new Error(`ladGate: teacher pass rate ${e.teacherPassRate} of trajectory ${i} is outside [0, 1]`);
    if (success[i]) return false;
    if (e.kind === 'train') return e.teacherPassRate > studentPassRate[i];
    if (e.kind === 'val') return e.teacherSolves && !e.studentSolves;
    return false;
  });
  const n = mask.filter(Boolean).length;
  return { mask, ladShare: mask.length ? n / mask.length : 0, studentPassRate };
}

// ───────────────────────── distillation advantage
// ─────────────────────────

/** Default weight of A_opd in A = opdCoef·A_opd + taskCoef·A_grpo. */
export const DEFAULT_OPD_COEF = 1;
/** Default weight of the task (GRPO) advantage. */
export const DEFAULT_TASK_COEF = 0;

/**
 * Per-token gate [M] from a per-trajectory mask: 1 on every action token of every sample of a masked trajectory.
 * `sampleTraj[s]`, `offsets[s]`, `lengths[s]` describe packed sample s (algorithms/outcome.ts PackedSamples).
 * @throws Error when the sample arrays differ in length or a sample runs past M.
 */
export function trajectoryTokenGate(
  mask: readonly boolean[],
  sampleTraj: readonly number[],
  offsets: readonly number[],
  lengths: readonly number[],
  M: number,
): Uint8Array {
  if (sampleTraj.length !== offsets.length || offsets.length !== lengths.length)
    throw new Error('trajectoryTokenGate: sampleTraj, offsets and lengths must have the same length');
  const gate = new Uint8Array(M);
  sampleTraj.forEach((ti, s) => {
    if (offsets[s] + lengths[s] > M) throw new Error(`trajectoryTokenGate: sample ${s} runs past M = ${M}`);
    if (mask[ti]) gate.fill(1, offsets[s], offsets[s] + lengths[s]);
  });
  return gate;
}

/** Result of `distillAdvantage`. */
export interface DistillAdvantage {
  /** A_opd [M] float32: ℓ_teacher − ℓ_student on gated tokens, 0 elsewhere (a constant: stop-gradient). */
  aOpd: Float32Array;
  /**
   * Token mean over gated tokens of ℓ_student − ℓ_teacher (nats): a sampled estimate of KL(student ‖ teacher);
   * 0 with no gated token.
   */
  reverseKl: number;
  /** Number of gated tokens. */
  gatedTokens: number;
}

/**
 * The distillation advantage (Agentic-OPD 2026; docs/references.md#agentic-opd): A_t = sg(ℓ_teacher(a_t|s) −
 * ℓ_student(a_t|s)) on every action token with gate[t] ≠ 0, 0 elsewhere. Inputs are packed per-token vectors [M] in
 * nats; the teacher's entries outside the gate are ignored (may be 0 or NaN).
 * @throws Error when the lengths differ or a gated log-prob is not finite.
 */
export function distillAdvantage(
  teacherLogp: ArrayLike<number>,
  studentLogp: ArrayLike<number>,
  gate: ArrayLike<number>,
): DistillAdvantage {
  const M = studentLogp.length;
  if (teacherLogp.length !== M || gate.length !== M)
    throw new Error(
      `distillAdvantage: teacher (${teacherLogp.length}), student (${M}) and gate (${gate.length}) lengths differ`,
    );
  const aOpd = new Float32Array(M);
  let n = 0,
    kl = 0;
  for (let t = 0; t < M; t++) {
    if (!gate[t]) continue;
    const d = teacherLogp[t] - studentLogp[t];
    if (!Number.isFinite(d))
      throw new Error(
        `distillAdvantage: token ${t} has a non-finite log-prob (teacher ${teacherLogp[t]}, student ${studentLogp[t]})`,
      );
    aOpd[t] = d;
    kl -= d;
    n++;
  }
  return { aOpd, reverseKl: n ? kl / n : 0, gatedTokens: n };
}

/**
 * A = opdCoef·A_opd + taskCoef·A_task per token, float32 [M] (A_task: the GRPO advantage A_ep per token).
 * @throws Error when the lengths differ or a coefficient is not finite.
 */
export function combineDistill(
  aOpd: ArrayLike<number>,
  aTask: ArrayLike<number>,
  o: { opdCoef?: number; taskCoef?: number } = {},
): Float32Array {
  const opdCoef = o.opdCoef ?? DEFAULT_OPD_COEF,
    taskCoef = o.taskCoef ?? DEFAULT_TASK_COEF;
  if (!Number.isFinite(opdCoef) || !Number.isFinite(taskCoef))
    throw new Error(`combineDistill: coefficients must be finite (opdCoef ${opdCoef}, taskCoef ${taskCoef})`);
  if (aOpd.length !== aTask.length)
    throw new Error(`combineDistill: A_opd (${aOpd.length}) and A_task (${aTask.length}) lengths differ`);
  const out = new Float32Array(aOpd.length);
  for (let t = 0; t < out.length; t++) out[t] = opdCoef * aOpd[t] + taskCoef * aTask[t];
  return out;
}

function logSumExp(xs: readonly number[]): number {
  let m = -Infinity;
  for (const x of xs) if (x > m) m = x;
  if (m === -Infinity) return -Infinity;
  let s = 0;
  for (const x of xs) s += Math.exp(x - m);
  return m + Math.log(s);
}

/**
 * Top-k reverse KL at one position (Agentic-OPD 2026; docs/references.md#agentic-opd): with the student's top-k token
 * ids v, its log-probs `studentLogp[k]` and the teacher's log-probs of the same ids `teacherLogp[k]` (nats, any
 * normalisation), renormalise both over the k ids, p̃(v) = exp(ℓ(v)) / Σ_{u∈topk} exp(ℓ(u)), and return
 * Σ_{v∈topk} p̃_s(v)·(log p̃_s(v) − log p̃_t(v)) ≥ 0 (nats). Terms with p̃_s(v) = 0 contribute 0; a token
 * the student gives mass but the teacher −∞ makes the result +∞.
 * @throws Error when the arrays are empty or differ in length, or either side is −∞ on every id.
 */
export function topKReverseKl(studentLogp: readonly number[], teacherLogp: readonly number[]): number {
  if (studentLogp.length === 0 || studentLogp.length !== teacherLogp.length)
    throw new Error(
      `topKReverseKl: need two non-empty arrays of the same length ` +
        `(got ${studentLogp.length} and ${teacherLogp.length})`,
    );
  const zs = logSumExp(studentLogp),
    zt = logSumExp(teacherLogp);
  if (zs === -Infinity || zt === -Infinity)
    throw new Error('topKReverseKl: every top-k log-prob is -Infinity on one side');
  let kl = 0;
  for (let k = 0; k < studentLogp.length; k++) {
    const ls = studentLogp[k] - zs;
    if (ls === -Infinity) continue;
    kl += Math.exp(ls) * (ls - (teacherLogp[k] - zt));
  }
  return Math.max(0, kl);
}

// ───────────────────────────── ablations
// ─────────────────────────────

/**
 * Fixed-teacher ablation (Agentic-OPD 2026; docs/references.md#agentic-opd): the checkpoint that solves the most
 * validation tasks, the earliest (smallest id) on ties. Chosen once for the run.
 * @throws Error when there are no teachers or an id is duplicated.
 */
export function fixedTeacher(teachers: readonly CheckpointSolved[]): number {
  checkIds(teachers, 'fixedTeacher');
  let best = teachers[0].id,
    bestN = -1;
  for (const t of teachers) {
    const n = toIdSet(t.solved).size;
    if (n > bestN || (n === bestN && t.id < best)) {
      best = t.id;
      bestN = n;
    }
  }
  return best;
}

/**
 * Random-teacher ablation (Agentic-OPD 2026; docs/references.md#agentic-opd): a uniform draw from the teacher ids
 * (sorted ascending first, so the choice depends on the set and the Rng only). Uses the injected seeded generator only.
 * @throws Error when `ids` is empty or holds duplicates.
 */
export function randomTeacher(ids: readonly number[], rng: Rng): number {
  checkIds(
    ids.map((id) => ({ id, solved: [] })),
    'randomTeacher',
  );
  return rng.pick(ids.slice().sort((a, b) => a - b));
}

/**
 * Union-teacher ablation (Agentic-OPD 2026, docs/references.md#agentic-opd: "per task, the teacher that solves it, an
 * upper reference"), the rule for validation-panel tasks: per validation task, the teacher that solves it, the earliest
 * (smallest id) when several do. Returns task → teacher id for every task in ∪ Q_i (tasks no teacher solves are
 * absent), keys in ascending order. Training tasks off the panel follow `unionTeacherOrder`.
 * @throws Error when there are no teachers or an id is duplicated.
 */
export function unionTeachers(teachers: readonly CheckpointSolved[]): Map<number, number> {
  checkIds(teachers, 'unionTeachers');
  const byTask = new Map<number, number>();
  for (const t of teachers)
    for (const q of toIdSet(t.solved)) if (!byTask.has(q) || t.id < byTask.get(q)!) byTask.set(q, t.id);
  return new Map([...byTask].sort((a, b) => a[0] - b[0]));
}

/** One teacher's place in `unionTeacherOrder`. */
export interface UnionCandidate {
  id: number;
  /** Validation tasks of the training task's type that the teacher solves (|{q ∈ Q_i : type(q) = type}|). */
  typeSolved: number;
}

/**
 * Union-teacher ablation, the project's rule for a training task off the validation panel (Agentic-OPD 2026,
 * docs/references.md#agentic-opd, gives the union per task; a training task has no row in the solved matrix, so the
 * evidence is the teacher's own rollouts of it): the order in which the teachers are tried on a task of type `type` —
 * every teacher, those that solve the most validation tasks of that type first (the type-level evidence), ties by the
 * earlier checkpoint (smaller id). The caller takes the first teacher whose own rollouts of the task include a success,
 * and none when no teacher's do. Teachers that solve no validation task of the type come last, by id.
 * @param taskType the task type of a validation task (undefined: unknown, counted for no type).
 * @throws Error when there are no teachers or an id is duplicated or not finite.
 */
export function unionTeacherOrder(
  teachers: readonly CheckpointSolved[],
  taskType: (task: number) => string | undefined,
  type: string,
): UnionCandidate[] {
  checkIds(teachers, 'unionTeacherOrder');
  return teachers
    .map((t) => ({ id: t.id, typeSolved: [...toIdSet(t.solved)].filter((q) => taskType(q) === type).length }))
    .sort((a, b) => b.typeSolved - a.typeSolved || a.id - b.id);
}

/**
 * The validation task types for which some teacher solves a validation task (the union's type-level evidence),
 * ascending. Empty: no teacher solves any validation task, so the union has no panel evidence at all (nothing to
 * distil on the panel; training tasks are tried on every teacher in id order).
 * @param taskType the task type of a validation task (undefined: unknown, left out).
 */
export function unionTaskTypes(
  teachers: readonly CheckpointSolved[],
  taskType: (task: number) => string | undefined,
): string[] {
  const types = new Set<string>();
  for (const t of teachers)
    for (const q of toIdSet(t.solved)) {
      const ty = taskType(q);
      if (ty !== undefined) types.add(ty);
    }
  return [...types].sort();
}
