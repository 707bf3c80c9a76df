/**
 * The page's Checkpoints view state (Svelte 5 reactive class): a snapshot of the checkpoints the worker keeps for the
 * current run (solved matrix, kept weights, a distillation stage's rounds), refreshed by the view, and the verbs
 * "Distil" (Agentic-OPD's distillation stage from those checkpoints, in the worker) and "Download val.json" (the
 * solved matrix in the run record's format, core/run/record.ts). Talks to the worker only through `TrainerApi`.
 */
import type { CheckpointsSnapshot } from '../../worker/api';
import type { RunState } from './run.svelte';
import { distillationAlgorithm } from '../../core/algorithm-catalog';

/** Message text of an unknown error (Comlink re-creates worker errors as Error with the same message). */
function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** The Checkpoints view's data and verbs. */
export class CheckpointsState {
  /** The worker's checkpoints of the current run; null before the first refresh. */
  snapshot = $state.raw<CheckpointsSnapshot | null>(null);
  /** What the last Distil did or why it could not (shown under the button); '' when nothing to say. */
  message = $state('');
  /** True while Distil is checking or configuring (its button is disabled). */
  working = $state(false);

  constructor(private readonly run: RunState) {}

  /** Reloads the snapshot from the worker (keeps the old one while no worker is up). */
  async refresh(): Promise<void> {
    const api = this.run.api;
    if (!api) return;
    try {
      this.snapshot = await api.checkpoints();
    } catch (e) {
      this.message = `checkpoints: ${message(e)}`;
    }
  }

  /**
   * Starts the distillation stage: asks the worker whether the kept checkpoints can be distilled with the run's
   * settings (nothing changes when not: the message says what is needed), then switches the algorithm to
   * agentic-opd — which ends the current run; its checkpoints stay in the worker — and starts training.
   */
  async distil(): Promise<void> {
    const api = this.run.api;
    if (!api || this.run.busy || this.working) return;
    this.working = true;
    this.message = '';
    try {
      const plan = await api.checkDistillation($state.snapshot(this.run.config));
      // The button says the current run ends, so its updates need no second confirmation.
      this.run.savedStep = this.run.stepsDone;
      const distil = distillationAlgorithm();
      if (distil === this.run.config.algo) await this.run.reset();
      else await this.run.setField('algo', distil);
      if (this.run.phase === 'error') {
        this.message = this.run.error ?? 'the distillation stage could not be configured';
        return;
      }
      this.message =
        `Distilling into the checkpoint of step ${plan.studentStep} from ${plan.teachers.length} ` +
        `teacher${plan.teachers.length === 1 ? '' : 's'} (steps ${plan.teachers.join(', ')}).`;
      await this.refresh();
      void this.run.start();
    } catch (e) {
      this.message = `Distil: ${message(e)}`;
    } finally {
      this.working = false;
    }
  }

  /**
   * Downloads the solved matrix as `val.json` (the run record's format; `npm run coverage` reads it in a run
   * directory).
   */
  downloadVal(): void {
    const val = this.snapshot?.val;
    if (!val) return;
    const url = URL.createObjectURL(new Blob([JSON.stringify(val) + '\n'], { type: 'application/json' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = 'val.json';
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }
}
