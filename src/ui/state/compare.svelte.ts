/**
 * The Compare view's state (a Svelte 5 reactive class): which stored runs are selected, their records (validated in
 * the worker), the smoothing weight, and the comparison table (core/run/compare.ts) with its CSV and Markdown.
 */
import { compareCsv, compareMarkdown, compareRuns, type CompareTable } from '../../core/run/compare';
import type { RecordEvent, RunRecord } from '../../core/run/record';
import type { RunState } from './run.svelte';

/** Stored runs chosen for comparing, and what is drawn of them. */
export class CompareState {
  /** Selected run ids, in selection order (colours follow it). */
  selected = $state.raw<string[]>([]);
  /** The selected runs' records, in selection order. */
  records = $state.raw<{ id: string; name: string; run: RunRecord; events: RecordEvent[] }[]>([]);
  /** EMA weight in [0, 0.99]. */
  smoothing = $state(0);
  error = $state<string | null>(null);
  loading = $state(false);

  /** The comparison of the loaded runs (names made unique with their id when two share one), or null. */
  table = $derived.by((): CompareTable | null => {
    if (!this.records.length) return null;
    const names = this.records.map((r) => r.name);
    return compareRuns(
      this.records.map((r, i) => ({
        name: names.indexOf(r.name) !== i ? `${r.name} (${r.id})` : r.name,
        run: r.run,
        events: r.events,
      })),
    );
  });

  constructor(private readonly run: RunState) {}

  /** Selects or unselects a run and reloads the records. */
  async toggle(id: string): Promise<void> {
    this.selected = this.selected.includes(id) ? this.selected.filter((x) => x !== id) : [...this.selected, id];
    await this.load();
  }

  /** Reloads the selected runs' records from the worker (runs deleted meanwhile are dropped from the selection). */
  async load(known?: readonly string[]): Promise<void> {
    if (known) this.selected = this.selected.filter((id) => known.includes(id));
    const api = this.run.api;
    if (!api) return;
    this.loading = true;
    this.error = null;
    try {
      this.records = this.selected.length ? await api.runRecords([...this.selected]) : [];
    } catch (e) {
      this.error = e instanceof Error ? e.message : String(e);
    } finally {
      this.loading = false;
    }
  }

  /** The table as CSV text (empty when nothing is selected). */
  csv(): string {
    return this.table ? compareCsv(this.table) : '';
  }

  /** The table as Markdown text (empty when nothing is selected). */
  markdown(): string {
    return this.table ? compareMarkdown(this.table) : '';
  }
}
