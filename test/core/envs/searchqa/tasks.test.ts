/**
 * searchqa task generation (src/core/envs/searchqa/tasks.ts, questions.ts): which subsets each split draws (bamboogle
 * only in the test splits), val as train's far indices, the unseen split's entities never in a train question (checked
 * over 20 000 train tasks against 5 000 test-unseen ones, and over every entity by world), PopQA's popularity buckets,
 * TriviaQA clues that fit one entity, 2Wiki comparisons with distinct years, and errors on a bad address.
 */
import { describe, expect, it } from 'vitest';
import { TRAIN_TASK_INDICES, type Split } from '../../../../src/core/envs/types';
import { SUBSETS, TEMPLATES, popularityBucket, poolOf } from '../../../../src/core/envs/searchqa/questions';
import { TRAIN_SUBSETS, generateTask } from '../../../../src/core/envs/searchqa/tasks';
import { world, type Entity, type Person } from '../../../../src/core/envs/searchqa/world';

const task = (split: Split, index: number) => generateTask('default', { split, index }).question;

/** Subset counts over tasks 0..n−1 of a split. */
function subsetCounts(split: Split, n: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (let i = 0; i < n; i++) {
    const s = task(split, i).subset;
    out[s] = (out[s] ?? 0) + 1;
  }
  return out;
}

describe('searchqa tasks', () => {
  it('train and val draw six subsets (no bamboogle); the test splits all seven', () => {
    expect(TRAIN_SUBSETS).toEqual(['nq', 'triviaqa', 'popqa', 'hotpotqa', '2wiki', 'musique']);
    for (const split of ['train', 'val'] as const)
      expect(Object.keys(subsetCounts(split, 1400)).sort()).toEqual([...TRAIN_SUBSETS].sort());
    for (const split of ['test-seen', 'test-unseen'] as const) {
      const counts = subsetCounts(split, 1400);
      expect(Object.keys(counts).sort()).toEqual([...SUBSETS].sort());
      // Uniform: 200 expected per subset; every count within ±30% of it.
      for (const c of Object.values(counts)) expect(Math.abs(c - 200)).toBeLessThan(60);
    }
  });

  it('val task i is train task TRAIN_TASK_INDICES + i', () => {
    for (const i of [0, 1, 77]) expect(task('val', i)).toEqual(task('train', TRAIN_TASK_INDICES + i));
    expect(task('val', 0)).not.toEqual(task('train', 0));
  });

  it('no entity of a test-unseen question is in any train question', () => {
    const trainEntities = new Set<number>();
    for (let i = 0; i < 20_000; i++) for (const e of task('train', i).entities) trainEntities.add(e);
    const shared: string[] = [];
    for (let i = 0; i < 5000; i++)
      for (const e of task('test-unseen', i).entities) if (trainEntities.has(e)) shared.push(`${i}:${e}`);
    expect(shared).toEqual([]);
    // By construction: train questions use only the seen world, test-unseen only the unseen one.
    const w = world();
    expect([...trainEntities].some((e) => w.entities[e].unseen)).toBe(false);
    for (let i = 0; i < 1000; i++)
      for (const e of task('test-unseen', i).entities) expect(w.entities[e].unseen).toBe(true);
  });

  it('PopQA: popular = the top tenth by mentions, long-tail = the bottom half (people no passage names)', () => {
    const w = world();
    const people = poolOf(false).person;
    expect(people.length).toBe(958);
    const popular = popularityBucket(people, 'popular');
    const tail = popularityBucket(people, 'long-tail');
    expect([popular.length, tail.length]).toEqual([95, 479]);
    expect(Math.min(...popular.map((id) => w.mentions[id]))).toBeGreaterThanOrEqual(2);
    expect(Math.max(...tail.map((id) => w.mentions[id]))).toBe(0);
    let seen = 0;
    for (let i = 0; i < 2000; i++) {
      const q = task('test-seen', i);
      if (q.subset !== 'popqa') continue;
      seen++;
      const subject = q.hops[0];
      const bucket = popularityBucket(
        w.entities[subject].kind === 'person' ? people : poolOf(false).town,
        q.popularity!,
      );
      expect(bucket).toContain(subject);
    }
    expect(seen).toBeGreaterThan(200);
  });

  it('a TriviaQA clue fits exactly one entity; a 2Wiki comparison has two years and the earlier answers', () => {
    const w = world();
    const year = (id: number) => (w.entities[id] as Person).year;
    const fits = (q: ReturnType<typeof task>) => {
      const a = w.entities[q.hops[0]];
      const same = (e: Entity) => {
        if (e.kind !== a.kind) return false;
        if (e.kind === 'work' && a.kind === 'work')
          return e.maker === a.maker && e.workKind === a.workKind && e.year === a.year;
        if (e.kind === 'org' && a.kind === 'org') return e.founder === a.founder && e.year === a.year;
        if (e.kind === 'person' && a.kind === 'person')
          return e.occupation === a.occupation && e.birthplace === a.birthplace && e.year === a.year;
        if (e.kind === 'town' && a.kind === 'town') return e.country === a.country && e.year === a.year;
        if (e.kind === 'event' && a.kind === 'event') return e.organiser === a.organiser && e.year === a.year;
        return false;
      };
      return w.entities.filter((e) => e.unseen === a.unseen && same(e)).length;
    };
    let trivia = 0,
      wiki = 0;
    for (let i = 0; i < 3000; i++) {
      const q = task('train', i);
      if (q.subset === 'triviaqa') {
        trivia++;
        expect(fits(q)).toBe(1);
        expect(q.golds[0]).toBe(w.entities[q.hops[0]].name);
      } else if (q.subset === '2wiki') {
        wiki++;
        const [a, b] = q.hops;
        expect(year(a)).not.toBe(year(b));
        expect(q.golds[0]).toBe(w.entities[year(a) < year(b) ? a : b].name);
      }
    }
    expect(trivia).toBeGreaterThan(400);
    expect(wiki).toBeGreaterThan(400);
  });

  it('uses every template of every subset, with the hops the subset promises', () => {
    const hops: Record<string, number> = {
      nq: 1,
      triviaqa: 1,
      popqa: 1,
      hotpotqa: 2,
      '2wiki': 2,
      musique: 3,
      bamboogle: 2,
    };
    const used = new Set<string>();
    for (let i = 0; i < 3000; i++) {
      const q = task('test-seen', i);
      used.add(`${q.subset}/${q.template}`);
      expect(q.hops.length).toBe(hops[q.subset]);
    }
    const all = SUBSETS.flatMap((s) => TEMPLATES[s].map((t) => `${s}/${t.name}`));
    expect(all.length).toBe(35);
    expect([...used].sort()).toEqual(all.sort());
  });

  it('writes NQ questions in lower case without a question mark, the others as sentences', () => {
    for (let i = 0; i < 500; i++) {
      const q = task('test-seen', i);
      if (q.subset === 'nq') expect(q.text).toMatch(/^[a-z0-9 ]+$/);
      else expect(q.text).toMatch(/^[A-Z].*\?$/);
    }
  });

  it('refuses an unknown preset, split or a bad index, naming the accepted values', () => {
    expect(() => generateTask('easy', { split: 'train', index: 0 })).toThrow(
      'searchqa: unknown preset "easy"; accepted: default',
    );
    expect(() => generateTask('default', { split: 'test' as Split, index: 0 })).toThrow('unknown split "test"');
    expect(() => generateTask('default', { split: 'train', index: Number.NaN })).toThrow(
      'searchqa: task index must be a non-negative integer, got NaN',
    );
  });
});
