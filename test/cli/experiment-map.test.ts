/**
 * `npm run experiment -- opid-table --protocol map-easy` without training: its five rows per seed, each a run
 * directory `runs/<method>-<seed>` whose recorded config must be the one the protocol makes from that row's flags (a
 * folder of hand-made finished runs, test/helpers/run-json.ts, is taken as it is only when every field agrees, and a
 * run of another row in a row's folder is refused naming the fields); table.md and table.json with the `last3`
 * endpoint first and the paired comparisons OPID − GRPO (hand-computed); the protocol's defaults as its header says
 * them, and folders of the other protocols refused.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseResultsTable } from '../../src/core/run/table-schema';
import { handRunJson } from '../helpers/run-json';
import { fewEvalsNote } from '../../cli/experiment';

const run = (args: string[]) =>
  spawnSync('node_modules/.bin/tsx', ['cli/experiment.ts', ...args], { encoding: 'utf8', timeout: 300_000 });

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'opd-map-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Every row's own config fields (the flags of cli/experiment.ts's MAP_METHODS as the run schema reads them). */
const ROWS: Record<string, Record<string, unknown>> = {
  grpo: { algo: 'grpo' },
  'opid-oracle-l1': { algo: 'opid', analyzer: 'oracle', lambdaSkill: 1, episodeSkillOnSearch: false },
  'opid-oracle-l0.1': { algo: 'opid', analyzer: 'oracle', lambdaSkill: 0.1, episodeSkillOnSearch: false },
  'opid-heur-l1': { algo: 'opid', analyzer: 'heuristic', lambdaSkill: 1, episodeSkillOnSearch: false },
  'opid-heur-l0.1': { algo: 'opid', analyzer: 'heuristic', lambdaSkill: 0.1, episodeSkillOnSearch: false },
};

/**
 * The shared settings of the table protocol's train flags at `--steps 8 --eval-every 2 --episodes 3 --tasks 1
 * --group 2` (mini-batches min(8, B·G) = 2), from the shipped household/easy base policy.
 */
const COMMON = {
  env: 'household',
  preset: 'easy',
  init: 'base',
  backend: 'wasm',
  steps: 8,
  tasksPerStep: 1,
  groupSize: 2,
  miniBatches: 2,
  evalEvery: 2,
  evalEpisodes: 3,
  checkpointEvery: 10,
};

/**
 * Test success per run at steps 0, 2, 4, 6, 8 (test-seen = test-unseen, one task type `pick` at the split's rate).
 * last3 = the mean of steps 4, 6, 8: grpo 0.3, 0.4; oracle-l1 0.7, 0.5; oracle-l0.1 0.3, 0.4; heur-l1 0.1, 0.2;
 * heur-l0.1 0.5, 0.6 (seeds 1, 2).
 */
const RATES: Record<string, [number[], number[]]> = {
  grpo: [
    [0.1, 0.9, 0.2, 0.3, 0.4],
    [0.1, 0.2, 0.3, 0.4, 0.5],
  ],
  'opid-oracle-l1': [
    [0.1, 0.5, 0.6, 0.7, 0.8],
    [0.1, 0.5, 0.5, 0.6, 0.4],
  ],
  'opid-oracle-l0.1': [
    [0.1, 0.2, 0.3, 0.3, 0.3],
    [0.1, 0.4, 0.4, 0.4, 0.4],
  ],
  'opid-heur-l1': [
    [0.1, 0.1, 0.1, 0.1, 0.1],
    [0.1, 0.2, 0.2, 0.2, 0.2],
  ],
  'opid-heur-l0.1': [
    [0.1, 0.3, 0.4, 0.5, 0.6],
    [0.1, 0.3, 0.5, 0.6, 0.7],
  ],
};

/** A finished run as `train --run-dir` leaves it: run.json with `config`, evaluations every 2 steps, `done`. */
function finishedRun(dir: string, config: Record<string, unknown>, rates: number[]): void {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'run.json'), JSON.stringify(handRunJson(config)));
  const split = (r: number) => ({ successRate: r, episodes: 3, byTaskType: { pick: { successRate: r, episodes: 3 } } });
  const evals = rates.map((r, i) => ({
    event: 'eval',
    step: 2 * i,
    splits: { 'test-seen': split(r), 'test-unseen': split(r) },
  }));
  const lines = [...evals, { event: 'done', steps: 8, elapsedMs: 1 }];
  fs.writeFileSync(path.join(dir, 'events.jsonl'), lines.map((e) => JSON.stringify(e) + '\n').join(''));
}

