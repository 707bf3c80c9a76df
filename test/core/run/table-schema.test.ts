/**
 * table.json's schema and parser: a hand-made table round-trips with hand-computed numbers, a version-1 file (as the
 * writer made it before `format`/`version`) is read, and every kind of bad file is refused with the field named.
 */
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import type { RunEvals } from '../../../src/core/run/aggregate';
import {
  makeResultsTable,
  parseResultsTable,
  resultsTableJson,
  TableError,
  type ResultsTable,
} from '../../../src/core/run/table-schema';
import { TYPED_RUNS, TYPED_SPLITS } from '../../helpers/table-runs';
import { LAST3_RUNS, LAST3_SPLITS } from '../../helpers/last3-runs';

const SPLITS = ['test-seen', 'test-unseen'];
const split = (rate: number, types: Record<string, number>) => ({
  successRate: rate,
  episodes: 10,
  byTaskType: Object.fromEntries(Object.entries(types).map(([t, r]) => [t, { successRate: r, episodes: 5 }])),
});
const run = (method: string, seed: number, evals: [number, number, number][]): RunEvals => ({
  method,
  seed,
  evals: evals.map(([step, seen, unseen]) => ({
    step,
    splits: {
      'test-seen': split(seen, { pick: seen }),
      'test-unseen': split(unseen, { pick: unseen, heat: unseen / 2 }),
    },
  })),
});
/** GRPO seeds 1, 2 and OPID seeds 1, 2, evaluated at steps 0 and 10 (OPID seed 2 also at 5). */
const RUNS = [
  run('grpo', 1, [
    [0, 0.5, 0.4],
    [10, 0.6, 0.5],
  ]),
  run('grpo', 2, [
    [0, 0.5, 0.4],
    [10, 0.7, 0.6],
  ]),
  run('opid', 1, [
    [0, 0.5, 0.4],
    [10, 0.8, 0.6],
  ]),
  run('opid', 2, [
    [0, 0.5, 0.4],
    [5, 0.9, 0.9],
    [10, 0.8, 0.7],
  ]),
];
const table = (): ResultsTable =>
  makeResultsTable({
    header: ['command: npm run experiment -- opid-table --seeds 2', 'household/easy, nano'],
    command: 'npm run experiment -- opid-table --seeds 2',
    baseline: 'grpo',
    splits: SPLITS,
    methods: ['grpo', 'opid', 'skill-grpo'],
    runs: RUNS,
  });
/** Parsed JSON: an object whose members a test may read, replace, add or delete. */
type Obj = Record<string, unknown>;
/** A row of table.json as parsed: its cells and its differences (null for none) by split. */
type RawRow = Obj & { cells: Record<string, Obj>; diff: Record<string, Obj | null> };
/** table.json as parsed JSON, typed down to the members the tests break. */
type RawTable = Obj & {
  final: RawRow[];
  best: RawRow[];
  curves: (Obj & { splits: Record<string, unknown[]> })[];
};
/** The table as untrusted data (a fresh copy to break). */
const raw = (): RawTable => JSON.parse(resultsTableJson(table()));
const FIX = /; write it again with `npm run experiment -- opid-table --out DIR`/;

