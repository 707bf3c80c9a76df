/**
 * The embedded analyzers as an OpenAI-compatible endpoint: `POST /v1/chat/completions` answers an analyzer prompt
 * with the skills of the env's embedded `heuristic` analyzer (EnvSpec.analyzer), in the chat-completions shape
 * (OpenAI's `chat.completion` object: one choice, the skills as a JSON object in the message content,
 * finish_reason `stop`). `GET /v1/models` lists the models served: one per registered env with an embedded analyzer,
 * named as the env; `GET /v1/models/{id}` answers one of them (OpenAI's retrieve-model route; 404 `model_not_found`
 * for another id).
 *
 * Which env: the request's `model`, which must be served (OpenAI's 404 `model_not_found` otherwise, the connection
 * test included; a missing `model` is a 400 naming it, as OpenAI requires the field) and must be the prompt's env: a
 * `{group}` line names its env (400 when it is not the model, or not a served env); for the other forms a 400 when
 * the trajectory's valid actions are all commands of another served env and some is not a command of the model's
 * (`lookAlikeEnvs`); when every action is a command of the model's env, or no other env takes them all, the model's
 * analyzer answers. The trajectories come from the prompt (cli/serve/prompt-read.ts: the `{group}` line, the
 * playground's default prompt or the OPID reference code's). The reply's keys follow the prompt: `episodeSkill` /
 * `stepSkills` for the playground's forms, `episode_summary` / `episode_skill` / `step_skills` for OPID's. The page's
 * "Test connection" message gets `{"ok": true}`.
 *
 * Refusals use OpenAI's error object `{"error": {"message", "type", "param", "code"}}` (`param` the field at fault):
 * 404 `model_not_found` for a model that names no env with an analyzer, 400 for a bad body, a prompt in none of the
 * forms, `stream: true`, or a prompt of another env than the model; 413 over 8 MiB.
 */
import { z } from 'zod';
import { counted } from '../../src/core/count-text';
import { ENV_NAMES, ENV_SPECS, getEnvSpec } from '../../src/core/envs/registry';
import { normalizeAction, type CommandForm, type EnvSpec, type TrajectorySkills } from '../../src/core/envs/types';
import { didYouMean } from '../args';
import { HttpError, parseBody, type Route, type RouteTable } from './http';
import { markInvalidSteps, messageText, readPrompt, type ReadPrompt } from './prompt-read';

/** Largest chat-completions body: a `{group}` line holds the whole group with full observations. */
export const CHAT_BODY_MAX = 8 << 20;

/** The roles of OpenAI's chat messages. */
const CHAT_ROLES = ['system', 'developer', 'user', 'assistant', 'tool', 'function'] as const;

const chatSchema = z.object({
  model: z.string(),
  messages: z.array(z.object({ role: z.enum(CHAT_ROLES), content: z.unknown() })).min(1),
  stream: z.boolean().optional(),
});

/** The registered envs with an embedded analyzer: the models this endpoint serves. */
function analyzerEnvs(): string[] {
  return ENV_SPECS.filter((s) => s.analyzer !== undefined).map((s) => s.name);
}

/**
 * The refusal for a model this endpoint does not serve, in OpenAI's words: 404 `model_not_found`, `param` `model`,
 * naming the model and listing the served ones, then `fix` (what to send instead: the chat route's default, or the
 * models route's own).
 */
function notServed(model: string, fix = 'send as "model" the env the trajectories come from'): HttpError {
  const served = analyzerEnvs();
  return new HttpError(
    404,
    `model "${model}" not found: this server's models are the envs with an embedded analyzer: ` +
      `${served.join(', ')} (GET /v1/models); ${fix}`,
    'model_not_found',
    'model',
  );
}

const commandForms = new Map<string, readonly CommandForm[]>();

/** Every command form `env` offers in any of its presets (EnvSpec.commands); empty when it states none. */
function formsOf(env: string): readonly CommandForm[] {
  if (!commandForms.has(env)) {
    const spec = getEnvSpec(env);
    commandForms.set(env, spec.commands ? spec.presets.flatMap((p) => spec.commands!(p)) : []);
  }
  return commandForms.get(env)!;
}

