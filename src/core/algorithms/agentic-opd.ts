/**
 * Agentic-OPD (2026; docs/references.md#agentic-opd), HCN / LAD: on-policy distillation from a GRPO run's discarded
 * checkpoints. The student is the run's best-validation checkpoint (the policy being trained); the teachers are the
 * run's other checkpoints, frozen, reached through a `TeacherPool` (one teacher resident at a time). Each round a
 * teacher is chosen (HCN by default, math/agentic.ts `hcnSelect`; or the fixed / random / union ablations); each step
 * the student's failed rollouts on tasks where the teacher does better are kept (LAD, `ladGate`), their sampled action
 * tokens are scored by the teacher, and A = opdCoef·(ℓ_teacher − ℓ_old) + taskCoef·A_ep per action token
 * (`distillAdvantage`, `combineDistill`); PPO-clip does the rest. ℓ_old is the student's (pre-update, sampling)
 * log-prob, so A_opd is the per-token negative reverse-KL sample; `reverseKl` reports its gated token mean.
 * With opdTopK = K > 0 (./agentic-topk.ts) the distillation leaves A (A = taskCoef·A_ep) and enters the update as
 * opdCoef × the token-mean reverse KL over the student's top K tokens (`AlgorithmStep.topK`; `topkReverseKl` reports
 * it).
 *
 * Cost per step: one teacher scoring pass over the gated trajectories' samples (prompt + response tokens, reported
 * in `cost`), plus, for training-task LAD, one `teacherPassRate` call per (teacher, task) of a group with at least one
 * failed rollout, memoised for the run (a frozen teacher's pass rate on a task does not change): G teacher episodes
 * each when the pool rolls out G times. Val-panel tasks cost no rollouts (the solved matrix answers).
 *
 * Union ablation (Agentic-OPD 2026, docs/references.md#agentic-opd: "per task, the teacher that solves it, an upper
 * reference"): a val-panel task's teacher is the earliest that solves it on the panel (`unionTeachers`); a training
 * task off the panel (every training task in practice: the panel's addresses are never drawn for training) has no row
 * in the solved matrix, so its teacher is the first in `unionTeacherOrder` (most val tasks of the task's type solved,
 * then the earlier checkpoint) whose own memoised pass rate on the task is above 0, and none when no teacher's is. The
 * search uses the same memoised `teacherPassRate` calls as LAD (the LAD gate then finds the chosen teacher's rate in
 * the memo), so it costs, per (task, step) of a group with a failed rollout (every group with LAD off), one call per
 * teacher tried until the first success: between 1 and the pool size calls, G teacher episodes each, memo hits free.
 */
import { z } from 'zod';
import type { TaskRef } from '../envs/types';
import type { ScoreSample } from '../model/scoring';
import { Rng } from '../rng';
import {
  checkHcnState,
  combineDistill,
  distillAdvantage,
  fixedTeacher,
  hcnInitialState,
  hcnSelect,
  ladGate,
  randomTeacher,
  trajectoryTokenGate,
  unionTaskTypes,
  unionTeacherOrder,
  unionTeachers,
  DEFAULT_OPD_COEF,
  DEFAULT_TASK_COEF,
  type HcnState,
  type LadEvidence,
} from '../math/agentic';
import { topKDistill, type TeacherSamples } from './agentic-topk';
import { ALGORITHM_CATALOG, TEACHER_SELECTORS, type TeacherSelector } from '../algorithm-catalog';
import type { PackedSamples } from './outcome';
import {
  NO_SKILL_METRICS,
  type Algorithm,
  type AlgorithmExtras,
  type AlgorithmInit,
  type AlgorithmRun,
  type AlgorithmStep,
  type StepContext,
} from './types';

/**
 * The frozen teachers: every checkpoint of the GRPO run except the student. Implemented by the trainer from the run
 * directory (checkpoints + the validation solved matrix).
 */
