/**
 * Sampled trajectories of a run, kept beside its events: `trajectories.jsonl`, one line per training step with the
 * group the trainer showed (the `trajectories` event) without its per-token views — `{step, group: [{task,
 * taskType, success, reward, initialObservation, steps: [{observation, action, valid, critical?, stepSkill?}],
 * episodeSkill?, analyzerError?}], detail?}`; the skill fields (OPID, Skill-GRPO) only where the event has them. The
 * page writes it; the CLI's run directories have none. And their export as chat-messages JSONL, the dataset format
 * TRL's and verl's SFT/RL loaders read: one line per trajectory, `{"messages": [{"role", "content"}…], "reward",
 * "success", "task"}`.
 *
 * `detail` (optional; lines written before it existed have none) holds what the rollout explorer shows of that group
 * besides the text (core/train/step-detail.ts, the same group's `GroupDetail`): the train task index; per trajectory
 * S, A_ep, the final observation, each turn's reward and action-token count; and the group's per-token vectors
 * (token ids, A, A_ep, A_skill, ℓ_skill, ℓ_old, ℓ_ref, entropy, PPO ratio) as numbers that read back to the same
 * float32 values (nine significant digits; NaN written as null, ±Infinity as ±1e39, which float32 rounds back to
 * ±Infinity). Prompts are not kept (the largest part of a group). `storedGroup` turns a line back into a
 * `GroupDetail` that says what it lacks. Pure.
 */
import { z } from 'zod';
import type { TrajectoriesEvent } from '../train/events';
import type { GroupDetail, TokenArrays, TurnDetail } from '../train/step-detail';
import { RecordError } from '../run/record';
import { counted } from '../count-text';

/** `n entries` / `1 entry`. */
const entries = (n: number): string => counted(n, 'entry', 'entries');

/** File name of the sampled trajectories in a run record. */
export const TRAJECTORIES_FILE = 'trajectories.jsonl';

const StepSchema = z.object({
  observation: z.string(),
  action: z.string(),
  valid: z.boolean(),
  /** OPID: the step is in the critical set C_τ; its step skill. Written only when present. */
  critical: z.boolean().optional(),
  stepSkill: z.string().optional(),
});
const TrajSchema = z.object({
  task: z.string(),
  taskType: z.string(),
  success: z.boolean(),
  reward: z.number(),
  initialObservation: z.string(),
  steps: z.array(StepSchema),
  /** OPID / Skill-GRPO: the episode skill, or why the analysis failed. Written only when present. */
  episodeSkill: z.string().optional(),
  analyzerError: z.string().optional(),
});
/** A float32 value as written (`f32Json`): a number, or null for NaN. */
const F32 = z.number().nullable();
const F32s = z.array(F32);
const DetailSchema = z.object({
  /** Index of the group's task in the train split. */
  taskIndex: z.number().int().min(0),
  /** Per trajectory, in group order: S, A_ep, the final observation, and per turn its reward and action-token count. */
  trajectories: z.array(
    z.object({
      score: z.number(),
      advantage: z.number(),
      finalObservation: z.string(),
      rewards: z.array(z.number()),
      tokenCounts: z.array(z.number().int().min(0)),
    }),
  ),
  /** The group's per-token vectors over its action tokens (TokenArrays); null where the step computed none. */
  tokens: z.object({
    ids: z.array(z.number().int().min(0)),
    adv: F32s,
    aEp: F32s,
    aSkill: F32s.nullable(),
    logpSkill: F32s.nullable(),
    logpOld: F32s,
    logpRef: F32s.nullable(),
    entropy: F32s,
    ratio: F32s.nullable(),
  }),
});
const LineSchema = z
  .object({ step: z.number().int().min(1), group: z.array(TrajSchema), detail: DetailSchema.optional() })
  .superRefine((r, ctx) => {
    const d = r.detail;
    if (!d) return;
    const issue = (path: (string | number)[], message: string) =>
      ctx.addIssue({ code: 'custom', path: ['detail', ...path], message });
    if (d.trajectories.length !== r.group.length)
      return issue(
        ['trajectories'],
        `has ${counted(d.trajectories.length, 'entry', 'entries')} for a group of ` +
          `${counted(r.group.length, 'trajectory', 'trajectories')}`,
      );
    let tokens = 0;
    for (const [i, t] of d.trajectories.entries()) {
      const turns = r.group[i].steps.length;
      if (t.rewards.length !== turns)
        return issue(['trajectories', i, 'rewards'], `has ${entries(t.rewards.length)} for ${counted(turns, 'turn')}`);
      if (t.tokenCounts.length !== turns)
        return issue(
          ['trajectories', i, 'tokenCounts'],
          `has ${entries(t.tokenCounts.length)} for ${counted(turns, 'turn')}`,
        );
      tokens += t.tokenCounts.reduce((a, b) => a + b, 0);
    }
    for (const [k, v] of Object.entries(d.tokens)) {
      if (v !== null && v.length !== tokens)
        return issue(
          ['tokens', k],
          `has ${counted(v.length, 'value')} for ${counted(tokens, 'action token')} (the sum of tokenCounts)`,
        );
    }
  });

