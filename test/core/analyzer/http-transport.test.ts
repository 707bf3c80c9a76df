/**
 * The `http` analyzer's transport failures against a real local server (node:http, port 0): a redirect that turns
 * the POST into a GET, and a compressed body that does not decompress. Each gets a reason naming the cause, not a
 * misleading "not found" or "could not reach".
 */
import { createServer, type Server } from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpAnalyzer, testConnection } from '../../../src/core/analyzer/http';
import type { AnalyzerGroup } from '../../../src/core/analyzer/types';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r) ?? r(null));
  server = undefined;
});

const completion = JSON.stringify({
  choices: [{ index: 0, message: { role: 'assistant', content: '{"ok": true}' }, finish_reason: 'stop' }],
  model: 'm',
});

/** A server: POST /v1/chat/completions → `first`; anything else → 405 unless it is a POST (then a completion). */
async function serve(first: (res: import('node:http').ServerResponse, port: number) => void) {
  const methods: string[] = [];
  server = createServer((req, res) => {
    methods.push(`${req.method} ${req.url}`);
    req.resume();
    req.on('end', () => {
      if (req.url === '/v1/chat/completions') return first(res, port);
      if (req.method !== 'POST')
        return void res.writeHead(405, { 'content-type': 'text/plain' }).end('method not allowed');
      res.writeHead(200, { 'content-type': 'application/json' }).end(completion);
    });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}`, methods };
}

const group: AnalyzerGroup = {
  env: 'household',
  trajectories: [
    {
      task: 'put an apple in fridge.',
      success: false,
      finalObservation: 'Nothing happens.',
      steps: [{ observation: 'You are in the middle of a room.', action: 'go to fridge 1', valid: true, return: 0 }],
    },
  ],
};

describe('http analyzer transport failures', () => {
  it(
    'a 302 redirect (fetch re-sends the POST as GET) names the redirect and the address, and is not ' + 'retried',
    async () => {
      const s = await serve(
        (res, port) =>
          void res.writeHead(302, { location: `http://127.0.0.1:${port}/moved/v1/chat/completions?x=1` }).end(),
      );
      const r = await testConnection({ baseUrl: s.url, model: 'm', timeoutMs: 5000 });
      expect(r).toEqual({
        ok: false,
        reason:
          `HTTP 405 (after a redirect to ${s.url}/moved/v1/chat/completions, which fetch re-sends as ` +
          `GET: use that address's server root as the base URL; request rejected)`,
      });
      expect(s.methods).toEqual(['POST /v1/chat/completions', 'GET /moved/v1/chat/completions?x=1']);
      const a = new HttpAnalyzer({
        baseUrl: s.url,
        model: 'm',
        maxStepSkills: 5,
        maxRetries: 2,
        retryDelayMs: 1,
        timeoutMs: 5000,
      });
      expect(await a.analyze(group)).toEqual([null]);
      expect(a.stats().failureReasons).toEqual({ [r.ok ? '' : r.reason]: 1 });
      expect(a.stats().calls).toBe(1); // one POST, followed once; no retry
    },
  );

  it('a 307 redirect keeps the POST and succeeds', async () => {
    const s = await serve(
      (res, port) => void res.writeHead(307, { location: `http://127.0.0.1:${port}/moved/v1/chat/completions` }).end(),
    );
    const r = await testConnection({ baseUrl: s.url, model: 'm', timeoutMs: 5000 });
    expect(r.ok).toBe(true);
    expect(s.methods).toEqual(['POST /v1/chat/completions', 'POST /moved/v1/chat/completions']);
  });

  it(
    'a gzip body that does not decompress is "unreadable", with the zlib code, and retried with the same ' + 'prompt',
    async () => {
      const bad = Buffer.from(gzipSync(completion)).subarray(0, 20); // a truncated gzip stream
      const broken = Buffer.concat([bad, Buffer.from('not gzip at all')]);
      const s = await serve(
        (res) =>
          void res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end(broken),
      );
      const r = await testConnection({ baseUrl: s.url, model: 'm', timeoutMs: 5000 });
      expect(r.ok).toBe(false);
      const reason = r.ok ? '' : r.reason;
      expect(reason).toMatch(
        new RegExp(
          '^reply body unreadable after HTTP 200 \\(Z_[A-Z_]+\\): a compressed body that does not decompress, ' +
            "or the connection dropped mid-reply; check a proxy's content-encoding$",
        ),
      );
      const a = new HttpAnalyzer({
        baseUrl: s.url,
        model: 'm',
        maxStepSkills: 5,
        maxRetries: 2,
        retryDelayMs: 1,
        timeoutMs: 5000,
      });
      expect(await a.analyze(group)).toEqual([null]);
      expect(a.stats().calls).toBe(3); // first try + 2 retries
      expect(Object.keys(a.stats().failureReasons)).toEqual([reason]);
    },
  );

  it('a well-formed gzip body is read', async () => {
    const s = await serve(
      (res) =>
        void res
          .writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' })
          .end(gzipSync(completion)),
    );
    expect(await testConnection({ baseUrl: s.url, model: 'm', timeoutMs: 5000 })).toMatchObject({
      ok: true,
      model: 'm',
    });
  });
});