export interface TeacherPool {
  /** Teacher ids (checkpoint steps), the student excluded. */
  readonly ids: readonly number[];
  /** Q_i: validation tasks teacher `id` solved at its validation (a row of the solved matrix). */
  solved(id: number): ReadonlySet<number>;
  /** Task type of validation task `task` (HCN's type-coverage tie-break); undefined if unknown. */
  taskType(task: number): string | undefined;
  /**
   * Per-token log-probs (nats) of the samples' response tokens under teacher `id` at `temperature` with each sample's
   * allowed mask, packed sample-major as model/scoring.ts `scoreSamples` returns them (length Σ response lengths).
   * The pool loads the teacher's weights (one teacher resident at a time).
   */
  score(id: number, samples: readonly ScoreSample[], temperature: number): Promise<Float32Array>;
  /**
   * Teacher `id`'s log-probs (nats, at `temperature` with each sample's allowed mask) at given token ids, `k` per
   * response token: `ids` and the result are [M·k], packed sample-major (model/topk.ts `scoreTopK`). Needed for the
   * top-k variant (opdTopK > 0); absent = that variant is refused.
   */
  scoreAt?(
    id: number,
    samples: readonly ScoreSample[],
    temperature: number,
    ids: Int32Array,
    k: number,
  ): Promise<Float32Array>;
  /**
   * The validation-panel task id of a task, if it is on the panel (LAD's `val` rule); absent = no panel tasks in
   * training.
   */
  panelTask?(ref: TaskRef): number | undefined;
  /**
   * Teacher `id`'s pass rate ∈ [0, 1] on a training task from its own rollouts (G episodes at the rollout
   * temperature) — LAD's `train` rule and the union's search for a teacher that solves a training task. Absent:
   * training tasks off the panel are never distilled.
   */
  teacherPassRate?(id: number, ref: TaskRef): Promise<number>;
  /**
   * The teacher whose weights are loaded now, or null. Saved with the run's state so that a resumed run holds the
   * same tensors as an uninterrupted one (`preload` puts it back).
   */
  resident?(): number | null;
  /** Load teacher `id`'s weights now, as its next use would. */
  preload?(id: number): void;
}

export { TEACHER_SELECTORS, type TeacherSelector } from '../algorithm-catalog';

/** Agentic-OPD's settings (RunConfig fields of the same names once the schema has them). */
export interface AgenticOpdOptions {
  /** How the teacher is chosen each round. */
  teacherSelect: TeacherSelector;
  /** Weight of A_opd. */
  opdCoef: number;
  /** Weight of the GRPO advantage A_ep. */
  taskCoef: number;
  /**
   * LAD on: distil only failed rollouts on tasks where the teacher does better; off: every rollout that has a teacher.
   */
  ladGate: boolean;
  /**
   * K > 0: the top-k variant (./agentic-topk.ts) — the distillation enters the update as opdCoef × the token-mean
   * top-K reverse KL instead of as A_opd in A (A = taskCoef·A_ep then); 0 = the sampled-token A_opd.
   */
  opdTopK: number;
}

/** Defaults of AgenticOpdOptions. */
export const AGENTIC_OPD_DEFAULTS: Readonly<AgenticOpdOptions> = Object.freeze({
  teacherSelect: 'hcn',
  opdCoef: DEFAULT_OPD_COEF,
  taskCoef: DEFAULT_TASK_COEF,
  ladGate: true,
  opdTopK: 0,
});

/** Serialisable run state for resume (JSON round-trips it). */
export interface AgenticOpdState {
  /** Rounds of teacher selection done (1 after create). */
  round: number;
  /** The current teacher (null under `union`: one teacher per task). */
  teacherId: number | null;
  /** HCN's weights after the last round. */
  hcn: HcnState;
  /** P: the student's solved validation tasks at its latest validation, ascending. */
  studentSolved: number[];
  /** Whether the last round's student already solved every task some teacher solves. */
  nothingToLearn: boolean;
  /** HCN score of the current teacher (|Q ∖ P| under fixed / random; 0 under union). */
  teacherScore: number;
}

/**
 * What `saveState` writes: the state, the resident teacher and the memo of teacher pass rates ("id|split/index" →
 * rate).
 */
interface SavedAgenticOpdState extends AgenticOpdState {
  resident: number | null;
  passMemo: [string, number][];
}

const SavedStateSchema = z.object({
  round: z.number().int().min(1),
  teacherId: z.number().nullable(),
  hcn: z.object({ weights: z.record(z.string(), z.record(z.string(), z.number())) }),
  studentSolved: z.array(z.number().int().nonnegative()),
  nothingToLearn: z.boolean(),
  teacherScore: z.number(),
  resident: z.number().nullable().optional(),
  passMemo: z.array(z.tuple([z.string(), z.number().min(0).max(1)])).optional(),
});

