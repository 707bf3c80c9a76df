/**
 * `testConnection` (test connection) against a real local server (node:http, port 0): one request, the
 * analyzer's words for every failure, never a throw, never the key in the answer.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { testConnection } from '../../../src/core/analyzer/http';

const KEY = 'sk-test-0123456789abcdef';
interface Seen {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}
interface Reply {
  status?: number;
  body?: string;
  hang?: boolean;
  headers?: Record<string, string>;
}

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r) ?? r(null));
  server = undefined;
});

/** A server answering every request with `reply` (or what `reply(seen)` says); records what it saw. */
async function serve(reply: Reply | ((seen: Seen) => Reply)) {
  const seen: Seen[] = [];
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const s: Seen = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body };
      seen.push(s);
      const r = typeof reply === 'function' ? reply(s) : reply;
      if (r.hang) return;
      res.writeHead(r.status ?? 200, { 'content-type': 'application/json', ...r.headers });
      res.end(r.body ?? '');
    });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, seen };
}

const completion = (content: string, model = 'tiny-served') =>
  JSON.stringify({
    object: 'chat.completion',
    model,
    choices: [{ index: 0, message: { role: 'assistant', content } }],
  });
const noKey = (r: unknown) => expect(JSON.stringify(r)).not.toContain(KEY);

