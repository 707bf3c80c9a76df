/**
 * The explorer's "Act with the current policy" panel state (Svelte 5 runes): the episode the worker plays with the
 * run's current weights (src/worker/act.ts, `TrainerApi.actStart` / `actStep`), one turn per Step, sampled with the
 * worker's seeded generator or greedy. Only snapshots cross the worker boundary.
 */
import type { TrainerApi } from '../../worker/api';
import type { ActEpisodeView } from '../../worker/api';

/** Act panel state for one page; `api` returns the worker's API or null while none is up. */
export class ActPanelState {
  /** The episode being played (turns so far), or null before Act. */
  episode = $state.raw<ActEpisodeView | null>(null);
  /** Take the most probable action instead of sampling. */
  greedy = $state(false);
  /** True while a call is in flight (Act and Step are disabled). */
  busy = $state(false);
  /** Why the last call failed, in words; '' when it did not. */
  error = $state('');
  /** Counts calls, so an answer that arrives after `clear` is dropped. */
  private seq = 0;

  constructor(private readonly api: () => Pick<TrainerApi, 'actStart' | 'actStep'> | null) {}

  /** Starts playing the task of trajectory `trajectory` of group `group` of step `step` from its start. */
  async start(step: number, group: number, trajectory: number): Promise<void> {
    await this.call((api) => api.actStart(step, group, trajectory));
  }

  /** Plays the next turn (greedy or sampled, per `greedy`). */
  async step(): Promise<void> {
    if (!this.episode || this.episode.done) return;
    const greedy = this.greedy;
    await this.call((api) => api.actStep(greedy));
  }

  /** Forgets the episode (a new run). */
  clear(): void {
    this.seq++;
    this.episode = null;
    this.error = '';
    this.busy = false;
  }

  private async call(f: (api: Pick<TrainerApi, 'actStart' | 'actStep'>) => Promise<ActEpisodeView>): Promise<void> {
    const api = this.api();
    if (!api) {
      this.error = 'The worker is not up yet; wait for the backend to start.';
      return;
    }
    if (this.busy) return;
    const seq = ++this.seq;
    this.busy = true;
    this.error = '';
    try {
      const ep = await f(api);
      if (seq === this.seq) this.episode = ep;
    } catch (e) {
      if (seq === this.seq) this.error = e instanceof Error ? e.message : String(e);
    } finally {
      if (seq === this.seq) this.busy = false;
    }
  }
}