/** What `create` needs besides the base (AlgorithmInit). */
export interface AgenticOpdExtras {
  teacherPool: TeacherPool;
  /** P at the start (the student's latest validation). */
  studentSolved: Iterable<number>;
  /** Overrides of the options (else RunConfig fields of the same names, else AGENTIC_OPD_DEFAULTS). */
  options?: Partial<AgenticOpdOptions>;
  /** Resume from a saved `state()` instead of selecting the first teacher. */
  resume?: AgenticOpdState;
  /**
   * Generator for the random ablation (round r uses rng.fork(`round/r`)); default
   * Rng(cfg.seed).fork('agentic-opd/teacher').
   */
  rng?: Rng;
  /**
   * Called with each teacher choice (round 1 at create, then one per `newRound` / `onValidation`; not on `loadState`).
   */
  onRound?: (r: AgenticOpdRound) => void;
}

/** One teacher choice and the numbers that made it (for display; `onRound`). */
export interface AgenticOpdRound {
  round: number;
  /** The chosen teacher (null under union). */
  teacherId: number | null;
  /**
   * Every teacher's numbers, ascending id: under hcn its score Σ_{q ∈ Q_i ∖ P} w_i(q) before the round's update;
   * under the ablations score = gain. gain = |Q_i ∖ P|; typeCoverage = distinct task types in Q_i ∖ P.
   */
  scores: { id: number; score: number; gain: number; typeCoverage: number }[];
  /** |P|: val tasks the student solved when the round began. */
  studentSolved: number;
  nothingToLearn: boolean;
}

/** Init of agentic-opd. */
export type AgenticOpdInit = AlgorithmInit<AgenticOpdExtras>;

/** Per-step numbers for events (the lead wires them into StepEvent). */
export interface AgenticOpdExtra {
  /** Current teacher (null under union). */
  teacherId: number | null;
  /** Teachers actually scored this step, ascending. */
  teachersUsed: number[];
  teacherScore: number;
  /** Fraction of the step's trajectories distilled. */
  ladShare: number;
  /** Token mean over gated tokens of ℓ_student − ℓ_teacher (nats); 0 with none. */
  reverseKl: number;
  /**
   * opdTopK > 0 only: token mean over gated tokens of the top-K reverse KL under the pre-update student (nats; 0 with
   * none).
   */
  topkReverseKl?: number;
  /** Gated action tokens. */
  gatedTokens: number;
  /**
   * teacherPassRate calls made this step, LAD's and the union's search (each G teacher episodes; memo hits excluded).
   */
  teacherRolloutCalls: number;
  /** The teacher-selection round (AgenticOpdState.round). */
  teacherRound: number;
  nothingToLearn: boolean;
}

/** What agentic-opd's `advantages` returns. */
export interface AgenticOpdStep extends AlgorithmStep {
  /** With opdTopK > 0 `topK` (AlgorithmStep) holds the update's top-k reverse-KL targets; absent otherwise. */
  extra: AgenticOpdExtra;
}

/** One run of agentic-opd. */
export interface AgenticOpdRun extends AlgorithmRun {
  advantages(ctx: StepContext): Promise<AgenticOpdStep>;
  /**
   * Next round after a student validation: P ← `studentSolved`, the teacher is chosen again (HCN updates its
   * weights).
   */
  newRound(studentSolved: Iterable<number>): AgenticOpdState;
  /** The serialisable state (a copy). */
  state(): AgenticOpdState;
}

/** Resolve options: explicit > RunConfig fields of the same names > defaults. @throws Error on a bad value. */
export function resolveAgenticOptions(cfg: unknown, explicit: Partial<AgenticOpdOptions> = {}): AgenticOpdOptions {
  const fromCfg = (cfg ?? {}) as Partial<Record<keyof AgenticOpdOptions, unknown>>;
  const pick = <K extends keyof AgenticOpdOptions>(k: K): unknown =>
    explicit[k] ?? fromCfg[k] ?? AGENTIC_OPD_DEFAULTS[k];
  const o = {
    teacherSelect: pick('teacherSelect'),
    opdCoef: pick('opdCoef'),
    taskCoef: pick('taskCoef'),
    ladGate: pick('ladGate'),
    opdTopK: pick('opdTopK'),
  };
  if (!(TEACHER_SELECTORS as readonly unknown[]).includes(o.teacherSelect))
    throw new Error(
      `agentic-opd: unknown teacherSelect "${String(o.teacherSelect)}"; known: ${TEACHER_SELECTORS.join(', ')}`,
    );
  for (const k of ['opdCoef', 'taskCoef'] as const)
    if (typeof o[k] !== 'number' || !Number.isFinite(o[k]))
      throw new Error(`agentic-opd: ${k} must be a finite number, got ${String(o[k])}`);
  if (typeof o.ladGate !== 'boolean')
    throw new Error(`agentic-opd: ladGate must be a boolean, got ${String(o.ladGate)}`);
  if (!Number.isInteger(o.opdTopK) || (o.opdTopK as number) < 0)
    throw new Error(`agentic-opd: opdTopK must be an integer ≥ 0 (0 = off), got ${String(o.opdTopK)}`);
  return o as AgenticOpdOptions;
}