/** One stored trajectory: the text of each env step (observation before the action, the action, admissible?). */
export type StoredTrajectory = z.infer<typeof TrajSchema>;
/** One line of trajectories.jsonl: the group sampled at training step `step`. */
export type TrajectoryRecord = z.infer<typeof LineSchema>;
/** A line's `detail` (module comment). */
export type StoredGroupDetail = z.infer<typeof DetailSchema>;

/**
 * A float32 value as JSON reads it back exactly: nine significant digits (enough for every float32), null for NaN,
 * ±1e39 for ±Infinity (float32 rounds it to ±Infinity).
 */
export function f32Json(x: number): number | null {
  if (Number.isNaN(x)) return null;
  if (!Number.isFinite(x)) return x > 0 ? 1e39 : -1e39;
  return Number(x.toPrecision(9));
}

/** A written vector back as float32 [n] (null → NaN). */
function f32Array(v: readonly (number | null)[]): Float32Array {
  return Float32Array.from(v, (x) => (x === null ? NaN : x));
}

/**
 * The `detail` of a line from the group's `GroupDetail` (the trainer's own numbers), or undefined when `g` does not
 * fit the event's group (another step, or another trajectory or turn count): a line never pairs text and numbers of
 * different groups.
 */
export function groupDetailJson(
  e: Pick<TrajectoriesEvent, 'step' | 'group'>,
  g: GroupDetail,
): StoredGroupDetail | undefined {
  if (g.step !== e.step || g.trajectories.length !== e.group.length) return undefined;
  if (g.trajectories.some((t, i) => t.turns.length !== e.group[i].steps.length)) return undefined;
  const vec = (a: Float32Array) => Array.from(a, f32Json);
  const t = g.tokens;
  return {
    taskIndex: g.taskIndex,
    trajectories: g.trajectories.map((tr) => ({
      score: tr.score,
      advantage: tr.advantage,
      finalObservation: tr.turns.at(-1)?.reply ?? tr.initialObservation,
      rewards: tr.turns.map((u) => u.reward),
      tokenCounts: tr.turns.map((u) => u.tokenCount),
    })),
    tokens: {
      ids: Array.from(t.ids),
      adv: vec(t.adv),
      aEp: vec(t.aEp),
      aSkill: t.aSkill && vec(t.aSkill),
      logpSkill: t.logpSkill && vec(t.logpSkill),
      logpOld: vec(t.logpOld),
      logpRef: t.logpRef && vec(t.logpRef),
      entropy: vec(t.entropy),
      ratio: t.ratio && vec(t.ratio),
    },
  };
}

/**
 * The trajectories.jsonl line of a trajectories event (token views dropped), with `detail` from the same group's
 * `GroupDetail` when given and it fits (`groupDetailJson`).
 */
export function trajectoryLine(e: Pick<TrajectoriesEvent, 'step' | 'group'>, detail?: GroupDetail | null): string {
  const d = detail ? groupDetailJson(e, detail) : undefined;
  const rec: TrajectoryRecord = {
    step: e.step,
    group: e.group.map((t) => ({
      task: t.task,
      taskType: t.taskType,
      success: t.success,
      reward: t.reward,
      initialObservation: t.initialObservation,
      steps: t.steps.map((s) => ({
        observation: s.observation,
        action: s.action,
        valid: s.valid,
        ...(s.critical !== undefined ? { critical: s.critical } : {}),
        ...(s.stepSkill !== undefined ? { stepSkill: s.stepSkill } : {}),
      })),
      ...(t.episodeSkill !== undefined ? { episodeSkill: t.episodeSkill } : {}),
      ...(t.analyzerError !== undefined ? { analyzerError: t.analyzerError } : {}),
    })),
    ...(d ? { detail: d } : {}),
  };
  return JSON.stringify(rec);
}

/** What a group read back from a stored line lacks, in the words the explorer shows. */
export const NOT_KEPT_PROMPTS = "prompts (the policy's input at each turn)";
/** What a line without `detail` lacks besides the prompts. */
export const NOT_KEPT_NUMBERS =
  "the per-token numbers and action tokens, S, A_ep, the train task index, each turn's reward and the last reply";

/**
 * A stored line as the explorer's group (group 0 of its step: the group the `trajectories` event showed). With
 * `detail`, every number is the trainer's own (float32 vectors as written); turns have no prompt (`prompt: null`)
 * and `stored.notKept` says so. Without `detail` (a line written before it was kept), the text alone: no action
 * tokens (empty vectors, every turn's tokenCount 0), and S, A_ep, taskIndex, each turn's reward and the last turn's
 * reply are NaN or '' — `stored.notKept` names them, so a view shows them as not kept, never as values.
 * invalidCount is the number of inadmissible actions (what the rollout counts), done marks each trajectory's last turn.
 */
