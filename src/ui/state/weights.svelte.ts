/**
 * The page's stored checkpoints: list, save the current run, delete, download (a Svelte 5 reactive class). The bytes
 * stay in the worker's IndexedDB; only a download brings one file's bytes to the page. Errors and confirmations go to
 * the run's error banner and notice line.
 */
import type { WeightsInfo } from '../../worker/api';
import type { RunState } from './run.svelte';

/** Message text of an unknown error. */
function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** A file name for checkpoint `name`: unsafe characters replaced, `.safetensors` appended. */
export function fileNameFor(name: string): string {
  return `${name.replace(/[^\w.-]+/g, '_')}.safetensors`;
}

/** Stored checkpoints of this browser profile, and the verbs on them. */
export class WeightsState {
  /** Stored checkpoints, newest first. */
  list = $state.raw<WeightsInfo[]>([]);
  /** True while a save/delete/download is in flight (their buttons are disabled). */
  working = $state(false);
  /** Suggested name for the next save: env, preset, model, seed and step of the current run. */
  defaultName = $derived.by(() => {
    const c = this.run.config;
    return `${c.env}-${c.preset}-${c.model}-seed${c.seed}-step${this.run.stepsDone}`;
  });
  /** Saving needs a whole update applied and the worker between updates. */
  canSave = $derived.by(() => this.run.stepsDone > 0 && (this.run.phase === 'paused' || this.run.phase === 'done'));

  constructor(private readonly run: RunState) {}

  /** Reloads the list from the worker (quietly keeps the old one while no worker is up). */
  async refresh(): Promise<void> {
    const api = this.run.api;
    if (!api) return;
    try {
      this.list = await api.listWeights();
    } catch (e) {
      this.run.error = `list weights: ${message(e)}`;
    }
  }

  /** Stores the current run's policy under `name` (replacing one of that name). Returns true on success. */
  async save(name: string): Promise<boolean> {
    const replaced = this.list.some((w) => w.name === name.trim());
    return this.act('save weights', async (api) => {
      const info = await api.saveWeights(name);
      this.run.savedStep = this.run.stepsDone;
      this.run.notice = `Saved weights "${info.name}"${replaced ? ' (replaced the older one)' : ''}.`;
    });
  }

  /**
   * Deletes checkpoint `name`. If runs were set to start from it, later runs start fresh; a run that has not
   * started yet is reconfigured, one already running from it goes on (its weights were loaded).
   */
  async remove(name: string): Promise<boolean> {
    const ok = await this.act('delete weights', async (api) => {
      await api.deleteWeights(name);
      this.run.notice = `Deleted weights "${name}".`;
    });
    if (ok && this.run.initWeights === name) {
      if (this.run.startInfo || this.run.busy) this.run.initWeights = null;
      else await this.run.startFrom(null);
    }
    return ok;
  }

  /** Downloads checkpoint `name` as a `.safetensors` file (usable with `npm run eval -- --policy FILE`). */
  async download(name: string): Promise<boolean> {
    return this.act('download weights', async (api) => {
      const bytes = await api.exportWeights(name);
      const url = URL.createObjectURL(
        new Blob([bytes as Uint8Array<ArrayBuffer>], { type: 'application/octet-stream' }),
      );
      const a = document.createElement('a');
      a.href = url;
      a.download = fileNameFor(name);
      a.click();
      // Revoke later: the download reads the URL after this task ends.
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    });
  }

  /** Runs one verb against the worker with the error named, then refreshes the list. */
  private async act(what: string, body: (api: NonNullable<RunState['api']>) => Promise<void>): Promise<boolean> {
    const api = this.run.api;
    if (!api) {
      this.run.error = `${what}: the training worker is not running; press Start to restart it`;
      return false;
    }
    this.working = true;
    try {
      await body(api);
      return true;
    } catch (e) {
      this.run.error = `${what}: ${message(e)}`;
      return false;
    } finally {
      this.working = false;
      await this.refresh();
    }
  }
}
