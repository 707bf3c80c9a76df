/**
 * Product text: the README is a product README (short, the run and test commands first), the project's own docs
 * exist (docs/architecture.md, docs/experiments/*.md), and no text of the product speaks of how it was made
 * (tracker numbers, work sessions) or cites notes outside the repository.
 */
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';

/** Files and folders searched, relative to the project root. */
const ROOTS = ['README.md', 'docs', 'src', 'cli', 'test', 'scripts', '.ci'];
/** Folders never entered. */
const SKIP_DIRS = new Set(['node_modules', '.git']);

/**
 * Forbidden phrases, assembled from pieces so this file does not match itself: tracker references ("issue" + " #3"),
 * work sessions ("session" + " 4", "session" + "'s"), paths outside the repository and its former design/style
 * notes, and diary voice.
 */
const FORBIDDEN = new RegExp(
  [
    'iss' + 'ue #[0-9]',
    '\\bsess' + 'ion [0-9]',
    'sess' + "ion's",
    '\\.\\./' + 'shared',
    'shared/' + 'DESIGN',
    'DES' + 'IGN\\.md',
    'STY' + 'LE\\.md',
    'the te' + "am's",
    'I st' + 'opped',
  ].join('|'),
  'i',
);

/** Every file under `rel` (a file or a folder), skipping SKIP_DIRS. */
function walk(rel: string): string[] {
  if (!fs.existsSync(rel)) return [];
  if (fs.statSync(rel).isFile()) return [rel];
  const out: string[] = [];
  for (const entry of fs.readdirSync(rel, { withFileTypes: true })) {
    const child = path.join(rel, entry.name);
    if (entry.isDirectory()) {
      if (!SKIP_DIRS.has(entry.name)) out.push(...walk(child));
    } else if (entry.isFile()) out.push(child);
  }
  return out;
}

/** Lines of a text file (a trailing newline does not add a line). */
function lines(text: string): string[] {
  const all = text.split('\n');
  if (all.length > 0 && all[all.length - 1] === '') all.pop();
  return all;
}

describe('product text', () => {
  it('has no tracker numbers, work sessions or references to notes outside the repository', () => {
    const hits: string[] = [];
    for (const file of ROOTS.flatMap(walk)) {
      const text = fs.readFileSync(file, 'utf8');
      if (text.includes('\u0000')) continue; // a binary file
      lines(text).forEach((line, i) => {
        const m = FORBIDDEN.exec(line);
        if (m) hits.push(`${file}:${i + 1}: "${m[0]}" in ${line.trim().slice(0, 100)}`);
      });
    }
    expect(hits, `forbidden phrases:\n${hits.join('\n')}`).toEqual([]);
  });

  it('README.md is at most 220 lines and opens with the run and test commands', () => {
    const readme = lines(fs.readFileSync('README.md', 'utf8'));
    expect(readme.length).toBeLessThanOrEqual(220);
    const head = readme.slice(0, 12).join('\n');
    expect(head).toContain('npm ci && npm run dev');
    expect(head).toContain('npm ci && npm test');
  });

  it('docs/architecture.md and at least one docs/experiments page exist', () => {
    expect(fs.existsSync('docs/architecture.md')).toBe(true);
    const pages = fs.existsSync('docs/experiments')
      ? fs.readdirSync('docs/experiments').filter((f) => f.endsWith('.md'))
      : [];
    expect(pages.length).toBeGreaterThanOrEqual(1);
  });
});
