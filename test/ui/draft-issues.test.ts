/**
 * Page field errors for a draft with several problems: each invalid field keeps its own issue. Mini-batches 8 with
 * B = 1, G = 2 breaks "Mini-batches ≤ B·G (2)"; setting Steps to −4 as well keeps that issue beside Steps' own.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG, type RunConfig } from '../../src/core/run/config';
import { draftIssues, withField } from '../../src/ui/state/draft-issues';
import { ENV_SPECS } from '../../src/core/envs/registry';
import { plainIssue } from '../../src/ui/state/messages';

const RUN: RunConfig = { ...DEFAULT_CONFIG, tasksPerStep: 1, groupSize: 2, miniBatches: 2 };

describe('draftIssues', () => {
  it('is empty for a valid draft', () => {
    expect(draftIssues(RUN, RUN)).toEqual([]);
  });

  it('keeps the cross-field issue while another field is out of range', () => {
    const both = draftIssues({ ...RUN, miniBatches: 8, steps: -4 }, RUN);
    expect(both.map((i) => i.field)).toEqual(['steps', 'miniBatches']);
    expect(both.map((i) => plainIssue(i))).toEqual([
      'Steps must be an integer from 1 to 100000.',
      'Mini-batches is 8 (the default), more than Tasks per step (B)·Group size (G) (2): each mini-batch needs a ' +
        'sample; set Mini-batches to 2 or fewer, or raise B·G.',
    ]);
    // Alone, each field has its own issue only.
    expect(draftIssues({ ...RUN, miniBatches: 8 }, RUN).map((i) => i.field)).toEqual(['miniBatches']);
    expect(draftIssues({ ...RUN, steps: -4 }, RUN).map((i) => i.field)).toEqual(['steps']);
  });

  it("checks a rule on an out-of-range field against the run's value; reports each schema issue", () => {
    // B = 0 is out of range: Mini-batches 8 is checked against the run's B·G = 1·2.
    const r = draftIssues({ ...RUN, tasksPerStep: 0, miniBatches: 8, steps: -4 }, RUN);
    expect(r.map((i) => i.field).sort()).toEqual(['miniBatches', 'steps', 'tasksPerStep']);
    // A draft whose B is out of range and whose Mini-batches fits the run's B·G has no Mini-batches issue.
    expect(draftIssues({ ...RUN, tasksPerStep: 0, miniBatches: 2 }, RUN).map((i) => i.field)).toEqual(['tasksPerStep']);
  });
});

describe('withField', () => {
  it("choosing an env keeps the preset it has, else moves to the env's default preset", () => {
    for (const spec of ENV_SPECS) {
      const next = withField(DEFAULT_CONFIG, 'env', spec.name);
      expect(next.env).toBe(spec.name);
      expect(next.preset).toBe(
        spec.presets.includes(DEFAULT_CONFIG.preset) ? DEFAULT_CONFIG.preset : spec.defaultPreset,
      );
      for (const p of spec.presets)
        expect(withField({ ...DEFAULT_CONFIG, preset: p }, 'env', spec.name).preset).toBe(p);
    }
    expect(withField(DEFAULT_CONFIG, 'steps', 7)).toEqual({ ...DEFAULT_CONFIG, steps: 7 });
    expect(withField(DEFAULT_CONFIG, 'env', 'nope')).toEqual({ ...DEFAULT_CONFIG, env: 'nope' });
  });
});
