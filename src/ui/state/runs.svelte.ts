/**
 * The page's stored runs (Runs view and the reload banner; a Svelte 5 reactive class): the list with sizes and the
 * browser's storage estimate, rename, delete, export (`.opdrun`, trajectories as `.jsonl`), import, resume, and
 * the status of the run being recorded (a storage-full write is shown with what was kept). The records stay in the
 * worker's IndexedDB; only an export brings a file's bytes to the page.
 */
import * as Comlink from 'comlink';
import { MAX_PACK_BYTES, PACK_EXTENSION } from '../../core/run-files/pack';
import type { RecordStatus, RunInfo, StorageUsage } from '../../worker/api';
import type { RunState } from './run.svelte';
import { bytesText } from './compare';
import { importedRunName, interruptedRun, runFileName, runNameProblem } from './runs-view';

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Stored runs of this browser profile, and the verbs on them. */
export class RunsState {
  runs = $state.raw<RunInfo[]>([]);
  corrupt = $state.raw<{ id: string; reason: string }[]>([]);
  totalBytes = $state(0);
  storage = $state.raw<StorageUsage | null>(null);
  /** The run being recorded now (null when none). */
  activeId = $state<string | null>(null);
  /** The runs another tab of this browser trains (Resume and Delete are off for them). */
  elsewhere = $state.raw<string[]>([]);
  /** The latest write of the run being recorded. */
  status = $state.raw<RecordStatus | null>(null);
  /** False until the worker's first list answer (or its error): the view says "Loading stored runs…" meanwhile. */
  loaded = $state(false);
  /** True while an action is in flight. */
  working = $state(false);
  /** The last action's outcome, for the view's status line. */
  message = $state('');
  /** An error of the last action or write, with what was kept; null when none. */
  error = $state<string | null>(null);
  /** The run the reload interrupted, until resumed or dismissed. */
  interrupted = $state.raw<RunInfo | null>(null);
  private bannerShown = false;
  /** The worker API the recorder's status is subscribed on (a new worker needs a new subscription). */
  private watched: unknown = null;

  constructor(private readonly run: RunState) {}

  /** Subscribes to the recorder's writes and loads the list; the first time, offers a run a reload interrupted. */
  async boot(): Promise<void> {
    await this.refresh();
    if (!this.bannerShown) {
      this.bannerShown = true;
      this.interrupted = interruptedRun(this.runs, this.activeId);
    }
  }

  /** Reloads the list from the worker. */
  async refresh(): Promise<void> {
    const api = this.run.api;
    if (!api) return;
    try {
      if (this.watched !== api) {
        this.watched = api;
        await api.watchRuns(
          Comlink.proxy((s: RecordStatus) => {
            this.status = s;
            this.activeId = s.id;
            if (s.error) this.error = s.error;
            // The list follows each write: the end's write turns the run from "recording" into finished.
            void this.refresh();
          }),
        );
      }
      const l = await api.listRuns();
      this.runs = l.runs;
      this.corrupt = l.corrupt;
      this.totalBytes = l.totalBytes;
      this.storage = l.storage;
      this.activeId = l.activeId;
      this.elsewhere = l.elsewhere ?? [];
    } catch (e) {
      this.error = `list runs: ${message(e)}`;
    } finally {
      this.loaded = true;
    }
  }

  /** Renames a stored run; a name that is empty or over MAX_RUN_NAME characters is refused here with the limit. */
  rename(id: string, name: string): Promise<boolean> {
    return this.act('rename', async (api) => {
      const problem = runNameProblem(name);
      if (problem) throw new Error(problem);
      await api.renameRun(id, name);
      this.message = `Renamed to "${name.trim()}".`;
    });
  }

  /** Deletes a stored run and its checkpoints. */
  remove(id: string): Promise<boolean> {
    const name = this.runs.find((r) => r.id === id)?.name ?? id;
    return this.act('delete', async (api) => {
      await api.deleteRun(id);
      if (this.interrupted?.id === id) this.interrupted = null;
      this.message = `Deleted run "${name}".`;
    });
  }

  /** Downloads a stored run as one `.opdrun` file (the CLI's run record; `npm run compare` reads it). */
  exportRun(id: string): Promise<boolean> {
    const name = this.runs.find((r) => r.id === id)?.name ?? id;
    return this.act('export', async (api) => {
      const bytes = await api.exportRun(id);
      download(
        new Blob([bytes as Uint8Array<ArrayBuffer>], { type: 'application/octet-stream' }),
        runFileName(name, PACK_EXTENSION),
      );
      this.message = `Exported "${name}" (${bytesText(bytes.length)}).`;
    });
  }

  /** Downloads a stored run's sampled trajectories as chat-messages JSONL (TRL / verl datasets). */
  exportTrajectories(id: string): Promise<boolean> {
    const name = this.runs.find((r) => r.id === id)?.name ?? id;
    return this.act('export trajectories', async (api) => {
      const text = await api.exportTrajectories(id);
      download(new Blob([text], { type: 'application/jsonl' }), runFileName(name, '.trajectories.jsonl'));
      this.message = `Exported ${text ? text.trimEnd().split('\n').length : 0} trajectories of "${name}".`;
    });
  }

  /**
   * Imports a `.opdrun` file as a new run named `… (imported)` (importedRunName); a file over MAX_PACK_BYTES is
   * refused before it is read.
   */
  importFile(file: File): Promise<boolean> {
    return this.act('import', async (api) => {
      if (file.size > MAX_PACK_BYTES)
        throw new Error(
          `${file.name} is ${bytesText(file.size)}; the most a run file may be is ${bytesText(MAX_PACK_BYTES)}`,
        );
      const info = await api.importRun(new Uint8Array(await file.arrayBuffer()), file.name);
      // The import keeps its record's name; the Runs list tells it apart from the run it was exported from.
      let name = importedRunName(
        info.name,
        this.runs.map((r) => r.name),
      );
      try {
        await api.renameRun(info.id, name);
      } catch {
        name = info.name; // the run is imported all the same; it keeps the record's name
      }
      this.message =
        `Imported "${name}" (${info.stepsDone}/${info.stepsPlanned} steps, ${info.checkpoints.length} ` +
        `checkpoint${info.checkpoints.length === 1 ? '' : 's'}).`;
    });
  }

  /** Continues a stored run from its latest checkpoint in the Train view. */
  async resume(id: string): Promise<boolean> {
    this.interrupted = null;
    const ok = await this.run.resumeStored(id);
    await this.refresh();
    return ok;
  }

  /** Hides the reload banner. */
  dismissInterrupted(): void {
    this.interrupted = null;
  }

  private async act(what: string, body: (api: NonNullable<RunState['api']>) => Promise<void>): Promise<boolean> {
    const api = this.run.api;
    if (!api) {
      this.error = `${what}: the training worker is not running; press Start to restart it`;
      return false;
    }
    this.working = true;
    this.error = null;
    this.message = '';
    try {
      await body(api);
      return true;
    } catch (e) {
      this.error = `${what}: ${message(e)}`;
      return false;
    } finally {
      this.working = false;
      await this.refresh();
    }
  }
}

/** Saves a blob as a file through a temporary link. */
function download(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000); // the download reads the URL after this task ends
}
