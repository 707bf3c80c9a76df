/**
 * `npm run serve` bodies nested past MAX_BODY_DEPTH (cli/serve/http.ts `nestingPast`, `parseBody`): refused with a
 * 400 naming the depth and where it was passed, before JSON.parse, in the route's error shape; brackets inside
 * strings (escaped quotes too) do not count; a body exactly MAX_BODY_DEPTH deep is read as usual.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BODY_DEPTH, nestingPast } from '../../cli/serve/http';
import { post, testServer } from '../helpers/serve';

let srv: Awaited<ReturnType<typeof testServer>>;
beforeAll(async () => (srv = await testServer()));
afterAll(() => srv.close());

describe('nestingPast', () => {
  it('returns the index of the bracket that opens depth max + 1, -1 when none does', () => {
    expect(nestingPast('{"a":[1,{"b":2}]}', 3)).toBe(-1);
    expect(nestingPast('{"a":[1,{"b":2}]}', 2)).toBe(8); // the `{` of {"b":2}
    expect(nestingPast('[][][]', 1)).toBe(-1); // siblings close before the next opens
    expect(nestingPast('[[]]', 1)).toBe(1);
  });

  it('skips brackets inside strings, escaped quotes included', () => {
    expect(nestingPast('{"a":"[[[{{{"}', 1)).toBe(-1);
    expect(nestingPast('{"a":"\\"[[[","b":[1]}', 1)).toBe(17); // the string ends after \" and [[[
    expect(nestingPast('["\\\\",[1]]', 1)).toBe(6); // "\\" is a backslash; the string ends there
  });
});

describe('a body nested past the limit', () => {
  const deep = (n: number) => `{"model":"household","messages":${'['.repeat(n)}${']'.repeat(n)}}`;

  it('/v1/chat/completions: 400 in OpenAI error shape, naming the depth and the position', async () => {
    const r = await post(srv.base, '/v1/chat/completions', deep(3_000_000));
    expect(r.status).toBe(400);
    expect(r.body.error.type).toBe('invalid_request_error');
    expect(r.body.error.message).toMatch(/^POST \/v1\/chat\/completions: the body nests arrays and objects /);
    expect(r.body.error.message).toMatch(/ more than 64 deep \(at character 95\); send e\.g\. \{"model":/);
  });

  it('/step: 400 in the server shape', async () => {
    const r = await post(srv.base, '/step', `{"env_idx":0,"action":${'{"a":'.repeat(100)}1${'}'.repeat(100)}}`);
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(
      /^POST \/step: the body nests arrays and objects more than 64 deep \(at character 337\); /,
    );
  });

  it('a body exactly MAX_BODY_DEPTH deep passes the check and meets the schema', async () => {
    // depth: the body object 1, messages' array 2, then MAX_BODY_DEPTH − 2 arrays inside it
    const r = await post(srv.base, '/v1/chat/completions', deep(MAX_BODY_DEPTH - 1));
    expect(r.status).toBe(400);
    expect(r.body.error.message).toMatch(/field "messages\[0\]" must be an object \{role, content\}, got an array/);
  });
});
