import { describe, expect, it } from 'vitest';
import { cleanSkill, repairJson, stripThinking, validateSkills } from '../../../src/core/analyzer/repair';

describe('repairJson', () => {
  it('parses plain, fenced, stray-text and trailing-comma replies', () => {
    expect(repairJson('{"a": 1}')).toEqual({ ok: true, value: { a: 1 } });
    expect(repairJson('```json\n{"a": 1}\n```')).toEqual({ ok: true, value: { a: 1 } });
    expect(repairJson('```\n{"a": [1, 2]}\n```\nHope this helps!')).toEqual({ ok: true, value: { a: [1, 2] } });
    expect(repairJson('Sure! Here are the skills: {"a": {"b": "x"}} Let me know.')).toEqual({
      ok: true,
      value: { a: { b: 'x' } },
    });
    expect(repairJson('{"a": [1, 2,], "b": {"c": "d",},\n}')).toEqual({
      ok: true,
      value: { a: [1, 2], b: { c: 'd' } },
    });
  });

  it('leaves commas and braces inside strings alone', () => {
    expect(repairJson('{"a": "x,}", "b": "y, ]", "c": "q\\",}",}')).toEqual({
      ok: true,
      value: { a: 'x,}', b: 'y, ]', c: 'q",}' },
    });
  });

  it('names empty and non-JSON replies', () => {
    expect(repairJson('')).toEqual({ ok: false, reason: 'reply was empty' });
    expect(repairJson('  \n ')).toEqual({ ok: false, reason: 'reply was empty' });
    expect(repairJson('```json\n```')).toEqual({ ok: false, reason: 'reply was empty' });
    expect(repairJson('I cannot help with that.')).toEqual({ ok: false, reason: 'reply was not JSON' });
    expect(repairJson('} {')).toEqual({ ok: false, reason: 'reply was not JSON' });
    expect(repairJson('Use {braces} wisely.')).toEqual({ ok: false, reason: 'reply was not JSON' });
    expect(repairJson('{"episodeSkill": "plan: go to')).toEqual({
      ok: false,
      reason: 'reply JSON was cut off before its closing brace',
    });
    expect(repairJson("Sure: {'episodeSkill': 'plan")).toEqual({
      ok: false,
      reason: 'reply JSON was cut off before its closing brace',
    });
  });

  it('repairs with jsonrepair: single quotes, unquoted keys, comments, Python constants, a byte-order mark', () => {
    expect(repairJson("{'episodeSkill': 'avoid: don\\'t', 'stepSkills': {1: 'next, a.',},}")).toEqual({
      ok: true,
      value: { episodeSkill: "avoid: don't", stepSkills: { 1: 'next, a.' } },
    });
    expect(repairJson('{episodeSkill: plan}')).toEqual({ ok: true, value: { episodeSkill: 'plan' } });
    expect(repairJson('{"a": 1, /* why */ "b": None, "c": True} // done')).toEqual({
      ok: true,
      value: { a: 1, b: null, c: true },
    });
    expect(repairJson('\uFEFF{"a": 1}')).toEqual({ ok: true, value: { a: 1 } });
    expect(repairJson(`{"episodeSkill": "it's fine, isn't it", "x": "a'b"}`)).toEqual({
      ok: true,
      value: { episodeSkill: "it's fine, isn't it", x: "a'b" },
    });
  });

  it('prefers the object with an episodeSkill over brace sketches and examples around it', () => {
    expect(repairJson('I will write {episodeSkill, stepSkills}:\n{"episodeSkill": "plan: a."}')).toEqual({
      ok: true,
      value: { episodeSkill: 'plan: a.' },
    });
    expect(repairJson('{"note": "draft"}\n{"episode_skill": "plan: b."} and {"x": 1}')).toEqual({
      ok: true,
      value: { episode_skill: 'plan: b.' },
    });
    expect(repairJson('{"a": 1} then {"b": 2}')).toEqual({ ok: true, value: { a: 1 } });
  });

  it('drops thinking before reading the JSON', () => {
    expect(repairJson('<think>maybe {"episodeSkill": "no"}</think>{"episodeSkill": "yes"}')).toEqual({
      ok: true,
      value: { episodeSkill: 'yes' },
    });
    expect(repairJson('<think>{"a": 1')).toEqual({
      ok: false,
      reason: 'the reply was cut inside a <think> block; raise max_tokens or use a non-reasoning model',
    });
  });
});

