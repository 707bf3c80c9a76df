/** jsonErrorWhere: the line and column where a text stops being JSON, whatever the engine's own words. */
import { describe, expect, it } from 'vitest';
import { jsonErrorWhere } from '../../src/core/json-where';

describe('jsonErrorWhere', () => {
  it('is null for JSON', () => {
    for (const t of ['{}', ' [1, -2.5e3, "a\\"\\u00e9", true, false, null, {"k": []}] ', '"x"', '0'])
      expect(jsonErrorWhere(t), t).toBeNull();
  });

  it('names the line and column of the first character that is not JSON, and what it is', () => {
    expect(jsonErrorWhere('{\n  "a": 1,,\n  "b": 2\n}')).toBe('at line 2, column 10 (unexpected ",")');
    expect(jsonErrorWhere('{\n  "a": tru\n}')).toBe('at line 2, column 11 (unexpected line break)');
    expect(jsonErrorWhere('{"a": 01}')).toBe('at line 1, column 8 (unexpected "1")');
    expect(jsonErrorWhere('{"a": "x\\q"}')).toBe('at line 1, column 10 (unexpected "q")');
    expect(jsonErrorWhere('[1] x')).toBe('at line 1, column 5 (unexpected "x")');
    expect(jsonErrorWhere('{"a": \u202e1}')).toBe('at line 1, column 7 (unexpected U+202E)');
  });

  it('says when the text ends too early (a file cut short)', () => {
    expect(jsonErrorWhere('{\n  "a": [1, 2')).toBe('at line 2, column 13 (the text ends before the JSON is complete)');
    expect(jsonErrorWhere('')).toBe('at line 1, column 1 (the text ends before the JSON is complete)');
  });
});