describe('testConnection', () => {
  it(
    'ok: one JSON-mode chat completion with the key in the header; answers the served model and the ' + 'latency',
    async () => {
      const s = await serve({ body: completion('{"ok": true}') });
      const r = await testConnection({ baseUrl: `${s.url}/v1`, model: ' tiny ', apiKey: ` ${KEY} `, timeoutMs: 5000 });
      expect(r).toEqual({ ok: true, latencyMs: expect.any(Number), model: 'tiny-served' });
      if (r.ok) expect(r.latencyMs).toBeGreaterThanOrEqual(0);
      expect(s.seen).toHaveLength(1);
      expect(s.seen[0].method).toBe('POST');
      expect(s.seen[0].path).toBe('/v1/chat/completions');
      expect(s.seen[0].headers.authorization).toBe(`Bearer ${KEY}`);
      const body = JSON.parse(s.seen[0].body);
      expect(body).toMatchObject({
        model: 'tiny',
        temperature: 0,
        stream: false,
        response_format: { type: 'json_object' },
      });
      expect(body.messages[0].content).toMatch(/JSON/);
      noKey(r);
    },
  );

  it('no key: no Authorization header; a reply without a model name answers the model asked for', async () => {
    const s = await serve({ body: JSON.stringify({ choices: [{ message: { content: '{"ok": true}' } }] }) });
    expect(await testConnection({ baseUrl: s.url, model: 'tiny' })).toEqual({
      ok: true,
      latencyMs: expect.any(Number),
      model: 'tiny',
    });
    expect(s.seen[0].headers.authorization).toBeUndefined();
  });

  it.each([
    [401, 'HTTP 401 (API key rejected)'],
    [429, 'HTTP 429 (rate limited)'],
    [500, 'HTTP 500 (server error)'],
    [404, 'HTTP 404 (not found: check the base URL and model name)'],
  ])(
    'HTTP %i: one request (no retry), the reason in words, the server body (which quotes the key) not echoed',
    async (status, reason) => {
      const s = await serve({ status, body: JSON.stringify({ error: `invalid key ${KEY}` }) });
      const r = await testConnection({ baseUrl: s.url, model: 'tiny', apiKey: KEY, timeoutMs: 5000 });
      expect(r).toEqual({ ok: false, reason });
      expect(s.seen).toHaveLength(1);
      noKey(r);
    },
  );

  it('a reply that is not a chat completion, or has no content', async () => {
    let s = await serve({ body: 'welcome to nginx' });
    expect(await testConnection({ baseUrl: s.url, model: 'tiny' })).toEqual({
      ok: false,
      reason: 'reply was not a chat completion (check the base URL)',
    });
    server?.closeAllConnections();
    await new Promise((r) => server!.close(r));
    s = await serve({ body: '<html>welcome to nginx</html>' });
    expect(await testConnection({ baseUrl: s.url, model: 'tiny' })).toEqual({
      ok: false,
      reason:
        'reply was an HTML page, not a chat completion (check the base URL: give the API root, e.g. ' +
        'http://localhost:11434)',
    });
    server?.closeAllConnections();
    await new Promise((r) => server!.close(r));
    s = await serve({ body: JSON.stringify({ choices: [] }) });
    expect(await testConnection({ baseUrl: s.url, model: 'tiny' })).toEqual({
      ok: false,
      reason: 'reply had no choices (the server returned an empty completion)',
    });
  });

  it('a chat completion whose message content is not a JSON object: fails, quoting its start', async () => {
    let s = await serve({ body: completion('ok') });
    expect(await testConnection({ baseUrl: s.url, model: 'tiny' })).toEqual({
      ok: false,
      reason:
        'reply was not JSON: its message content began "ok"; the server must answer the message content as a ' +
        'JSON object (here {"ok": true}), as the analyzer reads skills only from one',
    });
    server?.closeAllConnections();
    await new Promise((r) => server!.close(r));
    s = await serve({ body: completion(`Sure!  Here is\nthe answer you asked for: ${'ok '.repeat(40)}`) });
    expect(await testConnection({ baseUrl: s.url, model: 'tiny' })).toEqual({
      ok: false,
      reason:
        'reply was not JSON: its message content began ' +
        '"Sure! Here is the answer you asked for: ok ok ok ok ok ok…"; the server must answer the message ' +
        'content as a JSON object (here {"ok": true}), as the analyzer reads skills only from one',
    });
  });

  it('timeout: a server that never answers', async () => {
    const s = await serve({ hang: true });
    const r = await testConnection({ baseUrl: s.url, model: 'tiny', apiKey: KEY, timeoutMs: 200 });
    expect(r).toEqual({ ok: false, reason: 'timed out after 200 ms' });
    noKey(r);
  });

  it('connection refused: nothing listens on the port', async () => {
    const s = await serve({});
    server?.closeAllConnections();
    await new Promise((r) => server!.close(r));
    server = undefined;
    const r = await testConnection({ baseUrl: s.url, model: 'tiny', apiKey: KEY, timeoutMs: 5000 });
    expect(r).toEqual({ ok: false, reason: `connection refused at ${s.url} (is the server running?)` });
    noKey(r);
  });

  it(
    'a URL that is not http(s), credentials in the URL, an empty model, a bad key: no request, the rule ' +
      'and the fix',
    async () => {
      const cases: [Parameters<typeof testConnection>[0], RegExp][] = [
        [
          { baseUrl: 'ftp://example.com', model: 'tiny', apiKey: KEY },
          /baseUrl must start with http:\/\/ or https:\/\/; fix: /,
        ],
        [{ baseUrl: KEY, model: 'tiny', apiKey: KEY }, /baseUrl is not a valid URL; fix: /],
        [
          { baseUrl: `http://user:${KEY}@localhost:1`, model: 'tiny', apiKey: KEY },
          /baseUrl must not contain a user name or password/,
        ],
        [{ baseUrl: 'http://localhost:1', model: '  ', apiKey: KEY }, /model is empty/],
        [{ baseUrl: 'http://localhost:1', model: 'tiny', apiKey: `${KEY} extra` }, /apiKey contains spaces/],
      ];
      for (const [req, reason] of cases) {
        const r = await testConnection(req);
        expect(r.ok).toBe(false);
        if (!r.ok) expect(r.reason).toMatch(reason);
        noKey(r);
      }
    },
  );
});

