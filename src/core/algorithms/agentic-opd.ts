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
import { topKDistill } from './agentic-topk';
import {
  NO_SKILL_METRICS,
  type Algorithm,
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

/** Teacher selection rules: HCN (the paper's) and the ablations. */
export const TEACHER_SELECTORS = ['hcn', 'fixed', 'random', 'union'] as const;
/** One of TEACHER_SELECTORS. */
export type TeacherSelector = (typeof TEACHER_SELECTORS)[number];

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

/** What `create` needs besides AlgorithmInit. */
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
export type AgenticOpdInit = AlgorithmInit & AgenticOpdExtras;

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
  round: number;
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

/** Agentic-OPD as a registered algorithm. `create` needs AgenticOpdExtras (teacherPool, studentSolved). */
export const agenticOpd = {
  name: 'agentic-opd',
  summary:
    "on-policy distillation from the run's own discarded checkpoints: HCN teacher choice, LAD gate, A = " +
    'ℓ_teacher − ℓ_student',
  usesAnalyzer: false,
  outcomeEstimator: 'grpo',
  source:
    'Agentic-OPD (2026), HCN / LAD: A = opdCoef·sg(ℓ_teacher − ℓ_student) + taskCoef·A_ep ' + 'on LAD-gated rollouts',
  create(init: AlgorithmInit): AgenticOpdRun {
    const x = init as Partial<AgenticOpdInit>;
    const pool = x.teacherPool;
    if (!pool)
      throw new Error(
        "agentic-opd needs a teacher pool (init.teacherPool: the run's other checkpoints) and the " +
          "student's solved validation tasks (init.studentSolved)",
      );
    if (!x.studentSolved && !x.resume)
      throw new Error("agentic-opd needs init.studentSolved (the student's solved validation tasks) or init.resume");
    const opts = resolveAgenticOptions(init.cfg, x.options);
    const baseRng = x.rng ?? new Rng(init.cfg.seed).fork('agentic-opd/teacher');
    const rows = () => pool.ids.map((id) => ({ id, solved: pool.solved(id) }));
    const taskTypes = (): Map<number, string> => {
      const m = new Map<number, string>();
      for (const id of pool.ids)
        for (const q of pool.solved(id)) {
          const ty = pool.taskType(q);
          if (ty !== undefined) m.set(q, ty);
        }
      return m;
    };
    const union = opts.teacherSelect === 'union' ? unionTeachers(rows()) : undefined;

    let st: AgenticOpdState;
    const select = (P: Set<number>, round: number, hcn: HcnState): AgenticOpdState => {
      const gainOf = (id: number) => [...pool.solved(id)].filter((q) => !P.has(q)).length;
      const nothingToLearn = pool.ids.every((id) => gainOf(id) === 0);
      const base = { round, studentSolved: [...P].sort((a, b) => a - b), nothingToLearn };
      switch (opts.teacherSelect) {
        case 'hcn': {
          const r = hcnSelect(rows(), P, taskTypes(), hcn);
          return {
            ...base,
            teacherId: r.teacherId,
            hcn: r.state,
            teacherScore: r.scores.find((s) => s.id === r.teacherId)!.score,
          };
        }
        case 'fixed': {
          const id = fixedTeacher(rows());
          return { ...base, teacherId: id, hcn, teacherScore: gainOf(id) };
        }
        case 'random': {
          const id = randomTeacher(pool.ids, baseRng.fork(`round/${round}`));
          return { ...base, teacherId: id, hcn, teacherScore: gainOf(id) };
        }
        case 'union':
          if (pool.ids.length === 0)
            throw new Error('unionTeachers: no teachers (the pool needs at least one checkpoint besides the student)');
          return { ...base, teacherId: null, hcn, teacherScore: 0 };
      }
    };
    /** Report a choice to `onRound` with every teacher's numbers (HCN's own scores when it chose). */
    const report = (next: AgenticOpdState, hcnScores?: AgenticOpdRound['scores']): AgenticOpdState => {
      if (!x.onRound) return next;
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
      x.onRound({
        round: next.round,
        teacherId: next.teacherId,
        scores: structuredClone(scores),
        studentSolved: P.size,
        nothingToLearn: next.nothingToLearn,
      });
      return next;
    };
    const choose = (P: Set<number>, round: number, hcn: HcnState): AgenticOpdState => {
      if (opts.teacherSelect !== 'hcn' || !x.onRound) return report(select(P, round, hcn));
      const r = hcnSelect(rows(), P, taskTypes(), hcn);
      return report(select(P, round, hcn), r.scores);
    };
    if (x.resume) {
      checkHcnState(x.resume.hcn);
      if (x.resume.teacherId !== null && !pool.ids.includes(x.resume.teacherId))
        throw new Error(`agentic-opd: resumed teacher ${x.resume.teacherId} is not in the pool`);
      st = structuredClone(x.resume);
    } else st = choose(new Set(x.studentSolved), 1, hcnInitialState());

    const passMemo = new Map<string, number>();
    // Union, training tasks off the panel: the teachers in the order they are tried, per task type (the pool is
    // frozen).
    const unionOrder = new Map<string, number[]>();
    const unionOrderOf = (type: string): number[] => {
      let o = unionOrder.get(type);
      if (!o) unionOrder.set(type, (o = unionTeacherOrder(rows(), (q) => pool.taskType(q), type).map((c) => c.id)));
      return o;
    };

    return {
      newRound(studentSolved) {
        st = choose(new Set(studentSolved), st.round + 1, st.hcn);
        return structuredClone(st);
      },
      state: () => structuredClone(st),
      onValidation(solved) {
        st = choose(new Set(solved), st.round + 1, st.hcn);
      },
      // Besides the round's state: the resident teacher (so a resumed run holds the same tensors) and the memo of
      // teacher pass rates, LAD's and the union's search (so a resumed run makes the same teacher-rollout calls and the
      // same union choices as an uninterrupted one: the search order is fixed and each teacher's rollouts of a task
      // draw from their own stream, keyed by teacher and task).
      saveState: () =>
        JSON.stringify({
          ...st,
          resident: pool.resident?.() ?? null,
          passMemo: [...passMemo],
        } satisfies SavedAgenticOpdState),
      loadState(s) {
        let raw: unknown;
        try {
          raw = JSON.parse(s);
        } catch {
          throw new Error(
            "agentic-opd: the checkpoint's algorithm state is not JSON; resume from an intact checkpoint",
          );
        }
        const r = SavedStateSchema.safeParse(raw);
        if (!r.success)
          throw new Error(
            `agentic-opd: the checkpoint's algorithm state is malformed (${r.error.issues[0].path.join('.') || 'top level'}: ` +
              `${r.error.issues[0].message}); resume from an intact checkpoint`,
          );
        const { resident, passMemo: memo, ...v } = r.data;
        checkHcnState(v.hcn);
        for (const id of [v.teacherId, resident ?? null])
          if (id !== null && !pool.ids.includes(id))
            throw new Error(
              `agentic-opd: the checkpoint's teacher ${id} is not in the pool (teachers: ${pool.ids.join(', ')}); ` +
                `resume with the run's own teachers`,
            );
        st = v;
        passMemo.clear();
        for (const [k, rate] of memo ?? []) passMemo.set(k, rate);
        if (resident != null) pool.preload?.(resident);
      },
      async advantages(ctx) {
        const { trajs, packed } = ctx;
        const P = new Set(st.studentSolved);
        const success = trajs.map((t) => t.success);
        let mask: boolean[],
          ladShare: number,
          calls = 0;
        const rate = pool.teacherPassRate?.bind(pool);
        /** Teacher `tid`'s pass rate on training task `ref`, memoised for the run (a call = G teacher episodes). */
        const passRate = async (
          tid: number,
          ref: TaskRef,
          rate: (id: number, r: TaskRef) => Promise<number>,
        ): Promise<number> => {
          const key = `${tid}|${refKey(ref)}`;
          if (!passMemo.has(key)) {
            const r = await rate(tid, ref);
            if (!(r >= 0 && r <= 1))
              throw new Error(`agentic-opd: teacher ${tid}'s pass rate on ${refKey(ref)} is ${r}, outside [0, 1]`);
            passMemo.set(key, r);
            calls++;
          }
          return passMemo.get(key)!;
        };
        // Teacher per trajectory. Union: a panel task's earliest solving teacher; a training task's first teacher in
        // `unionTeacherOrder` whose own rollouts of it succeed (none if no teacher's do). With LAD on, only failed
        // trajectories are looked up (a successful one is never distilled).
        const teacherOf: (number | null)[] = [];
        for (let i = 0; i < trajs.length; i++) {
          if (!union) {
            teacherOf.push(st.teacherId);
            continue;
          }
          const t = trajs[i],
            q = pool.panelTask?.(t.ref);
          if (q !== undefined) {
            teacherOf.push(union.get(q) ?? null);
            continue;
          }
          let tid: number | null = null;
          if (rate && !(opts.ladGate && success[i]))
            for (const id of unionOrderOf(t.taskType))
              if ((await passRate(id, t.ref, rate)) > 0) {
                tid = id;
                break;
              }
          teacherOf.push(tid);
        }
        if (opts.ladGate) {
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
            else if (rate) evidence.push({ kind: 'train', teacherPassRate: await passRate(tid, ref, rate) });
            else evidence.push({ kind: 'none' });
          }
          ({ mask, ladShare } = ladGate(success, ctx.groupOf, evidence));
        } else {
          mask = teacherOf.map((t) => t !== null);
          ladShare = trajs.length ? mask.filter(Boolean).length / trajs.length : 0;
        }
        // Score gated samples, one teacher at a time (ascending id).
        const M = packed.tokens;
        const lengths = packed.samples.map((s) => s.response.length);
        const used = [...new Set(teacherOf.filter((t, i): t is number => t !== null && mask[i]))].sort((a, b) => a - b);
        const groups = used.map((tid) => ({
          id: tid,
          samples: packed.samples
            .map((_, s) => s)
            .filter((s) => mask[packed.sampleTraj[s]] && teacherOf[packed.sampleTraj[s]] === tid),
        }));
        const extra = {
          teacherId: st.teacherId,
          teachersUsed: used,
          teacherScore: st.teacherScore,
          ladShare,
          teacherRolloutCalls: calls,
          round: st.round,
          nothingToLearn: st.nothingToLearn,
        };
        if (opts.opdTopK > 0) {
          const gate = trajectoryTokenGate(mask, packed.sampleTraj, packed.offsets, lengths, M);
          const r = await topKDistill(ctx.policy, pool.scoreAt?.bind(pool), packed, groups, gate, ctx.oldLogp, {
            k: opts.opdTopK,
            temperature: init.cfg.temperature,
            coef: opts.opdCoef,
          });
          // The distillation is in the update's top-k term, not in A: A = taskCoef·A_ep (teacherShare 0).
          const adv = combineDistill(new Float32Array(M), ctx.aEpTok, opts);
          return {
            adv,
            topK: r.targets,
            cost: r.cost,
            metrics: {
              ...NO_SKILL_METRICS,
              analyzerFailureReasons: {},
              teacherShare: 0,
              skillActiveTokenRatio: M ? r.gatedTokens / M : 0,
            },
            extra: { ...extra, reverseKl: r.reverseKl, topkReverseKl: r.topkReverseKl, gatedTokens: r.gatedTokens },
          };
        }
        const teacherLogp = new Float32Array(M);
        let tokens = 0,
          sequences = 0;
        for (const { id: tid, samples: idx } of groups) {
          const samples = idx.map((s) => packed.samples[s]);
          const lp = await pool.score(tid, samples, init.cfg.temperature);
          const want = idx.reduce((n, s) => n + lengths[s], 0);
          if (lp.length !== want)
            throw new Error(`agentic-opd: teacher ${tid} returned ${lp.length} log-probs for ${want} action tokens`);
          let off = 0;
          for (const s of idx) {
            teacherLogp.set(lp.subarray(off, off + lengths[s]), packed.offsets[s]);
            off += lengths[s];
          }
          tokens += samples.reduce((n, s) => n + s.prompt.length + s.response.length, 0);
          sequences += samples.length;
        }
        const gate = trajectoryTokenGate(mask, packed.sampleTraj, packed.offsets, lengths, M);
        const d = distillAdvantage(teacherLogp, ctx.oldLogp, gate);
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
          cost: { tokens, sequences },
          extra: { ...extra, reverseKl: d.reverseKl, gatedTokens: d.gatedTokens },
        };
      },
    };
  },
} satisfies Algorithm;
