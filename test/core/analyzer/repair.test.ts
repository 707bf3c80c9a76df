import { describe, expect, it } from 'vitest';
import { cleanSkill, repairJson, validateSkills } from '../../../src/core/analyzer/repair';

describe('repairJson (issue #4)', () => {
  it('parses plain, fenced, stray-text and trailing-comma replies', () => {
    expect(repairJson('{"a": 1}')).toEqual({ ok: true, value: { a: 1 } });
    expect(repairJson('```json\n{"a": 1}\n```')).toEqual({ ok: true, value: { a: 1 } });
    expect(repairJson('```\n{"a": [1, 2]}\n```\nHope this helps!')).toEqual({ ok: true, value: { a: [1, 2] } });
    expect(repairJson('Sure! Here are the skills: {"a": {"b": "x"}} Let me know.')).toEqual({ ok: true, value: { a: { b: 'x' } } });
    expect(repairJson('{"a": [1, 2,], "b": {"c": "d",},\n}')).toEqual({ ok: true, value: { a: [1, 2], b: { c: 'd' } } });
  });

  it('leaves commas and braces inside strings alone', () => {
    expect(repairJson('{"a": "x,}", "b": "y, ]", "c": "q\\",}",}')).toEqual({ ok: true, value: { a: 'x,}', b: 'y, ]', c: 'q",}' } });
  });

  it('names empty and non-JSON replies', () => {
    expect(repairJson('')).toEqual({ ok: false, reason: 'reply was empty' });
    expect(repairJson('  \n ')).toEqual({ ok: false, reason: 'reply was empty' });
    expect(repairJson('```json\n```')).toEqual({ ok: false, reason: 'reply was empty' });
    expect(repairJson('I cannot help with that.')).toEqual({ ok: false, reason: 'reply was not JSON' });
    expect(repairJson('{episodeSkill: plan}')).toEqual({ ok: false, reason: 'reply was not JSON' });
    expect(repairJson('} {')).toEqual({ ok: false, reason: 'reply was not JSON' });
  });
});

describe('validateSkills (issue #4)', () => {
  it('accepts camelCase and snake_case keys', () => {
    const want = { ok: true, skills: { episodeSkill: 'plan: a, then b.', stepSkills: { 1: 'next, b.' } } };
    expect(validateSkills({ episodeSkill: 'plan: a, then b.', stepSkills: { 1: 'next, b.' } }, 2, 5)).toEqual(want);
    expect(validateSkills({ episode_skill: 'plan: a, then b.', step_skills: { 1: 'next, b.' } }, 2, 5)).toEqual(want);
    expect(validateSkills({ episodeSkill: 'plan: a.' }, 2, 5)).toEqual({ ok: true, skills: { episodeSkill: 'plan: a.', stepSkills: {} } });
    expect(validateSkills({ episodeSkill: 'plan: a.', stepSkills: null }, 2, 5)).toEqual({ ok: true, skills: { episodeSkill: 'plan: a.', stepSkills: {} } });
  });

  it('names wrong types in plain words', () => {
    expect(validateSkills([1], 2, 5)).toEqual({ ok: false, reason: 'reply JSON was not an object' });
    expect(validateSkills('plan', 2, 5)).toEqual({ ok: false, reason: 'reply JSON was not an object' });
    expect(validateSkills(null, 2, 5)).toEqual({ ok: false, reason: 'reply JSON was not an object' });
    expect(validateSkills({}, 2, 5)).toEqual({ ok: false, reason: 'episodeSkill missing or not a string' });
    expect(validateSkills({ episodeSkill: 3 }, 2, 5)).toEqual({ ok: false, reason: 'episodeSkill missing or not a string' });
    expect(validateSkills({ episodeSkill: ' \n ' }, 2, 5)).toEqual({ ok: false, reason: 'episodeSkill was empty' });
    expect(validateSkills({ episodeSkill: 'x', stepSkills: ['next, a.'] }, 2, 5)).toEqual({ ok: false, reason: 'stepSkills was not an object keyed by step number' });
    expect(validateSkills({ episodeSkill: 'x', stepSkills: 'next, a.' }, 2, 5)).toEqual({ ok: false, reason: 'stepSkills was not an object keyed by step number' });
  });

  it('drops keys outside [0, nSteps), non-integer keys, non-string and empty values; keeps the K lowest', () => {
    const raw = { episodeSkill: 'e', stepSkills: { '-1': 'neg', 3: 'out', '1.5': 'frac', '01': 'lead0', abc: 'word', ' 1': 'sp', 1: 7, 0: 'zero', 2: 'two' } };
    expect(validateSkills(raw, 3, 5)).toEqual({ ok: true, skills: { episodeSkill: 'e', stepSkills: { 0: 'zero', 2: 'two' } } });
    expect(validateSkills({ episodeSkill: 'e', stepSkills: { 0: ' \n ', 1: 'b' } }, 2, 5)).toEqual({ ok: true, skills: { episodeSkill: 'e', stepSkills: { 1: 'b' } } });
    const many = { episodeSkill: 'e', stepSkills: { 4: 'd', 1: 'a', 3: 'c', 2: 'b' } };
    expect(validateSkills(many, 5, 2)).toEqual({ ok: true, skills: { episodeSkill: 'e', stepSkills: { 1: 'a', 2: 'b' } } });
    expect(validateSkills(many, 5, 0)).toEqual({ ok: true, skills: { episodeSkill: 'e', stepSkills: {} } });
  });

  it('cleans text: whitespace collapsed, control characters removed, HTML kept literally, length cut at a word', () => {
    expect(cleanSkill('  next,\n\tgo to\r\n fridge 1. ')).toBe('next, go to fridge 1.');
    expect(cleanSkill('ne\u0000xt\u0007, go\u202E to x.')).toBe('next, go to x.');
    expect(cleanSkill('<script>alert("x")</script> & <b>go</b>')).toBe('<script>alert("x")</script> & <b>go</b>');
    expect(cleanSkill('next, take apple 1 from countertop 2.', 20)).toBe('next, take apple 1');
    expect(cleanSkill('next, take apple', 16)).toBe('next, take apple');
    expect(cleanSkill('x'.repeat(10_000), 200)).toBe('x'.repeat(200));
    expect(cleanSkill('a😀b', 2)).toBe('a'); // no half surrogate pair
    const long = validateSkills({ episodeSkill: 'word '.repeat(2000), stepSkills: { 0: 'y'.repeat(10_000) } }, 1, 5, 12);
    expect(long).toEqual({ ok: true, skills: { episodeSkill: 'word word', stepSkills: { 0: 'y'.repeat(12) } } });
  });
});
