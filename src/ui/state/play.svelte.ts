/**
 * The Play view's state (Svelte 5 runes): which task to play (env, preset, split, task index, or a seed that draws a
 * random task), the episode as the worker returns it (`TrainerApi.playStart` / `playStep`, src/worker/play.ts: the
 * environment runs in the worker, never here), the action being typed, and the summary line at the end.
 */
import type { TrainerApi } from '../../worker/api';
import { DEFAULT_ENV, ENV_NAMES, getEnvSpec } from '../../core/envs/registry';
import { SPLITS, type Split } from '../../core/envs/types';
import { closeOpenForm, readTyped, summaryText, type PlayView } from '../../core/envs/play';
import { bareOpenForm } from './play-complete';

/** Play view state for one page; `api` returns the worker's API or null while none is up. */
export class PlayState {
  /** Environment and preset to play (the preset moves to the env's default when the env changes and lacks it). */
  env = $state(DEFAULT_ENV);
  preset = $state(getEnvSpec(DEFAULT_ENV).defaultPreset);
  split = $state<Split>('train');
  /** Task index for Start (an integer ≥ 0); NaN while its field is empty. */
  index = $state(0);
  /**
   * Seed for "Random task" (an integer); each draw moves it on by one, so the next draw is another task. NaN while its
   * field is empty.
   */
  seed = $state(1);
  /** The episode being played, as the worker last returned it; null before the first Start. */
  view = $state.raw<PlayView | null>(null);
  /** The seed the task shown was drawn from, or null when it was chosen by index. */
  drawnFrom = $state<number | null>(null);
  /** The action being typed. */
  text = $state('');
  /** Why the last call failed, in words; '' when it did not. */
  error = $state('');
  /** True while a call to the worker is in flight. */
  working = $state(false);

  /** The environments and the chosen env's presets and the splits, for the pickers. */
  readonly envs = ENV_NAMES;
  readonly splits = SPLITS;
  presets = $derived(getEnvSpec(this.env).presets);
  /** The end-of-episode summary line (steps, success, total reward), or '' while the episode goes on. */
  summary = $derived(this.view?.summary.done ? summaryText(this.view.summary) : '');

  constructor(private readonly api: () => Pick<TrainerApi, 'playStart' | 'playStep'> | null) {}

  /** True once the person picked an environment here (setEnv): `follow` then changes nothing. */
  private chosen = false;
  /** The run's `env/preset` `follow` last saw. */
  private followed = '';

  /**
   * Shows the run's environment and preset when they change (the page calls it whenever the run's settings change),
   * so Play opens on the env being trained; does nothing when they did not change since the last call (a preset picked
   * here stays), once the person picked an env here or started a task, or for an env or preset the registry does not
   * know.
   */
  follow(env: string, preset: string): void {
    if (`${env}/${preset}` === this.followed) return;
    this.followed = `${env}/${preset}`;
    if (this.chosen || this.view || !ENV_NAMES.includes(env) || !getEnvSpec(env).presets.includes(preset)) return;
    this.env = env;
    this.preset = preset;
  }

  /** Chooses the environment; keeps the preset when the env has it, else takes the env's default preset. */
  setEnv(env: string): void {
    this.chosen = true;
    this.env = env;
    const spec = getEnvSpec(env);
    if (!spec.presets.includes(this.preset)) this.preset = spec.defaultPreset;
  }

  /** The Task index field's text as `index`: NaN when it is empty (Start then says so), never 0. */
  typeIndex(text: string): void {
    this.index = fieldNumber(text);
  }

  /** The Seed field's text as `seed`: NaN when it is empty (Random task then says so), never 0. */
  typeSeed(text: string): void {
    this.seed = fieldNumber(text);
  }

  /** Starts the task at `index` of the chosen env, preset and split. */
  async start(): Promise<void> {
    if (Number.isNaN(this.index)) {
      this.error = 'Task index is empty; enter an integer ≥ 0, such as 0 or 357.';
      return;
    }
    if (!Number.isSafeInteger(this.index) || this.index < 0) {
      this.error = `Task index must be an integer ≥ 0 (got ${this.index}); type a whole number such as 0 or 357.`;
      return;
    }
    await this.call(
      (api) => api.playStart({ env: this.env, preset: this.preset, split: this.split, index: this.index }),
      null,
    );
  }

  /** Starts the task drawn from `seed` (the same seed, the same task), then moves the seed on by one. */
  async random(): Promise<void> {
    const seed = this.seed;
    if (Number.isNaN(seed)) {
      this.error = 'Seed is empty; enter an integer between −2147483647 and 2147483647.';
      return;
    }
    if (!Number.isSafeInteger(seed) || Math.abs(seed) > 2 ** 31 - 1) {
      this.error = `Seed must be an integer between −2147483647 and 2147483647 (got ${seed}).`;
      return;
    }
    if (
      await this.call((api) => api.playStart({ env: this.env, preset: this.preset, split: this.split, seed }), seed)
    ) {
      this.index = this.view?.index ?? this.index;
      this.seed = seed + 1;
    }
  }

  /**
   * Plays `action` (default: the typed text); the text is cleared once the worker has played it. Blank text is not
   * played (an Enter in an empty box costs no step), as the CLI's text mode skips empty lines. A whole number n plays
   * the n-th admissible action, as in the CLI; a number outside 1..N is not played (no step) and `error` gives the
   * range (core `readTyped`). An open form (an admissible action ending in `[`, e.g. `search[`), typed or picked by
   * its number, is not played: it is put in the box for the person's words, and `error` says so; words after it with
   * no closing `]` get one (core `closeOpenForm`, as the CLI's text mode).
   */
  async step(action: string = this.text): Promise<void> {
    if (!this.view || this.view.summary.done || this.working || action.trim() === '') return;
    const typed = readTyped(action, this.view.admissible);
    if ('message' in typed) {
      this.error = `${typed.message.charAt(0).toUpperCase()}${typed.message.slice(1)}.`;
      return;
    }
    const open = bareOpenForm(typed.action, this.view.admissible);
    if (open !== null) {
      this.text = open;
      this.error = `Type your own words after ${open} and press Enter (the closing ] is added if you leave it out).`;
      return;
    }
    const played = closeOpenForm(typed.action, this.view.admissible);
    if (await this.call((api) => api.playStep(played), this.drawnFrom)) this.text = '';
  }

  /** Runs one worker call; returns whether it succeeded (else `error` says why). */
  private async call(
    f: (api: Pick<TrainerApi, 'playStart' | 'playStep'>) => Promise<PlayView>,
    drawnFrom: number | null,
  ): Promise<boolean> {
    const api = this.api();
    if (!api) {
      this.error = 'the training worker is not ready yet (it is starting, or failed: see the Train view)';
      return false;
    }
    this.working = true;
    this.error = '';
    try {
      this.view = await f(api);
      this.drawnFrom = drawnFrom;
      return true;
    } catch (e) {
      this.error = e instanceof Error ? e.message : String(e);
      return false;
    } finally {
      this.working = false;
    }
  }
}

/** A number field's text as a number: NaN when blank (`Number('')` would read an emptied field as 0). */
function fieldNumber(text: string): number {
  return text.trim() === '' ? NaN : Number(text);
}
