/**
 * The `http` analyzer's prompt: a system + user template that teaches an LLM the skill grammar our base
 * policy was pretrained on (src/core/skills/grammar.ts, canonical variant 0), with worked examples, because a tiny
 * policy only understands the phrasings it learned. The template is plain text so the page can show and edit it.
 *
 * The template names no environment: what it says about the run's env comes from the env's spec (`PromptEnv`,
 * `promptEnv`): its command forms (EnvSpec.commands) and its worked examples and observation text
 * (EnvSpec.analyzerPrompt).
 *
 * Placeholders (replaced in one pass, so a `{K}` inside a task or observation stays literal):
 * - `{task}` the task line; `{outcome}` `success` or `failure`; `{final}` the observation after the last action
 *   (quoted);
 * - `{steps}` one line per step: `step 0: obs="..." action="..." return=0.90` (+ ` invalid` when the action was
 *   inadmissible: the env answered with its invalid-action observation; obs as the env quotes it, by default cut
 *   to OBS_MAX_CHARS; return = discounted return G_t, γ = 0.95);
 * - `{K}` max step skills; `{lastStep}` the last step index (nSteps − 1); `{maxChars}` max characters per skill;
 * - `{commands}` the env's command forms (`go to …, take … from …`), or a sentence saying the commands are those
 *   the episode shows; `{examples}` the env's worked examples, one `Example (…):` line and its JSON each.
 * - `{group}` the trajectory's whole group as one line, `opd-group: ` and a JSON object (`renderGroup`): not for an
 *   LLM (the default template leaves it out) but for a server that runs an embedded analyzer on it, such as `npm run
 *   serve`'s `/v1/chat/completions` (docs/scale-out.md), so it sees what the env's heuristic analyzer sees: every
 *   trajectory of the group with its full observations. `(no group)` when the caller gave none.
 */
import { episodeSkill, failureSkill, stepSkill } from '../skills/grammar';
import type { AnalyzerGroup, AnalyzerPromptSpec, AnalyzerTrajectory, EnvSpec } from '../envs/types';

/** A chat prompt template: the system and user messages, with placeholders (see module doc). */
export interface PromptTemplate {
  system: string;
  user: string;
}

/** Observations longer than this (characters) are cut in `{steps}`, so a 30-step episode stays a short prompt. */
export const OBS_MAX_CHARS = 300;

const SUCCESS_FORM = episodeSkill(['<action>', '<action>', '<action>']);
const FAILURE_FORM = failureSkill('<action>', '<short phrase>', '<action>');

/** The default template. Its forms are built from the grammar module so they never drift from it. */
export const DEFAULT_HTTP_PROMPT: PromptTemplate = {
  system: [
    'You review one finished episode of a text-game agent and write hindsight skills: short hints that a ' +
      'tiny policy will read in its prompt. The policy only understands these exact phrasings:',
    `- step skill (one decision): "${stepSkill('<action>')}"`,
    `- episode skill of a success (the workflow that worked, in order): "${SUCCESS_FORM}"`,
    `- episode skill of a failure (the mistake, its warning sign, the fix): "${FAILURE_FORM}"`,
    "Rules: write every <action> exactly as the agent's commands are written in the episode; lower case; " +
      'no other wording. Give step skills only at the critical steps, where the decision mattered most, at ' +
      'most {K} of them, keyed by step number (0 to {lastStep}). Each skill at most {maxChars} characters.',
    "The environment's commands: {commands}.",
    'Reply with a JSON object only: {"episodeSkill": "...", "stepSkills": {"<step number>": "..."}}',
    '',
    '{examples}',
  ].join('\n'),
  user:
    'Task: {task}\nOutcome: {outcome}\nSteps:\n{steps}\nFinal observation: {final}\n\nWrite the ' +
    'skills for this episode (at most {K} step skills) as a JSON object.',
};

/** Appended to the user message on a retry after a reply that was not usable JSON (stricter prompt). */
export const STRICT_SUFFIX =
  '\n\nReply with ONLY a JSON object of the form {"episodeSkill": "...", "stepSkills": {"<step number>": ' +
  '"..."}}: no code fence, no text before or after it, double-quoted keys and strings, no trailing ' +
  'commas.';

/**
 * What the prompt says about the run's environment (`promptEnv` builds it from an EnvSpec). Every field is optional:
 * an env that gives nothing gets a prompt that names no command and shows no example.
 */
export interface PromptEnv {
  /** The env's command forms, e.g. `take … from …` (EnvSpec.commands). */
  commands?: readonly string[];
  /** Worked examples (EnvSpec.analyzerPrompt). */
  examples?: AnalyzerPromptSpec['examples'];
  /** An observation as the prompt quotes it, before the OBS_MAX_CHARS cut (EnvSpec.analyzerPrompt). */
  observationText?: (observation: string) => string;
}