const refKey = (r: TaskRef) => `${r.split}/${r.index}`;

/**
 * The one-line warning for the start of a union run (`teacherSelect: 'union'`) when no teacher solves a val task of
 * any type (`unionTaskTypes` empty): val-panel tasks get no teacher and training tasks have no type-level evidence,
 * so there is likely nothing to distil. Null when some type has a teacher.
 */
export function unionStartWarning(pool: Pick<TeacherPool, 'ids' | 'solved' | 'taskType'>): string | null {
  const types = unionTaskTypes(
    pool.ids.map((id) => ({ id, solved: pool.solved(id) })),
    (q) => pool.taskType(q),
  );
  if (types.length > 0) return null;
  return (
    `union teacher: none of the ${pool.ids.length} teacher checkpoint${pool.ids.length === 1 ? '' : 's'} ` +
    `solves a val task of any type, so val tasks get no teacher and training tasks are tried on ` +
    `every teacher by step with no type evidence: likely nothing to distil`
  );
}

/** One run of agentic-opd as its steps share it: the pool, the settings and the state kept across steps. */
interface AgenticRun {
  pool: TeacherPool;
  opts: AgenticOpdOptions;
  /** The rollout temperature (every teacher log-prob is of the distribution that sampled). */
  temperature: number;
  /** Generator of the random ablation. */
  rng: Rng;
  onRound?: (r: AgenticOpdRound) => void;
  /** Union: a val-panel task's earliest solving teacher. */
  union?: Map<number, number>;
  st: AgenticOpdState;
  /** Teacher pass rates on training tasks, "id|split/index" → rate, memoised for the run. */
  passMemo: Map<string, number>;
  /** Union, training tasks off the panel: the teachers in the order they are tried, per task type. */
  unionOrder: Map<string, number[]>;
}

/** The pool's rows of the solved matrix: each teacher's solved val tasks Q_i. */
const rowsOf = (pool: TeacherPool) => pool.ids.map((id) => ({ id, solved: pool.solved(id) }));

/** Task type of every val task some teacher solves (HCN's type-coverage tie-break). */
function solvedTaskTypes(pool: TeacherPool): Map<number, string> {
  const m = new Map<number, string>();
  for (const id of pool.ids)
    for (const q of pool.solved(id)) {
      const ty = pool.taskType(q);
      if (ty !== undefined) m.set(q, ty);
    }
  return m;
}

/** Round `round`'s teacher for the student's solved set P under the run's rule (HCN or an ablation). */
function selectTeacher(r: AgenticRun, P: Set<number>, round: number, hcn: HcnState): AgenticOpdState {
  const { pool } = r;
  const gainOf = (id: number) => [...pool.solved(id)].filter((q) => !P.has(q)).length;
  const nothingToLearn = pool.ids.every((id) => gainOf(id) === 0);
  const base = { round, studentSolved: [...P].sort((a, b) => a - b), nothingToLearn };
  switch (r.opts.teacherSelect) {
    case 'hcn': {
      const h = hcnSelect(rowsOf(pool), P, solvedTaskTypes(pool), hcn);
      const teacherScore = h.scores.find((x) => x.id === h.teacherId)!.score;
      return { ...base, teacherId: h.teacherId, hcn: h.state, teacherScore };
    }
    case 'fixed': {
      const id = fixedTeacher(rowsOf(pool));
      return { ...base, teacherId: id, hcn, teacherScore: gainOf(id) };
    }
    case 'random': {
      const id = randomTeacher(pool.ids, r.rng.fork(`round/${round}`));
      return { ...base, teacherId: id, hcn, teacherScore: gainOf(id) };
    }
    case 'union':
      if (pool.ids.length === 0)
        throw new Error('unionTeachers: no teachers (the pool needs at least one checkpoint besides the student)');
      return { ...base, teacherId: null, hcn, teacherScore: 0 };
  }
}

