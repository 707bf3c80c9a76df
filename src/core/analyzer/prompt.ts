/**
 * The `http` analyzer's prompt: a system + user template that teaches an LLM the skill grammar our base
 * policy was pretrained on (src/core/skills/grammar.ts, canonical variant 0), with worked examples, because a tiny
 * policy only understands the phrasings it learned. The template is plain text so the page can show and edit it.
 *
 * Placeholders (replaced in one pass, so a `{K}` inside a task or observation stays literal):
 * - `{task}` the task line; `{outcome}` `success` or `failure`; `{final}` the observation after the last action
 *   (quoted);
 * - `{steps}` one line per step: `step 0: obs="..." action="..." return=0.90` (+ ` invalid` when the env answered
 *   `Nothing happens.`; obs cut to OBS_MAX_CHARS; return = discounted return G_t, γ = 0.95);
 * - `{K}` max step skills; `{lastStep}` the last step index (nSteps − 1); `{maxChars}` max characters per skill.
 */
import { episodeSkill, failureSkill, stepSkill, warningSign } from '../skills/grammar';
import type { AnalyzerTrajectory } from './types';

/** A chat prompt template: the system and user messages, with placeholders (see module doc). */
export interface PromptTemplate {
  system: string;
  user: string;
}

/** Observations longer than this (characters) are cut in `{steps}`, so a 30-step episode stays a short prompt. */
export const OBS_MAX_CHARS = 300;

const example = (skill: string, steps: Record<number, string>) =>
  JSON.stringify({ episodeSkill: skill, stepSkills: steps });

const SUCCESS_FORM = episodeSkill(['<action>', '<action>', '<action>']);
const FAILURE_FORM = failureSkill('<action>', '<short phrase>', '<action>');

/** The default template. Examples are built from the grammar module so they never drift from it. */
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
    'Reply with a JSON object only: {"episodeSkill": "...", "stepSkills": {"<step number>": "..."}}',
    '',
    'Example (success; steps 0-3 were go to countertop 2, take apple 1 from countertop 2, go to fridge 1, ' +
      'move apple 1 to fridge 1):',
    example(
      episodeSkill([
        'go to countertop 2',
        'take apple 1 from countertop 2',
        'go to fridge 1',
        'move apple 1 to fridge 1',
      ]),
      {
        1: stepSkill('take apple 1 from countertop 2'),
        3: stepSkill('move apple 1 to fridge 1'),
      },
    ),
    'Example (failure; task "put an apple in fridge", step 1 took mug 2 from countertop 1 while apple 1 ' +
      'was there too):',
    example(
      failureSkill(
        'take mug 2 from countertop 1',
        warningSign('wrongObject', 'apple'),
        'take apple 1 from countertop 1',
      ),
      {
        1: stepSkill('take apple 1 from countertop 1'),
      },
    ),
    'Example (failure; a question answered without searching for the second entity, steps ran out):',
    example(failureSkill('answer[lake vorn]', warningSign('timeout'), 'search[birthplace of mira sol]'), {
      1: stepSkill('search[birthplace of mira sol]'),
    }),
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

const clip = (s: string, n: number) => (s.length > n ? s.slice(0, n - 1) + '…' : s);
// JSON.stringify quotes and escapes newlines/quotes, so one step stays on one line.
const quote = (s: string) => JSON.stringify(clip(s, OBS_MAX_CHARS));

/** The `{steps}` block for one trajectory (see module doc). */
export function renderSteps(t: AnalyzerTrajectory): string {
  return t.steps
    .map(
      (s, i) =>
        `step ${i}: obs=${quote(s.observation)} action=${JSON.stringify(s.action)} ` +
        `return=${s.return.toFixed(2)}${s.valid ? '' : ' invalid'}`,
    )
    .join('\n');
}

/**
 * Fill a template for one trajectory.
 * @param template system + user text with placeholders (unknown `{names}` are left as written).
 * @param trajectory the trajectory to analyse.
 * @param K max step skills (integer ≥ 0).
 * @param maxChars max characters per skill (default 200).
 * @returns the filled system and user messages.
 */
export function renderPrompt(
  template: PromptTemplate,
  trajectory: AnalyzerTrajectory,
  K: number,
  maxChars = 200,
): PromptTemplate {
  const values: Record<string, string> = {
    task: trajectory.task,
    outcome: trajectory.success ? 'success' : 'failure',
    steps: trajectory.steps.length ? renderSteps(trajectory) : '(no steps)',
    final: quote(trajectory.finalObservation),
    K: String(K),
    lastStep: String(Math.max(0, trajectory.steps.length - 1)),
    maxChars: String(maxChars),
  };
  const fill = (s: string) =>
    s.replace(/\{(task|outcome|steps|final|K|lastStep|maxChars)\}/g, (_, k: string) => values[k]);
  return { system: fill(template.system), user: fill(template.user) };
}
