/**
 * The environment server's routes in the shape of AgentGym's `agentenv-*` servers (Xi et al. 2024; their FastAPI
 * `server.py`): create an environment, reset it to a task, step it with an action's text, read its observation and
 * available actions, close it. The env is addressed by `env_idx` (AgentGym's WebShop and SearchQA servers; AgentGym's
 * ALFWorld server's `id` is accepted too), a task by the playground's (split, index) (AgentGym's `game` /
 * `session_id` are accepted for `index`).
 *
 * - `POST /create {env?, preset?}` → `{"id": n, "env": "…", "preset": "…"}`: the env and preset made (defaults
 *   filled in), so a client that left them out knows which tasks its env takes
 * - `POST /reset {env_idx, split?, index, env?, preset?}` → `{id, task, task_type, observation, admissible_actions,
 *   available_actions, max_steps}`; `env` and `preset`, when sent, must be the ones `env_idx` was created with (400
 *   otherwise: a client that names another env expects its tasks)
 * - `POST /step {env_idx, action}` → `{observation, reward, done, info: {won, is_action_valid, task_type,
 *   admissible_actions, steps, max_steps}}`, `info` also holding the numbers the env reports (`StepResult.info`)
 * - `GET /observation?env_idx=` → the latest observation (a JSON string, as AgentGym's)
 * - `GET /available_actions?env_idx=` → `EnvSpec.availableActions` of the admissible list, else the list
 * - `GET /expert_action?env_idx=` → `{action}`: the env's expert (privileged; only with `--expert`)
 * - `POST /close {env_idx}` → `{"closed": true}`
 * - `GET /health` → the open count, the bounds and the process's memory (MiB)
 * - `GET /version` → env names, versions, presets, task types, max steps, splits
 *
 * Refusals are `{"error": "..."}` with 400 (bad JSON, a bad or missing field, an unknown env, preset or split with a
 * did-you-mean, a train index at or past TRAIN_TASK_INDICES: those tasks are `val`'s), 404 (an unknown, closed or
 * reclaimed id), 408 (a body not in within 10 s), 409 (a step before any reset or after done), 413 (a body over
 * 64 KiB) and 429 (`--max-envs` open). Which env an id holds is the pool's business: only `/create` sets it. A
 * refused `POST /step` body's example action is one of the env its `env_idx` names (`stepExample`).
 */
import { z } from 'zod';
import { DEFAULT_ENV, ENV_SPECS, getEnvSpec } from '../../src/core/envs/registry';
import { SPLITS, TRAIN_TASK_INDICES } from '../../src/core/envs/types';
import { exampleAction } from '../example-action';
import { HttpError, intParam, parseBody, type Route, type RouteTable } from './http';
import type { EnvPool, Slot } from './pool';

/** Largest body of an environment route (an action of at most `MAX_ACTION_CHARS` characters fits). */
export const ENV_BODY_MAX = 64 * 1024;
const ID_WORDS = 'an integer ≥ 0, the id POST /create answered';
const ID_ALIASES = { id: 'env_idx' };
const INDEX_WORDS =
  `a safe integer in 0..${Number.MAX_SAFE_INTEGER} (below ${TRAIN_TASK_INDICES} for split train; ` +
  `the tasks past it are split val's)`;

const createSchema = z.object({ env: z.string().optional(), preset: z.string().optional() });
const resetSchema = z.object({
  env_idx: z.int().nonnegative(),
  split: z.string().optional(),
  index: z.int().nonnegative(),
  // Read only to check them against the env `env_idx` names (clients that send them expect that env).
  env: z.string().optional(),
  preset: z.string().optional(),
});
/** Longest action `/step` takes: an env's parsing and search cost time in its length, on the server's one thread. */
export const MAX_ACTION_CHARS = 2000;
const stepSchema = z.object({ env_idx: z.int().nonnegative(), action: z.string().max(MAX_ACTION_CHARS) });
const closeSchema = z.object({ env_idx: z.int().nonnegative() });

/** What the server was started with that the routes need. */
export interface EnvRouteOptions {
  /** Serve `/expert_action` (the expert reads the hidden state: demonstrations and checks only). */
  expert: boolean;
  /** The package version, for `/version`. */
  version: string;
  maxEnvs: number;
  idleSeconds: number;
}

