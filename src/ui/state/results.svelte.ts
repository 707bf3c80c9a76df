/**
 * The Results view's state (a Svelte 5 reactive class): the results table opened from a table.json file (the one
 * `npm run experiment -- opid-table` writes), validated with src/core/run/table-schema.ts, which evaluation the
 * tables show (final or best), whether their cells show success or the paired difference to the baseline, and the
 * message of a file that could not be opened. A bad file leaves the table already shown in place.
 */
import type { Pick } from '../../core/run/aggregate';
import { parseResultsTable, type ResultsTable } from '../../core/run/table-schema';

/** The largest table.json the view reads, in bytes (a table of 6 methods × 20 seeds is well under 1 MiB). */
export const MAX_TABLE_BYTES = 16 * 1024 * 1024;

/** What the Results view's table cells show: success per cell, or each cell's paired difference to the baseline. */
export type ResultsShow = 'values' | 'diff';

/** An opened results table and the view's choices. */
export class ResultsState {
  /** The table shown (null before a file was opened). */
  table = $state.raw<ResultsTable | null>(null);
  /** The shown table's file name. */
  fileName = $state('');
  /** Which evaluation the tables show. */
  pick = $state<Pick>('final');
  /** What the tables' cells show: success (`values`) or the paired difference to the baseline (`diff`). */
  show = $state<ResultsShow>('values');
  /** Why the last file could not be opened (null after a good one). */
  error = $state<string | null>(null);
  /** True while a file is read. */
  loading = $state(false);

  /**
   * Reads and validates a file (from the picker or a drop). On success it replaces the table; on failure it sets
   * `error` (naming the file, the bad field and the fix) and keeps the table shown.
   */
  async open(file: File): Promise<void> {
    this.loading = true;
    try {
      if (file.size > MAX_TABLE_BYTES)
        throw new Error(
          `${file.name}: ${file.size} bytes is more than a table.json holds (at most ${MAX_TABLE_BYTES}); ` +
            `open the table.json of \`npm run experiment\``,
        );
      const t = parseResultsTable(await file.text(), file.name);
      this.table = t;
      this.fileName = file.name;
      this.error = null;
    } catch (e) {
      const msg = e instanceof Error ? e.message : String(e);
      this.error = `Could not open ${msg}${this.table ? ` — still showing ${this.fileName}` : ''}`;
    } finally {
      this.loading = false;
    }
  }
}
