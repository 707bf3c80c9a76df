/**
 * The page's Play view, worker side: a person plays one task of an environment here, in the worker, never on the
 * page's main thread (core `PlayEpisode`, src/core/envs/play.ts). The page sends the task and each action through
 * `TrainerApi.playStart` / `playStep` and gets the whole episode back as plain data (`PlayView`). Playing touches no
 * tfjs and no training state, so it works while a run trains or is paused.
 */
import { z } from 'zod';
import { PlayEpisode, randomTaskIndex, type PlayView } from '../core/envs/play';
import { SPLITS, type Split } from '../core/envs/types';
import type { PlayRequest } from './api';

/** Longest action the page may send (characters): far above any env's real action, so nothing typed is cut. */
export const PLAY_ACTION_MAX = 10_000;

/** The check of a `PlayRequest` (api.ts) the page sends: its fields' ranges, and exactly one of index and seed. */
export const playRequestSchema: z.ZodType<PlayRequest, PlayRequest> = z
  .object({
    env: z.string().min(1).max(40),
    preset: z.string().min(1).max(40),
    split: z.enum(SPLITS as [Split, ...Split[]]),
    index: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
    seed: z
      .number()
      .int()
      .min(-(2 ** 31))
      .max(2 ** 31 - 1)
      .optional(),
  })
  .strict()
  .refine((r) => (r.index === undefined) !== (r.seed === undefined), {
    message: 'give either index (a task index) or seed (a random task), not both or neither',
    path: ['index'],
  });

/** `field: message` of a zod error's first issue, e.g. `index: Too small: expected number to be >=0`. */
function firstIssue(e: z.ZodError): string {
  const i = e.issues[0];
  return `${i.path.join('.') || 'request'}: ${i.message}`;
}

/** The one task the page plays (a new `start` replaces it). */
export class PlayTable {
  private episode: PlayEpisode | null = null;

  /**
   * Starts the task asked for and returns its first view.
   * @throws Error `play: <field>: <what is wrong>` on a bad request (unknown env, preset or split, a bad index or
   *   seed, both or neither of index and seed); the task played before, if any, stays.
   */
  start(request: unknown): PlayView {
    const parsed = playRequestSchema.safeParse(request);
    if (!parsed.success) throw new Error(`play: ${firstIssue(parsed.error)}`);
    const r = parsed.data;
    const index = r.index ?? randomTaskIndex(r.seed as number);
    try {
      this.episode = new PlayEpisode({ env: r.env, preset: r.preset, split: r.split, index });
    } catch (e) {
      throw new Error(`play: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
    return this.episode.view();
  }

  /**
   * Plays one action of the current task and returns the updated view (the new turn is its last; a not-admissible
   * action's turn carries a hint).
   * @throws Error when no task is started, the episode has ended, or `action` is not a string of at most
   *   PLAY_ACTION_MAX characters.
   */
  step(action: unknown): PlayView {
    if (typeof action !== 'string') throw new Error('play: action must be text');
    if (action.length > PLAY_ACTION_MAX)
      throw new Error(`play: action must be at most ${PLAY_ACTION_MAX} characters (got ${action.length})`);
    if (!this.episode) throw new Error('play: no task started; choose one and press Start');
    if (this.episode.done) throw new Error('play: the episode has ended; start a new task');
    this.episode.step(action);
    return this.episode.view();
  }

  /** The current task's view, or null before the first start. */
  view(): PlayView | null {
    return this.episode?.view() ?? null;
  }
}
