/** Page field errors: the visible label and one plain sentence, never config keys or zod wording; every control's label. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_CONFIG, parseRunConfig, RunConfigSchema, type ConfigIssue } from '../../src/core/run/config';
import { FIELD_LABELS, linkIssueText, plainIssue } from '../../src/ui/state/messages';

/** The issues parseRunConfig reports for a config with `patch` applied. */
function issues(patch: Record<string, unknown>): ConfigIssue[] {
  try {
    parseRunConfig({ ...DEFAULT_CONFIG, ...patch });
  } catch (e) {
    if (e instanceof ConfigError) return e.issues;
    throw e;
  }
  return [];
}

describe('plainIssue', () => {
  it('states the range with the visible label', () => {
    const [i] = issues({ tasksPerStep: 0 });
    expect(plainIssue(i, 0)).toBe('Tasks per step (B) must be an integer from 1 to 256.');
    const [big] = issues({ tasksPerStep: 1000 });
    expect(plainIssue(big, 1000)).toBe('Tasks per step (B) must be an integer from 1 to 256.');
  });

  it('says an emptied field is empty', () => {
    const [i] = issues({ tasksPerStep: NaN });
    expect(plainIssue(i, NaN)).toBe('Tasks per step (B) is empty.');
    expect(plainIssue(i)).toBe('Tasks per step (B) is empty.'); // from the message alone
  });

  it('covers the top-bar seed (negative, fractional, huge)', () => {
    for (const seed of [-3, 1.5, 1e20]) {
      const [i] = issues({ seed });
      expect(plainIssue(i, seed)).toBe('Seed must be an integer from 0 to 2147483647.');
    }
  });

  it('names real-valued ranges and enum options', () => {
    expect(plainIssue(issues({ learningRate: 2 })[0], 2)).toBe('Learning rate must be a number from 1e-7 to 1.');
    expect(plainIssue(issues({ model: 'huge' })[0], 'huge')).toBe('Model must be one of nano, small, base.');
  });

  it('rewrites cross-field rules with labels and keeps no zod jargon', () => {
    const [i] = issues({ tasksPerStep: 1, groupSize: 2, miniBatches: 8 });
    const text = plainIssue(i, 8);
    expect(text).toMatch(/^Mini-batches must be ≤ Tasks per step \(B\)·Group size \(G\) \(2\)/);
    expect(text).not.toMatch(/miniBatches|tasksPerStep|Invalid input|expected/);
  });

  it('says what a bad link value must be', () => {
    const [i] = issues({ steps: 0 });
    expect(linkIssueText(i)).toBe('must be an integer from 1 to 100000; ignored');
    expect(linkIssueText({ field: 'bogus', message: 'unknown setting, ignored' })).toBe('unknown setting, ignored');
  });
});

describe('FIELD_LABELS', () => {
  it('labels every setting of the settings panel, Advanced section included', () => {
    const src = readFileSync(new URL('../../src/ui/components/Controls.svelte', import.meta.url), 'utf8');
    const shown = [...src.matchAll(/labelOf\('(\w+)'\)/g)].map((m) => m[1]);
    const advanced = ['historyTurns', 'lrSchedule', 'minLrRatio', 'stepAdvWeight', 'stepAdvGamma', 'advNorm', 'entropyCoef',
      'clipEpsHigh', 'ppoEpochs', 'lossAgg', 'targetKl', 'maxStepKl', 'adamBeta1', 'adamBeta2', 'adamEps', 'maxGradNorm'];
    expect(shown).toEqual(expect.arrayContaining(advanced));
    for (const key of shown) {
      expect(key in RunConfigSchema.shape, key).toBe(true);
      expect(FIELD_LABELS[key as keyof typeof FIELD_LABELS], key).toBeTruthy();
    }
  });

  it('names an Advanced field by its label', () => {
    expect(plainIssue(issues({ maxStepKl: -1 })[0], -1)).toBe('Max step KL must be a number from 0 to 10.');
    expect(plainIssue(issues({ historyTurns: 31 })[0], 31)).toBe('History (H) must be an integer from 0 to 30.');
  });
});