describe('makeResultsTable / resultsTableJson', () => {
  it('writes version 2 with the rows and curves of the runs (hand-computed)', () => {
    const t = table();
    expect([t.format, t.version, t.baseline]).toEqual(['opd-table', 2, 'grpo']);
    expect(t.final.map((r) => r.method)).toEqual(['grpo', 'opid']); // skill-grpo has no runs
    // final test-seen: GRPO 0.6, 0.7 → 0.65 ± 0.05; OPID 0.8, 0.8 → 0.8 ± 0; Δ per seed 0.2, 0.1 → 0.15 ±
    // 0.05
    expect(t.final[0].cells['test-seen'].mean).toBeCloseTo(0.65, 12);
    expect(t.final[0].cells['test-seen'].se).toBeCloseTo(0.05, 12);
    expect(t.final[1].diff['test-seen']!.mean).toBeCloseTo(0.15, 12);
    expect(t.final[1].diff['test-seen']!.se).toBeCloseTo(0.05, 12);
    expect(t.final[0].diff['test-seen']).toBeNull();
    // best of OPID seed 2 is step 5 (0.9, 0.9): test-unseen 0.6, 0.9 → 0.75 ± 0.15
    expect(t.best[1].cells['test-unseen'].mean).toBeCloseTo(0.75, 12);
    expect(t.best[1].cells['test-unseen'].se).toBeCloseTo(0.15, 12);
    // curves: OPID's steps are 0, 5, 10; at step 5 only seed 2 evaluated (n 1)
    expect(t.curves!.map((c) => [c.method, c.steps])).toEqual([
      ['grpo', [0, 10]],
      ['opid', [0, 5, 10]],
    ]);
    expect(t.curves![1].splits['test-seen'][1]).toEqual({ mean: 0.9, se: 0, n: 1 });
    expect(t.curves![0].splits['test-unseen'][1]!.mean).toBeCloseTo(0.55, 12);
    const text = resultsTableJson(t);
    expect(text.endsWith('}\n')).toBe(true);
    expect(Object.keys(JSON.parse(text))).toEqual([
      'format',
      'version',
      'header',
      'command',
      'baseline',
      'splits',
      'final',
      'best',
      'curves',
    ]);
  });

  it('writes the protocol and the named comparisons only when given, and reads them back', () => {
    const t = makeResultsTable({
      header: ['protocol: reference'],
      command: 'npm run experiment -- opid-table --protocol reference',
      protocol: 'reference',
      baseline: 'grpo',
      splits: SPLITS,
      methods: ['grpo', 'opid'],
      runs: RUNS,
      comparisons: [{ label: 'skill term', method: 'opid', baseline: 'grpo' }],
    });
    const text = resultsTableJson(t);
    expect(Object.keys(JSON.parse(text))).toEqual([
      'format',
      'version',
      'header',
      'command',
      'protocol',
      'baseline',
      'splits',
      'final',
      'best',
      'comparisons',
      'curves',
    ]);
    expect(t.protocol).toBe('reference');
    // final test-seen: Δ per seed 0.2, 0.1 → 0.15 ± 0.05, as OPID's row
    const [c] = t.comparisons!.final;
    expect([c.label, c.method, c.baseline, c.seeds]).toEqual(['skill term', 'opid', 'grpo', [1, 2]]);
    expect(c.diff).toEqual(t.final[1].diff);
    expect(t.comparisons!.best[0].diff).toEqual(t.best[1].diff);
    expect(parseResultsTable(text)).toEqual(t);
    const bad = JSON.parse(text);
    bad.comparisons.final[0].diff['test-seen'].n = 3;
    expect(() => parseResultsTable(bad)).toThrow(
      /^table\.json: comparisons\.final\.0\.diff\.test-seen\.n: paired over 3 seeds, but the comparison has 2/,
    );
    bad.comparisons.final[0].diff = { train: null };
    expect(() => parseResultsTable(bad)).toThrow(/comparisons\.final\.0\.diff\.train: "train" is not one of splits/);
    // without them, neither key is written (the table of the default protocol reads as before)
    const plain = table();
    expect(Object.hasOwn(plain, 'protocol') || Object.hasOwn(plain, 'comparisons')).toBe(false);
  });

  it('writes last3 rows and comparisons when asked, reads them back, and still reads files without them', () => {
    const t = makeResultsTable({
      header: ['protocol: map-easy'],
      command: 'npm run experiment -- opid-table --protocol map-easy',
      protocol: 'map-easy',
      baseline: 'grpo',
      splits: LAST3_SPLITS,
      methods: ['grpo', 'opid'],
      runs: LAST3_RUNS,
      comparisons: [{ label: 'dense signal', method: 'opid', baseline: 'grpo' }],
      last3: true,
    });
    const text = resultsTableJson(t);
    expect(Object.keys(JSON.parse(text))).toEqual([
      'format',
      'version',
      'header',
      'command',
      'protocol',
      'baseline',
      'splits',
      'final',
      'best',
      'last3',
      'comparisons',
      'curves',
    ]);
    expect(Object.keys(JSON.parse(text).comparisons)).toEqual(['final', 'best', 'last3']);
    // test/helpers/last3-runs.ts: OPID − GRPO per seed on test-unseen 0.5 − 0.3 twice → 0.2 ± 0; test-seen 0.2,
    // 0.15 → 0.175 ± 0.025
    const o = t.last3![1];
    expect(o.method).toBe('opid');
    expect(o.diff['test-unseen']!.mean).toBeCloseTo(0.2, 12);
    expect(o.diff['test-unseen']!.se).toBeCloseTo(0, 12);
    expect(o.diff['test-seen']!.mean).toBeCloseTo(0.175, 12);
    expect(o.diff['test-seen']!.se).toBeCloseTo(0.025, 12);
    expect(t.comparisons!.last3![0].diff).toEqual(o.diff);
    expect(parseResultsTable(text)).toEqual(t);
    // a file written before last3 (neither key) reads as it did: no last3
    const old = JSON.parse(text);
    delete old.last3;
    delete old.comparisons.last3;
    const back = parseResultsTable(old);
    expect(Object.hasOwn(back, 'last3') || Object.hasOwn(back.comparisons!, 'last3')).toBe(false);
    expect(back.final).toEqual(t.final);
    // a table without last3 writes neither key
    expect(Object.hasOwn(table(), 'last3')).toBe(false);
    // rows and comparisons agree on last3
    const noCmp = JSON.parse(text);
    delete noCmp.comparisons.last3;
    expect(() => parseResultsTable(noCmp)).toThrow(
      /^table\.json: comparisons\.last3: missing \(the table has last3 rows\); write it again/,
    );
    expect(() => parseResultsTable({ ...old, comparisons: JSON.parse(text).comparisons })).toThrow(
      /^table\.json: comparisons\.last3: present without last3 rows/,
    );
    const twice = JSON.parse(text);
    twice.last3.push(twice.last3[0]);
    expect(() => parseResultsTable(twice)).toThrow(/^table\.json: last3\.2\.method: "grpo" appears twice/);
    const n = JSON.parse(text);
    n.last3[1].diff['test-seen'].n = 3;
    expect(() => parseResultsTable(n)).toThrow(/^table\.json: last3\.1\.diff\.test-seen\.n: paired over 3 seeds/);
  });

  it('refuses runs that make an invalid table (a success rate above 1)', () => {
    expect(() =>
      makeResultsTable({
        header: [],
        command: '',
        baseline: 'grpo',
        splits: SPLITS,
        methods: ['grpo'],
        runs: [run('grpo', 1, [[0, 1.5, 0.4]])],
      }),
    ).toThrow(/table\.json \(as written\): final\.0\.cells\.test-seen\.mean: Too big/);
  });
});

