/**
 * docs/envs/household.md's base-policy table: each preset's row gives the success its shipped manifest
 * (public/base/household-<preset>.json, `measured`) records, test-seen / test-unseen with no hint and with step
 * hints, in percent with one decimal, and the episodes per split.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';

/** One split's measured success under a hint mode, as the manifest records it. */
interface Measured {
  successRate: number;
  episodes: number;
}
type Manifest = { measured: Record<'test-seen' | 'test-unseen', Record<'none' | 'step', Measured>> };

const doc = fs.readFileSync('docs/envs/household.md', 'utf8');
const section = doc.slice(doc.indexOf('## Base policies'), doc.indexOf('## The embedded analyzer'));
/** Table rows by preset: the cells after the preset's. */
const rows = new Map(
  section
    .split('\n')
    .filter((l) => /^\| `[\w-]+` \|/.test(l))
    .map((l) => {
      const cells = l.split('|').map((c) => c.trim());
      return [cells[1].replace(/`/g, ''), cells.slice(2)] as const;
    }),
);

/** Seen / unseen success as the table writes it: `56.5 / 53.5%`. */
const pair = (m: Manifest, mode: 'none' | 'step') =>
  `${(m.measured['test-seen'][mode].successRate * 100).toFixed(1)} / ` +
  `${(m.measured['test-unseen'][mode].successRate * 100).toFixed(1)}%`;

describe("household.md's base-policy table matches the manifests", () => {
  it('has a row per shipped household base', () => {
    expect([...rows.keys()]).toEqual(['easy', 'default', 'easy-pick2']);
  });

  it.each(['easy', 'default', 'easy-pick2'])('%s', (preset) => {
    const m = JSON.parse(fs.readFileSync(`public/base/household-${preset}.json`, 'utf8')) as Manifest;
    const [none, step, episodes] = rows.get(preset)!;
    expect([none, step, episodes]).toEqual([
      pair(m, 'none'),
      pair(m, 'step'),
      String(m.measured['test-seen'].none.episodes),
    ]);
  });
});