/** True when `action` (normalised) is a command of `env` in some preset. */
function isCommandOf(env: string, action: string): boolean {
  return formsOf(env).some((f) => f.pattern.test(action));
}

/**
 * For a prompt that names no env (the playground and OPID forms), the other served envs the trajectory's actions
 * belong to: those whose commands take every action of the prompt's trajectory (the steps marked valid), when
 * `model`'s env states its commands and some of those actions is not one of them. Empty when every action is a
 * command of `model`'s env (as every valid action of its episodes is; an episode of forms two envs share fits both),
 * or no other env takes them all (an episode with text no env takes cannot be placed): the model answers.
 */
export function lookAlikeEnvs(model: string, read: ReadPrompt): string[] {
  const actions = read.trajectories[read.index].steps.filter((s) => s.valid).map((s) => normalizeAction(s.action));
  if (!actions.length || !formsOf(model).length || actions.every((a) => isCommandOf(model, a))) return [];
  return analyzerEnvs().filter((e) => e !== model && actions.every((a) => isCommandOf(e, a)));
}

/**
 * The env whose analyzer answers: the model, which must be served (404 `model_not_found` otherwise) and be the env
 * of the prompt: the `{group}` line's env, or the env `lookAlikeEnvs` places the trajectory in (400 naming both). A
 * `{group}` line naming an env with no analyzer here is a 400 naming it and listing the served envs (`param`
 * `messages`: the prompt is at fault, not the model).
 */
function envOf(model: string, read: ReadPrompt): string {
  if (read.env !== undefined && !analyzerEnvs().includes(read.env))
    throw new HttpError(
      400,
      `the prompt's {group} line names env "${read.env}", which this server has no analyzer for: its models are ` +
        `the envs with an embedded analyzer: ${analyzerEnvs().join(', ')} (GET /v1/models)` +
        `${didYouMean(read.env, analyzerEnvs())}; render the line with {group} from a run of one of them`,
      undefined,
      'messages',
    );
  if (read.env !== undefined && model !== read.env)
    throw new HttpError(
      400,
      `model "${model}" names another env than the prompt's {group} line ("${read.env}"); send model "${read.env}"`,
      undefined,
      'model',
    );
  const others = read.env === undefined ? lookAlikeEnvs(model, read) : [];
  if (others.length) {
    const actions = read.trajectories[read.index].steps.filter((s) => s.valid);
    const foreign = actions.filter((s) => !isCommandOf(model, normalizeAction(s.action)));
    const names = others.map((e) => `"${e}"`).join(' or ');
    const one = actions.length === 1;
    const not =
      foreign.length === actions.length
        ? `none is a ${model} command`
        : `${foreign.length} ${foreign.length === 1 ? `is not a ${model} command` : `are not ${model} commands`}`;
    throw new HttpError(
      400,
      `model "${model}" is the ${model} env's analyzer, but the trajectory's ` +
        `${counted(actions.length, 'valid action')}` +
        ` ${one ? 'is a' : 'are all'} ${others.join(' and ')} command${one ? '' : 's'} and ${not} ` +
        `(the first: "${foreign[0].action}"); send model ${names}, the env the trajectory comes from`,
      undefined,
      'model',
    );
  }
  return model;
}

const invalidAnswers = new Map<string, string | null>();

/**
 * What `spec`'s env answers an inadmissible action (the observation of an empty action on train task 0 of its default
 * preset), or null when it takes any text; asked once per env.
 */
export function invalidActionAnswer(spec: EnvSpec): string | null {
  if (!invalidAnswers.has(spec.name)) {
    const env = spec.create(spec.defaultPreset);
    env.reset({ split: 'train', index: 0 });
    const r = env.step('');
    invalidAnswers.set(spec.name, r.valid ? null : r.observation);
  }
  return invalidAnswers.get(spec.name)!;
}

/** A few words on how the episode went, for OPID's `episode_summary`. */
function summary(read: ReadPrompt): string {
  const t = read.trajectories[read.index];
  const invalid = t.steps.filter((s) => !s.valid).length;
  const how = t.success ? 'succeeded' : 'failed';
  return `The agent ${how} after ${t.steps.length} steps (${invalid} invalid) on: ${t.task}`;
}

