/**
 * The layering contract (docs/architecture.md "Layers"), checked with dependency-cruiser: ui → worker → core and
 * cli → core, never back (.dependency-cruiser.cjs), no import cycles between modules, and no cycles between the
 * folders of src/core (a folder may use a lower one, never the reverse). Type-only imports count: a cycle of types
 * is still a cycle a reader has to untangle.
 */
import { describe, expect, it } from 'vitest';
import { createRequire } from 'node:module';
import { cruise } from 'dependency-cruiser';

/** Folder-level cycles of a module graph: strongly connected components with more than one folder (Tarjan). */
export function folderCycles(edges: readonly [string, string][]): string[][] {
  const g = new Map<string, Set<string>>();
  for (const [a, b] of edges) if (a !== b) (g.get(a) ?? g.set(a, new Set()).get(a)!).add(b);
  let i = 0;
  const idx = new Map<string, number>(),
    low = new Map<string, number>(),
    stack: string[] = [],
    on = new Set<string>(),
    out: string[][] = [];
  const visit = (v: string): void => {
    idx.set(v, i);
    low.set(v, i);
    i++;
    stack.push(v);
    on.add(v);
    for (const w of g.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const c: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        c.push(w);
      } while (w !== v);
      if (c.length > 1) out.push(c.sort());
    }
  };
  for (const v of g.keys()) if (!idx.has(v)) visit(v);
  return out;
}

/** The src/core folder (or top-level file) a module belongs to, e.g. src/core/model/io.ts → model. */
const coreUnit = (p: string) => (p.startsWith('src/core/') ? p.split('/')[2].replace(/\.ts$/, '') : null);

describe('layering', () => {
  it('folderCycles finds a cycle through three folders and none in a chain', () => {
    expect(
      folderCycles([
        ['a', 'b'],
        ['b', 'c'],
        ['c', 'a'],
        ['c', 'd'],
      ]),
    ).toEqual([['a', 'b', 'c']]);
    expect(
      folderCycles([
        ['a', 'b'],
        ['b', 'c'],
        ['a', 'c'],
      ]),
    ).toEqual([]);
  });

  it('ui → worker → core and cli → core hold, no module cycles, no cycles between src/core folders', async () => {
    const config = createRequire(import.meta.url)('../.dependency-cruiser.cjs');
    const r = await cruise(['src', 'cli'], {
      ...config.options,
      validate: true,
      ruleSet: { forbidden: config.forbidden },
    });
    const out = r.output as {
      summary: { violations: { from: string; to: string; rule: { name: string } }[] };
      modules: { source: string; dependencies: { resolved: string }[] }[];
    };
    expect(out.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`)).toEqual([]);
    expect(out.modules.length).toBeGreaterThan(90);
    const edges: [string, string][] = [];
    for (const m of out.modules) {
      const a = coreUnit(m.source);
      for (const d of m.dependencies) {
        const b = coreUnit(d.resolved);
        if (a && b) edges.push([a, b]);
      }
    }
    expect(new Set(edges.map(([a]) => a)).size).toBeGreaterThan(8);
    expect(folderCycles(edges)).toEqual([]);
  });
});