/** What the prompt says about `preset` of the env `spec` (its command forms, worked examples, observation text). */
export function promptEnv(spec: EnvSpec, preset: string): PromptEnv {
  const p = spec.analyzerPrompt?.(preset);
  return {
    commands: spec.commands?.(preset).map((c) => c.form),
    examples: p?.examples,
    observationText: p?.observationText,
  };
}

const clip = (s: string, n: number) => (s.length > n ? s.slice(0, n - 1) + '…' : s);
// JSON.stringify quotes and escapes newlines/quotes, so one step stays on one line.
const quote = (s: string, env: PromptEnv = {}) => JSON.stringify(clip(env.observationText?.(s) ?? s, OBS_MAX_CHARS));

/** The `{steps}` block for one trajectory (see module doc). */
export function renderSteps(t: AnalyzerTrajectory, env: PromptEnv = {}): string {
  return t.steps
    .map(
      (s, i) =>
        `step ${i}: obs=${quote(s.observation, env)} action=${JSON.stringify(s.action)} ` +
        `return=${s.return.toFixed(2)}${s.valid ? '' : ' invalid'}`,
    )
    .join('\n');
}

/** The `{examples}` block: each worked example as `Example (situation):` and its skills as JSON. */
export function renderExamples(env: PromptEnv): string {
  if (!env.examples?.length) return '(no worked example for this environment)';
  return env.examples
    .map(
      (e) =>
        `Example (${e.situation}):\n` +
        JSON.stringify({ episodeSkill: e.skills.episodeSkill, stepSkills: e.skills.stepSkills }),
    )
    .join('\n');
}

/** What `{group}` is made from: the group being analysed and the index of the trajectory a prompt is about. */
export interface GroupContext {
  group: AnalyzerGroup;
  /** Index of the prompt's trajectory in `group.trajectories`. */
  index: number;
}

/** The prefix of the `{group}` line; the rest of the line is the JSON object `renderGroup` documents. */
export const GROUP_LINE_PREFIX = 'opd-group: ';

/**
 * The `{group}` line: GROUP_LINE_PREFIX and, on the same line (JSON escapes every line break), the object
 * `{"v": 1, "env": <registry name>, "index": <the prompt's trajectory>, "maxStepSkills": K, "trajectories":
 * [{"task", "success", "finalObservation", "steps": [{"observation", "action", "valid", "return"}]}]}` — the
 * AnalyzerGroup as recorded, full observations and unrounded returns, without the privileged `ref`.
 */
export function renderGroup(ctx: GroupContext, K: number): string {
  const trajectories = ctx.group.trajectories.map((t) => ({
    task: t.task,
    success: t.success,
    finalObservation: t.finalObservation,
    steps: t.steps.map((s) => ({ observation: s.observation, action: s.action, valid: s.valid, return: s.return })),
  }));
  const body = { v: 1, env: ctx.group.env, index: ctx.index, maxStepSkills: K, trajectories };
  return GROUP_LINE_PREFIX + JSON.stringify(body);
}

/**
 * Fill a template for one trajectory.
 * @param template system + user text with placeholders (unknown `{names}` are left as written).
 * @param trajectory the trajectory to analyse.
 * @param K max step skills (integer ≥ 0).
 * @param maxChars max characters per skill (default 200).
 * @param env what the prompt says about the run's env (`promptEnv`); default: nothing.
 * @param group the trajectory's group and its index there, for `{group}` (`renderGroup`); default: none.
 * @returns the filled system and user messages.
 */
export function renderPrompt(
  template: PromptTemplate,
  trajectory: AnalyzerTrajectory,
  K: number,
  maxChars = 200,
  env: PromptEnv = {},
  group?: GroupContext,
): PromptTemplate {
  const values: Record<string, string> = {
    task: trajectory.task,
    outcome: trajectory.success ? 'success' : 'failure',
    steps: trajectory.steps.length ? renderSteps(trajectory, env) : '(no steps)',
    final: quote(trajectory.finalObservation, env),
    K: String(K),
    lastStep: String(Math.max(0, trajectory.steps.length - 1)),
    maxChars: String(maxChars),
    commands: env.commands?.length ? env.commands.join(', ') : 'those the episode shows (no list given)',
    examples: renderExamples(env),
  };
  const fill = (s: string) =>
    s.replace(/\{(task|outcome|steps|final|K|lastStep|maxChars|commands|examples|group)\}/g, (_, k: string) =>
      // `{group}` is rendered only when a template asks for it (a group's JSON can be large).
      k === 'group' ? (group ? renderGroup(group, K) : '(no group)') : values[k],
    );
  return { system: fill(template.system), user: fill(template.user) };
}
