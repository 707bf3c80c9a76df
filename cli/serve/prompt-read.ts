/**
 * Reading an analyzer prompt back into the trajectories an env's embedded analyzer takes, for the server's
 * `/v1/chat/completions` (cli/serve/analyzer.ts). Three forms, tried in this order:
 *
 * 1. `group` — the `{group}` line (src/core/analyzer/prompt.ts `renderGroup`): `opd-group: ` and a JSON object with
 *    the env, the index of the prompt's trajectory, K and the whole group as recorded (full observations, unrounded
 *    returns). The embedded analyzer then sees what it sees in a run: its skills are the same.
 * 2. `playground` — the `http` analyzer's default prompt (DEFAULT_HTTP_PROMPT): `Task:`, `Outcome:`, one
 *    `step i: obs="…" action="…" return=0.90[ invalid]` line per step, `Final observation: "…"`, `at most K step
 *    skills`. One trajectory, its observations as the prompt quotes them (cut to 300 characters, a long page condensed
 *    by the env's `observationText`), returns to 2 decimals.
 * 3. `opid` — the OPID reference code's episode-analysis prompt (jinyangwu/OPID `opid/analysis.py`
 *    `_build_episode_analysis_prompt`): `- Task description:`, `- episode_success: success|failure|unknown`, `at
 *    most K critical step(s)`, then per step `Step i` / `Observation: …` / `Response: …` / `Return: x`. One
 *    trajectory; the action is the response's last `<action>…</action>` (verl-agent's projection), else the whole
 *    response; a step is invalid when the next observation is the env's answer to an inadmissible action (set by
 *    `markInvalidSteps` once the request's model names the env: read here, every step is valid); the final
 *    observation is not in the prompt ('').
 *
 * Each form's losses are what the prompt does not carry; only `group` gives a failed trajectory its siblings.
 */
import { z } from 'zod';
import { GROUP_LINE_PREFIX } from '../../src/core/analyzer/prompt';
import { counted } from '../../src/core/count-text';
import type { AnalyzerStep, AnalyzerTrajectory } from '../../src/core/envs/types';
import { HttpError } from './http';

/** Which prompt a request held (see the module doc). */
export type PromptForm = 'group' | 'playground' | 'opid';

/** The trajectories read from a prompt and which of them the prompt asks about. */
export interface ReadPrompt {
  form: PromptForm;
  /** The env the group line names (the `group` form only; the others take it from the request's model). */
  env?: string;
  trajectories: AnalyzerTrajectory[];
  /** Index of the prompt's trajectory in `trajectories`. */
  index: number;
  /** K: the most step skills the prompt asks for. */
  maxStepSkills: number;
}

/** K when a prompt states none (the OPID paper's K for ALFWorld and WebShop). */
const DEFAULT_K = 5;

const stepSchema = z.object({
  observation: z.string(),
  action: z.string(),
  valid: z.boolean(),
  return: z.number().refine(Number.isFinite, 'a finite number'),
});
const trajectorySchema = z.object({
  task: z.string(),
  success: z.boolean(),
  finalObservation: z.string(),
  steps: z.array(stepSchema).max(1000),
});
const groupSchema = z.object({
  v: z.literal(1),
  env: z.string(),
  index: z.int().nonnegative(),
  maxStepSkills: z.int().min(0).max(100),
  trajectories: z.array(trajectorySchema).min(1).max(512),
});

/** The `{group}` line's object, or null when no line of `text` starts with GROUP_LINE_PREFIX. */
function readGroup(text: string): ReadPrompt | null {
  const line = text.split('\n').find((l) => l.startsWith(GROUP_LINE_PREFIX));
  if (line === undefined) return null;
  let value: unknown;
  try {
    value = JSON.parse(line.slice(GROUP_LINE_PREFIX.length));
  } catch {
    throw new HttpError(400, `the "${GROUP_LINE_PREFIX.trim()}" line is not one JSON object; render it with {group}`);
  }
  const what = `the "${GROUP_LINE_PREFIX.trim()}" line`;
  const r = groupSchema.safeParse(value);
  if (!r.success) {
    const i = r.error.issues[0];
    if (!i.path.length)
      throw new HttpError(400, `${what} must hold one JSON object (${i.message}); render it with {group}`);
    throw new HttpError(400, `${what}'s field "${i.path.join('.')}": ${i.message}; render the line with {group}`);
  }
  const g = r.data;
  const n = g.trajectories.length;
  if (g.index >= n)
    throw new HttpError(
      400,
      `${what}'s field "index" is ${g.index}, but the line holds ${counted(n, 'trajectory', 'trajectories')}: ` +
        `send the index of the prompt's trajectory in "trajectories" (0 to ${n - 1}), as ` +
        '{group} renders it',
    );
  return { form: 'group', env: g.env, trajectories: g.trajectories, index: g.index, maxStepSkills: g.maxStepSkills };
}

