/** Link codec: only non-default fields (and the seed) are written; reading keeps the valid part of a bad link. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../src/core/run/config';
import { decodeHash, encodeHash, fieldsHoldingSecret } from '../../src/ui/state/link';
import { linkIssueText, plainIssue } from '../../src/ui/state/messages';

describe('link codec', () => {
  it('round-trips a config and writes only what differs', () => {
    const c = { ...DEFAULT_CONFIG, seed: 7, steps: 30, learningRate: 3e-4, backend: 'wasm' as const };
    const h = encodeHash(c);
    expect(h).toBe('seed=7&steps=30&learningRate=0.0003&backend=wasm');
    expect(decodeHash(`#${h}`)).toEqual({ config: c, issues: [] });
  });

  it('defaults encode as just the seed', () => {
    expect(encodeHash(DEFAULT_CONFIG)).toBe(`seed=${DEFAULT_CONFIG.seed}`);
    expect(decodeHash('').config).toEqual(DEFAULT_CONFIG);
  });

  it('drops bad and unknown fields, names them, keeps the rest', () => {
    const r = decodeHash('#steps=abc&bogus=1&groupSize=4&model=huge&%E0%A4%A=1');
    expect(r.config.groupSize).toBe(4);
    expect(r.config.steps).toBe(DEFAULT_CONFIG.steps);
    expect(r.config.model).toBe(DEFAULT_CONFIG.model);
    expect(r.issues.map((i) => i.field).sort()).toEqual(['%E0%A4%A=1', 'bogus', 'model', 'steps'].sort());
  });

  it('names a key given twice and uses the last value', () => {
    const r = decodeHash('#steps=3&steps=5');
    expect(r.config.steps).toBe(5);
    expect(r.issues).toEqual([{ field: 'steps', message: 'given twice; using 5' }]);
    expect(decodeHash('#seed=1&seed=2&seed=3').issues).toEqual([{ field: 'seed', message: 'given 3 times; using 3' }]);
  });

  it('truncates a very long key so the notice stays narrow', () => {
    const r = decodeHash(`#${'x'.repeat(5000)}=1`);
    expect(r.issues).toHaveLength(1);
    expect(r.issues[0].field.length).toBeLessThanOrEqual(41);
  });

  it('round-trips the start-from choice: base is the default and not written, scratch is', () => {
    expect(DEFAULT_CONFIG.init).toBe('base');
    const c = { ...DEFAULT_CONFIG, init: 'scratch' as const, seed: 4 };
    expect(encodeHash(c)).toBe('init=scratch&seed=4');
    expect(decodeHash('#init=scratch&seed=4')).toEqual({ config: c, issues: [] });
    expect(decodeHash(`#${encodeHash({ ...DEFAULT_CONFIG, seed: 4 })}`).config.init).toBe('base');
    expect(decodeHash('#init=base&seed=4')).toEqual({ config: { ...DEFAULT_CONFIG, seed: 4 }, issues: [] });
  });

  it('keeps the rest of a link with a bad start-from value and names it', () => {
    const r = decodeHash('#init=pretrained&steps=7&seed=2');
    expect(r.config).toEqual({ ...DEFAULT_CONFIG, steps: 7, seed: 2 });
    expect(r.issues).toHaveLength(1);
    expect(r.issues[0].field).toBe('init');
    expect(linkIssueText(r.issues[0])).toBe('must be one of base, scratch; ignored');
    expect(plainIssue(r.issues[0])).toBe('Start from must be one of base, scratch.');
  });

  it('round-trips the OPID and analyzer settings (issue #4), booleans and texts included', () => {
    const c = {
      ...DEFAULT_CONFIG, seed: 3, algo: 'opid' as const, ablation: 'additive' as const, lambdaSkill: 0.25, maxStepSkills: 2, failedOnly: true,
      skillZscore: true, skillClip: 1.5, analyzer: 'http' as const, analyzerUrl: 'http://localhost:11434', analyzerModel: 'qwen2.5:7b-instruct',
      analyzerTimeoutMs: 5000,
    };
    const h = encodeHash(c);
    expect(h).toContain('failedOnly=true');
    expect(h).toContain('analyzerUrl=http%3A%2F%2Flocalhost%3A11434');
    expect(decodeHash(`#${h}`)).toEqual({ config: c, issues: [] });
    const sg = { ...DEFAULT_CONFIG, algo: 'skill-grpo' as const, skillMemoryTopK: 3 };
    expect(decodeHash(encodeHash(sg))).toEqual({ config: sg, issues: [] });
  });

  it('keeps the valid part of a link with bad OPID values and names them', () => {
    const r = decodeHash('#algo=opid&lambdaSkill=-1&failedOnly=yes&ablation=none&skillClip=2&analyzer=carrier-pigeon');
    expect(r.config).toEqual({ ...DEFAULT_CONFIG, algo: 'opid', skillClip: 2 });
    expect(r.issues.map((i) => i.field).sort()).toEqual(['analyzer', 'failedOnly', 'lambdaSkill']);
    expect(linkIssueText(r.issues.find((i) => i.field === 'failedOnly')!)).toBe('must be true or false; ignored');
    expect(plainIssue(r.issues.find((i) => i.field === 'lambdaSkill')!)).toBe('Skill weight (λ_skill) must be a number from 0 to 100.');
  });

  it('never holds the analyzer key: not a config field, and a field that contains it is left out', () => {
    const key = 'sk-live-SECRET-0123456789';
    const c = { ...DEFAULT_CONFIG, algo: 'opid' as const, analyzer: 'http' as const, analyzerUrl: 'http://localhost:8080', analyzerModel: 'tiny' };
    expect(encodeHash(c, [key])).not.toContain(key);
    expect(encodeHash(c, [key])).toBe(encodeHash(c));
    // A key pasted into the model field by mistake: the field is left out of the link, and named.
    const pasted = { ...c, analyzerModel: key };
    const h = encodeHash(pasted, [key]);
    expect(h).not.toContain(key);
    expect(h).not.toContain(encodeURIComponent(key));
    expect(h).not.toContain('analyzerModel');
    expect(h).toContain('analyzerUrl=');
    expect(fieldsHoldingSecret(pasted, [key])).toEqual(['analyzerModel']);
    expect(fieldsHoldingSecret(pasted, ['ab'])).toEqual([]); // too short to look for
  });
});