/** Report a choice to `onRound` with every teacher's numbers (HCN's own scores when it chose). */
function reportRound(r: AgenticRun, next: AgenticOpdState, hcnScores?: AgenticOpdRound['scores']): AgenticOpdState {
  if (!r.onRound) return next;
  const { pool } = r;
  const P = new Set(next.studentSolved);
  const scores =
    hcnScores ??
    pool.ids.map((id) => {
      const gain = [...pool.solved(id)].filter((q) => !P.has(q));
      return {
        id,
        score: gain.length,
        gain: gain.length,
        typeCoverage: new Set(gain.map((q) => pool.taskType(q))).size,
      };
    });
  r.onRound({
    round: next.round,
    teacherId: next.teacherId,
    scores: structuredClone(scores),
    studentSolved: P.size,
    nothingToLearn: next.nothingToLearn,
  });
  return next;
}

/** Choose round `round`'s teacher and report it. */
function chooseTeacher(r: AgenticRun, P: Set<number>, round: number, hcn: HcnState): AgenticOpdState {
  if (r.opts.teacherSelect !== 'hcn' || !r.onRound) return reportRound(r, selectTeacher(r, P, round, hcn));
  const h = hcnSelect(rowsOf(r.pool), P, solvedTaskTypes(r.pool), hcn);
  return reportRound(r, selectTeacher(r, P, round, hcn), h.scores);
}

/**
 * The run's state as `saveState` writes it. Besides the round's state: the resident teacher (so a resumed run holds
 * the same tensors) and the memo of teacher pass rates, LAD's and the union's search (so a resumed run makes the same
 * teacher-rollout calls and the same union choices as an uninterrupted one: the search order is fixed and each
 * teacher's rollouts of a task draw from their own stream, keyed by teacher and task).
 */
function saveAgenticState(r: AgenticRun): string {
  return JSON.stringify({
    ...r.st,
    resident: r.pool.resident?.() ?? null,
    passMemo: [...r.passMemo],
  } satisfies SavedAgenticOpdState);
}

/** Put back a state written by `saveAgenticState`. @throws Error naming the problem on a malformed one. */
function loadAgenticState(r: AgenticRun, s: string): void {
  let raw: unknown;
  try {
    raw = JSON.parse(s);
  } catch {
    throw new Error("agentic-opd: the checkpoint's algorithm state is not JSON; resume from an intact checkpoint");
  }
  const p = SavedStateSchema.safeParse(raw);
  if (!p.success)
    throw new Error(
      "agentic-opd: the checkpoint's algorithm state is malformed " +
        `(${p.error.issues[0].path.join('.') || 'top level'}: ${p.error.issues[0].message}); ` +
        'resume from an intact checkpoint',
    );
  const { resident, passMemo: memo, ...v } = p.data;
  checkHcnState(v.hcn);
  for (const id of [v.teacherId, resident ?? null])
    if (id !== null && !r.pool.ids.includes(id))
      throw new Error(
        `agentic-opd: the checkpoint's teacher ${id} is not in the pool (teachers: ${r.pool.ids.join(', ')}); ` +
          `resume with the run's own teachers`,
      );
  r.st = v;
  r.passMemo.clear();
  for (const [k, rate] of memo ?? []) r.passMemo.set(k, rate);
  if (resident != null) r.pool.preload?.(resident);
}

/** A pool's `teacherPassRate`. */
type PassRate = (id: number, ref: TaskRef) => Promise<number>;

/** Teacher `tid`'s pass rate on training task `ref`, memoised for the run; `calls.n` counts the calls made. */
async function memoPassRate(
  r: AgenticRun,
  tid: number,
  ref: TaskRef,
  rate: PassRate,
  calls: { n: number },
): Promise<number> {
  const key = `${tid}|${refKey(ref)}`;
  if (!r.passMemo.has(key)) {
    const v = await rate(tid, ref);
    if (!(v >= 0 && v <= 1))
      throw new Error(`agentic-opd: teacher ${tid}'s pass rate on ${refKey(ref)} is ${v}, outside [0, 1]`);
    r.passMemo.set(key, v);
    calls.n++;
  }
  return r.passMemo.get(key)!;
}

/**
 * Teacher per trajectory. Union: a panel task's earliest solving teacher; a training task's first teacher in
 * `unionTeacherOrder` whose own rollouts of it succeed (none if no teacher's do). With LAD on, only failed
 * trajectories are looked up (a successful one is never distilled). Otherwise the round's teacher.
 */
