/**
 * table.md of a results table: the success table and the paired difference to GRPO per split and per task type, at
 * the final and the best evaluation, with hand-computed numbers (three seeds, test/helpers/table-runs.ts).
 */
import { describe, expect, it } from 'vitest';
import { makeResultsTable } from '../../../src/core/run/table-schema';
import { resultsTableMarkdown } from '../../../src/core/run/table-md';
import { TYPED_RUNS, TYPED_SPLITS } from '../../helpers/table-runs';
import { LAST3_RUNS, LAST3_SPLITS } from '../../helpers/last3-runs';

const table = (methods: string[]) =>
  makeResultsTable({
    header: ['command: npm run experiment -- opid-table --seeds 3', 'household/easy'],
    command: 'npm run experiment -- opid-table --seeds 3',
    baseline: 'grpo',
    splits: TYPED_SPLITS,
    methods,
    runs: TYPED_RUNS,
  });

describe('resultsTableMarkdown', () => {
  it('writes success and the paired Δ vs GRPO per task type, final and best (hand-computed)', () => {
    const md = resultsTableMarkdown(table(['grpo', 'opid', 'skill-grpo']), 'OPID household table');
    const cols =
      '| method | seeds | test-seen | test-unseen | test-seen/pick | test-seen/cool | test-unseen/pick | ' +
      'test-unseen/heat | Δ vs grpo test-seen | Δ vs grpo test-unseen |';
    const dcols =
      '| method | seeds | test-seen | test-seen/pick | test-seen/cool | test-unseen | test-unseen/pick | ' +
      'test-unseen/heat |';
    expect(md).toBe(
      [
        '# OPID household table',
        '',
        '- command: npm run experiment -- opid-table --seeds 3',
        '- household/easy',
        '',
        'Success in %, mean ± standard error over seeds; Δ: paired difference to grpo in percent ' +
          'points, mean ± standard error of the per-seed differences over the seeds both have (the number ' +
          "of seeds is given where it is fewer than the row's; a value over one seed has no standard error and " +
          'says `(1 seed)`).',
        '',
        '## Final evaluation',
        '',
        cols,
        '|---|---|---|---|---|---|---|---|---|---|',
        // GRPO seen 0.5, 0.6, 0.7 → 60.0 ± 5.8 (√(0.01/3)); cool only seeds 1, 2: 0.4, 0.5 → 45.0 ± 5.0;
        // unseen/pick 0.4 × 3 → 40.0 ± 0.0
        '| grpo | 3 | 60.0 ± 5.8 | 35.0 ± 2.9 | 66.7 ± 3.3 | 45.0 ± 5.0 | 40.0 ± 0.0 | 30.0 ± 5.8 | — | — |',
        // OPID seen 0.6, 0.8, 0.7 → 70.0 ± 5.8; Δ seen 0.1, 0.2, 0 → +10.0 ± 5.8; Δ unseen 0.1, 0, 0.15 →
        // +8.3 ± 4.4
        '| opid | 3 | 70.0 ± 5.8 | 43.3 ± 3.3 | 76.7 ± 3.3 | 63.3 ± 8.8 | 36.7 ± 3.3 | 50.0 ± 5.8 | ' +
          '+10.0 ± 5.8 | +8.3 ± 4.4 |',
        '',
        '### Δ vs grpo per task type, paired over seeds (final evaluation)',
        '',
        dcols,
        '|---|---|---|---|---|---|---|---|',
        // cool: seeds 1, 2 only: 0.1, 0.3 → +20.0 ± 10.0; pick 0.1 × 3 → +10.0 ± 0.0; heat 0.3, 0, 0.3 → +20.0
        // ± 10.0; unseen/pick −0.1, 0, 0 → −3.3 ± 3.3
        '| opid | 3 | +10.0 ± 5.8 | +10.0 ± 0.0 | +20.0 ± 10.0 (2 seeds) | +8.3 ± 4.4 | -3.3 ± 3.3 ' +
          '| +20.0 ± 10.0 |',
        '',
        '## Best evaluation (the same episodes chose it: optimistic)',
        '',
        cols,
        '|---|---|---|---|---|---|---|---|---|---|',
        '| grpo | 3 | 60.0 ± 5.8 | 35.0 ± 2.9 | 66.7 ± 3.3 | 45.0 ± 5.0 | 40.0 ± 0.0 | 30.0 ± 5.8 | — | — |',
        // OPID seed 3 reads step 5 (0.9 / 0.7): seen 0.6, 0.8, 0.9 → 76.7 ± 8.8; unseen 0.4, 0.4, 0.7 → 50.0 ±
        // 10.0
        '| opid | 3 | 76.7 ± 8.8 | 50.0 ± 10.0 | 80.0 ± 5.8 | 73.3 ± 12.0 | 46.7 ± 12.0 | 53.3 ± ' +
          '8.8 | +16.7 ± 3.3 | +15.0 ± 10.4 |',
        '',
        '### Δ vs grpo per task type, paired over seeds (best evaluation)',
        '',
        dcols,
        '|---|---|---|---|---|---|---|---|',
        // seen 0.1, 0.2, 0.2 → +16.7 ± 3.3; pick 0.1, 0.1, 0.2 → +13.3 ± 3.3; unseen 0.1, 0, 0.35 → +15.0 ±
        // 10.4 (√(0.0325/3)); heat 0.3, 0, 0.4 → +23.3 ± 12.0; unseen/pick −0.1, 0, 0.3 → +6.7 ± 12.0
        '| opid | 3 | +16.7 ± 3.3 | +13.3 ± 3.3 | +20.0 ± 10.0 (2 seeds) | +15.0 ± 10.4 | +6.7 ± ' +
          '12.0 | +23.3 ± 12.0 |',
        '',
      ].join('\n'),
    );
  });

  it('with named comparisons, lists them per task type instead of the Δ to the baseline', () => {
    const md = resultsTableMarkdown(
      makeResultsTable({
        header: [],
        command: '',
        baseline: 'grpo',
        splits: TYPED_SPLITS,
        methods: ['grpo', 'opid'],
        runs: TYPED_RUNS,
        comparisons: [
          { label: 'skill term', method: 'opid', baseline: 'grpo' },
          { label: 'not run', method: 'skill-grpo', baseline: 'grpo' },
        ],
      }),
      'T',
    );
    expect(md).toContain(' Paired comparisons: `method − baseline` of the two methods named, the same way.');
    expect(md).not.toContain('per task type, paired over seeds');
    expect(md).toContain(
      [
        '### Paired comparisons per task type (final evaluation)',
        '',
        '| comparison | seeds | test-seen | test-seen/pick | test-seen/cool | test-unseen | test-unseen/pick | ' +
          'test-unseen/heat |',
        '|---|---|---|---|---|---|---|---|',
        // the numbers of OPID's row in the first test
        '| skill term: opid − grpo | 3 | +10.0 ± 5.8 | +10.0 ± 0.0 | +20.0 ± 10.0 (2 seeds) | +8.3 ± 4.4 | ' +
          '-3.3 ± 3.3 | +20.0 ± 10.0 |',
        '',
        '## Best evaluation',
      ].join('\n'),
    );
    expect(md).toContain('### Paired comparisons per task type (best evaluation)');
    const only = makeResultsTable({
      header: [],
      command: '',
      baseline: 'grpo',
      splits: TYPED_SPLITS,
      methods: ['grpo'],
      runs: TYPED_RUNS.filter((r) => r.method === 'grpo'),
      comparisons: [{ label: 'skill term', method: 'opid', baseline: 'grpo' }],
    });
    expect(
      resultsTableMarkdown(only, 'T').match(/No comparison has finished runs of both its methods\./g),
    ).toHaveLength(2);
  });

  it('says so when only the baseline has runs', () => {
    const md = resultsTableMarkdown(table(['grpo']), 'T');
    expect(md.match(/No method besides grpo has finished runs\./g)).toHaveLength(2);
    expect(md.endsWith('No method besides grpo has finished runs.\n')).toBe(true);
  });

  it('with last3, reports the mean of the last three evaluations first, then final and best (hand-computed)', () => {
    const make = (comparisons?: { label: string; method: string; baseline: string }[]) =>
      makeResultsTable({
        header: ['endpoint: last3'],
        command: '',
        baseline: 'grpo',
        splits: LAST3_SPLITS,
        methods: ['grpo', 'opid'],
        runs: LAST3_RUNS,
        comparisons,
        last3: true,
      });
    const md = resultsTableMarkdown(make(), 'Map');
    const cols =
      '| method | seeds | test-seen | test-unseen | test-seen/pick | test-unseen/pick | test-unseen/heat | ' +
      'Δ vs grpo test-seen | Δ vs grpo test-unseen |';
    // OPID − GRPO per split and type: seen 0.2, 0.15 → +17.5 ± 2.5; unseen 0.2, 0.2; heat 0.2, 0.25 → +22.5
    const delta = '+17.5 ± 2.5 | +17.5 ± 2.5 | +20.0 ± 0.0 | +20.0 ± 0.0 | +22.5 ± 2.5 |';
    expect(md).toContain(
      ' Last three: per run, the mean success of its last three evaluations after step 0 (of those it has, when ' +
        'fewer), per split and per task type; then over seeds the same way.\n\n## Mean of the last three',
    );
    expect(md).toContain(
      [
        '## Mean of the last three evaluations (per run, step 0 excluded; the endpoint)',
        '',
        cols,
        '|---|---|---|---|---|---|---|---|---|',
        // GRPO per seed: seen 0.5, 0.45 → 47.5 ± 2.5; unseen 0.3, 0.3 → 30.0 ± 0.0; heat 0.2, 0.3 → 25.0 ± 5.0
        '| grpo | 2 | 47.5 ± 2.5 | 30.0 ± 0.0 | 47.5 ± 2.5 | 30.0 ± 0.0 | 25.0 ± 5.0 | — | — |',
        // OPID: seen 0.7, 0.6 → 65.0 ± 5.0; unseen 0.5, 0.5; heat 0.4, 0.55 → 47.5 ± 7.5; Δ seen 0.2, 0.15 →
        // +17.5 ± 2.5; Δ unseen 0.2, 0.2 → +20.0 ± 0.0
        '| opid | 2 | 65.0 ± 5.0 | 50.0 ± 0.0 | 65.0 ± 5.0 | 50.0 ± 0.0 | 47.5 ± 7.5 | +17.5 ± 2.5 | ' +
          '+20.0 ± 0.0 |',
        '',
        '### Δ vs grpo per task type, paired over seeds (mean of the last three evaluations)',
        '',
        '| method | seeds | test-seen | test-seen/pick | test-unseen | test-unseen/pick | test-unseen/heat |',
        '|---|---|---|---|---|---|---|',
        `| opid | 2 | ${delta}`,
        '',
        '## Final evaluation',
        '',
        cols,
      ].join('\n'),
    );
    // the final section still reads the last evaluation: Δ seen 0.8 − 0.6, 0.5 − 0.6 → +5.0 ± 15.0
    expect(md).toMatch(/## Final evaluation[^#]*\| opid \| 2 \| 65\.0 ± 15\.0 \|[^\n]*\| \+5\.0 ± 15\.0 \|/);
    const order = ['## Mean of the last three', '## Final evaluation', '## Best evaluation'].map((h) => md.indexOf(h));
    expect(order.every((i, k) => i > 0 && (k === 0 || i > order[k - 1]))).toBe(true);
    // with named comparisons: each endpoint lists them, last3's first
    const named = resultsTableMarkdown(make([{ label: 'dense signal', method: 'opid', baseline: 'grpo' }]), 'Map');
    expect(named).toContain(
      [
        '### Paired comparisons per task type (mean of the last three evaluations)',
        '',
        '| comparison | seeds | test-seen | test-seen/pick | test-unseen | test-unseen/pick | test-unseen/heat |',
        '|---|---|---|---|---|---|---|',
        `| dense signal: opid − grpo | 2 | ${delta}`,
        '',
        '## Final evaluation',
      ].join('\n'),
    );
    // a table without last3 has no such section
    expect(resultsTableMarkdown(table(['grpo', 'opid']), 'T')).not.toMatch(/last three/);
  });
});