/** K from a prompt's wording (`at most 5 step skills`, `at most 3 critical step(s)`), else DEFAULT_K. */
function readK(text: string): number {
  const m = /at most (\d{1,3}) (?:step skills|critical step|of them)/.exec(text);
  return m ? Number(m[1]) : DEFAULT_K;
}

const QUOTED = '"(?:[^"\\\\]|\\\\.)*"';
const STEP_LINE = new RegExp(
  `^step (\\d+): obs=(${QUOTED}) action=(${QUOTED}) return=(-?\\d+(?:\\.\\d+)?)( invalid)?$`,
);

/** The `http` analyzer's default prompt (form 2), or null when `user` is not one. */
function readPlayground(user: string, all: string): ReadPrompt | null {
  const task = /^Task: (.*)$/m.exec(user);
  const outcome = /^Outcome: (success|failure)$/m.exec(user);
  const final = new RegExp(`^Final observation: (${QUOTED})$`, 'm').exec(user);
  if (!task || !outcome || !final) return null;
  const steps: AnalyzerStep[] = [];
  for (const line of user.split('\n')) {
    const m = STEP_LINE.exec(line);
    if (!m) continue;
    if (Number(m[1]) !== steps.length)
      throw new HttpError(400, `the prompt's step lines are out of order at "step ${m[1]}"; send steps 0, 1, 2, …`);
    const [observation, action] = [JSON.parse(m[2]) as string, JSON.parse(m[3]) as string];
    steps.push({ observation, action, valid: !m[5], return: Number(m[4]) });
  }
  const t = {
    task: task[1],
    success: outcome[1] === 'success',
    finalObservation: JSON.parse(final[1]) as string,
    steps,
  };
  return { form: 'playground', trajectories: [t], index: 0, maxStepSkills: readK(all) };
}

/** An OPID step's action: the last `<action>…</action>` of the response (verl-agent's projection), else all of it. */
function opidAction(response: string): string {
  const tags = [...response.matchAll(/<action>([\s\S]*?)<\/action>/g)];
  return (tags.length ? tags[tags.length - 1][1] : response).trim();
}

/** The OPID reference code's prompt (form 3), or null when `user` is not one. */
function readOpid(user: string): ReadPrompt | null {
  const task = /^- Task description: (.*)$/m.exec(user);
  const outcome = /^- episode_success: (success|failure|unknown)$/m.exec(user);
  const start = user.indexOf('- Interaction trajectory: ');
  if (!task || !outcome || start < 0) return null;
  const body = user.slice(start + '- Interaction trajectory: '.length);
  const chunks = body.split(/^Step \d+\nObservation: /m).slice(1);
  const raw = chunks.map((c) => {
    const at = c.indexOf('\nResponse: ');
    if (at < 0) throw new HttpError(400, 'an OPID step has an Observation but no "Response: " line');
    const rest = c.slice(at + '\nResponse: '.length);
    const ret = /\nReturn: (-?[\d.]+(?:e[-+]?\d+)?)\n?/.exec(rest);
    const response = ret ? rest.slice(0, ret.index) : rest.replace(/\n+$/, '');
    return { observation: c.slice(0, at), action: opidAction(response), return: ret ? Number(ret[1]) : 0 };
  });
  const steps = raw.map((s) => ({ ...s, valid: true }));
  const t = {
    task: task[1] === '(not available)' ? '' : task[1],
    success: outcome[1] === 'success',
    finalObservation: '',
    steps,
  };
  return { form: 'opid', trajectories: [t], index: 0, maxStepSkills: readK(user) };
}

/**
 * An `opid` read's steps marked invalid where the next observation is `invalidAnswer`, what the env answers an
 * inadmissible action (`invalidActionAnswer`); null leaves every step valid. Other forms carry validity themselves.
 */
export function markInvalidSteps(read: ReadPrompt, invalidAnswer: string | null): void {
  if (read.form !== 'opid') return;
  for (const t of read.trajectories)
    t.steps.forEach((s, i) => (s.valid = invalidAnswer === null || t.steps[i + 1]?.observation !== invalidAnswer));
}

/** One chat message's text: a string, or the text parts of an array of parts joined. */
export function messageText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((p: unknown) => {
      const part = (typeof p === 'object' && p !== null ? p : {}) as Record<string, unknown>;
      return typeof part.text === 'string' ? part.text : '';
    })
    .join('');
}

/**
 * The trajectories a request's messages hold (see the module doc), or null when none of the three forms is there.
 * @param messages the request's messages (role and text).
 * @throws HttpError 400 when a `{group}` line is malformed or the step lines are out of order.
 */
export function readPrompt(messages: readonly { role: string; text: string }[]): ReadPrompt | null {
  const all = messages.map((m) => m.text).join('\n');
  const group = readGroup(all);
  if (group) return group;
  const users = messages.filter((m) => m.role === 'user').map((m) => m.text);
  for (const user of users) {
    const read = readPlayground(user, all) ?? readOpid(user);
    if (read) return read;
  }
  return null;
}