async function teachersOf(r: AgenticRun, ctx: StepContext, calls: { n: number }): Promise<(number | null)[]> {
  const { pool, union } = r;
  const rate = pool.teacherPassRate?.bind(pool);
  const out: (number | null)[] = [];
  for (const t of ctx.trajs) {
    if (!union) {
      out.push(r.st.teacherId);
      continue;
    }
    const q = pool.panelTask?.(t.ref);
    if (q !== undefined) {
      out.push(union.get(q) ?? null);
      continue;
    }
    let tid: number | null = null;
    if (rate && !(r.opts.ladGate && t.success))
      for (const id of unionOrderOf(r, t.taskType))
        if ((await memoPassRate(r, id, t.ref, rate, calls)) > 0) {
          tid = id;
          break;
        }
    out.push(tid);
  }
  return out;
}

/** The union's teachers for training tasks of `type`, in the order they are tried (the pool is frozen: memoised). */
function unionOrderOf(r: AgenticRun, type: string): number[] {
  let o = r.unionOrder.get(type);
  if (!o) {
    o = unionTeacherOrder(rowsOf(r.pool), (q) => r.pool.taskType(q), type).map((c) => c.id);
    r.unionOrder.set(type, o);
  }
  return o;
}

/**
 * Which trajectories are distilled: with LAD on, the failed ones on tasks where their teacher does better
 * (math/agentic.ts `ladGate`: the solved matrix on panel tasks, the teacher's pass rate on training tasks); with LAD
 * off, every one that has a teacher.
 */
async function distilledMask(
  r: AgenticRun,
  ctx: StepContext,
  teacherOf: readonly (number | null)[],
  calls: { n: number },
): Promise<{ mask: boolean[]; ladShare: number }> {
  const { trajs } = ctx;
  const success = trajs.map((t) => t.success);
  if (!r.opts.ladGate) {
    const mask = teacherOf.map((t) => t !== null);
    return { mask, ladShare: trajs.length ? mask.filter(Boolean).length / trajs.length : 0 };
  }
  const { pool } = r;
  const rate = pool.teacherPassRate?.bind(pool);
  const P = new Set(r.st.studentSolved);
  const evidence: LadEvidence[] = [];
  for (let i = 0; i < trajs.length; i++) {
    const tid = teacherOf[i],
      ref = trajs[i].ref;
    if (success[i] || tid === null) {
      evidence.push({ kind: 'none' });
      continue;
    }
    const q = pool.panelTask?.(ref);
    if (q !== undefined)
      evidence.push({ kind: 'val', teacherSolves: pool.solved(tid).has(q), studentSolves: P.has(q) });
    else if (rate) evidence.push({ kind: 'train', teacherPassRate: await memoPassRate(r, tid, ref, rate, calls) });
    else evidence.push({ kind: 'none' });
  }
  return ladGate(success, ctx.groupOf, evidence);
}

/** The distilled samples per teacher, teachers in ascending id (each scores its own, one at a time). */
function teacherGroups(
  packed: PackedSamples,
  teacherOf: readonly (number | null)[],
  mask: boolean[],
): TeacherSamples[] {
  const used = [...new Set(teacherOf.filter((t, i): t is number => t !== null && mask[i]))].sort((a, b) => a - b);
  return used.map((tid) => ({
    id: tid,
    samples: packed.samples
      .map((_, s) => s)
      .filter((s) => mask[packed.sampleTraj[s]] && teacherOf[packed.sampleTraj[s]] === tid),
  }));
}

/** What both forms of a step share: the gate, the teachers and the numbers for the step event. */
interface DistillPlan {
  groups: TeacherSamples[];
  /** [M]: 1 on the action tokens of distilled trajectories. */
  gate: Uint8Array;
  lengths: number[];
  extra: Omit<AgenticOpdExtra, 'reverseKl' | 'topkReverseKl' | 'gatedTokens'>;
}

/** The top-k form (./agentic-topk.ts): the distillation is in the update's top-k term; A = taskCoef·A_ep. */
async function topKStep(r: AgenticRun, ctx: StepContext, plan: DistillPlan): Promise<AgenticOpdStep> {
  const { opts, pool } = r;
  const M = ctx.packed.tokens;
  const t = await topKDistill(ctx.policy, pool.scoreAt?.bind(pool), ctx.packed, plan.groups, plan.gate, ctx.oldLogp, {
    k: opts.opdTopK,
    temperature: r.temperature,
    coef: opts.opdCoef,
  });
  // Teacher share 0: the distillation is not in A.
  const adv = combineDistill(new Float32Array(M), ctx.aEpTok, opts);
  return {
    adv,
    topK: t.targets,
    cost: t.cost,
    metrics: {
      ...NO_SKILL_METRICS,
      analyzerFailureReasons: {},
      teacherShare: 0,
      skillActiveTokenRatio: M ? t.gatedTokens / M : 0,
    },
    extra: { ...plan.extra, reverseKl: t.reverseKl, topkReverseKl: t.topkReverseKl, gatedTokens: t.gatedTokens },
  };
}

