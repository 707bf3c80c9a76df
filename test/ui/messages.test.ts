/**
 * Page field errors: the visible label (from the schema) and one plain sentence with the schema's range, never config
 * keys or zod wording.
 */
import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  DEFAULT_CONFIG,
  fieldMeta,
  fieldSchema,
  parseRunConfig,
  RUN_CONFIG_KEYS,
  type ConfigIssue,
} from '../../src/core/run/config';
import {
  acceptedText,
  FIELD_LABELS,
  labelOf,
  linkIssueText,
  linkNoticeHeading,
  plainIssue,
} from '../../src/ui/state/messages';
import { decodeHash } from '../../src/ui/state/link';

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

  it('says an emptied field is empty and what to enter', () => {
    const [i] = issues({ tasksPerStep: NaN });
    expect(plainIssue(i, NaN)).toBe('Tasks per step (B) is empty; enter an integer from 1 to 256.');
    // from the message alone
    expect(plainIssue(i)).toBe('Tasks per step (B) is empty; enter an integer from 1 to 256.');
    const [lr] = issues({ learningRate: NaN });
    expect(plainIssue(lr, NaN)).toBe('Learning rate is empty; enter a number from 1e-7 to 1.');
  });

  it('covers the top-bar seed (negative, fractional, huge)', () => {
    for (const seed of [-3, 1.5, 1e20]) {
      const [i] = issues({ seed });
      expect(plainIssue(i, seed)).toBe('Seed must be an integer from 0 to 2147483647.');
    }
  });

  it('names real-valued ranges and enum options', () => {
    expect(plainIssue(issues({ learningRate: 2 })[0], 2)).toBe('Learning rate must be a number from 1e-7 to 1.');
    expect(plainIssue(issues({ model: 'huge' })[0], 'huge')).toBe('Model must be one of nano, nano-deep, small, base.');
  });

  it('rewrites cross-field rules with labels and keeps no zod jargon', () => {
    const [i] = issues({ tasksPerStep: 1, groupSize: 2, miniBatches: 8 });
    const text = plainIssue(i, 8);
    expect(text).toMatch(/^Mini-batches is 8 \(the default\), more than Tasks per step \(B\)·Group size \(G\) \(2\)/);
    expect(text).not.toMatch(/miniBatches|tasksPerStep|Invalid input|expected/);
  });

  it('says what a bad link value must be', () => {
    const [i] = issues({ steps: 0 });
    expect(linkIssueText(i)).toBe('must be an integer from 1 to 100000; ignored');
    expect(linkIssueText({ field: 'bogus', message: 'unknown setting, ignored' })).toBe('unknown setting, ignored');
  });
});

describe('FIELD_LABELS', () => {
  it("is every setting's schema label (fieldMeta), Advanced section included", () => {
    expect(Object.keys(FIELD_LABELS).sort()).toEqual([...RUN_CONFIG_KEYS].sort());
    for (const key of RUN_CONFIG_KEYS) {
      expect(FIELD_LABELS[key], key).toBe(fieldMeta(key).label);
      expect(labelOf(key), key).toBe(fieldMeta(key).label);
    }
    // Real values, so a relabel in the schema is seen here too.
    expect(labelOf('tasksPerStep')).toBe('Tasks per step (B)');
    expect(labelOf('maxStepKl')).toBe('Max step KL');
    expect(labelOf('klBacktracks')).toBe('KL line search');
    expect(labelOf('lambdaSkill')).toBe('Skill weight (λ_skill)');
  });

  it('shows keys that are not settings as themselves (own properties only)', () => {
    for (const k of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'bogus']) {
      expect(labelOf(k)).toBe(k);
      expect(plainIssue({ field: k, message: 'unknown setting, ignored' })).toBe(`${k}: unknown setting, ignored.`);
      expect(linkIssueText({ field: k, message: 'unknown setting, ignored' })).toBe('unknown setting, ignored');
    }
    expect(plainIssue({ field: 'steps', message: 'constructor and toString must be fine' })).toBe(
      'Steps: constructor and toString must be fine.',
    );
  });

  it('names an Advanced field by its label', () => {
    expect(plainIssue(issues({ maxStepKl: -1 })[0], -1)).toBe('Max step KL must be a number from 0 to 10.');
    expect(plainIssue(issues({ historyTurns: 31 })[0], 31)).toBe('History (H) must be an integer from 0 to 30.');
  });
});

describe('acceptedText', () => {
  it('takes each range from the JSON Schema of the field', () => {
    for (const key of RUN_CONFIG_KEYS) {
      const j = fieldSchema(key);
      const text = acceptedText(key);
      expect(text, key).not.toMatch(/see the schema|undefined|\[/);
      if ((j.type === 'integer' || j.type === 'number') && j.maximum !== undefined)
        expect(text, key).toBe(`${j.type === 'integer' ? 'an integer' : 'a number'} from ${j.minimum} to ${j.maximum}`);
      if (j.enum) expect(text, key).toBe(`one of ${j.enum.join(', ')}`);
    }
    expect(acceptedText('schemaVersion')).toBe(String(DEFAULT_CONFIG.schemaVersion));
    expect(acceptedText('skillZscore')).toBe('true or false');
    expect(acceptedText('analyzerModel')).toBe('a text of at most 200 characters');
    expect(acceptedText('preset')).toMatch(/^one of the env's presets \(household: .*easy/);
  });
});

describe('linkNoticeHeading', () => {
  const heading = (hash: string) => linkNoticeHeading(decodeHash(hash).issues);
  it('says "ignored" only when a note ignored something, "more than once" only when a setting was repeated', () => {
    expect(heading('#v=2&bogus=1')).toBe('Some settings in this link were ignored; defaults are used instead:');
    expect(heading('#v=2&preset=nightmare')).toBe(
      'Some settings in this link were ignored; defaults are used instead:',
    );
    expect(heading('#v=2&seed=3&seed=4')).toBe(
      'Some settings in this link were given more than once; the last value is used:',
    );
    // A value outside the schema's range or choices: the notice shows "must be …; ignored".
    for (const hash of ['#v=2&steps=-5', '#v=2&env=nope', '#v=2&algo=ppo', '#v=2&seed=1e20']) {
      expect(linkIssueText(decodeHash(hash).issues[0])).toMatch(/; ignored$/);
      expect(heading(hash)).toBe('Some settings in this link were ignored; defaults are used instead:');
    }
    expect(heading('#v=2&seed=3&seed=4&steps=0x10')).toBe(
      'Some settings in this link were ignored or given more than once; defaults (or the last value) are used instead:',
    );
  });

  it('notes where every setting was used get a heading that says so', () => {
    // The whole link percent-encoded once: decoded and read.
    expect(heading('#v%3D2%26algo%3Dopid')).toBe('Notes on this link; its settings are used as read:');
    // Made with another environment version.
    expect(heading('#v=2&envVersion=household-v1&seed=3')).toBe('Notes on this link; its settings are used as read:');
    // A newer schema version alone ignored nothing by itself.
    expect(heading('#v=9&seed=3')).toBe('Notes on this link; its settings are used as read:');
  });
});