describe('parseResultsTable', () => {
  it('round-trips a valid version-2 table (text or parsed data)', () => {
    const t = table();
    expect(parseResultsTable(resultsTableJson(t))).toEqual(t);
    expect(parseResultsTable(raw())).toEqual(t);
  });

  it('reads a version-1 file: command from its header, baseline grpo, no curves', () => {
    const { format: _f, version: _v, command: _c, baseline: _b, curves: _k, ...v1 } = raw();
    const t = parseResultsTable(JSON.stringify(v1));
    expect(t.version).toBe(1);
    expect(t.command).toBe('npm run experiment -- opid-table --seeds 2');
    expect(t.baseline).toBe('grpo');
    expect(t.curves).toBeNull();
    expect(t.final).toEqual(table().final);
    expect(parseResultsTable(JSON.stringify({ ...v1, header: ['household/easy'] })).command).toBe('');
  });

  it(
    'reads a version-1 file the earlier writer made (test/fixtures/table-v1.json: 6 methods × 1 seed, 2 ' +
      'steps from scratch)',
    () => {
      const t = parseResultsTable(fs.readFileSync('test/fixtures/table-v1.json', 'utf8'));
      expect([t.version, t.baseline, t.curves]).toEqual([1, 'grpo', null]);
      expect(t.command).toBe('npm run experiment -- opid-table --seeds 1 --steps 2 --episodes 4 --out /tmp/exp1');
      expect(t.final.map((r) => r.method)).toEqual([
        'grpo',
        'opid',
        'opid-no-episode',
        'opid-no-step',
        'opid-additive',
        'skill-grpo',
      ]);
      expect(Object.keys(t.final[1].cells).sort()).toEqual([
        'test-seen',
        'test-seen/cool',
        'test-seen/pick',
        'test-seen/pick2',
        'test-unseen',
        'test-unseen/cool',
        'test-unseen/heat',
        'test-unseen/pick',
        'test-unseen/pick2',
      ]);
      // 2 steps from scratch: every cell and difference is 0 ± 0 over 1 seed; GRPO's differences are null
      expect(t.final[1].cells['test-unseen/heat']).toEqual({ mean: 0, se: 0, n: 1 });
      expect(t.best[5].diff['test-seen']).toEqual({ mean: 0, se: 0, n: 1 });
      expect(Object.values(t.final[0].diff).every((d) => d === null)).toBe(true);
    },
  );

  it('reads the paired difference of every task type from version 2 and version 1 (three seeds, hand-computed)', () => {
    const t = makeResultsTable({
      header: ['command: x'],
      command: 'x',
      baseline: 'grpo',
      splits: TYPED_SPLITS,
      methods: ['grpo', 'opid'],
      runs: TYPED_RUNS,
    });
    const text = resultsTableJson(t);
    const { format: _f, version: _v, command: _c, baseline: _b, curves: _k, ...v1 } = JSON.parse(text);
    for (const r of [parseResultsTable(text), parseResultsTable(JSON.stringify(v1))]) {
      const o = r.final[1];
      // test-unseen/heat: OPID − GRPO per seed 0.3, 0, 0.3 → 0.2 ± 0.1; test-seen/cool paired over seeds 1, 2:
      // 0.1, 0.3 → 0.2 ± 0.1 (n 2)
      expect(o.diff['test-unseen/heat']!.mean).toBeCloseTo(0.2, 12);
      expect(o.diff['test-unseen/heat']!.se).toBeCloseTo(0.1, 12);
      expect([o.diff['test-seen/cool']!.n, o.diff['test-unseen/heat']!.n]).toEqual([2, 3]);
      expect(o.diff['test-unseen/pick']!.mean).toBeCloseTo(-0.1 / 3, 12);
      expect(r.final[0].diff['test-unseen/heat']).toBeNull();
    }
    // the earlier writer's version-1 file holds them too: OPID − GRPO per type, 0 ± 0 over its one seed
    const old = parseResultsTable(fs.readFileSync('test/fixtures/table-v1.json', 'utf8'));
    expect(old.final[1].diff['test-unseen/heat']).toEqual({ mean: 0, se: 0, n: 1 });
    expect(old.best[2].diff['test-seen/pick2']).toEqual({ mean: 0, se: 0, n: 1 });
  });

  it('names a missing field and the fix', () => {
    const o = raw();
    delete o.final[0].cells['test-seen'].se;
    expect(() => parseResultsTable(o)).toThrow(
      /^table\.json: final\.0\.cells\.test-seen\.se: missing \(expected number\); write it again/,
    );
    const p = raw();
    delete p.best[1].method;
    expect(() => parseResultsTable(p, 'my.json')).toThrow(/^my\.json: best\.1\.method: missing \(expected string\)/);
    const q: Obj = raw();
    delete q.curves;
    expect(() => parseResultsTable(q)).toThrow(/^table\.json: curves: missing \(expected array\)/);
  });

  it('names a wrong type', () => {
    const o = raw();
    o.final[1].cells['test-unseen/heat'].mean = '0.3';
    expect(() => parseResultsTable(o)).toThrow(
      /^table\.json: final\.1\.cells\.test-unseen\/heat\.mean: Invalid input: expected number, received string/,
    );
    const p = raw();
    p.splits = 'test-seen';
    expect(() => parseResultsTable(p)).toThrow(/^table\.json: splits: Invalid input: expected array, received string/);
    const q = raw();
    q.final[0].seeds = [1, 2.5];
    expect(() => parseResultsTable(q)).toThrow(/^table\.json: final\.0\.seeds\.1: /);
  });

  it('refuses extra keys at the top level and inside rows', () => {
    const o = raw();
    o.extra = 1;
    expect(() => parseResultsTable(o)).toThrow(
      /^table\.json: \(top level\): unknown field "extra" \(remove it; this page reads opd-table versions 1 and 2\)/,
    );
    const p = raw();
    p.final[1].cells['test-seen'].median = 0.8;
    expect(() => parseResultsTable(p)).toThrow(/^table\.json: final\.1\.cells\.test-seen: unknown field "median"/);
  });

  it('refuses a __proto__ key and reads no inherited property', () => {
    const text = resultsTableJson(table()).replace(
      '"cells": {',
      '"cells": {"__proto__": {"mean": 1, "se": 0, "n": 1},',
    );
    expect(() => parseResultsTable(text)).toThrow(
      /^table\.json: final\.0\.cells\.__proto__: a key named "__proto__" is not allowed \(remove it\)/,
    );
    const top = '{"__proto__": {"header": []},' + resultsTableJson(table()).slice(1);
    expect(() => parseResultsTable(top)).toThrow(/^table\.json: __proto__: a key named "__proto__" is not allowed/);
    // Fields only on the prototype are not read: the file misses them.
    const { header, ...rest } = raw();
    const inherited = Object.assign(Object.create({ header }), rest);
    expect(() => parseResultsTable(inherited)).toThrow(/^table\.json: header: missing \(expected array\)/);
    expect(({} as Record<string, unknown>).mean).toBeUndefined(); // nothing leaked onto Object.prototype
  });

  it('refuses text that is not JSON, other files, and other versions', () => {
    expect(() => parseResultsTable('{"header": [')).toThrow(/^table\.json: not valid JSON \(/);
    expect(() => parseResultsTable('[1, 2]')).toThrow(
      /^table\.json: \(top level\): expected an object with header, splits, final and best/,
    );
    expect(() => parseResultsTable({ ...raw(), format: 'opd-run' })).toThrow(
      /^table\.json: format: "opd-run" is not "opd-table"/,
    );
    expect(() => parseResultsTable({ ...raw(), version: 3 })).toThrow(
      /^table\.json: version: 3 \(this page reads versions 1 and 2; the file is newer: open it in a newer page\)/,
    );
    const { version: _v, ...noVersion } = raw();
    expect(() => parseResultsTable(noVersion)).toThrow(/^table\.json: version: missing/);
  });

  it('refuses rows and curves that disagree with each other', () => {
    const o = raw();
    o.final.push(o.final[0]);
    expect(() => parseResultsTable(o)).toThrow(/^table\.json: final\.2\.method: "grpo" appears twice/);
    const p = raw();
    p.final[1].diff['test-train'] = null;
    expect(() => parseResultsTable(p)).toThrow(
      /^table\.json: final\.1\.diff\.test-train: a difference without its cell/,
    );
    const q = raw();
    q.final[0].cells['train'] = { mean: 0.5, se: 0, n: 1 };
    expect(() => parseResultsTable(q)).toThrow(
      /^table\.json: final\.0\.cells\.train: "train" is not one of splits \(test-seen, test-unseen\)/,
    );
    const r = raw();
    r.curves[1].splits['test-seen'].pop();
    expect(() => parseResultsTable(r)).toThrow(/^table\.json: curves\.1\.splits\.test-seen: 2 values for 3 steps/);
    const s = raw();
    s.curves[1].steps = [0, 10, 5];
    expect(() => parseResultsTable(s)).toThrow(/^table\.json: curves\.1\.steps\.2: steps must increase \(10 then 5\)/);
    const d = raw();
    d.final[1].diff['test-unseen/heat']!.n = 3;
    expect(() => parseResultsTable(d)).toThrow(
      /^table\.json: final\.1\.diff\.test-unseen\/heat\.n: paired over 3 seeds, but the row has 2/,
    );
    const u = raw();
    u.final[1].cells['test-seen'].n = 3;
    expect(() => parseResultsTable(u)).toThrow(
      /^table\.json: final\.1\.cells\.test-seen\.n: 3 seeds, but the row has 2/,
    );
    expect(() => parseResultsTable(u)).toThrow(TableError);
    expect(() => parseResultsTable(u)).toThrow(FIX);
  });
});
