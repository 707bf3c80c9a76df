/**
 * docs/architecture.md's tables of src/core list the whole tree.
 *
 * The rule the tables follow: in the section "## The folders of `src/core`" (up to the next `## ` heading), every
 * folder under src/core that holds a file has a table row whose first cell is its path under src/core in backticks
 * with a trailing slash (`` `backend/wasm/` ``), and every file under src/core has a table row whose first cell is
 * its path under src/core in backticks (`` `backend/wasm/adam.ts` ``, `` `rng.ts` ``). Paths match exactly. The
 * reverse holds too: a row's path that names nothing in src/core fails (a file moved or removed).
 */
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';

const CORE = 'src/core';
const DOC = 'docs/architecture.md';
const SECTION = '## The folders of `src/core`';

/** Every file under `dir`, as paths relative to `root` with forward slashes, sorted. */
function filesUnder(root: string, dir = ''): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = dir ? `${dir}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...filesUnder(root, rel));
    else if (entry.isFile()) out.push(rel);
  }
  return out.sort();
}

/** The folders that hold the files (every ancestor of each file under src/core), each with a trailing slash. */
function foldersOf(files: readonly string[]): string[] {
  const dirs = new Set<string>();
  for (const f of files) {
    const parts = f.split('/').slice(0, -1);
    for (let i = 1; i <= parts.length; i++) dirs.add(parts.slice(0, i).join('/') + '/');
  }
  return [...dirs].sort();
}

/** The section's text, from its heading to the next `## ` heading. */
export function sectionOf(doc: string, heading: string): string {
  const start = doc.indexOf(heading);
  if (start < 0) throw new Error(`${DOC} has no section "${heading}"`);
  const rest = doc.slice(start + heading.length);
  const next = rest.search(/^## /m);
  return next < 0 ? rest : rest.slice(0, next);
}

/** The backticked first cell of every table row in `text` (rows whose first cell is not one backticked path skip). */
export function firstCells(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const m = /^\|\s*`([^`|]+)`\s*\|/.exec(line);
    if (m) out.push(m[1]);
  }
  return out;
}

describe('docs/architecture.md lists every folder and file of src/core', () => {
  const files = filesUnder(CORE);
  const folders = foldersOf(files);
  const cells = new Set(firstCells(sectionOf(fs.readFileSync(DOC, 'utf8'), SECTION)));

  it('has a row for every folder', () => {
    const missing = folders.filter((d) => !cells.has(d)).map((d) => `${CORE}/${d}`);
    expect(missing, `folders with no row in ${DOC} "${SECTION}":\n${missing.join('\n')}`).toEqual([]);
  });

  it('has a row for every file', () => {
    const missing = files.filter((f) => !cells.has(f)).map((f) => `${CORE}/${f}`);
    expect(missing, `files with no row in ${DOC} "${SECTION}":\n${missing.join('\n')}`).toEqual([]);
  });

  it('names no path that is not in src/core', () => {
    const known = new Set([...files, ...folders]);
    const stale = [...cells].filter((c) => !known.has(c)).map((c) => `${CORE}/${c}`);
    expect(stale, `rows in ${DOC} "${SECTION}" naming nothing in ${CORE}:\n${stale.join('\n')}`).toEqual([]);
  });
});