export function storedGroup(r: TrajectoryRecord): GroupDetail {
  const d = r.detail;
  let start = 0;
  const trajectories = r.group.map((t, i) => {
    const dt = d?.trajectories[i];
    const turns: TurnDetail[] = t.steps.map((s, j) => {
      const count = dt?.tokenCounts[j] ?? 0;
      const u: TurnDetail = {
        prompt: null,
        observation: s.observation,
        reply: j + 1 < t.steps.length ? t.steps[j + 1].observation : (dt?.finalObservation ?? ''),
        action: s.action,
        valid: s.valid,
        reward: dt?.rewards[j] ?? NaN,
        done: j === t.steps.length - 1,
        tokenStart: start,
        tokenCount: count,
        ...(s.critical !== undefined ? { critical: s.critical } : {}),
        ...(s.stepSkill !== undefined ? { stepSkill: s.stepSkill } : {}),
      };
      start += count;
      return u;
    });
    return {
      success: t.success,
      reward: t.reward,
      score: dt?.score ?? NaN,
      advantage: dt?.advantage ?? NaN,
      invalidCount: t.steps.filter((s) => !s.valid).length,
      initialObservation: t.initialObservation,
      ...(t.episodeSkill !== undefined ? { episodeSkill: t.episodeSkill } : {}),
      ...(t.analyzerError !== undefined ? { analyzerError: t.analyzerError } : {}),
      turns,
    };
  });
  const v = d?.tokens;
  const opt = (a: readonly (number | null)[] | null | undefined) => (a ? f32Array(a) : null);
  const tokens: TokenArrays = {
    ids: Int32Array.from(v?.ids ?? []),
    adv: f32Array(v?.adv ?? []),
    aEp: f32Array(v?.aEp ?? []),
    aSkill: opt(v?.aSkill),
    logpSkill: opt(v?.logpSkill),
    logpOld: f32Array(v?.logpOld ?? []),
    logpRef: opt(v?.logpRef),
    entropy: f32Array(v?.entropy ?? []),
    ratio: opt(v?.ratio),
  };
  return {
    step: r.step,
    group: 0,
    task: r.group[0]?.task ?? '',
    taskType: r.group[0]?.taskType ?? '',
    taskIndex: d?.taskIndex ?? NaN,
    trajectories,
    tokens,
    stored: { notKept: d ? [NOT_KEPT_PROMPTS] : [NOT_KEPT_PROMPTS, NOT_KEPT_NUMBERS], tokens: d !== undefined },
  };
}

/**
 * Parse trajectories.jsonl (empty lines skipped).
 * @throws RecordError `trajectories.jsonl line N: field: message` at the first bad line.
 */
export function parseTrajectoryLines(text: string): TrajectoryRecord[] {
  const out: TrajectoryRecord[] = [];
  forEachTrajectoryLine(text, (r) => out.push(r));
  return out;
}

/**
 * Parse trajectories.jsonl one line at a time, handing each validated line to `fn` before the next is parsed (so a
 * caller that keeps only some of them never holds every parsed line at once). Empty lines are skipped.
 * @throws RecordError `trajectories.jsonl line N: field: message` at the first bad line (`fn` has seen the lines before
 * it).
 */
export function forEachTrajectoryLine(text: string, fn: (r: TrajectoryRecord) => void): void {
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    let o: unknown;
    try {
      o = JSON.parse(line);
    } catch {
      throw new RecordError(`${TRAJECTORIES_FILE} line ${i + 1}: not valid JSON (a cut or corrupt line)`);
    }
    const r = LineSchema.safeParse(o);
    if (!r.success) {
      const issue = r.error.issues[0];
      throw new RecordError(
        `${TRAJECTORIES_FILE} line ${i + 1}: ${issue.path.join('.') || '(top level)'}: ${issue.message}`,
      );
    }
    fn(r.data);
  });
}

/** One chat message of the exported dataset. */
export interface ChatMessage {
  role: 'user' | 'assistant';
  content: string;
}

/**
 * A trajectory as chat messages: the first user message is the task, a newline and the first observation; then
 * the policy's action as the assistant's message and the next observation as the user's, in turn. A trajectory
 * with no step is the task and its initial observation alone.
 */
export function chatMessages(t: StoredTrajectory): ChatMessage[] {
  if (!t.steps.length) return [{ role: 'user', content: `${t.task}\n${t.initialObservation}` }];
  return t.steps.flatMap((s, i): ChatMessage[] => [
    { role: 'user', content: i === 0 ? `${t.task}\n${s.observation}` : s.observation },
    { role: 'assistant', content: s.action },
  ]);
}

/**
 * The trajectories as chat-messages JSONL (module comment): one line per trajectory in step and group order, each
 * ending in `\n`. Keys in the order messages, reward, success, task, step.
 */
export function toChatJsonl(records: readonly TrajectoryRecord[]): string {
  return records
    .flatMap((r) =>
      r.group.map(
        (t) =>
          JSON.stringify({
            messages: chatMessages(t),
            reward: t.reward,
            success: t.success,
            task: t.task,
            step: r.step,
          }) + '\n',
      ),
    )
    .join('');
}