/** The reply content for skills, keyed as the prompt's form expects. */
function content(read: ReadPrompt, skills: TrajectorySkills | null): unknown {
  const s = skills ?? { episodeSkill: '', stepSkills: {} };
  if (read.form === 'opid')
    return { episode_summary: summary(read), episode_skill: s.episodeSkill, step_skills: s.stepSkills };
  return { episodeSkill: s.episodeSkill, stepSkills: s.stepSkills };
}

/** OpenAI's `chat.completion` object around one assistant message. */
function completion(model: string, text: string, n: number): unknown {
  return {
    id: `chatcmpl-opd-${n}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
  };
}

/** OpenAI's error object for a refusal. */
function openAiError(e: HttpError): unknown {
  const type = e.status >= 500 ? 'server_error' : 'invalid_request_error';
  return { error: { message: e.message, type, param: e.param ?? null, code: e.code ?? null } };
}

/** `POST /v1/chat/completions`: read the prompt, run the env's embedded analyzer, answer its skills. */
function chatRoute(): Route {
  let served = 0;
  return {
    maxBody: CHAT_BODY_MAX,
    errorBody: openAiError,
    async handle(r) {
      const b = parseBody('POST /v1/chat/completions', r.body, chatSchema, {
        what: {
          model: `a served model: an env with an embedded analyzer (${analyzerEnvs().join(', ')}; GET /v1/models)`,
          messages: 'a non-empty array of {role, content}',
          'messages[]': 'an object {role, content}',
          'messages[].role': `one of ${CHAT_ROLES.map((r) => `"${r}"`).join(', ')}`,
          'messages[].content': 'the message: a text (the prompt, in the last user message)',
        },
        example: { model: ENV_NAMES[0], messages: [{ role: 'user', content: '…' }] },
      });
      if (!analyzerEnvs().includes(b.model)) throw notServed(b.model);
      if (b.stream)
        throw new HttpError(
          400,
          'stream: true is not served; send stream: false (or leave it out)',
          undefined,
          'stream',
        );
      const messages = b.messages.map((m) => ({ role: m.role, text: messageText(m.content) }));
      const read = readPrompt(messages);
      if (!read) {
        if (messages.some((m) => m.text.startsWith('Connection test.')))
          return completion(b.model, JSON.stringify({ ok: true }), ++served);
        throw new HttpError(
          400,
          'the messages hold no episode this server can read: send the playground http analyzer prompt (its default ' +
            'template, or any template with {group}), or the OPID reference code episode-analysis prompt',
          undefined,
          'messages',
        );
      }
      // The steps the model's env would not take are marked first: the actions placed are the valid ones.
      markInvalidSteps(read, invalidActionAnswer(getEnvSpec(b.model)));
      const spec = getEnvSpec(envOf(b.model, read));
      const analyzer = spec.analyzer!({ maxStepSkills: read.maxStepSkills });
      const skills = (await analyzer.analyze({ env: spec.name, trajectories: read.trajectories }))[read.index];
      return completion(b.model, JSON.stringify(content(read, skills)), ++served);
    },
  };
}

/** OpenAI's `model` object for a served model (an env with an embedded analyzer); `created` 0 (no date). */
function modelObject(id: string): { id: string; object: 'model'; created: number; owned_by: string } {
  return { id, object: 'model', created: 0, owned_by: 'opd-playground' };
}

/** A path segment percent-decoded, or as sent when its encoding is malformed (`%E0%A4%A`): then it names no model. */
function decodedId(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The OpenAI-compatible routes (see the module doc). */
export function analyzerRoutes(): RouteTable {
  return {
    'POST /v1/chat/completions': chatRoute(),
    'GET /v1/models': {
      maxBody: 0,
      handle: () => ({ object: 'list', data: analyzerEnvs().map(modelObject) }),
    },
    'GET /v1/models/*': {
      maxBody: 0,
      errorBody: openAiError,
      handle: ({ url }) => {
        const id = decodedId(url.pathname.slice('/v1/models/'.length));
        if (!analyzerEnvs().includes(id)) throw notServed(id, 'ask for one of them: GET /v1/models/{name}');
        return modelObject(id);
      },
    },
  };
}