/** The answer of `GET /available_actions` for a slot: the env's own shape, else the admissible list. */
function availableActions(slot: Slot): unknown {
  if (!slot.episode)
    throw new HttpError(409, `GET /available_actions: env ${slot.id} has no task yet; POST /reset it first`);
  const admissible = slot.env.admissibleActions();
  return slot.spec.availableActions ? slot.spec.availableActions(admissible) : admissible;
}

/**
 * The server process's memory in MiB (`process.memoryUsage`): resident set and V8 heap in use, the heap measured after
 * a full collection when node runs with `--expose-gc` (`npm run bench:serve` starts it so, to see whether memory stays
 * flat over many episodes).
 */
function memoryMiB(): { rss: number; heap_used: number } {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  const mib = (b: number) => Math.round((b / 2 ** 20) * 10) / 10;
  return { rss: mib(m.rss), heap_used: mib(m.heapUsed) };
}

/** A POST route with the environment routes' body cap. */
function post(handle: (body: string) => unknown): Route {
  return { maxBody: ENV_BODY_MAX, handle: (r) => handle(r.body) };
}

/** A GET route reading `env_idx` (or `id`) from the query. */
function getById(pool: EnvPool, route: string, answer: (slot: Slot) => unknown): Route {
  return { maxBody: 0, handle: (r) => answer(pool.get(intParam(r.url, ['env_idx', 'id'], route), route)) };
}

/** `/version`: the server and every registered env with its presets, task types, splits and max steps. */
function versionInfo(version: string): unknown {
  return {
    server: 'opd-playground',
    version,
    protocol: 1,
    default_env: DEFAULT_ENV,
    envs: ENV_SPECS.map((s) => ({
      name: s.name,
      version: s.version,
      summary: s.summary,
      presets: s.presets,
      default_preset: s.defaultPreset,
      task_types: Object.fromEntries(s.presets.map((p) => [p, s.taskTypes(p)])),
      max_steps: Object.fromEntries(s.presets.map((p) => [p, s.create(p).maxSteps])),
      splits: SPLITS,
      retrieve: s.retrieve !== undefined,
    })),
  };
}

/**
 * The example body of a refused `POST /step`: when the body's `env_idx` names an open environment, that id with an
 * action of its env and preset (`exampleAction`: a store's `search[…]` with its own words); otherwise id 0 with an
 * action of the default env, and a note saying whose action it is and where an env's own actions are listed.
 */
export function stepExample(
  pool: EnvPool,
  body: Readonly<Record<string, unknown>> | undefined,
): { example: { env_idx: number; action: string }; note?: string } {
  const id = body?.env_idx;
  const slot = typeof id === 'number' && Number.isSafeInteger(id) && id >= 0 ? pool.peek(id) : undefined;
  if (slot) return { example: { env_idx: slot.id, action: exampleAction(slot.spec.name, slot.preset) } };
  const preset = getEnvSpec(DEFAULT_ENV).defaultPreset;
  return {
    example: { env_idx: 0, action: exampleAction(DEFAULT_ENV, preset) },
    note:
      `(an action of ${DEFAULT_ENV}/${preset}; another env's actions are in the admissible_actions its ` +
      `POST /reset answered)`,
  };
}

/** The step route: the action's outcome, with the episode's won / valid / task type and the next admissible list. */
function stepRoute(pool: EnvPool): Route {
  return post((body) => {
    const b = parseBody('POST /step', body, stepSchema, {
      what: { env_idx: ID_WORDS, action: `the action as text, at most ${MAX_ACTION_CHARS} characters` },
      exampleFor: (sent) => stepExample(pool, sent),
      aliases: ID_ALIASES,
    });
    const slot = pool.running(b.env_idx, 'POST /step');
    const r = slot.env.step(b.action);
    const ep = slot.episode;
    ep.observation = r.observation;
    ep.done = r.done;
    ep.won ||= r.success;
    const info = {
      ...r.info, // numbers the env reports besides the reward (searchqa's answer scores), under the keys below
      won: ep.won,
      is_action_valid: r.valid,
      task_type: ep.taskType,
      admissible_actions: slot.env.admissibleActions(),
      steps: slot.env.steps,
      max_steps: slot.env.maxSteps,
    };
    return { observation: r.observation, reward: r.reward, done: r.done, info };
  });
}