/**
 * ℓ_teacher of every distilled action token (0 elsewhere), packed [M], scoring each teacher's samples in turn.
 * @throws Error when a teacher returns another number of log-probs than its samples' action tokens.
 */
async function teacherLogProbs(
  r: AgenticRun,
  packed: PackedSamples,
  plan: DistillPlan,
): Promise<{ logp: Float32Array; tokens: number; sequences: number }> {
  const { lengths } = plan;
  const logp = new Float32Array(packed.tokens);
  let tokens = 0,
    sequences = 0;
  for (const { id: tid, samples: idx } of plan.groups) {
    const samples = idx.map((s) => packed.samples[s]);
    const lp = await r.pool.score(tid, samples, r.temperature);
    const want = idx.reduce((n, s) => n + lengths[s], 0);
    if (lp.length !== want)
      throw new Error(`agentic-opd: teacher ${tid} returned ${lp.length} log-probs for ${want} action tokens`);
    let off = 0;
    for (const s of idx) {
      logp.set(lp.subarray(off, off + lengths[s]), packed.offsets[s]);
      off += lengths[s];
    }
    tokens += samples.reduce((n, s) => n + s.prompt.length + s.response.length, 0);
    sequences += samples.length;
  }
  return { logp, tokens, sequences };
}

/** The sampled form: A = opdCoef·(ℓ_teacher − ℓ_old) + taskCoef·A_ep on the gated tokens (math/agentic.ts). */
async function sampledStep(r: AgenticRun, ctx: StepContext, plan: DistillPlan): Promise<AgenticOpdStep> {
  const { opts } = r;
  const M = ctx.packed.tokens;
  const teacher = await teacherLogProbs(r, ctx.packed, plan);
  const d = distillAdvantage(teacher.logp, ctx.oldLogp, plan.gate);
  const adv = combineDistill(d.aOpd, ctx.aEpTok, opts);
  let sumOpd = 0,
    sumA = 0;
  for (let t = 0; t < M; t++) {
    sumOpd += Math.abs(opts.opdCoef * d.aOpd[t]);
    sumA += Math.abs(adv[t]);
  }
  return {
    adv,
    metrics: {
      ...NO_SKILL_METRICS,
      analyzerFailureReasons: {},
      teacherShare: sumA > 0 ? sumOpd / sumA : 0,
      skillActiveTokenRatio: M ? d.gatedTokens / M : 0,
    },
    cost: { tokens: teacher.tokens, sequences: teacher.sequences },
    extra: { ...plan.extra, reverseKl: d.reverseKl, gatedTokens: d.gatedTokens },
  };
}

/** One step: the teachers, the LAD gate, then the top-k or the sampled form. */
async function agenticStep(r: AgenticRun, ctx: StepContext): Promise<AgenticOpdStep> {
  const { packed } = ctx;
  const calls = { n: 0 };
  const teacherOf = await teachersOf(r, ctx, calls);
  const { mask, ladShare } = await distilledMask(r, ctx, teacherOf, calls);
  const lengths = packed.samples.map((s) => s.response.length);
  const groups = teacherGroups(packed, teacherOf, mask);
  const { st } = r;
  const plan: DistillPlan = {
    groups,
    lengths,
    gate: trajectoryTokenGate(mask, packed.sampleTraj, packed.offsets, lengths, packed.tokens),
    extra: {
      teacherId: st.teacherId,
      teachersUsed: groups.map((g) => g.id),
      teacherScore: st.teacherScore,
      ladShare,
      teacherRolloutCalls: calls.n,
      teacherRound: st.round,
      nothingToLearn: st.nothingToLearn,
    },
  };
  return r.opts.opdTopK > 0 ? topKStep(r, ctx, plan) : sampledStep(r, ctx, plan);
}