describe('stripThinking', () => {
  it('keeps the text after the last closing tag, whatever the opening', () => {
    expect(stripThinking('<think>a {</think>\n{"x": 1}')).toEqual({ ok: true, text: '\n{"x": 1}' });
    expect(stripThinking('reasoning without an opening tag }</think>{"x": 1}')).toEqual({ ok: true, text: '{"x": 1}' });
    expect(stripThinking('<think>a</think><think>b</think>{"x": 1}')).toEqual({ ok: true, text: '{"x": 1}' });
    expect(stripThinking('<Reasoning>a</Reasoning>ok')).toEqual({ ok: true, text: 'ok' });
    expect(stripThinking('{"x": 1}\n<think>an afterthought')).toEqual({ ok: true, text: '{"x": 1}\n' });
    expect(stripThinking('no thinking {"x": 1}')).toEqual({ ok: true, text: 'no thinking {"x": 1}' });
  });

  it('names a block cut off, a reply of only thinking, and gpt-oss without a final channel', () => {
    expect(stripThinking('\n <think>still thinking')).toEqual({
      ok: false,
      reason: 'the reply was cut inside a <think> block; raise max_tokens or use a non-reasoning model',
    });
    expect(stripThinking('<thinking>still')).toEqual({
      ok: false,
      reason: 'the reply was cut inside a <thinking> block; raise max_tokens or use a non-reasoning model',
    });
    expect(stripThinking('<think>done</think>  \n')).toEqual({
      ok: false,
      reason:
        'the reply held only a <think> block and no answer after it; turn thinking off or use a non-reasoning model',
    });
    expect(stripThinking('<|channel|>analysis<|message|>hmm')).toEqual({
      ok: false,
      reason: "the reply held only gpt-oss's analysis channel and no final answer; raise max_tokens",
    });
    expect(
      stripThinking(
        '<|channel|>analysis<|message|>hmm<|end|><|start|>assistant<|channel|>final<|message|>{"x": 1}<|return|>',
      ),
    ).toEqual({ ok: true, text: '{"x": 1}' });
  });
});

describe('validateSkills', () => {
  it('accepts camelCase and snake_case keys', () => {
    const want = { ok: true, skills: { episodeSkill: 'plan: a, then b.', stepSkills: { 1: 'next, b.' } } };
    expect(validateSkills({ episodeSkill: 'plan: a, then b.', stepSkills: { 1: 'next, b.' } }, 2, 5)).toEqual(want);
    expect(validateSkills({ episode_skill: 'plan: a, then b.', step_skills: { 1: 'next, b.' } }, 2, 5)).toEqual(want);
    expect(validateSkills({ episodeSkill: 'plan: a.' }, 2, 5)).toEqual({
      ok: true,
      skills: { episodeSkill: 'plan: a.', stepSkills: {} },
    });
    expect(validateSkills({ episodeSkill: 'plan: a.', stepSkills: null }, 2, 5)).toEqual({
      ok: true,
      skills: { episodeSkill: 'plan: a.', stepSkills: {} },
    });
  });

  it('names wrong types in plain words', () => {
    expect(validateSkills([1], 2, 5)).toEqual({ ok: false, reason: 'reply JSON was not an object' });
    expect(validateSkills('plan', 2, 5)).toEqual({ ok: false, reason: 'reply JSON was not an object' });
    expect(validateSkills(null, 2, 5)).toEqual({ ok: false, reason: 'reply JSON was not an object' });
    expect(validateSkills({}, 2, 5)).toEqual({ ok: false, reason: 'episodeSkill missing or not a string' });
    expect(validateSkills({ episodeSkill: 3 }, 2, 5)).toEqual({
      ok: false,
      reason: 'episodeSkill missing or not a string',
    });
    expect(validateSkills({ episodeSkill: ' \n ' }, 2, 5)).toEqual({ ok: false, reason: 'episodeSkill was empty' });
    expect(validateSkills({ episodeSkill: 'x', stepSkills: ['next, a.'] }, 2, 5)).toEqual({
      ok: false,
      reason: 'stepSkills was not an object keyed by step number',
    });
    expect(validateSkills({ episodeSkill: 'x', stepSkills: 'next, a.' }, 2, 5)).toEqual({
      ok: false,
      reason: 'stepSkills was not an object keyed by step number',
    });
  });

  it('drops keys outside [0, nSteps), non-integer keys, non-string and empty values; keeps the K lowest', () => {
    const raw = {
      episodeSkill: 'e',
      stepSkills: {
        '-1': 'neg',
        3: 'out',
        '1.5': 'frac',
        '01': 'lead0',
        abc: 'word',
        ' 1': 'sp',
        1: 7,
        0: 'zero',
        2: 'two',
      },
    };
    expect(validateSkills(raw, 3, 5)).toEqual({
      ok: true,
      skills: { episodeSkill: 'e', stepSkills: { 0: 'zero', 2: 'two' } },
    });
    expect(validateSkills({ episodeSkill: 'e', stepSkills: { 0: ' \n ', 1: 'b' } }, 2, 5)).toEqual({
      ok: true,
      skills: { episodeSkill: 'e', stepSkills: { 1: 'b' } },
    });
    const many = { episodeSkill: 'e', stepSkills: { 4: 'd', 1: 'a', 3: 'c', 2: 'b' } };
    expect(validateSkills(many, 5, 2)).toEqual({
      ok: true,
      skills: { episodeSkill: 'e', stepSkills: { 1: 'a', 2: 'b' } },
    });
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
    const long = validateSkills(
      { episodeSkill: 'word '.repeat(2000), stepSkills: { 0: 'y'.repeat(10_000) } },
      1,
      5,
      12,
    );
    expect(long).toEqual({ ok: true, skills: { episodeSkill: 'word word', stepSkills: { 0: 'y'.repeat(12) } } });
  });
});