describe('testConnection: what real servers send (reasoning models, proxies, JSON mode)', () => {
  const chat = (message: Record<string, unknown>, finish = 'stop') =>
    JSON.stringify({
      model: 'served',
      choices: [{ message: { role: 'assistant', ...message }, finish_reason: finish }],
    });

  it.each([
    [
      'content null, the answer only in reasoning_content',
      chat({ content: null, reasoning_content: '{"ok": true}' }),
      'the model answered only in reasoning_content, its message content was empty; use a non-reasoning ' +
        'model, turn thinking off (Qwen3: /no_think; vLLM, llama.cpp: enable_thinking=false; Ollama: ' +
        'think=false) or raise max_tokens',
    ],
    [
      'cut inside a think block',
      chat({ content: '<think>The user wants {"ok"' }, 'length'),
      'the reply was cut inside a <think> block; raise max_tokens or use a non-reasoning model',
    ],
    [
      'cut at max_tokens',
      chat({ content: '{"ok": tr' }, 'length'),
      'reply cut at max_tokens (finish_reason "length"); raise max_tokens on the server (Ollama ' +
        'num_predict, llama.cpp -n)',
    ],
    [
      'an error object in a 200 reply',
      JSON.stringify({ error: { message: `Invalid key ${KEY}`, code: 401 } }),
      'error inside a 200 reply (code 401: API key rejected)',
    ],
    [
      'an HTML page',
      '<!doctype html><html><body>Open WebUI</body></html>',
      'reply was an HTML page, not a chat completion (check the base URL: give the API root, e.g. ' +
        'http://localhost:11434)',
    ],
  ])('%s: not OK, the cause and the fix named', async (_, body, reason) => {
    const s = await serve({ body });
    const r = await testConnection({ baseUrl: s.url, model: 'tiny', apiKey: KEY });
    expect(r).toEqual({ ok: false, reason });
    expect(s.seen).toHaveLength(1);
    noKey(r);
  });

  it('a think block before the answer is OK', async () => {
    const s = await serve({ body: chat({ content: '<think>Easy {}.</think>\n{"ok": true}' }) });
    expect(await testConnection({ baseUrl: s.url, model: 'tiny' })).toEqual({
      ok: true,
      latencyMs: expect.any(Number),
      model: 'served',
    });
  });

  it('an event stream sent although stream: false was asked is OK', async () => {
    const chunk = JSON.stringify({
      model: 'served',
      choices: [{ delta: { content: '{"ok": true}' }, finish_reason: 'stop' }],
    });
    const body = `data: ${chunk}\n\ndata: ` + `[DONE]\n\n`;
    const s = await serve({ body, headers: { 'content-type': 'text/event-stream' } });
    expect(await testConnection({ baseUrl: s.url, model: 'tiny' })).toEqual({
      ok: true,
      latencyMs: expect.any(Number),
      model: 'served',
    });
  });

  it('JSON mode rejected (LM Studio): sent once more without response_format, then OK', async () => {
    const s = await serve((seen) =>
      JSON.parse(seen.body).response_format
        ? { status: 400, body: JSON.stringify({ error: "'response_format.type' must be 'json_schema' or 'text'" }) }
        : { body: chat({ content: '{"ok": true}' }) },
    );
    expect(await testConnection({ baseUrl: s.url, model: 'tiny' })).toEqual({
      ok: true,
      latencyMs: expect.any(Number),
      model: 'served',
    });
    expect(s.seen.map((x) => JSON.parse(x.body).response_format)).toEqual([{ type: 'json_object' }, undefined]);
  });

  it('HTTP 404 for a model Ollama has not pulled names the model and the fix', async () => {
    const s = await serve({
      status: 404,
      body: JSON.stringify({
        error: { message: 'model "qwen3:0.6b" not found, try pulling it first', type: 'api_error' },
      }),
    });
    expect(await testConnection({ baseUrl: s.url, model: 'qwen3:0.6b' })).toEqual({
      ok: false,
      reason:
        'HTTP 404 (model "qwen3:0.6b" not found: check the name against the server\'s /v1/models list; ' +
        'with Ollama run "ollama pull qwen3:0.6b")',
    });
  });

  it('HTTP 401 without a key says the key is missing', async () => {
    const s = await serve({ status: 401, body: '{}' });
    expect(await testConnection({ baseUrl: s.url, model: 'tiny' })).toEqual({
      ok: false,
      reason: 'HTTP 401 (API key missing: this server needs one; give it in the key field or OPD_ANALYZER_API_KEY)',
    });
  });
});