/** True when `x` has a TeacherPool's members (ids, solved, taskType, score). */
function isTeacherPool(x: unknown): x is TeacherPool {
  if (typeof x !== 'object' || x === null) return false;
  const o: { ids?: unknown; solved?: unknown; taskType?: unknown; score?: unknown } = x;
  return (
    Array.isArray(o.ids) &&
    typeof o.solved === 'function' &&
    typeof o.taskType === 'function' &&
    typeof o.score === 'function'
  );
}

/** True when `x` is an iterable of numbers (a set or array of val task ids). */
function isTaskSet(x: unknown): x is Iterable<number> {
  return (x instanceof Set || Array.isArray(x)) && [...(x as Iterable<unknown>)].every((v) => Number.isInteger(v));
}

/** True when `x` is a function (the round callback). */
function isRoundCallback(x: unknown): x is (r: AgenticOpdRound) => void {
  return typeof x === 'function';
}

/** The inputs the CLI and the worker pass (TrainOptions.algorithmInit). */
const INIT_KEYS = ['teacherPool', 'studentSolved', 'onRound'];

/**
 * Agentic-OPD's inputs from the plain values beside the config: `teacherPool` (the source run's other checkpoints),
 * `studentSolved` (the student's solved val tasks) and optionally `onRound`.
 * @throws Error saying what is missing, malformed or unknown.
 */
export function readAgenticInit(extra: AlgorithmExtras | undefined): AgenticOpdExtras {
  const x = extra ?? {};
  const unknown = Object.keys(x).filter((k) => !INIT_KEYS.includes(k));
  if (unknown.length)
    throw new Error(`agentic-opd: unknown input ${unknown.join(', ')}; it takes ${INIT_KEYS.join(', ')}`);
  const { teacherPool, studentSolved, onRound } = x;
  if (!isTeacherPool(teacherPool))
    throw new Error(
      "agentic-opd needs a teacher pool (init.teacherPool: the run's other checkpoints) and the " +
        "student's solved validation tasks (init.studentSolved)",
    );
  if (!isTaskSet(studentSolved))
    throw new Error("agentic-opd needs init.studentSolved (the student's solved validation tasks) or init.resume");
  if (onRound !== undefined && !isRoundCallback(onRound))
    throw new Error('agentic-opd: init.onRound must be a function of the round');
  return { teacherPool, studentSolved, ...(onRound ? { onRound } : {}) };
}

/** The run's shared state at its start: the first round chosen, or the resumed state checked and copied. */
function startRun(init: AgenticOpdInit): AgenticRun {
  const pool = init.teacherPool;
  if (!init.studentSolved && !init.resume)
    throw new Error("agentic-opd needs init.studentSolved (the student's solved validation tasks) or init.resume");
  const opts = resolveAgenticOptions(init.cfg, init.options);
  const r: AgenticRun = {
    pool,
    opts,
    temperature: init.cfg.temperature,
    rng: init.rng ?? new Rng(init.cfg.seed).fork('agentic-opd/teacher'),
    onRound: init.onRound,
    union: opts.teacherSelect === 'union' ? unionTeachers(rowsOf(pool)) : undefined,
    st: undefined as never,
    passMemo: new Map(),
    unionOrder: new Map(),
  };
  if (init.resume) {
    checkHcnState(init.resume.hcn);
    if (init.resume.teacherId !== null && !pool.ids.includes(init.resume.teacherId))
      throw new Error(`agentic-opd: resumed teacher ${init.resume.teacherId} is not in the pool`);
    r.st = structuredClone(init.resume);
  } else r.st = chooseTeacher(r, new Set(init.studentSolved), 1, hcnInitialState());
  return r;
}

/** Agentic-OPD as a registered algorithm. `create` needs AgenticOpdExtras (teacherPool, studentSolved). */
export const agenticOpd = {
  ...ALGORITHM_CATALOG['agentic-opd'],
  options: (cfg) => resolveAgenticOptions(cfg),
  readInit: readAgenticInit,
  create(init: AgenticOpdInit): AgenticOpdRun {
    const r = startRun(init);
    return {
      newRound(studentSolved) {
        r.st = chooseTeacher(r, new Set(studentSolved), r.st.round + 1, r.st.hcn);
        return structuredClone(r.st);
      },
      state: () => structuredClone(r.st),
      onValidation(solved) {
        r.st = chooseTeacher(r, new Set(solved), r.st.round + 1, r.st.hcn);
      },
      saveState: () => saveAgenticState(r),
      loadState: (s) => loadAgenticState(r, s),
      advantages: (ctx) => agenticStep(r, ctx),
    };
  },
} satisfies Algorithm<AgenticOpdExtras, AgenticOpdOptions>;
