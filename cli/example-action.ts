/**
 * One action of an environment for the examples a command shows (`npm run play -- --json`'s input line, the fix
 * `npm run serve`'s `POST /step` refusals give): the env's expert's first action on task 0 of the preset's train
 * split, so it is an action of that env in its own words (the default env's `go to desk 1` on easy, a store's
 * `search[non gmo low acid coffee beans 16 ounce dark roast]`, a QA env's `search[Falcon Regatta]`), never another
 * env's.
 */
import { getEnvSpec } from '../src/core/envs/registry';

/** Computed examples, by `env/preset` (each one builds a world and asks its expert once). */
const cache = new Map<string, string>();

/**
 * The expert's first action on train task 0 of `env`/`preset` (cached per env and preset).
 * @throws Error for an unknown env or preset.
 */
export function exampleAction(env: string, preset: string): string {
  const key = `${env}/${preset}`;
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const spec = getEnvSpec(env);
  const world = spec.create(preset);
  world.reset({ split: 'train', index: 0 });
  const action = spec.expert(world).act();
  cache.set(key, action);
  return action;
}