/** A run folder `out`/runs/`name` that train has started: its events.jsonl, nothing in it yet. */
function startedRun(out: string, name: string): void {
  fs.mkdirSync(path.join(out, 'runs', name), { recursive: true });
  fs.writeFileSync(path.join(out, 'runs', name, 'events.jsonl'), '');
}

const ARGS = (out: string) => [
  'opid-table',
  '--protocol',
  'map-easy',
  '--seeds',
  '2',
  '--steps',
  '8',
  '--eval-every',
  '2',
  '--episodes',
  '3',
  '--tasks',
  '1',
  '--group',
  '2',
  '--parallel',
  '1',
  '--out',
  out,
];

describe('experiment opid-table --protocol map-easy', () => {
  it('five rows per seed in runs/<method>-<seed> with their flags; last3 first, paired OPID − GRPO', () => {
    const out = path.join(tmp, 'map');
    for (const [m, own] of Object.entries(ROWS))
      for (const seed of [1, 2])
        finishedRun(path.join(out, 'runs', `${m}-${seed}`), { ...COMMON, seed, ...own }, RATES[m][seed - 1]);
    const a = run(ARGS(out));
    expect(a.stderr).toBe('');
    expect(a.status).toBe(0);
    // every job found its folder with the config its row's flags make: nothing to train
    expect(a.stdout).toMatch(/10 of 10 runs already finished; 0 to run/);
    for (const m of Object.keys(ROWS))
      for (const s of [1, 2]) expect(fs.existsSync(path.join(out, `${m}-${s}.jsonl`))).toBe(true);

    const t = parseResultsTable(fs.readFileSync(path.join(out, 'table.json'), 'utf8'));
    expect([t.protocol, t.baseline, t.command]).toEqual([
      'map-easy',
      'grpo',
      `npm run experiment -- ${ARGS(out).join(' ')}`,
    ]);
    expect(t.last3!.map((r) => [r.method, r.seeds])).toEqual(Object.keys(ROWS).map((m) => [m, [1, 2]]));
    // last3 on test-unseen, OPID − GRPO per seed: oracle-l1 0.7 − 0.3, 0.5 − 0.4 → 0.25 ± 0.15;
    // oracle-l0.1 0, 0; heur-l1 −0.2, −0.2; heur-l0.1 +0.2, +0.2
    const want: [string, string, number, number][] = [
      ['oracle, λ 1', 'opid-oracle-l1', 0.25, 0.15],
      ['oracle, λ 0.1', 'opid-oracle-l0.1', 0, 0],
      ['heuristic, λ 1', 'opid-heur-l1', -0.2, 0],
      ['heuristic, λ 0.1', 'opid-heur-l0.1', 0.2, 0],
    ];
    const last3 = t.comparisons!.last3!;
    expect(last3.map((c) => [c.label, c.method, c.baseline, c.seeds])).toEqual(
      want.map(([l, m]) => [l, m, 'grpo', [1, 2]]),
    );
    last3.forEach((c, i) => {
      expect(c.diff['test-unseen']!.mean).toBeCloseTo(want[i][2], 12);
      expect(c.diff['test-unseen']!.se).toBeCloseTo(want[i][3], 12);
    });
    // the final evaluation differs: oracle-l1 0.8 − 0.4, 0.4 − 0.5 → 0.15 ± 0.25
    expect(t.comparisons!.final[0].diff['test-unseen']!.mean).toBeCloseTo(0.15, 12);
    expect(t.comparisons!.final[0].diff['test-unseen']!.se).toBeCloseTo(0.25, 12);

    const md = fs.readFileSync(path.join(out, 'table.md'), 'utf8');
    expect(md).toMatch(/^# Map of regimes: where does OPID's dense signal help\? \(household\/easy\)\n/);
    expect(md).toContain(
      '- opid-heur-l0.1: --algo opid --analyzer heuristic --lambda-skill 0.1 --episode-skill-on-search=false\n',
    );
    expect(md).toContain(
      '- endpoint, fixed in advance: each OPID row − grpo, paired by seed, on test-unseen, at the mean',
    );
    const row = (name: string, d: string) => `| ${name} | 2 | ${[d, d, d, d].join(' | ')} |`;
    const first = md.indexOf('## Mean of the last three evaluations');
    expect(first).toBeGreaterThan(0);
    expect(first).toBeLessThan(md.indexOf('## Final evaluation'));
    expect(md.slice(first)).toContain(
      [
        '### Paired comparisons per task type (mean of the last three evaluations)',
        '',
        '| comparison | seeds | test-seen | test-seen/pick | test-unseen | test-unseen/pick |',
        '|---|---|---|---|---|---|',
        // the same difference in every column (test-seen = test-unseen = its one task type)
        row('oracle, λ 1: opid-oracle-l1 − grpo', '+25.0 ± 15.0'),
        row('oracle, λ 0.1: opid-oracle-l0.1 − grpo', '+0.0 ± 0.0'),
        row('heuristic, λ 1: opid-heur-l1 − grpo', '-20.0 ± 0.0'),
        row('heuristic, λ 0.1: opid-heur-l0.1 − grpo', '+20.0 ± 0.0'),
        '',
        '## Final evaluation',
      ].join('\n'),
    );

    // another row's run in a row's folder (seed 2's oracle-l1 and heur-l1 swapped): refused, the fields named
    const swapped = path.join(tmp, 'swapped');
    fs.cpSync(out, swapped, { recursive: true });
    const [o, h] = ['opid-oracle-l1-2', 'opid-heur-l1-2'].map((d) => path.join(swapped, 'runs', d));
    fs.renameSync(o, `${o}.x`);
    fs.renameSync(h, o);
    fs.renameSync(`${o}.x`, h);
    const b = run(ARGS(swapped));
    expect(b.status).toBe(2);
    expect(b.stderr).toContain(
      'holds runs made with other settings (opid-oracle-l1-2 analyzer heuristic → oracle; ' +
        'opid-heur-l1-2 analyzer oracle → heuristic)',
    );
  });

  it("the protocol's defaults (the default env's easy preset, 80 steps, B 4 × G 8, every 20, 400 episodes)", () => {
    // a folder of the table protocol: refused after the header is printed, nothing trained
    const out = path.join(tmp, 'defaults');
    startedRun(out, 'opid-no-step-1');
    const r = run(['opid-table', '--protocol', 'map-easy', '--out', out]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/holds a table of --protocol table \(runs opid-no-step-1\), not of --protocol map-easy/);
    const header = r.stdout.split('\n');
    expect(header.slice(1, 4)).toEqual([
      'household/easy, nano, from the shipped base policy',
      '80 steps of B 4 × G 8, 3 seeds per method, evaluation every 20 steps on 400 episodes per split at T 0.4',
      // the table protocol's shared train flags
      'train flags: --env household --preset easy --steps 80 --tasks 4 --group 8 --mini-batches 8 --eval-every 20 ' +
        '--eval-episodes 400 --checkpoint-every 10 --backend wasm --init base',
    ]);
    expect(header.slice(5, 10)).toEqual([
      'grpo: --algo grpo',
      'opid-oracle-l1: --algo opid --analyzer oracle --lambda-skill 1 --episode-skill-on-search=false',
      'opid-oracle-l0.1: --algo opid --analyzer oracle --lambda-skill 0.1 --episode-skill-on-search=false',
      'opid-heur-l1: --algo opid --analyzer heuristic --lambda-skill 1 --episode-skill-on-search=false',
      'opid-heur-l0.1: --algo opid --analyzer heuristic --lambda-skill 0.1 --episode-skill-on-search=false',
    ]);
    expect(fs.readdirSync(path.join(out, 'runs'))).toEqual(['opid-no-step-1']);
    // each default gives way to its flag
    const s = run(['opid-table', '--protocol', 'map-easy', '--preset', 'default', '--episodes', '50', '--out', out]);
    expect(s.status).toBe(2);
    expect(s.stdout).toContain('household/default, nano,');
    expect(s.stdout).toContain('--eval-episodes 50 ');
    // another env without an easy preset: the protocol's default preset is named, not a --preset never given
    const shop = run(['opid-table', '--protocol', 'map-easy', '--env', 'shop', '--out', out]);
    expect(shop.status).toBe(2);
    expect(shop.stderr).toContain(
      'experiment: --protocol map-easy runs on household\'s "easy" preset unless --preset names another, and shop ' +
        'has no "easy": pass --preset (one of default) or --env household',
    );
    // the reference protocol on another env says whose settings it keeps (refused after the header: nothing trains)
    const ref = run(['opid-table', '--protocol', 'reference', '--env', 'shop', '--out', out]);
    expect(ref.status).toBe(2);
    expect(ref.stdout).toContain(
      "note: the reference protocol copies the OPID authors' ALFWorld settings, made for household; on shop they " +
        'are kept as they are (history 5, λ 0.001, KL and entropy, B 16 × G 8)',
    );
    // the default folder, named where --out is empty
    const e = run(['opid-table', '--protocol', 'map-easy', '--out', '']);
    expect(e.status).toBe(2);
    expect(e.stderr).toMatch(
      /--out needs a folder \(got an empty value\); give a path, e\.g\. --out runs\/opid-map-easy/,
    );
  });

  it("a folder of the map's runs is refused under the table protocol (its OPID rows' names)", () => {
    const out = path.join(tmp, 'other');
    startedRun(out, 'opid-oracle-l1-1');
    const r = run(['opid-table', '--seeds', '1', '--out', out]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(
      'holds a table of --protocol map-easy (runs opid-oracle-l1-1), not of --protocol table; ' +
        'give --protocol map-easy to continue that table',
    );
    expect(fs.readdirSync(path.join(out, 'runs'))).toEqual(['opid-oracle-l1-1']);
  });
});

describe('experiment opid-table --protocol map-update', () => {
  it("its defaults (the env's fullest preset, 50 steps, every 10, 210 episodes) and its five rows", () => {
    // a folder of the table protocol: refused after the header is printed, nothing trained
    const out = path.join(tmp, 'update');
    startedRun(out, 'skill-grpo-1');
    const r = run(['opid-table', '--protocol', 'map-update', '--out', out]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/holds a table of --protocol table \(runs skill-grpo-1\), not of --protocol map-update/);
    const header = r.stdout.split('\n');
    expect(header.slice(1, 4)).toEqual([
      'household/default, nano, from the shipped base policy',
      '50 steps of B 4 × G 8, 3 seeds per method, evaluation every 10 steps on 210 episodes per split at T 0.4',
      'train flags: --env household --preset default --steps 50 --tasks 4 --group 8 --mini-batches 8 ' +
        '--eval-every 10 --eval-episodes 210 --checkpoint-every 10 --backend wasm --init base',
    ]);
    const oracle = '--algo opid --analyzer oracle --lambda-skill 1 --episode-skill-on-search=false';
    expect(header.slice(5, 10)).toEqual([
      'grpo: --algo grpo',
      `opid-oracle-l1: ${oracle}`,
      `opid-oracle-l1-centred: ${oracle} --skill-variant centred`,
      `opid-oracle-l1-per-action: ${oracle} --skill-variant per-action`,
      `opid-oracle-l1-where-ep-zero: ${oracle} --skill-variant where-ep-zero`,
    ]);
    expect(
      header[10].startsWith(
        'endpoint, fixed in advance: each oracle row − grpo and each variant − ' + 'opid-oracle-l1',
      ),
    ).toBe(true);
    expect(fs.readdirSync(path.join(out, 'runs'))).toEqual(['skill-grpo-1']);
  });
});

describe('experiment: an empty run folder, and fewer evaluations than the endpoint averages', () => {
  it("an empty folder named after another protocol's method is no run of it; --steps 2 gets a note", () => {
    const out = path.join(tmp, 'empty');
    fs.mkdirSync(path.join(out, 'runs', 'skill-grpo-1'), { recursive: true });
    // table.json records the table protocol: the refusal names it alone, not the empty folder (no run)
    fs.writeFileSync(path.join(out, 'table.json'), JSON.stringify({ protocol: 'table' }));
    const r = run(['opid-table', '--protocol', 'map-update', '--steps', '2', '--out', out]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(
      `${out} holds a table of --protocol table (table.json), not of --protocol map-update; give --protocol table ` +
        'to continue that table, or another --out for a new one',
    );
    expect(r.stdout).toContain(
      '\nnote: --steps 2 with evaluation every 10 gives 1 evaluation after step 0 (step 2): the endpoint, the mean ' +
        'of the last three, will average that one; give --steps above 20 (or a smaller --eval-every) for three\n',
    );
  });

  it('fewEvalsNote: none at three evaluations after step 0 or more, or under a protocol without the endpoint', () => {
    expect(fewEvalsNote({ protocol: 'map-update', steps: 21, 'eval-every': 10 })).toEqual([]);
    expect(fewEvalsNote({ protocol: 'table', steps: 2, 'eval-every': 10 })).toEqual([]);
    expect(fewEvalsNote({ protocol: 'map-easy', steps: 40, 'eval-every': 20 })).toEqual([
      'note: --steps 40 with evaluation every 20 gives 2 evaluations after step 0 (steps 20, 40): the endpoint, the ' +
        'mean of the last three, will average those 2; give --steps above 40 (or a smaller --eval-every) for three',
    ]);
  });
});
