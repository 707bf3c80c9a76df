/**
 * Sampled trajectories of a run, kept beside its events: `trajectories.jsonl`, one line per training step with the
 * group the trainer showed (the `trajectories` event) without its per-token views — `{step, group: [{task,
 * taskType, success, reward, initialObservation, steps: [{observation, action, valid, critical?, stepSkill?}],
 * episodeSkill?, analyzerError?}]}`; the skill fields (OPID, Skill-GRPO) only where the event has them. The page writes it; the
 * CLI's run directories have none. And their export as chat-messages JSONL, the dataset format TRL's and verl's
 * SFT/RL loaders read: one line per trajectory, `{"messages": [{"role", "content"}…], "reward", "success", "task"}`.
 * Pure.
 */
import { z } from 'zod';
import type { TrajectoriesEvent } from '../train/events';
import { RecordError } from './record';

/** File name of the sampled trajectories in a run record. */
export const TRAJECTORIES_FILE = 'trajectories.jsonl';

const StepSchema = z.object({
  observation: z.string(), action: z.string(), valid: z.boolean(),
  /** OPID: the step is in the critical set C_τ; its step skill. Written only when present. */
  critical: z.boolean().optional(), stepSkill: z.string().optional(),
});
const TrajSchema = z.object({
  task: z.string(), taskType: z.string(), success: z.boolean(), reward: z.number(), initialObservation: z.string(), steps: z.array(StepSchema),
  /** OPID / Skill-GRPO: the episode skill, or why the analysis failed. Written only when present. */
  episodeSkill: z.string().optional(), analyzerError: z.string().optional(),
});
const LineSchema = z.object({ step: z.number().int().min(1), group: z.array(TrajSchema) });

/** One stored trajectory: the text of each env step (observation before the action, the action, admissible?). */
export type StoredTrajectory = z.infer<typeof TrajSchema>;
/** One line of trajectories.jsonl: the group sampled at training step `step`. */
export type TrajectoryRecord = z.infer<typeof LineSchema>;

/** The trajectories.jsonl line of a trajectories event (token views dropped). */
export function trajectoryLine(e: Pick<TrajectoriesEvent, 'step' | 'group'>): string {
  const rec: TrajectoryRecord = {
    step: e.step,
    group: e.group.map((t) => ({
      task: t.task, taskType: t.taskType, success: t.success, reward: t.reward, initialObservation: t.initialObservation,
      steps: t.steps.map((s) => ({
        observation: s.observation, action: s.action, valid: s.valid,
        ...(s.critical !== undefined ? { critical: s.critical } : {}), ...(s.stepSkill !== undefined ? { stepSkill: s.stepSkill } : {}),
      })),
      ...(t.episodeSkill !== undefined ? { episodeSkill: t.episodeSkill } : {}), ...(t.analyzerError !== undefined ? { analyzerError: t.analyzerError } : {}),
    })),
  };
  return JSON.stringify(rec);
}

/**
 * Parse trajectories.jsonl (empty lines skipped).
 * @throws RecordError `trajectories.jsonl line N: field: message` at the first bad line.
 */
export function parseTrajectoryLines(text: string): TrajectoryRecord[] {
  const out: TrajectoryRecord[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    let o: unknown;
    try {
      o = JSON.parse(line);
    } catch {
      throw new RecordError(`${TRAJECTORIES_FILE} line ${i + 1}: not valid JSON (a cut or corrupt line)`);
    }
    const r = LineSchema.safeParse(o);
    if (!r.success) throw new RecordError(`${TRAJECTORIES_FILE} line ${i + 1}: ${r.error.issues[0].path.join('.') || '(top level)'}: ${r.error.issues[0].message}`);
    out.push(r.data);
  });
  return out;
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
    .flatMap((r) => r.group.map((t) => JSON.stringify({ messages: chatMessages(t), reward: t.reward, success: t.success, task: t.task, step: r.step }) + '\n'))
    .join('');
}