/** The reset route: the task line, its type, the first observation and what is admissible. */
function resetRoute(pool: EnvPool): Route {
  return post((body) => {
    const b = parseBody('POST /reset', body, resetSchema, {
      what: {
        env_idx: ID_WORDS,
        split: `one of ${SPLITS.join(', ')} (default train)`,
        index: INDEX_WORDS,
        env: 'the name of the env env_idx is (optional; checked, never changed)',
        preset: 'the preset env_idx was created with (optional; checked, never changed)',
      },
      example: { env_idx: 0, split: 'train', index: 7 },
      aliases: { ...ID_ALIASES, game: 'index', session_id: 'index' },
    });
    const made = pool.get(b.env_idx, 'POST /reset');
    const wanted = { env: b.env ?? made.spec.name, ...(b.preset === undefined ? {} : { preset: b.preset }) };
    for (const [field, sentValue, is] of [
      ['env', b.env, made.spec.name],
      ['preset', b.preset, made.preset],
    ] as const)
      if (sentValue !== undefined && sentValue !== is)
        throw new HttpError(
          400,
          `POST /reset: field "${field}" is ${JSON.stringify(sentValue)}, but env ${made.id} is ` +
            `${made.spec.name}/${made.preset} (its env and preset are set by POST /create); POST /create ` +
            `${JSON.stringify(wanted)} for that one, or leave the field out`,
          undefined,
          field,
        );
    const { slot, result } = pool.reset(b.env_idx, b.split ?? 'train', b.index);
    return {
      id: slot.id,
      task: result.task,
      task_type: result.taskType,
      observation: result.observation,
      admissible_actions: slot.env.admissibleActions(),
      available_actions: availableActions(slot),
      max_steps: slot.env.maxSteps,
    };
  });
}

/** The expert's next action for an env's running episode, or 403 when the server was started without `--expert`. */
function expertRoute(pool: EnvPool, enabled: boolean): Route {
  const route = 'GET /expert_action';
  return {
    maxBody: 0,
    handle: (r) => {
      if (!enabled)
        throw new HttpError(
          403,
          `${route} is off: the expert reads the env's hidden state (demonstrations, checks); start the server with ` +
            `--expert to serve it`,
        );
      const slot = pool.running(intParam(r.url, ['env_idx', 'id'], route), route);
      slot.expert ??= slot.spec.expert(slot.env);
      return { action: slot.expert.act() };
    },
  };
}

/** Every environment route over `pool` (see the module doc). */
export function envRoutes(pool: EnvPool, o: EnvRouteOptions): RouteTable {
  const info = versionInfo(o.version);
  return {
    'GET /': { maxBody: 0, handle: () => 'ok' },
    'GET /health': {
      maxBody: 0,
      handle: () => ({
        status: 'ok',
        envs: pool.size,
        max_envs: o.maxEnvs,
        idle_timeout_s: o.idleSeconds,
        memory: memoryMiB(),
      }),
    },
    'GET /version': { maxBody: 0, handle: () => info },
    'POST /create': post((body) => {
      const b = parseBody('POST /create', body || '{}', createSchema, {
        what: { env: 'a registered env name', preset: "one of the env's presets" },
        example: { env: DEFAULT_ENV },
      });
      const slot = pool.get(pool.create(b.env ?? DEFAULT_ENV, b.preset), 'POST /create');
      return { id: slot.id, env: slot.spec.name, preset: slot.preset };
    }),
    'POST /reset': resetRoute(pool),
    'POST /step': stepRoute(pool),
    'GET /observation': getById(pool, 'GET /observation', (s) => {
      if (!s.episode) throw new HttpError(409, `GET /observation: env ${s.id} has no task yet; POST /reset it first`);
      return s.episode.observation;
    }),
    'GET /available_actions': getById(pool, 'GET /available_actions', availableActions),
    'GET /expert_action': expertRoute(pool, o.expert),
    'POST /close': post((body) => {
      const b = parseBody('POST /close', body, closeSchema, {
        what: { env_idx: ID_WORDS },
        example: { env_idx: 0 },
        aliases: ID_ALIASES,
      });
      pool.close(b.env_idx);
      return { closed: true };
    }),
  };
}
