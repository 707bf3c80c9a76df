/**
 * The rollout explorer's state (Svelte 5 runes): what the worker's trajectory store holds — the current run's, or a
 * stored run's opened from the Runs view (`openRun`) — and which step, group, trajectory and turn the page shows.
 * Groups are fetched one at a time through `TrainerApi.explorerGroup` (the store is never sent whole); the index is
 * refreshed when the view opens and after each step the run reports.
 */
import type { ExplorerGroup, ExplorerIndex, TrainerApi } from '../../worker/api';
import type { ExplorerQuantity } from './explorer-values';
import { ActPanelState } from './explorer-act.svelte';

/** Explorer state for one page; `api` returns the worker's API or null while none is up. */
export class ExplorerState {
  /** The store's listing, or null before the first fetch. */
  index = $state.raw<ExplorerIndex | null>(null);
  /** The step shown (one of the index's), or null. */
  step = $state<number | null>(null);
  /** The group index shown within the step. */
  groupIndex = $state(0);
  /** The fetched group, or null while none is loaded. */
  group = $state.raw<ExplorerGroup | null>(null);
  /** Trajectory and turn shown (indices into `group`). */
  trajectory = $state(0);
  turn = $state(0);
  /** What the action tokens are coloured by. */
  quantity = $state<ExplorerQuantity>('adv');
  /** Why the last fetch failed, in words; '' when it did not. */
  error = $state('');
  /** True while a fetch is in flight. */
  loading = $state(false);
  /** Counts fetches, so an older answer never replaces a newer one. */
  private seq = 0;

  /** The "Act with the current policy" panel beside the turn view. */
  readonly act: ActPanelState;

  constructor(
    private readonly api: () => Pick<
      TrainerApi,
      'explorerIndex' | 'explorerGroup' | 'explorerOpenRun' | 'actStart' | 'actStep'
    > | null,
  ) {
    this.act = new ActPanelState(api);
  }

  /** The steps held, ascending. */
  steps = $derived(this.index?.steps.map((s) => s.step) ?? []);
  /** Groups held of the step shown. */
  groups = $derived(this.index?.steps.find((s) => s.step === this.step)?.groups ?? []);
  /** The trajectory shown, or null. */
  current = $derived(this.group?.trajectories[this.trajectory] ?? null);

  /** Fetches the index; keeps the step shown if still held, else shows the latest. */
  async refresh(): Promise<void> {
    const api = this.api();
    if (!api) return;
    try {
      const index = await api.explorerIndex();
      this.index = index;
      const held = index.steps.map((s) => s.step);
      if (this.step === null || !held.includes(this.step)) await this.open(held.length ? held[held.length - 1] : null);
    } catch (e) {
      this.error = e instanceof Error ? e.message : String(e);
    }
  }

  /**
   * Shows stored run `id` (its kept trajectories, read back by the worker), or the current run's again (`null`), from
   * its latest step. Resolves false, with `error` saying why, when the worker refuses (missing or corrupt run, …).
   */
  async openRun(id: string | null): Promise<boolean> {
    const api = this.api();
    if (!api) {
      this.error = 'the training worker is not running; press Start to restart it';
      return false;
    }
    this.seq++;
    this.act.clear();
    this.step = null;
    this.group = null;
    try {
      const index = await api.explorerOpenRun(id);
      this.index = index;
      this.error = '';
      const held = index.steps.map((s) => s.step);
      await this.open(held.length ? held[held.length - 1] : null);
      return true;
    } catch (e) {
      this.error = e instanceof Error ? e.message : String(e);
      this.index = null;
      return false;
    }
  }

  /**
   * Shows step `step` (null: none), its group `group` (default: the first held), trajectory 0, turn 0. A step the
   * store no longer holds shows the nearest held one and says so.
   */
  async open(step: number | null, group?: number): Promise<void> {
    if (step === null || !this.index) {
      this.step = null;
      this.group = null;
      return;
    }
    const held = this.index.steps;
    let entry = held.find((s) => s.step === step);
    this.error = '';
    if (!entry && held.length) {
      entry = held.reduce((a, b) => (Math.abs(b.step - step) < Math.abs(a.step - step) ? b : a));
      this.error =
        `Step ${step} is not held (the explorer keeps every group of the last ${this.index.recentSteps} ` +
        `steps and group 0 of every ${this.index.sampleEvery}th older step); showing step ${entry.step}.`;
    }
    if (!entry) return;
    this.step = entry.step;
    const g =
      group !== undefined && entry.groups.some((x) => x.group === group) ? group : (entry.groups[0]?.group ?? 0);
    await this.load(entry.step, g);
  }

  /** Shows group `g` of the current step. */
  async pickGroup(g: number): Promise<void> {
    if (this.step !== null) await this.load(this.step, g);
  }

  /** Shows trajectory `k` of the group, from its first turn. */
  pickTrajectory(k: number): void {
    if (!this.group || k < 0 || k >= this.group.trajectories.length) return;
    this.trajectory = k;
    this.turn = 0;
  }

  /** Moves `by` turns within the trajectory (clamped). */
  move(by: number): void {
    const n = this.current?.turns.length ?? 0;
    if (n) this.turn = Math.min(n - 1, Math.max(0, this.turn + by));
  }

  /** Forgets everything (a new run). */
  clear(): void {
    this.seq++;
    this.act.clear();
    this.index = null;
    this.step = null;
    this.group = null;
    this.error = '';
  }

  private async load(step: number, g: number): Promise<void> {
    const api = this.api();
    if (!api) return;
    const seq = ++this.seq;
    this.loading = true;
    try {
      const group = await api.explorerGroup(step, g);
      if (seq !== this.seq) return;
      this.groupIndex = g;
      this.group = group;
      this.trajectory = 0;
      this.turn = 0;
    } catch (e) {
      if (seq === this.seq) this.error = e instanceof Error ? e.message : String(e);
    } finally {
      if (seq === this.seq) this.loading = false;
    }
  }
}
