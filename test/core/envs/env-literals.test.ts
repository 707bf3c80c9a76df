/**
 * An environment is a plugin: one folder under src/core/envs/ plus one line in src/core/envs/registry.ts
 * (docs/architecture.md, "How to add an environment"). Nothing else in the product names one, so a new env needs no
 * change to the run schema, the analyzer, the worker, the page or the CLI: they read names, defaults and capabilities
 * from the registry and the env's EnvSpec.
 *
 * This test greps every file under src/ and cli/ for the word `household` (any case) and fails listing file:line for
 * each hit outside src/core/envs/household/ and src/core/envs/registry.ts. It ignores nothing else: not comments, not
 * docstrings, not strings — a comment that needs an example names `<env>` or cites ALFWorld instead. (Tests, docs and
 * data may name the env: they are not the product's code.)
 */
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';

/** Where the env's own name may appear. */
const ALLOWED = ['src/core/envs/household/', 'src/core/envs/registry.ts'];
/** The folders searched. */
const ROOTS = ['src', 'cli'];

/** Every file under `dir`, as paths with forward slashes. */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.posix.join(dir, e.name);
    if (e.isDirectory()) out.push(...filesUnder(p));
    else if (e.isFile()) out.push(p);
  }
  return out;
}

/** `file:line: text` for every line of `files` that names the word `word` (any case). */
export function literalHits(files: readonly string[], word: string, read = (f: string) => fs.readFileSync(f, 'utf8')) {
  const re = new RegExp(word, 'i');
  const hits: string[] = [];
  for (const f of files) {
    const text = read(f);
    if (text.includes('\u0000')) continue; // a binary file
    text.split('\n').forEach((line, i) => {
      if (re.test(line)) hits.push(`${f}:${i + 1}: ${line.trim().slice(0, 100)}`);
    });
  }
  return hits;
}

describe('no environment is named outside its folder and the registry', () => {
  it('finds a hit and names its file and line (the check can fail)', () => {
    const files = { 'cli/x.ts': 'const a = 1;\n// the Household env\n' };
    expect(literalHits(Object.keys(files), 'household', (f) => files[f as keyof typeof files])).toEqual([
      'cli/x.ts:2: // the Household env',
    ]);
  });

  it('src/ and cli/ name `household` only in src/core/envs/household/ and src/core/envs/registry.ts', () => {
    const files = ROOTS.flatMap(filesUnder).filter((f) => !ALLOWED.some((a) => f === a || f.startsWith(a)));
    expect(files.length).toBeGreaterThan(100);
    const hits = literalHits(files, 'household');
    expect(hits, `name the env through the registry (DEFAULT_ENV, EnvSpec) instead:\n${hits.join('\n')}`).toEqual([]);
  });
});
