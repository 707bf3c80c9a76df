/**
 * Plain-text tables for the CLIs' readable output (`npm run eval`'s success per task type): every column padded to
 * its widest cell, so that a header and its rows line up whatever the lengths of the names and numbers in them.
 */

/**
 * `rows` (the first one is usually the header) as lines of aligned columns: each column padded to its widest cell,
 * on the left, or on the right where `right[i]` is true (numbers, so that their last digits line up); two spaces
 * between columns and no trailing spaces. e.g. `[['type', 'success'], ['electronics', '50.0%'], ['beauty', '100.0%']]`
 * with `[false, true]` → `type         success`, `electronics    50.0%`, `beauty        100.0%`.
 */
export function alignColumns(rows: readonly (readonly string[])[], right: readonly boolean[] = []): string[] {
  const cols = Math.max(0, ...rows.map((r) => r.length));
  const width = Array.from({ length: cols }, (_, i) => Math.max(0, ...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) =>
    width
      .map((w, i) => (right[i] ? (r[i] ?? '').padStart(w) : (r[i] ?? '').padEnd(w)))
      .join('  ')
      .trimEnd(),
  );
}
